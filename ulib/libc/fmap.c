/*
 * mmap of a file and msync, over SYS_fmap and SYS_msync (kernel/fmap.c,
 * docs/files.md): a file on the disk is mapped page by page as it is
 * touched. MAP_PRIVATE gives the program its own copy of each page;
 * MAP_SHARED pages go back to the file on msync, munmap and exit() (not
 * when the program is killed or ends through _exit). The console, pipes
 * and /dev/null cannot be mapped (ENODEV).
 */
#include <sys/mman.h>
#include <errno.h>
#include <animart/sys.h>
#include "../pthread/pwait.h"

int __fd_kfd(int fd);                                            /* fd.c */
int __fd_kind(int fd, int *readable, int *writable, int *hup);   /* fd.c */
void *__mmap_file(void *addr, size_t len, int prot, int flags, int fd, off_t off);

static void *fail(long e)
{
	errno = (int)e;
	return MAP_FAILED;
}

/* mmap's file case (mman.c has checked the flags, the offset's
   alignment and a fixed address's). */
void *__mmap_file(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	int rd, wr, hup, kfd = __fd_kfd(fd);
	if (kfd < 0)
		return fail(__fd_kind(fd, &rd, &wr, &hup) ? ENODEV : EBADF);
	uintptr_t a = (uintptr_t)addr;
	int fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
	int kp = prot == PROT_NONE ? PROT_READ : prot;   /* (then taken away, as mman.c does) */
	int kf = flags & MAP_SHARED ? FMAP_SHARED : 0;
	if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE)) {
		long r = sys_unmap(addr, len);
		if (sys_failed(r))
			return fail(-r);
	}
	long r = syscall6(SYS_fmap, (long)(a - a % PAGE_SIZE), (long)len, kp, kf, kfd, (long)off);
	if (sys_failed(r) && a && !fixed && r != -EBADF && r != -EACCES && r != -EINVAL)
		r = syscall6(SYS_fmap, 0, (long)len, kp, kf, kfd, (long)off);   /* addr was a hint */
	if (sys_failed(r))
		return fail(-r);
	if (prot == PROT_NONE) {
		long p = sys_protect((void *)r, len, PROT_NONE);
		if (sys_failed(p)) {
			sys_unmap((void *)r, len);
			return fail(-p);
		}
	}
	return (void *)r;
}

int __mlock_busy(const void *addr, size_t len);   /* mlock.c */

int msync(void *addr, size_t len, int flags)
{
	pcancel_point();                 /* (POSIX's) */
	int both = MS_ASYNC | MS_SYNC;
	long r = (flags & ~(both | MS_INVALIDATE)) || (flags & both) == both ? -EINVAL :
		 (flags & MS_INVALIDATE) && __mlock_busy(addr, len) ? -EBUSY :   /* Linux: a locked page */
		 syscall3(SYS_msync, addr, len, flags & MS_SYNC ? MSYNC_WAIT : 0);
	if (sys_failed(r)) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* exit: every MAP_SHARED page the program wrote goes to its file (the
   kernel does not write them back when a space ends). */
void __msync_all(void)
{
	syscall3(SYS_msync, USER_BASE, USER_TOP - USER_BASE, 0);
}
