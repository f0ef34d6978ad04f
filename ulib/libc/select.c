/*
 * select and poll over the descriptors there are (fd.c): the console's
 * and /dev/null, always ready (input at end of file at once, output
 * written at once), and pipes' ends (ulib/posix/pipe.c), ready when a
 * read or write would not wait. With nothing ready the call waits for a
 * pipe to change (pipe.c's sequence number, weak here: without pipes
 * nothing could change) until its timeout; with no pipe among the
 * descriptors it just sleeps the timeout (a negative poll timeout or a
 * null select timeout would then wait for ever: EINVAL rather than
 * hang the thread). A pipe another process also holds changes without
 * this program's sequence number: with one such end among the
 * descriptors the wait is the kernel's, on that pipe, which a change of
 * our own pipes ends too (__pipe_poll_wait); with several, the wait
 * looks again every SHARED_NS at most (a bounded poll, not a kernel
 * wait on several pipes at once).
 */
#include <sys/select.h>
#include <poll.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "../pthread/pwait.h"

int __fd_kind(int fd, int *readable, int *writable, int *hup);   /* fd.c */
int __fd_pipe_end(int fd, int *w);
#define SHARED_NS 1000000LL
__attribute__((weak)) unsigned __pipe_seq(void);
__attribute__((weak)) int __pipe_wait_seq(unsigned s, const struct timespec *until);
__attribute__((weak)) int __pipe_poll_wait(int kfd, int w, unsigned s, const struct timespec *until);

/* `pipes` as the scans make it: bit 0 a pipe, bit 1 one another process
   holds, bit 2 two or more of those; the last such descriptor above. */
#define SHARED_FD(p) ((p) >> 3)
static int shared(int pipes, int fd)
{
	return (pipes & 2 ? (pipes & 7) | 4 : 3) | fd << 3;
}

/* The end of a wait of ns nanoseconds (< 0: none), in CLOCK_REALTIME. */
static struct timespec *deadline(long long ns, struct timespec *ts)
{
	if (ns < 0)
		return 0;
	clock_gettime(CLOCK_REALTIME, ts);
	long long t = ts->tv_nsec + ns % 1000000000;
	ts->tv_sec += ns / 1000000000 + t / 1000000000;
	ts->tv_nsec = t % 1000000000;
	return ts;
}

/* 0, or -1 with EINTR: a signal handler ran. */
static int sleep_ns(long long ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	return ns > 0 ? nanosleep(&ts, 0) : 0;
}

/* What select and poll share once a look found nothing ready (s: the
   pipes' sequence number before it): with a pipe among the fds, wait
   until a pipe changes or the timeout (*ns, < 0: none) ends; with none,
   nothing could change, so sleep the timeout out. *ns becomes 0 once
   the time is up: one more look, then 0 ready. -1 with EINTR: a signal
   handler ran (with or without SA_RESTART, as on Linux); with no pipe
   and no timeout only that can end the wait (as pause: Linux's
   select(0, 0, 0, 0, 0), an old idiom for it). */
static int wait_more(int pipes, unsigned s, long long *ns, struct timespec **until,
		     struct timespec *ts)
{
	if (!pipes || !__pipe_wait_seq) {
		if (*ns < 0)
			return pause();
		if (sleep_ns(*ns) < 0)
			return -1;
		*ns = 0;
		return 0;
	}
	if (!*until)
		*until = deadline(*ns, ts);  /* (once: 0 for no timeout) */
	int w, kfd = (pipes & 6) == 2 && __pipe_poll_wait ? __fd_pipe_end(SHARED_FD(pipes), &w) : -1;
	int k = kfd >= 0 ? __pipe_poll_wait(kfd, w, s, *until) : -1;
	if (k >= 0) {                    /* one shared pipe: the kernel's wait on it */
		if (k == EINTR) {
			errno = EINTR;
			return -1;
		}
		if (k == ETIMEDOUT)
			*ns = 0;
		return 0;
	}
	struct timespec soon, *by = *until;
	if (pipes & 2) {                 /* shared pipes: look again soon */
		deadline(SHARED_NS, &soon);
		if (!by || soon.tv_sec < by->tv_sec ||
		    (soon.tv_sec == by->tv_sec && soon.tv_nsec < by->tv_nsec))
			by = &soon;
	}
	int r = __pipe_wait_seq(s, by);
	if (r == EINTR) {
		errno = EINTR;
		return -1;
	}
	if (r == ETIMEDOUT && by == *until)
		*ns = 0;
	return 0;
}

