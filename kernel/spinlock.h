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
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
int spin_held(struct spinlock *l);

#endif
