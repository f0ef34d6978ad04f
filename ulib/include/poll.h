/* <poll.h> (ulib/select.c; docs/libc.md): the console's descriptors and
   /dev/null are always ready, a pipe's end when a read or write would not
   wait (POLLHUP: no writer left; POLLERR: no reader left); a closed fd is
   POLLNVAL, negative ones are skipped. With nothing ready poll waits for
   a pipe to change, or with no pipe among them sleeps the timeout. */
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
