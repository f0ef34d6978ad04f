/*
 * Spin locks: test-and-test-and-set. The kernel runs with interrupts off
 * (syscall entry and every trap gate clear IF), so a lock never needs to
 * save/restore IF: the only code that enables interrupts is the idle loop,
 * which holds no lock.
 *
 * Not tickets, though they are FIFO-fair: this kernel's CPUs are virtual
 * (QEMU, 2 host cores), and a host that deschedules the vCPU next in a
 * ticket line stops every CPU queued behind it, the lock free all along.
 * kthread at -smp 4 (four vCPUs on two host cores), barrier-bound, ran
 * 0.013-0.017 of its one-CPU speed with tickets and 0.16 with this lock
 * (docs/results.md). A preempted holder still stalls its waiters; only a
 * paravirtual lock (a waiter that halts and is kicked) avoids that. Linux
 * falls back to test-and-set in guests for the same reason
 * (virt_spin_lock). The sections are short, so unfairness costs little.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H
#include <stdint.h>

struct spinlock {
	volatile uint32_t locked;
	const char *name;
	int cpu;                 /* holder's CPU id, for deadlock panics */
	uint32_t waits;          /* acquisitions that found it held (INFO_LOCK_WAITS) */
};

#define SPINLOCK_INIT(n) { 0, (n), -1, 0 }

void spin_init(struct spinlock *l, const char *name);
int spin_held(struct spinlock *l);
void spin_misuse(struct spinlock *l, const char *what) __attribute__((noreturn, cold));

/* This CPU's id in one %gs-relative load: mycpu_id(), which cpu.h cannot
   give this header (it includes it); cpu.h asserts the offset. */
#define SPIN_CPU_ID_OFF 24
static inline int spin_cpu(void)
{
	int id;
	__asm__ volatile("movl %%gs:%c1, %0" : "=r"(id) : "i"(SPIN_CPU_ID_OFF));
	return id;
}

/* lockcheck.c: the lock-order checker (the `lockcheck` boot word). Off,
   it costs nothing: one instruction of spin_lock and of spin_unlock is a
   patch site (LOCKCHECK_SITE), listed in the lockcheck_sites section,
   which lockcheck_patch turns into a jump to the checking path at boot,
   before any AP runs, when the word is set. */
extern int lockcheck;
void lockcheck_lock(struct spinlock *l, uint64_t where);
void lockcheck_unlock(struct spinlock *l);
/* (asm, called from a site's label with l in %rdi: they keep every
   register, so the label's path changes no register allocation of the
   fast path around it, as a C call's clobbers would) */
void lockcheck_lock_thunk(void);
void lockcheck_unlock_thunk(void);
void lockcheck_patch(void);
void lockcheck_report(void);

/* A patch site: the instruction `insn` (5 bytes at least, which the
   assembler checks), listed with the label to jump to instead. */
#define LOCKCHECK_SITE(insn, label)                                     \
	"1: " insn "\n2:\n"                                              \
	".if 2b - 1b < 5\n.error \"lockcheck site under 5 bytes\"\n.endif\n" \
	".pushsection lockcheck_sites, \"a\"\n"                          \
	".balign 8\n.quad 1b, 2b, %l[" label "]\n.popsection"

/* The wait for a lock found held (spin_lock's and lockcheck_lock's). */
static inline __attribute__((always_inline)) void spin_wait(struct spinlock *l, int id)
{
	/* Held by this CPU: a self-deadlock, found here, off the
	   uncontended path (a taken lock always comes this way; the
	   holder's id is -1 or another CPU's unless it is ours). */
	if (__builtin_expect(l->cpu == id, 0))
		spin_misuse(l, "already held by this cpu");
	/* Counted once per wait, off the uncontended path: under
	   -icount a PAUSE ends the vCPU's turn, so spinning costs
	   few instructions there and only this count shows it. */
	__atomic_fetch_add(&l->waits, 1, __ATOMIC_RELAXED);
	/* Waiters read until the lock looks free, then try: a locked
	   exchange per look would bounce the line between CPUs. */
	do
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__asm__ volatile("pause");
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
}

/* Inline: a handful of instructions, taken several times on every path
   between spaces (a call and a return were a third of them). Each is a
   full compiler barrier, as a call was. The exchange's 1 is loaded by
   the patch site, so the site is an instruction the lock needs anyway. */
static inline __attribute__((always_inline)) void spin_lock(struct spinlock *l)
{
	int id = spin_cpu();
	uint32_t one;
	__asm__ goto(LOCKCHECK_SITE("movl $1, %k0", "check") : "=r"(one) : : : check);
	if (__builtin_expect(__atomic_exchange_n(&l->locked, one, __ATOMIC_ACQUIRE), 0))
		spin_wait(l, id);
	l->cpu = id;
done:
	__asm__ volatile("" ::: "memory");
	return;
check: __attribute__((cold));
	__asm__ volatile("call lockcheck_lock_thunk" : : "D"(l) : "memory");
	goto done;
}

static inline __attribute__((always_inline)) void spin_unlock(struct spinlock *l)
{
	__asm__ volatile("" ::: "memory");
	if (__builtin_expect(l->cpu != spin_cpu() || !l->locked, 0))
		spin_misuse(l, "not held");
	/* The site is the holder's reset, `l->cpu = -1`. */
	__asm__ goto(LOCKCHECK_SITE("movl $-1, %0", "check") : "=m"(l->cpu) : : : check);
release:
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	return;
check: __attribute__((cold));
	__asm__ volatile("call lockcheck_unlock_thunk" : : "D"(l) : "memory");
	goto release;
}

#endif
