/* <poll.h>: the console descriptors are always ready (0 at end of file:
   POLLIN|POLLHUP; 1 and 2: POLLOUT), any other is POLLNVAL (none is
   open), negative ones are skipped; with nothing ready poll sleeps for
   the timeout, the portable sleep idiom (ulib/select.c). */
#ifndef ULIB_POLL_H
#define ULIB_POLL_H

#define POLLIN   0x001
#define POLLPRI  0x002
#define POLLOUT  0x004
#define POLLERR  0x008
#define POLLHUP  0x010
#define POLLNVAL 0x020

typedef unsigned long nfds_t;
struct pollfd {
	int fd;
	short events, revents;
};

int poll(struct pollfd *fds, nfds_t n, int timeout_ms);

#endif
