#include "kernel.h"

void spin_init(struct spinlock *l, const char *name)
{
	l->next = l->serving = 0;
	l->name = name;
	l->cpu = -1;
}

void spin_lock(struct spinlock *l)
{
	int id = mycpu_id();
	if (l->cpu == id && l->next != l->serving)
		panic("spin_lock: %s already held by this cpu", l->name);
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != me)
		pause();
	l->cpu = id;
}

void spin_unlock(struct spinlock *l)
{
	if (l->cpu != mycpu_id() || l->next == l->serving)
		panic("spin_unlock: %s not held", l->name);
	l->cpu = -1;
	__atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}

int spin_held(struct spinlock *l)
{
	return l->cpu == mycpu_id() && l->next != l->serving;
}
