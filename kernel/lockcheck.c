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
 * Off, it costs nothing, not even a test of the word: a branch on it in
 * spin_lock and spin_unlock cost fifo's cross-space signal-wait 64
 * instructions in 1239 (issue 15 allows it 3x the same-space wait, and
 * it sits at 2.98x). Instead each spin_lock and spin_unlock has one
 * instruction it needs anyway (the exchange's `mov $1` and the holder's
 * reset) listed as a patch site (LOCKCHECK_SITE, spinlock.h). With the
 * word, lockcheck_patch overwrites each with a 5-byte jump to the site's
 * cold label, which calls lockcheck_lock or lockcheck_unlock (through a
 * thunk that keeps every register) to do the whole take or release with
 * the checks, then jumps back past the site.
 */
#include "kernel.h"

int lockcheck;

#define NCLASS 32
#define NNAME 128                       /* name pointers seen (a power of 2) */
#define DEPTH 16

static const char *cname[NCLASS];       /* class 1..: lock name */
static int nclass = 1;
static volatile uint32_t class_busy;    /* guards the tables (a lock of its own would recurse) */
static const char *nkey[NNAME];         /* name pointer -> class, open addressing */
static int nval[NNAME], nname;
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

static int slot(const char *name)
{
	return ((uint64_t)name >> 3) * 0x9e3779b97f4a7c15UL >> 57;   /* 7 bits */
}

/* The class of a lock named `name`, made at its first use. A name's
   pointer is looked up without a lock: a slot's class is written before
   its key is published. Names of one text at two addresses (two files'
   string literals) are one class. */
static int class_of(const char *name)
{
	if (!name)
		name = "(unnamed)";     /* a lock never spin_init'ed */
	int i = slot(name);
	const char *k;
	while ((k = __atomic_load_n(&nkey[i], __ATOMIC_ACQUIRE)))
		if (k == name)
			return nval[i];
		else
			i = (i + 1) & (NNAME - 1);
	while (__atomic_exchange_n(&class_busy, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
	int c;
	for (c = 1; c < nclass && lc_strcmp(cname[c], name); c++)
		;
	if (c == nclass) {
		if (nclass == NCLASS) {
			lockcheck = 0;
			panic("lockcheck: more than %d lock classes", NCLASS - 1);
		}
		cname[nclass++] = name;
	}
	if (nname < NNAME - 1) {         /* (past that, names are compared each time) */
		for (i = slot(name); nkey[i] && nkey[i] != name; i = (i + 1) & (NNAME - 1))
			;
		if (!nkey[i]) {
			nval[i] = c;
			nname++;
			__atomic_store_n(&nkey[i], name, __ATOMIC_RELEASE);
		}
	}
	__atomic_store_n(&class_busy, 0, __ATOMIC_RELEASE);
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

/* About to take l at `where`: check it against every lock this CPU
   holds. */
static void take(struct spinlock *l, int id, uint64_t where)
{
	int b = class_of(l->name);
	for (int i = 0; i < held[id].n; i++) {
		int a = class_of(held[id].l[i]->name);
		if (a == b)
			continue;
		if (seen[b][a])
			inversion(a, b, where);
		if (!seen[a][b])
			__atomic_store_n(&seen[a][b], where, __ATOMIC_RELAXED);
	}
}

/* The thunks: a site's label calls one with the lock in %rdi. They keep
   every register the C function may change (the flags are an asm's
   clobber anyway), align the stack, and pass the return address (in the
   function the lock was inlined into) as the place. */
#define THUNK(name, fn)                                                 \
	".pushsection .text\n.globl " name "\n.type " name ", @function\n" \
	name ":\n"                                                          \
	"push %rbp\nmov %rsp, %rbp\nand $-16, %rsp\n"                     \
	"push %rax\npush %rcx\npush %rdx\npush %rsi\npush %rdi\n"        \
	"push %r8\npush %r9\npush %r10\npush %r11\nsub $8, %rsp\n"       \
	"mov 8(%rbp), %rsi\ncall " fn "\nadd $8, %rsp\n"                  \
	"pop %r11\npop %r10\npop %r9\npop %r8\n"                          \
	"pop %rdi\npop %rsi\npop %rdx\npop %rcx\npop %rax\n"             \
	"leave\nret\n.size " name ", . - " name "\n.popsection\n"
__asm__(THUNK("lockcheck_lock_thunk", "lockcheck_lock")
	THUNK("lockcheck_unlock_thunk", "lockcheck_unlock"));

/* A patched spin_lock: the checks, then the take. */
void lockcheck_lock(struct spinlock *l, uint64_t where)
{
	int id = spin_cpu();
	if (lockcheck)           /* (off again once a panic began) */
		take(l, id, where);
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		spin_wait(l, id);
	l->cpu = id;
	if (lockcheck) {
		if (held[id].n == DEPTH) {
			lockcheck = 0;
			panic("lockcheck: more than %d locks held (taking %s)", DEPTH, l->name);
		}
		held[id].l[held[id].n++] = l;
	}
}

/* A patched spin_unlock, up to the release: l off this CPU's stack, in
   any order (a lock taken before the patch was never on it). */
void lockcheck_unlock(struct spinlock *l)
{
	int id = spin_cpu();
	for (int i = held[id].n - 1; i >= 0; i--)
		if (held[id].l[i] == l) {
			for (; i < held[id].n - 1; i++)
				held[id].l[i] = held[id].l[i + 1];
			held[id].n--;
			break;
		}
	l->cpu = -1;
}

/* `lockcheck=selftest`: A then B, then B under A's release and A under
   B, through patched sites: the second order must panic, naming both. */
static void selftest(void)
{
	static struct spinlock a = SPINLOCK_INIT("selftest_a"), b = SPINLOCK_INIT("selftest_b");
	spin_lock(&a);
	spin_lock(&b);
	spin_unlock(&b);
	spin_unlock(&a);
	spin_lock(&b);
	spin_lock(&a);
	panic("lockcheck: the selftest's inversion was not caught");
}

/* With the word: every site becomes `jmp label` (e9 rel32), the rest of
   its instruction int3s (never run: the label's path jumps back past
   it). Called on the boot CPU before smp_boot, holding no lock, so no
   other CPU runs the text and no release finds a take unrecorded. Text
   is mapped read-only, so the writes go through the direct map's
   writable alias of the same frames; CPUID then serializes, so this CPU
   runs no stale copy of the old bytes. */
void lockcheck_patch(void)
{
	extern const uint64_t lockcheck_sites_start[], lockcheck_sites_end[];
	int n = 0;
	if (!lockcheck)
		return;
	for (const uint64_t *s = lockcheck_sites_start; s < lockcheck_sites_end; s += 3, n++) {
		uint64_t at = s[0], end = s[1], to = s[2];
		uint8_t *w = P2V(K2P(at));
		int64_t rel = (int64_t)(to - (at + 5));
		if (end - at < 5 || rel != (int32_t)rel)
			panic("lockcheck: bad patch site %#lx", at);
		w[0] = 0xe9;
		memcpy(w + 1, &(int32_t){(int32_t)rel}, 4);
		for (uint64_t p = at + 5; p < end; p++)
			w[p - at] = 0xcc;
	}
	uint32_t a, b, c, d;
	cpuid(0, 0, &a, &b, &c, &d);
	kprintf("lockcheck: %d lock sites patched\n", n);
	if (lockcheck == 2)
		selftest();
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
