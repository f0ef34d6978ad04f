#include "kernel.h"

void spin_init(struct spinlock *l, const char *name)
{
	l->locked = 0;
	l->name = name;
	l->cpu = -1;
	l->waits = 0;
}

/* Is l held, and by CPU `cpu`? (The holder's id is valid only while held.) */
static inline int held_by(struct spinlock *l, int cpu)
{
	return l->cpu == cpu && l->locked;
}

/* spin_lock and spin_unlock (spinlock.h) found l held by us already, or
   not held by us. */
void spin_misuse(struct spinlock *l, const char *what)
{
	panic("spin lock %s: %s", l->name, what);
}

int spin_held(struct spinlock *l)
{
	return held_by(l, mycpu_id());
}
