/* Interrupts of classic VPs (ulib/rt/intr.c, kernel/intr.c, docs/abi.md). */
#ifndef ULIB_INTR_H
#define ULIB_INTR_H

#include <anima/vp.h>
#include <anima/errno.h>

void intr_on(void);                 /* the calling VP takes interrupts */
void intr_vp(struct vp_page *vpp);  /* interrupt that VP (of this space) */
void intr_all(void);                /* interrupt every other VP of the space */
/* Interrupts the program's classic VPs have taken (intr_run; racy, for
   reports: the kernel counts them with upcalls in the pseudo page) */
extern volatile uint64_t intr_taken;

/* A classic VP's kernel wait (futex, pipe) ended -EINTR: fetch what
   another process sent (ulib/rt/intr.c). Every such wait of a thread
   calls it through intr_waited, so a signal never waits unfetched. */
void intr_cut(void);
static inline long intr_waited(long r)
{
	if (__builtin_expect(r == -EINTR, 0))
		intr_cut();
	return r;
}

#endif
