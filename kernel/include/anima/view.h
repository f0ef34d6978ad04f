/*
 * Isolated views (kernel/view.c): a VP's private window on ranges of its
 * own space, with DTHREADS's twin/diff commit. The calls are
 * SYS_view_enter, SYS_view_commit, SYS_view_discard and SYS_view_leave
 * (<anima/syscall.h>); docs/abi.md describes them.
 */
#ifndef ANIMA_VIEW_H
#define ANIMA_VIEW_H

#define VIEW_ALIGN      (2UL << 20)    /* a range's address and length: multiples of 2 MiB */
#define VIEW_MAXRANGES  8              /* ranges in one VP's view */
#define VIEW_MAXLEN     (256UL << 20)  /* their total length */

#endif
