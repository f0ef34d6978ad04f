/* Interrupts of classic VPs (ulib/rt/intr.c, kernel/intr.c, docs/abi.md). */
#ifndef ULIB_INTR_H
#define ULIB_INTR_H

#include <anima/vp.h>

void intr_on(void);                 /* the calling VP takes interrupts */
void intr_vp(struct vp_page *vpp);  /* interrupt that VP (of this space) */
void intr_all(void);                /* interrupt every other VP of the space */

#endif
