/*
 * shm_open and shm_unlink over files: a name is taken as glibc takes it
 * (leading slashes skipped, then 1..NAME_MAX bytes without '/'; empty,
 * "." or "..", with a '/' or past NAME_MAX+5 EINVAL, else past NAME_MAX
 * ENAMETOOLONG; shm_unlink of a bad name ENOENT), so "/NAME", "NAME"
 * and "//NAME" are the one file /dev/shm/NAME on the disk, /dev and
 * /dev/shm made (01777) at the first shm_open that creates. The descriptor is a file's: read, write,
 * ftruncate, fstat and mmap (MAP_SHARED too) work as on any file.
 * Without a disk, shm_open with O_CREAT is EROFS and without it ENOENT.
 */
#include <sys/mman.h>
#include <fcntl.h>
#include <errno.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nocancel.h"

/* The file for name into p: 0, or -1 with errno. */
static int path(const char *name, char *p)
{
	if (!name) {
		errno = EINVAL;
		return -1;
	}
	while (*name == '/')
		name++;
	size_t n = strlen(name);
	/* "." and "..", /dev/shm itself and its parent, are no object's */
	if (n == 0 || n > NAME_MAX + 5 || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;          /* (glibc: past its buffer too) */
		return -1;
	}
	if (n > NAME_MAX) {
		errno = ENAMETOOLONG;    /* (glibc: the file system's answer) */
		return -1;
	}
	strcpy(p, "/dev/shm/");
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
	return __open_nocancel(p, (oflag & (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC, mode);
}

int shm_unlink(const char *name)
{
	char p[16 + NAME_MAX];
	if (path(name, p) < 0) {
		if (errno == EINVAL)
			errno = ENOENT;      /* glibc: a bad name is not there */
		return -1;
	}
	return unlink(p);
}
