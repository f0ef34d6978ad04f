/* <sys/uio.h>: scatter/gather I/O on the descriptors (ulib/uio.c). */
#ifndef ULIB_SYS_UIO_H
#define ULIB_SYS_UIO_H

#include <sys/types.h>
#include <stddef.h>

struct iovec {
	void *iov_base;
	size_t iov_len;
};

ssize_t readv(int fd, const struct iovec *iov, int n);
ssize_t writev(int fd, const struct iovec *iov, int n);
ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off);
ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off);

#endif
