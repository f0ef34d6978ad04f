/* <sys/select.h>: fd_set and select. Only the console descriptors are
   open, and always ready (0 reads end of file, 1 and 2 take writes); any
   other set bit is EBADF. With nothing to wait for select sleeps for the
   timeout, the portable sleep idiom (ulib/select.c). */
#ifndef ULIB_SYS_SELECT_H
#define ULIB_SYS_SELECT_H

#include <sys/types.h>
#include <sys/time.h>

#define FD_SETSIZE 1024
typedef struct {
	unsigned long fds_bits[FD_SETSIZE / 64];
} fd_set;
#define FD_ZERO(s)     __builtin_memset((s), 0, sizeof(fd_set))
#define FD_SET(fd, s)  ((s)->fds_bits[(fd) / 64] |= 1UL << ((fd) % 64))
#define FD_CLR(fd, s)  ((s)->fds_bits[(fd) / 64] &= ~(1UL << ((fd) % 64)))
#define FD_ISSET(fd, s) (!!((s)->fds_bits[(fd) / 64] & (1UL << ((fd) % 64))))

int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout);

#endif
