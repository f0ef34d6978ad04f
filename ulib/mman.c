/*
 * mmap and munmap for anonymous memory, on SYS_map and SYS_unmap: zeroed
 * pages, placed by the kernel with a guard page after them. Shared and
 * private anonymous mappings are the same thing here (there is no fork
 * to tell them apart). MAP_FIXED replaces what was there by unmapping
 * first, so unlike Linux it is not atomic against another thread mapping
 * into the hole meanwhile.
 */
#include <sys/mman.h>
#include <errno.h>
#include <sys.h>

#define KNOWN (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | MAP_GROWSDOWN | \
	       MAP_NORESERVE | MAP_POPULATE | MAP_STACK | MAP_FIXED_NOREPLACE)

int __fd_kind(int fd, int *readable, int *writable);   /* fd.c */

static void *fail(int e)
{
	errno = e;
	return MAP_FAILED;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	uintptr_t a = (uintptr_t)addr;
	int share = flags & (MAP_SHARED | MAP_PRIVATE);
	if (!len || (flags & ~KNOWN) || share == 0 || share == (MAP_SHARED | MAP_PRIVATE) ||
	    (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)) || off % PAGE_SIZE)
		return fail(EINVAL);
	int rd, wr;
	if (!(flags & MAP_ANONYMOUS))    /* the console and /dev/null cannot be mapped */
		return fail(__fd_kind(fd, &rd, &wr) ? ENODEV : EBADF);
	if (prot == PROT_NONE)
		return fail(ENOTSUP);
	if ((flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && a % PAGE_SIZE)
		return fail(EINVAL);
	int kp = prot | (flags & MAP_NORESERVE ? MAP_LAZY : 0);
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
	return (void *)r;
}

int munmap(void *addr, size_t len)
{
	long r = (uintptr_t)addr % PAGE_SIZE || !len ? -EINVAL : sys_unmap(addr, len);
	if (sys_failed(r)) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

int mprotect(void *addr, size_t len, int prot)
{
	(void)addr, (void)len, (void)prot;
	errno = ENOSYS;                  /* the kernel cannot change a page's protection */
	return -1;
}
