/*
 * Thread descriptors (struct uthread) for the runtime's pools, carved at
 * their exact size from mappings of their own. A descriptor never goes
 * back to malloc (rt_free keeps it, type-stable, in its package's pool),
 * so it needs neither malloc's 16-byte header nor its size classes,
 * about 1.25x apart: from malloc an 816-byte descriptor took an 896-byte
 * block, 80 bytes a thread for nothing (scale.c counts them).
 *
 * Called with software interrupts off (rt_create's pool_get): the lock
 * is a critical section's, as malloc's class locks are.
 */
#include <string.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animart/vprt.h>

#define SLAB (64 * 1024)             /* 80 descriptors, 256 bytes left over */

static struct spin lock;
static char *bump, *end;             /* the newest slab's uncarved rest */
static struct uthread *spare;        /* given back unpublished (rt_desc_drop) */

/* A zeroed descriptor, or 0 when memory is out. */
struct uthread *rt_desc_new(void)
{
	struct uthread *t = 0;
	spin_lock_by(&lock, 0);
	if (spare) {
		t = spare;               /* zeroed by rt_desc_drop but for next */
		spare = t->next;
		t->next = 0;
	} else {
		if (bump + RT_DESC_SIZE > end) {
			char *m = sys_map(0, SLAB, PROT_READ | PROT_WRITE);
			if (!sys_failed((long)m)) {
				bump = m;    /* the old slab's tail is abandoned */
				end = m + SLAB;
			}
		}
		if (bump + RT_DESC_SIZE <= end) {
			t = (struct uthread *)bump;  /* zero: a fresh mapping's */
			bump += RT_DESC_SIZE;
		}
	}
	spin_unlock_by(&lock, 0);
	return t;
}

/* fork (ulib/pthread/pfork.c), with software interrupts off as here:
   phase 0 takes the lock just before the kernel's copy, 1 (the parent)
   and 2 (the child, before its package starts again) let it go. Another
   VP's create could hold it at the copy: the child's first create that
   needed a new descriptor spun for good, and a spare list caught
   mid-change could hand one descriptor out twice. */
void rt_desc_fork(int phase)
{
	if (phase == 0)
		spin_lock_by(&lock, 0);
	else
		spin_unlock_by(&lock, 0);
}

/* A descriptor rt_desc_new gave that no one else has seen: for the next. */
void rt_desc_drop(struct uthread *t)
{
	memset(t, 0, sizeof *t);
	spin_lock_by(&lock, 0);
	t->next = spare;
	spare = t;
	spin_unlock_by(&lock, 0);
}
