/*
 * select and poll over the only descriptors there are: the console's
 * and /dev/null (fd.c: input at end of file at once, output written at
 * once), so they are always ready and nothing ever waits for one; with nothing
 * ready the call sleeps out its timeout (a negative poll timeout or a
 * null select timeout with nothing to watch would wait for ever: EINVAL
 * rather than hang the thread).
 */
#include <sys/select.h>
#include <poll.h>
#include <errno.h>
#include <time.h>

static int sleep_ns(long long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	if (ns > 0)
		nanosleep(&ts, 0);
	return 0;
}

int __fd_kind(int fd, int *readable, int *writable);   /* fd.c */

int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
	if (n < 0 || n > FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	int ready = 0;
	for (int fd = 0; fd < n; fd++) {
		int in = r && FD_ISSET(fd, r), out = w && FD_ISSET(fd, w), ex = e && FD_ISSET(fd, e);
		if (!(in || out || ex))
			continue;
		int rd, wr;
		if (!__fd_kind(fd, &rd, &wr))
			return -1;           /* EBADF */
		if (in && !rd)
			FD_CLR(fd, r), in = 0;   /* the console's output: never readable */
		if (out && !wr)
			FD_CLR(fd, w), out = 0;
		if (ex)
			FD_CLR(fd, e);           /* no exceptional conditions */
		ready += in + out;
	}
	if (ready)
		return ready;
	if (!timeout) {
		errno = EINVAL;              /* nothing could ever wake it */
		return -1;
	}
	return sleep_ns(timeout->tv_sec * 1000000000LL + timeout->tv_usec * 1000LL);
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	int ready = 0;
	for (nfds_t i = 0; i < n; i++) {
		struct pollfd *p = &fds[i];
		p->revents = 0;
		if (p->fd < 0)
			continue;
		int rd, wr, k = __fd_kind(p->fd, &rd, &wr);
		if (!k)
			p->revents = POLLNVAL;
		else
			p->revents = (rd ? (p->events & POLLIN) | POLLHUP : 0) | (wr ? p->events & POLLOUT : 0);
		ready += p->revents != 0;
	}
	if (ready)
		return ready;
	if (timeout_ms < 0) {
		errno = EINVAL;
		return -1;
	}
	return sleep_ns(timeout_ms * 1000000LL);
}