static int sel_scan(int n, fd_set *r, fd_set *w, fd_set *e, fd_set *out, int *pipes)
{
	int ready = 0;
	*pipes = 0;
	for (int fd = 0; fd < n; fd++) {
		int in = r && FD_ISSET(fd, r), ou = w && FD_ISSET(fd, w), ex = e && FD_ISSET(fd, e);
		if (!(in || ou || ex))
			continue;
		int rd, wr, hup, k = __fd_kind(fd, &rd, &wr, &hup);
		if (!k)
			return -1;           /* EBADF */
		*pipes = k == 'p' ? *pipes | 1 : k == 'P' ? shared(*pipes, fd) : *pipes;
		if (in && rd)
			FD_SET(fd, &out[0]), ready++;
		if (ou && wr)
			FD_SET(fd, &out[1]), ready++;
	}
	return ready;
}

/* select and poll are cancellation points: as they begin (even when a
   descriptor is ready at once) and in their waits */
int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
	pcancel_point();
	if (n < 0 || n > FD_SETSIZE || (timeout && (timeout->tv_sec < 0 || timeout->tv_usec < 0))) {
		errno = EINVAL;
		return -1;
	}
	long long ns = timeout ? timeout->tv_sec * 1000000000LL + timeout->tv_usec * 1000LL : -1;
	struct timespec ts, *until = 0;
	for (;;) {
		unsigned s = __pipe_seq ? __pipe_seq() : 0;
		fd_set out[2];
		FD_ZERO(&out[0]);
		FD_ZERO(&out[1]);
		int pipes;
		int ready = sel_scan(n, r, w, e, out, &pipes);
		if (ready < 0)
			return -1;
		if (ready || ns == 0) {
			if (r)
				*r = out[0];
			if (w)
				*w = out[1];
			if (e)
				FD_ZERO(e);      /* no exceptional conditions */
			return ready;
		}
		if (wait_more(pipes, s, &ns, &until, &ts) < 0)
			return -1;
	}
}

static int poll_scan(struct pollfd *fds, nfds_t n, int *pipes)
{
	int ready = 0;
	*pipes = 0;
	for (nfds_t i = 0; i < n; i++) {
		struct pollfd *p = &fds[i];
		p->revents = 0;
		if (p->fd < 0)
			continue;
		int rd, wr, hup, k = __fd_kind(p->fd, &rd, &wr, &hup);
		if (!k)
			p->revents = POLLNVAL;
		else if (k == 'p' || k == 'P') {
			*pipes = k == 'p' ? *pipes | 1 : shared(*pipes, p->fd);
			/* a read end: POLLIN with data, POLLHUP with no writer
			   left; a write end: POLLOUT with room, POLLERR with no
			   reader left (Linux's) */
			if (rd)
				p->revents = (short)((p->events & POLLIN) | (hup ? POLLHUP : 0));
			if (wr)
				p->revents = (short)(hup ? POLLERR : p->events & POLLOUT);
		} else
			p->revents = (short)((rd ? (p->events & POLLIN) | (hup ? POLLHUP : 0) : 0) |
					     (wr ? p->events & POLLOUT : 0));
		ready += p->revents != 0;
	}
	return ready;
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	pcancel_point();
	long long ns = timeout_ms < 0 ? -1 : timeout_ms * 1000000LL;
	struct timespec ts, *until = 0;
	for (;;) {
		unsigned s = __pipe_seq ? __pipe_seq() : 0;
		int pipes;
		int ready = poll_scan(fds, n, &pipes);
		if (ready || ns == 0)
			return ready;
		if (wait_more(pipes, s, &ns, &until, &ts) < 0)
			return -1;
	}
}
