/*
 * shm_open and shm_unlink over files: a name "/NAME" (one leading '/',
 * no other; EINVAL, ENAMETOOLONG past NAME_MAX) is the file /dev/shm/NAME
 * on the disk, /dev and /dev/shm made (01777) at the first shm_open that
 * creates. The descriptor is a file's: read, write, ftruncate, fstat
 * work; mmap of it is ENODEV, as every file's (ulib maps anonymous
 * memory only), so processes share through the file's bytes, not pages.
 * Without a disk, shm_open with O_CREAT is EROFS and without it ENOENT.
 */
#include <sys/mman.h>
#include <fcntl.h>
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file for name into p: 0, or -1 with errno. */
static int path(const char *name, char *p)
{
	size_t n = name ? strlen(name) : 0;
	if (n < 2 || name[0] != '/' || strchr(name + 1, '/')) {
		errno = EINVAL;
		return -1;
	}
	if (n - 1 > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(p, "/dev/shm");
	strcat(p, name);
	return 0;
}

int shm_open(const char *name, int oflag, mode_t mode)
{
	char p[16 + NAME_MAX];
	if (path(name, p) < 0)
		return -1;
	if ((oflag & O_ACCMODE) == O_WRONLY) {
		errno = EINVAL;                  /* POSIX: O_RDONLY or O_RDWR */
		return -1;
	}
	if (oflag & O_CREAT) {
		struct stat st;
		if (stat("/dev/shm", &st) < 0 && errno == ENOENT)
			if ((mkdir("/dev", 01777) < 0 && errno != EEXIST) ||
			    (mkdir("/dev/shm", 01777) < 0 && errno != EEXIST))
				return -1;
	}
	return open(p, (oflag & (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC, mode);
}

int shm_unlink(const char *name)
{
	char p[16 + NAME_MAX];
	return path(name, p) < 0 ? -1 : unlink(p);
}
