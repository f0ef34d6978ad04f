/*
 * mmap, munmap and mprotect for anonymous memory, on SYS_map, SYS_unmap
 * and SYS_protect (a file's mapping is fmap.c's): zeroed
 * pages, placed by the kernel with a guard page after them. Shared
 * anonymous mappings are shared segments (mshared.c), which fork keeps
 * shared. MAP_FIXED replaces what was there by unmapping
 * first, so unlike Linux it is not atomic against another thread mapping
 * into the hole meanwhile.
 */
#include <sys/mman.h>
#include <errno.h>
#include <animart/sys.h>
#include <anima/seg.h>
#include <anima/layout.h>
#include <string.h>
#include <animart/aspace.h>
#include <unistd.h>
#include <sys/resource.h>

#define KNOWN (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_GROWSDOWN | \
	       MAP_NORESERVE | MAP_POPULATE | MAP_STACK | MAP_FIXED_NOREPLACE)

void *__mmap_file(void *addr, size_t len, int prot, int flags, int fd, off_t off);   /* fmap.c */
void *__mmap_shared_anon(void *addr, size_t len, int prot, int flags);              /* mshared.c */
int __munmap_seg(void *addr, size_t len);
int __mprotect_seg(void *addr, size_t len, int prot);
int __mlock_map_denied(size_t len);            /* mlock.c */
int __mlock_map_done(void *p, size_t len);
void __mlock_unmapped(const void *addr, size_t len);

/* In the segment window: MAP_SHARED | MAP_ANONYMOUS memory (mshared.c). */
static int in_segs(const void *addr)
{
	return (uintptr_t)addr >= SEG_BASE && (uintptr_t)addr < SEG_TOP;
}

static void *fail(int e)
{
	errno = e;
	return MAP_FAILED;
}

static void *map_any(void *addr, size_t len, int prot, int flags, int fd, off_t off);

/* RLIMIT_AS (<animart/aspace.h>): the new range counts, less what a
   MAP_FIXED replaces; past the soft limit ENOMEM with nothing changed,
   as Linux. A failed call takes back its charge and what its MAP_FIXED
   unmapping took away. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	uintptr_t a = (uintptr_t)addr;
	int fixed = (flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE);
	uint64_t had = fixed && len <= USER_TOP ? as_held(a, len) : 0;
	uint64_t net = len <= USER_TOP ? ((len + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1)) - had : 0;
	if (as_charge(net))
		return fail(ENOMEM);
	void *r = map_any(addr, len, prot, flags, fd, off);
	if (r != MAP_FAILED && fixed)
		__mlock_unmapped(r, len);    /* (what it replaced was unmapped) */
	if (r != MAP_FAILED && __mlock_map_done(r, len)) {   /* (after MCL_FUTURE, no room to lock it) */
		munmap(r, len);
		return fail(EAGAIN);
	}
	if (r == MAP_FAILED) {
		int e = errno;
		as_uncharge(net + had - (fixed ? as_held(a, len) : had));
		errno = e;
	}
	return r;
}

static void *map_any(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	uintptr_t a = (uintptr_t)addr;
	int share = flags & (MAP_SHARED | MAP_PRIVATE);
	if (!len || (flags & ~KNOWN) || share == 0 || share == (MAP_SHARED | MAP_PRIVATE) ||
	    (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) || off % PAGE_SIZE)
		return fail(EINVAL);
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && a % PAGE_SIZE)
		return fail(EINVAL);
	/* More than the user address space holds, or a fixed range that
	   ends past it: ENOMEM (POSIX's; Linux's), before MAP_FIXED takes
	   away what was there (its unmap called such a range EINVAL) */
	if (len > USER_TOP - PAGE_SIZE ||
	    ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && a > USER_TOP - PAGE_SIZE - len))
		return fail(ENOMEM);
	int e = __mlock_map_denied(len);   /* after mlockall(MCL_FUTURE): Linux's EAGAIN */
	if (e)
		return fail(e);
	if (!(flags & MAP_ANONYMOUS))    /* a file on the disk (fmap.c) */
		return __mmap_file(addr, len, prot, flags, fd, off);
	if (share == MAP_SHARED)         /* shared with the children fork makes */
		return __mmap_shared_anon(addr, len, prot, flags);
	/* PROT_NONE: address space, no memory (a demand-zero region whose
	   access SYS_protect then takes away: mprotect gives it later, the
	   usual way to reserve a range and commit parts of it) */
	int kp = prot == PROT_NONE ? PROT_READ | MAP_LAZY : prot | (flags & MAP_NORESERVE ? MAP_LAZY : 0);
	if (flags & MAP_FIXED && !(flags & MAP_FIXED_NOREPLACE)) {
		long r = sys_unmap(addr, len);
		if (sys_failed(r))
			return fail((int)-r);
	}
	long r = (long)sys_map((void *)(a - a % PAGE_SIZE), len, kp);
	if (sys_failed(r) && a && !(flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)))
		r = (long)sys_map(0, len, kp);   /* addr was only a hint */
	if (sys_failed(r))
		return fail((int)-r);
	if (prot == PROT_NONE) {
		long p = sys_protect((void *)r, len, PROT_NONE);
		if (sys_failed(p)) {
			sys_unmap((void *)r, len);
			return fail((int)-p);
		}
	}
	return (void *)r;
}

