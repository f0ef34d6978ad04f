/*
 * mmap(MAP_SHARED | MAP_ANONYMOUS) on a shared segment (kernel/seg.c):
 * memory that stays shared with every child fork makes (fork keeps a
 * space's segment mappings shared, kernel/fork.c), charged and bounded
 * as segments are (SEG_MAXLEN bytes each, MAXSEG_SPACE at once). The
 * handle is dropped as soon as the segment is mapped, so the mappings
 * are its only references: its frames go back when the last space
 * unmaps it or ends. Futexes on it are keyed by (segment, offset), so
 * process-shared pthread objects and semaphores placed in it block and
 * wake across processes.
 *
 * What differs from Linux: a segment lives at its own address in the
 * segment window, so MAP_FIXED at another address is EINVAL and a hint
 * is ignored; PROT_EXEC is EINVAL (segments hold data only); munmap
 * takes a whole mapping only (EINVAL for a part of one); mprotect works
 * page by page (SYS_seg_protect). mremap does not exist here.
 */
#include <sys/mman.h>
#include <errno.h>
#include <animart/seg.h>
#include <animart/aspace.h>

void *__mmap_shared_anon(void *addr, size_t len, int prot, int flags);
int __munmap_seg(void *addr, size_t len);
int __mprotect_seg(void *addr, size_t len, int prot);

static void *fail(long e)
{
	errno = (int)e;
	return MAP_FAILED;
}

void *__mmap_shared_anon(void *addr, size_t len, int prot, int flags)
{
	if ((prot & PROT_EXEC) || len > SEG_MAXLEN)
		return fail(len > SEG_MAXLEN ? ENOMEM : EINVAL);
	long h = seg_create(len);
	if (sys_failed(h))
		return fail(h == -EAGAIN ? ENOMEM : -h);   /* (MAXSEG_SPACE live segments) */
	long r = seg_map(h, PROT_READ | PROT_WRITE);
	long base = r;
	if (!sys_failed(r) && (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && (long)addr != base)
		r = -EINVAL;             /* it lives at its own address only */
	if (!sys_failed(r) && !(prot & PROT_WRITE))
		r = syscall3(SYS_seg_protect, base, len, prot);
	if (sys_failed(r) && !sys_failed(base))
		seg_unmap((void *)base);
	sys_cap_drop(h);                 /* the mapping keeps it alive now */
	return sys_failed(r) ? fail(r == -EEXIST ? ENOMEM : -r) : (void *)base;
}

static int err(long r)
{
	if (sys_failed(r)) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* munmap in the segment window: the whole segment mapped at addr (its
   base), EINVAL for a part of one; nothing mapped there is no error. */
int __munmap_seg(void *addr, size_t len)
{
	long r = syscall3(SYS_seg_protect, addr, 0, 0);     /* (len 0: its length) */
	if (r == -ENOMEM)
		return 0;
	if (!sys_failed(r) && ((uint64_t)r > len + PAGE_SIZE - 1 || seg_unmap(addr) < 0))
		r = -EINVAL;             /* a part, or not its base */
	if (!sys_failed(r))
		as_uncharge((uint64_t)r);   /* mmap counted it in RLIMIT_AS (mman.c) */
	return err(r);
}

int __mprotect_seg(void *addr, size_t len, int prot)
{
	return err((prot & PROT_EXEC) ? -EACCES : syscall3(SYS_seg_protect, addr, len, prot));
}
