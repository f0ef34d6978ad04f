/* Isolated views (kernel/view.c; docs/abi.md "Isolated views"): a VP's
   private window on 2 MiB-aligned ranges of its space, committed as
   byte diffs. Each call acts on the calling VP's view. */
#ifndef ULIB_VIEW_H
#define ULIB_VIEW_H

#include <animart/sys.h>
#include <anima/view.h>

/* [addr, addr+len) joins the view: 0, -EINVAL, -EBUSY, -ENOMEM */
static inline long view_enter(void *addr, size_t len) { return syscall2(SYS_view_enter, addr, len); }
/* the bytes each private page changed into the space, then a refresh: pages committed */
static inline long view_commit(void) { return syscall0(SYS_view_commit); }
/* a refresh without committing: private pages dropped */
static inline long view_discard(void) { return syscall0(SYS_view_discard); }
/* the view ends, uncommitted stores dropped: private pages dropped */
static inline long view_leave(void) { return syscall0(SYS_view_leave); }
/* pages the views of this space hold, all charged to it */
static inline long view_pages(void) { return sys_getinfo(INFO_VIEW_PAGES); }

#endif
