/*
 * Shared segments (<anima/seg.h>, docs/abi.md "Shared segments"): memory
 * that several spaces map at one address. The creator gets a handle with
 * every right; it passes the segment on with seg_grant (narrowing the
 * rights) or sys_spawn_caps; every holder maps it with seg_map, at the
 * same address in every space. Cross-space synchronization objects to
 * put in a segment: <animart/xsync.h>.
 */
#ifndef ULIB_SEG_H
#define ULIB_SEG_H

#include <animart/sys.h>
#include <anima/seg.h>

/* A new zeroed segment of len bytes: a handle, or -errno. */
static inline long seg_create(uint64_t len) { return syscall1(SYS_seg_create, len); }
/* Map it (prot: PROT_READ [| PROT_WRITE]) at its one address: returns
   that address, or -errno (check with sys_failed). */
static inline long seg_map(long handle, int prot) { return syscall3(SYS_seg_map, handle, 0, prot); }
static inline long seg_map_at(long handle, void *addr, int prot)
{
	return syscall3(SYS_seg_map, handle, addr, prot);
}
static inline long seg_unmap(void *addr) { return syscall1(SYS_seg_unmap, addr); }
static inline long seg_revoke(long handle) { return syscall1(SYS_seg_revoke, handle); }
/* A copy of the handle for a child or the parent, with `rights` (SEG_*;
   0: the same), which may only narrow. */
static inline long seg_grant(long handle, int space, int rights)
{
	return syscall3(SYS_cap_grant, handle, space, rights);
}
/* The segment's address; len and rights through the pointers (may be 0). */
static inline long seg_info(long handle, uint64_t *len, int *rights)
{
	uint64_t o[2];
	long r = syscall2(SYS_seg_info, handle, o);
	if (r >= 0 && len)
		*len = o[0];
	if (r >= 0 && rights)
		*rights = (int)o[1];
	return r;
}

#endif
