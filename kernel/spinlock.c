#include "kernel.h"

void spin_init(struct spinlock *l, const char *name)
{
	l->next = l->serving = 0;
	l->name = name;
	l->cpu = -1;
}

/* Is l held, and by CPU `cpu`? (The holder's id is valid only while held.) */
static inline int held_by(struct spinlock *l, int cpu)
{
	return l->cpu == cpu && l->next != l->serving;
}

void spin_lock(struct spinlock *l)
{
	int id = mycpu_id();
	if (held_by(l, id))
		panic("spin_lock: %s already held by this cpu", l->name);
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != me)
		pause();
	l->cpu = id;
}

void spin_unlock(struct spinlock *l)
{
	if (!held_by(l, mycpu_id()))
		panic("spin_unlock: %s not held", l->name);
	l->cpu = -1;
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

int spin_held(struct spinlock *l)
{
	return held_by(l, mycpu_id());
}
