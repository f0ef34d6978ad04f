/*
 * opendir, readdir, closedir over SYS_file_getdents: a DIR is a
 * descriptor of a directory on the disk and a buffer of the kernel's
 * struct kdirent records, refilled when used up. readdir's entry lives in
 * the DIR until the next call (as POSIX allows); one DIR is not for two
 * threads at once.
 */
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdio.h>
#include <animart/sys.h>
#include <anima/file.h>
#include "nocancel.h"

int __fd_kfd(int fd);            /* fd.c: the kernel descriptor of a file's fd, or -1 */

struct __dir {
	int fd;
	long len, pos;               /* bytes in buf, the next record's offset */
	struct dirent ent;
	char buf[4096] __attribute__((aligned(8)));
};

DIR *fdopendir(int fd)
{
	if (__fd_kfd(fd) < 0) {
		errno = EBADF;
		return 0;
	}
	DIR *d = calloc(1, sizeof *d);
	if (d)
		d->fd = fd;
	return d;
}

DIR *opendir(const char *path)
{
	int fd = __open_nocancel(path, O_RDONLY | O_DIRECTORY, 0);
	if (fd < 0)
		return 0;
	DIR *d = fdopendir(fd);
	if (!d)
		__close_nocancel(fd);
	return d;
}

/* The on-disk file type as a DT_*. */
static unsigned char dtype(unsigned t)
{
	static const unsigned char map[8] = { DT_UNKNOWN, DT_REG, DT_DIR, DT_CHR, DT_BLK,
					      DT_FIFO, DT_SOCK, DT_LNK };
	return t < 8 ? map[t] : DT_UNKNOWN;
}

struct dirent *readdir(DIR *d)
{
	if (d->pos >= d->len) {
		long n = syscall3(SYS_file_getdents, __fd_kfd(d->fd), d->buf, sizeof d->buf);
		if (n <= 0) {
			if (n < 0)
				errno = (int)-n;
			return 0;                /* the end (errno unchanged), or an error */
		}
		d->len = n;
		d->pos = 0;
	}
	const struct kdirent *k = (const void *)(d->buf + d->pos);
	d->pos += k->reclen;
	d->ent.d_ino = k->ino;
	d->ent.d_reclen = sizeof d->ent;
	d->ent.d_type = dtype(k->type);
	strncpy(d->ent.d_name, k->name, sizeof d->ent.d_name - 1);
	return &d->ent;
}

void rewinddir(DIR *d)
{
	lseek(d->fd, 0, SEEK_SET);
	d->len = d->pos = 0;
}

int dirfd(DIR *d)
{
	return d->fd;
}

int closedir(DIR *d)
{
	int r = __close_nocancel(d->fd);
	free(d);
	return r;
}
