/*
 * sync and syncfs: every dirty block of the disk's cache written out.
 * There is one file system, and the kernel's fsync already writes back
 * every dirty block, not only one file's (kernel/sysfile.c), so both are
 * an fsync of a descriptor of "/". Without a disk there is nothing to
 * write.
 */
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include "nocancel.h"

static int all(void)
{
	int e = errno, fd = __open_nocancel("/", O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0) {
		errno = e;
		return 0;                /* no disk */
	}
	int r = __fsync_nocancel(fd);
	__close_nocancel(fd);
	return r;
}

void sync(void)
{
	all();
}

int syncfs(int fd)
{
	if (fcntl(fd, F_GETFD) < 0)
		return -1;               /* EBADF */
	return all();
}