int munmap(void *addr, size_t len)
{
	if (in_segs(addr) && len && (uintptr_t)addr % PAGE_SIZE == 0) {
		int r = __munmap_seg(addr, len);
		if (!r)
			__mlock_unmapped(addr, len);
		return r;
	}
	if ((uintptr_t)addr % PAGE_SIZE || !len) {
		errno = EINVAL;
		return -1;
	}
	uint64_t had = as_held((uintptr_t)addr, len);    /* (a hole is no error: not counted) */
	long r = sys_unmap(addr, len);
	if (sys_failed(r)) {
		errno = (int)-r;
		return -1;
	}
	as_uncharge(had);
	__mlock_unmapped(addr, len);
	return 0;
}

int mprotect(void *addr, size_t len, int prot)
{
	if (in_segs(addr))
		return __mprotect_seg(addr, len, prot);
	long r = (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) ? -EINVAL : sys_protect(addr, len, prot);
	if (sys_failed(r)) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* MADV_DONTNEED on Linux drops private anonymous pages, which then read
   as zeros. Here the pages are zeroed in place: unmapping and mapping
   again would lose the mapping's protection (the kernel cannot tell it)
   and leave a moment when another thread's mmap could take the hole. So
   the range must be mapped and writable (Linux: ENOMEM for a hole; here
   such an access faults). MADV_FREE may read back either way on Linux:
   zeros here. */
int madvise(void *addr, size_t len, int advice)
{
	uintptr_t a = (uintptr_t)addr;
	if (a % PAGE_SIZE || a + len < a) {
		errno = EINVAL;
		return -1;
	}
	switch (advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL: case MADV_WILLNEED:
	case MADV_DONTFORK: case MADV_DOFORK: case MADV_MERGEABLE: case MADV_UNMERGEABLE:
	case MADV_HUGEPAGE: case MADV_NOHUGEPAGE: case MADV_DONTDUMP: case MADV_DODUMP:
		return 0;
	case MADV_DONTNEED:
	case MADV_FREE: {
		/* the pages read as zeros, their frames go back (kernel/discard.c);
		   Linux's EINVAL for no length, ENOMEM for a hole */
		long r = len ? syscall2(SYS_discard, addr, len) : 0;
		if (sys_failed(r)) {
			errno = (int)-r;
			return -1;
		}
		return 0;
	}
	}
	errno = EINVAL;                  /* MADV_REMOVE needs a shared file mapping */
	return -1;
}

/* Nothing is locked (no page here ever leaves memory), but the range
   must be mapped, as Linux checks: ENOMEM for a hole or an address past
   the program's (SYS_mapped). A segment's window (shared memory) and
   the runtime's VP range are the runtime's own mappings: taken as
   mapped. */
int __mlock_mapped_ok(const void *addr, size_t len);
int __mlock_mapped_ok(const void *addr, size_t len)
{
	/* Linux's arithmetic: the pages addr..addr+len touch, the count
	   wrapping to none past 2^64 (then 0); a range past it EINVAL */
	uintptr_t a = (uintptr_t)addr & ~(uintptr_t)(PAGE_SIZE - 1);
	size_t n = (len + ((uintptr_t)addr - a) + PAGE_SIZE - 1) & ~(size_t)(PAGE_SIZE - 1);
	if (!n || in_segs((void *)a))
		return 0;
	long r = a + n < a ? -EINVAL : syscall2(SYS_mapped, a, n);
	if (sys_failed(r) && r != -EPERM) {
		errno = r == -EINVAL ? EINVAL : ENOMEM;
		return -1;
	}
	return 0;
}

int posix_madvise(void *addr, size_t len, int advice)
{
	if ((uintptr_t)addr % PAGE_SIZE || advice < POSIX_MADV_NORMAL || advice > POSIX_MADV_DONTNEED)
		return EINVAL;
	(void)len;
	return 0;
}
