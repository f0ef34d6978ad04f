/* readv and writev (<sys/uio.h>) on read and write. A writev of at most
   PIPE_BUF bytes in all goes out as one write, so on a pipe it stays
   whole, never interleaved with another writer's (POSIX's rule for a
   write, which Linux keeps for writev), and on the console it is one
   line's worth under one lock. Longer ones write piece by piece and stop
   at a short write, returning what went. */
#include <sys/uio.h>
#include <unistd.h>
#include <limits.h>
#include <string.h>
#include <errno.h>
#include <animart/fence.h>
#include "nocancel.h"
#include "../pthread/pwait.h"

static ssize_t total(const struct iovec *iov, int n)
{
	if (n < 0 || n > IOV_MAX) {
		errno = EINVAL;
		return -1;
	}
	size_t sum = 0;
	for (int i = 0; i < n; i++) {
		if (iov[i].iov_len > (size_t)SSIZE_MAX - sum) {
			errno = EINVAL;
			return -1;
		}
		sum += iov[i].iov_len;
	}
	return (ssize_t)sum;
}

/* One read or write a buffer, in order, at the running offset `off`
   (pread and pwrite; read and write ignore it), stopping at a short one,
   which returns what went: an error after some bytes is that count. */
typedef ssize_t (*ioop)(int fd, void *buf, size_t n, off_t off);

static ssize_t each(int fd, const struct iovec *iov, int n, off_t off, ioop op)
{
	ssize_t done = 0;
	for (int i = 0; i < n; i++) {
		if (!iov[i].iov_len)
			continue;
		ssize_t r = op(fd, iov[i].iov_base, iov[i].iov_len, off + done);
		if (r < 0)
			return done ? done : -1;
		done += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return done;
}

static ssize_t rd(int fd, void *buf, size_t n, off_t off)
{
	(void)off;
	return __read_nocancel(fd, buf, n);
}

static ssize_t wr(int fd, void *buf, size_t n, off_t off)
{
	(void)off;
	return __write_nocancel(fd, buf, n);
}

/* The write side's pwrite (fd.c, when the kernel writes files): weak, so
   until it is there a pwritev fails as a write to a read-only descriptor. */
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off) __attribute__((weak));

static ssize_t prd(int fd, void *buf, size_t n, off_t off)
{
	return pread(fd, buf, n, off);
}

static ssize_t pwr(int fd, void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

/* writev and readv are cancellation points (POSIX): at the start, and in
   a pipe's wait; not between the buffers, where some have gone. */
ssize_t writev(int fd, const struct iovec *iov, int n)
{
	pcancel_point();
	FENCED(writev(fd, iov, n));
	ssize_t sum = total(iov, n);
	if (sum < 0)
		return -1;
	if (sum <= PIPE_BUF) {
		char buf[PIPE_BUF];
		size_t at = 0;
		for (int i = 0; i < n; i++) {
			memcpy(buf + at, iov[i].iov_base, iov[i].iov_len);
			at += iov[i].iov_len;
		}
		return __write_nocancel(fd, buf, at);
	}
	return each(fd, iov, n, 0, wr);
}

/* Fills the buffers in order; a short read (end of file, a pipe with
   less waiting) ends it. */
ssize_t readv(int fd, const struct iovec *iov, int n)
{
	pcancel_point();
	FENCED(readv(fd, iov, n));
	if (total(iov, n) < 0)
		return -1;
	return each(fd, iov, n, 0, rd);
}

/* preadv and pwritev: one pread or pwrite per buffer at the running
   offset (the descriptor's own offset stays), stopping at a short one;
   ESPIPE on anything but a file. */
ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	if (total(iov, n) < 0)
		return -1;
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	return each(fd, iov, n, off, prd);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	if (total(iov, n) < 0)
		return -1;
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	if (!pwrite) {
		errno = EBADF;
		return -1;
	}
	return each(fd, iov, n, off, pwr);
}
