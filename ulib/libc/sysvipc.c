/*
 * System V IPC's objects as files (sysvipc.h): an object with
 * identifier ID is /dev/shm/.sysvKIND.ID, which every process maps
 * MAP_SHARED; a key is the symbolic link /dev/shm/.sysvKINDkey.KEY to
 * "ID", made after the object is whole, so the link's creation decides a
 * race between two gets of one key and the loser's object goes. Owner,
 * group and mode are the file's, so opening it checks them as Linux
 * checks the object's. Each kind has its own identifiers and keys, as on
 * Linux.
 */
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "sysvipc.h"

#define IDS (1 << 16)                  /* identifiers tried for a new object */

void sysv_path(char *p, const char *kind, int id) { sprintf(p, "/dev/shm/.sysv%s.%d", kind, id); }
static void key_path(char *p, const char *kind, key_t k) { sprintf(p, "/dev/shm/.sysv%skey.%d", kind, (int)k); }

int sysv_key_find(const char *kind, key_t k)
{
	char p[48], buf[16];
	key_path(p, kind, k);
	ssize_t n = readlink(p, buf, sizeof buf - 1);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atoi(buf);
}

void sysv_key_drop(const char *kind, key_t k, int id)
{
	char p[48];
	if (k != IPC_PRIVATE && sysv_key_find(kind, k) == id) {
		key_path(p, kind, k);
		unlink(p);
	}
}

/* A new object: its id, or -1 with errno. */
static int make(const char *kind, size_t len, const void *hdr, size_t hlen, int mode)
{
	struct stat st;
	if (stat("/dev/shm", &st) < 0 && errno == ENOENT)
		if ((mkdir("/dev", 01777) < 0 && errno != EEXIST) ||
		    (mkdir("/dev/shm", 01777) < 0 && errno != EEXIST))
			return -1;
	char p[48];
	int fd = -1, id = (getpid() & 0xffff) << 8;
	for (int tries = 0; fd < 0 && tries < IDS; tries++, id++) {
		sysv_path(p, kind, id);
		fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
		if (fd < 0 && errno != EEXIST)
			return -1;
	}
	if (fd < 0) {
		errno = ENOSPC;                /* as Linux past SHMMNI, SEMMNI, MSGMNI */
		return -1;
	}
	id--;
	const char *h = hdr;
	if (ftruncate(fd, (off_t)len) < 0 || pwrite(fd, h + 4, hlen - 4, 4) != (ssize_t)(hlen - 4) ||
	    pwrite(fd, h, 4, 0) != 4) {
		int e = errno;
		close(fd);
		unlink(p);
		errno = e == ENOSPC || e == EFBIG ? ENOMEM : e;
		return -1;
	}
	close(fd);
	return id;
}

/* Linux's check of an existing object's permissions at a get: read if
   any read bit of flags is set, write if any write bit, by the caller's
   effective ids against the file's mode (root passes). */
static int allowed(const char *kind, int id, int flags)
{
	char p[48];
	int want = (flags & 0444 ? R_OK : 0) | (flags & 0222 ? W_OK : 0);
	sysv_path(p, kind, id);
	return !want || faccessat(AT_FDCWD, p, want, AT_EACCESS) == 0;
}

int sysv_get(const char *kind, key_t key, int flags, size_t len, const void *hdr, size_t hlen,
	     int nonew, int (*fits)(int id, void *arg), void *arg)
{
	for (;;) {
		int id = key == IPC_PRIVATE ? -1 : sysv_key_find(kind, key);
		if (id >= 0) {
			if ((flags & IPC_CREAT) && (flags & IPC_EXCL)) {
				errno = EEXIST;
				return -1;
			}
			if (!allowed(kind, id, flags)) {
				errno = EACCES;
				return -1;
			}
			int f = fits(id, arg);
			if (f == 1)
				continue;      /* removed meanwhile: look again */
			return f < 0 ? -1 : id;
		}
		if (key != IPC_PRIVATE && !(flags & IPC_CREAT)) {
			errno = ENOENT;
			return -1;
		}
		if (nonew) {
			errno = nonew;
			return -1;
		}
		id = make(kind, len, hdr, hlen, flags);
		if (id < 0 || key == IPC_PRIVATE)
			return id;
		char p[48], target[16];
		key_path(p, kind, key);
		sprintf(target, "%d", id);
		if (symlink(target, p) == 0)
			return id;
		int e = errno;
		sysv_path(p, kind, id);
		unlink(p);
		if (e != EEXIST) {
			errno = e;
			return -1;
		}
		/* another get of the key won: take its object */
	}
}
