/*
 * lockcheck: a lock-order checker for test boots (the `lockcheck` word,
 * also on with `memcheck`).
 *
 * Each lock name is a class ("space" covers every space's lock). Each
 * CPU keeps a stack of the locks it holds. Taking lock B while holding A
 * records "A before B" with the place B was taken; if "B before A" was
 * recorded before, anywhere, at any time in this boot, the two orders
 * can deadlock two CPUs (the 59ea0b0 kop_lock/table_lock hang), so the
 * kernel panics at once with both places, before it spins. An inversion
 * is caught the first time both paths run, at -smp 1 too, not only when
 * two CPUs happen to meet in it.
 *
 * Two locks of one class nested (two spaces, two pipes) are not checked:
 * their order is by instance, which a class cannot see.
 *
 * Off, it costs spin_lock and spin_unlock one load and a branch each.
 */
#include "kernel.h"

int lockcheck;

#define NCLASS 32
#define DEPTH 16

static const char *cname[NCLASS];       /* class 1..: lock name */
static int nclass = 1;
static volatile uint32_t class_busy;    /* guards cname (a lock of its own would recurse) */
static uint64_t seen[NCLASS][NCLASS];   /* seen[a][b]: where b was taken under a, or 0 */

static struct {
	struct spinlock *l[DEPTH];
	int n;
} held[MAXCPU];

static int lc_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a - *b;
}

/* l's class, named at first use. */
static int class_of(struct spinlock *l)
{
	int c = __atomic_load_n(&l->cls, __ATOMIC_ACQUIRE);
	if (c)
		return c;
	while (__atomic_exchange_n(&class_busy, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
	for (c = 1; c < nclass && lc_strcmp(cname[c], l->name); c++)
		;
	if (c == nclass) {
		if (nclass == NCLASS) {
			lockcheck = 0;
			panic("lockcheck: more than %d lock classes", NCLASS - 1);
		}
		cname[nclass++] = l->name;
	}
	__atomic_store_n(&class_busy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&l->cls, c, __ATOMIC_RELEASE);
	return c;
}

static void __attribute__((noreturn)) inversion(int a, int b, uint64_t here)
{
	uint64_t o1, o2;
	const char *s1 = ksym_lookup(here, &o1), *s2 = ksym_lookup(seen[b][a], &o2);
	lockcheck = 0;           /* panic takes locks of its own */
	panic("lockcheck: lock order inversion: %s taken while holding %s at %#lx (%s+%#lx), "
	      "but %s was taken while holding %s at %#lx (%s+%#lx)",
	      cname[b], cname[a], here, s1 ? s1 : "?", o1,
	      cname[a], cname[b], seen[b][a], s2 ? s2 : "?", o2);
}

/* About to take l: check it against every lock this CPU holds. The place
   is our return address: spin_lock is always inlined into its caller. */
void lockcheck_take(struct spinlock *l)
{
	uint64_t where = (uint64_t)__builtin_return_address(0);
	int b = class_of(l);
	int id = spin_cpu();
	for (int i = 0; i < held[id].n; i++) {
		int a = held[id].l[i]->cls;
		if (a == b)
			continue;
		if (seen[b][a])
			inversion(a, b, where);
		if (!seen[a][b])
			__atomic_store_n(&seen[a][b], where, __ATOMIC_RELAXED);
	}
}

/* l is now held by this CPU. */
void lockcheck_push(struct spinlock *l)
{
	int id = spin_cpu();
	if (held[id].n == DEPTH) {
		lockcheck = 0;
		panic("lockcheck: more than %d locks held (taking %s)", DEPTH, l->name);
	}
	held[id].l[held[id].n++] = l;
}

/* l is released: off this CPU's stack, in any order. */
void lockcheck_pop(struct spinlock *l)
{
	int id = spin_cpu();
	for (int i = held[id].n - 1; i >= 0; i--)
		if (held[id].l[i] == l) {
			for (; i < held[id].n - 1; i++)
				held[id].l[i] = held[id].l[i + 1];
			held[id].n--;
			return;
		}
}

/* At halt: print every order seen, so docs can follow the code. */
void lockcheck_report(void)
{
	if (!lockcheck)
		return;
	kprintf("lockcheck: orders seen (held > taken):");
	for (int a = 1; a < nclass; a++)
		for (int b = 1; b < nclass; b++)
			if (seen[a][b])
				kprintf(" %s>%s", cname[a], cname[b]);
	kprintf("\n");
}
