/*
 * Ticket spinlocks. The kernel runs with interrupts off (syscall entry and
 * every trap gate clear IF), so a lock never needs to save/restore IF:
 * the only code that enables interrupts is the idle loop, which holds no
 * lock. Tickets make contended locks FIFO-fair across CPUs.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H
#include <stdint.h>

struct spinlock {
	volatile uint32_t next;
	volatile uint32_t serving;
	const char *name;
	int cpu;                 /* holder's CPU id, for deadlock panics */
};

#define SPINLOCK_INIT(n) { 0, 0, (n), -1 }

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
	if (__builtin_expect(l->cpu == id, 0) && l->next != l->serving)
		spin_misuse(l, "already held by this cpu");
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != me)
		__asm__ volatile("pause");
	l->cpu = id;
	__asm__ volatile("" ::: "memory");
}

static inline void spin_unlock(struct spinlock *l)
{
	__asm__ volatile("" ::: "memory");
	if (__builtin_expect(l->cpu != spin_cpu() || l->next == l->serving, 0))
		spin_misuse(l, "not held");
	l->cpu = -1;
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

#endif
