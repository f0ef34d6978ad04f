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

/* Inline: a handful of instructions, taken several times on every path
   between spaces (a call and a return were a third of them). Each is a
   full compiler barrier, as a call was. */
static inline void spin_lock(struct spinlock *l)
{
	int id = spin_cpu();
	/* Waiters read until the lock looks free, then try: a locked
	   exchange per look would bounce the line between CPUs. */
	if (__builtin_expect(__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE), 0)) {
		/* Held by this CPU: a self-deadlock, found here, off the
		   uncontended path (a taken lock always comes this way; the
		   holder's id is -1 or another CPU's unless it is ours). */
		if (__builtin_expect(l->cpu == id, 0))
			spin_misuse(l, "already held by this cpu");
		/* Counted once per wait, off the uncontended path: under
		   -icount a PAUSE ends the vCPU's turn, so spinning costs
		   few instructions there and only this count shows it. */
		__atomic_fetch_add(&l->waits, 1, __ATOMIC_RELAXED);
		do
			while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
				__asm__ volatile("pause");
		while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
	}
	l->cpu = id;
	__asm__ volatile("" ::: "memory");
}

static inline void spin_unlock(struct spinlock *l)
{
	__asm__ volatile("" ::: "memory");
	if (__builtin_expect(l->cpu != spin_cpu() || !l->locked, 0))
		spin_misuse(l, "not held");
	l->cpu = -1;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif
