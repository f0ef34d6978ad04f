/*
 * pathconf and fpathconf: the limits of a file, for Anima's one directory
 * and its descriptors (the console, /dev/null, pipes). The figures are
 * those glibc reports on Linux for a file system it has no table for
 * (names of 255 bytes, paths of 4096, PIPE_BUF 4096, LINK_MAX 127), so a
 * program sizes its buffers as it would there. A file that does not exist
 * is ENOENT, a bad descriptor EBADF, an unknown name EINVAL (errno as
 * POSIX says); an option with no limit -1 with errno unchanged.
 */
#include <unistd.h>
#include <fcntl.h>
#include <limits.h>
#include <errno.h>

static long limit(int name)
{
	switch (name) {
	case _PC_LINK_MAX:
		return 127;
	case _PC_MAX_CANON:
	case _PC_MAX_INPUT:
	case _PC_NAME_MAX:
		return NAME_MAX;
	case _PC_PATH_MAX:
		return PATH_MAX;
	case _PC_PIPE_BUF:
		return PIPE_BUF;
	case _PC_CHOWN_RESTRICTED:
	case _PC_NO_TRUNC:
	case _PC_2_SYMLINKS:
		return 1;
	case _PC_VDISABLE:
		return 0;
	case _PC_FILESIZEBITS:
		return 64;
	case _PC_REC_INCR_XFER_SIZE:
	case _PC_REC_MAX_XFER_SIZE:
	case _PC_REC_MIN_XFER_SIZE:
	case _PC_REC_XFER_ALIGN:
	case _PC_ALLOC_SIZE_MIN:
		return 4096;
	case _PC_SYNC_IO:
	case _PC_ASYNC_IO:
	case _PC_PRIO_IO:
	case _PC_SOCK_MAXBUF:
	case _PC_SYMLINK_MAX:
		return -1;               /* no such limit */
	}
	errno = EINVAL;
	return -1;
}

long pathconf(const char *path, int name)
{
	if (!path || access(path, F_OK) != 0) {
		if (!path)
			errno = EFAULT;
		return -1;               /* (access set ENOENT) */
	}
	return limit(name);
}

long fpathconf(int fd, int name)
{
	if (fcntl(fd, F_GETFD) < 0)
		return -1;               /* EBADF */
	return limit(name);
}
