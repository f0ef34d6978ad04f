/*
 * pipe and pipe2: a byte stream between the threads of one program, in
 * its own memory (there is no kernel object: a space's pipe is only its
 * own). Descriptors (ulib/fd.c) name one end of a struct pipe; read,
 * write, close, dup & co., fcntl, fstat, select and poll know them.
 *
 * The semantics are POSIX's and Linux's: a read waits for data and takes
 * what there is (0 at the end: no write end open); a write of at most
 * PIPE_BUF bytes goes in whole, never interleaved with another's; a
 * longer one may go in parts; with no read end open a write fails with
 * EPIPE after raising SIGPIPE (its default action ends the program);
 * O_NONBLOCK makes a wait EAGAIN. A read or write that waits is a
 * cancellation point (the wait is a condition wait; its cleanup handler
 * lets the pipe's mutex go). A signal handler runs inside the wait;
 * then, as on Linux, the call fails with EINTR if nothing was moved yet
 * and the handler has no SA_RESTART (a write that moved some bytes
 * returns their count), else it goes on. select and poll end with EINTR
 * after any handler (__pipe_wait_seq).
 *
 * Lifetime: `refs` counts every descriptor of either end and every read
 * or write under way (fd.c takes one under its table lock before it
 * lets go of the table), so a pipe is freed by whoever drops the last,
 * never under a thread still in it. `readers` and `writers` count
 * descriptors only; they change atomically and then the mutex is taken
 * to wake the waiters, who look at them under the mutex: no wake-up is
 * lost.
 *
 * select and poll wait on one program-wide sequence number, which every
 * change of any pipe advances (pipe_seq, pipe_wait_seq).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../pthread/pwait.h"

#define PIPE_SIZE 65536              /* Linux's default capacity */

struct pipe {
	pthread_mutex_t m;
	pthread_cond_t can_read, can_write;
	unsigned refs;                   /* atomic: descriptors + operations under way */
	unsigned readers, writers;       /* atomic: descriptors of each end */
	size_t head, len;                /* the ring: bytes [head, head + len) */
	char buf[PIPE_SIZE];
};

/* ---- what select and poll wait for ---- */

static pthread_mutex_t seq_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t seq_c = PTHREAD_COND_INITIALIZER;
static unsigned seq;

static void changed(void)
{
	pthread_mutex_lock(&seq_m);
	seq++;
	pthread_cond_broadcast(&seq_c);
	pthread_mutex_unlock(&seq_m);
}

unsigned __pipe_seq(void);
unsigned __pipe_seq(void)
{
	return __atomic_load_n(&seq, __ATOMIC_ACQUIRE);
}

/* Wait until some pipe changed since s was read, or until the time
   `until` of CLOCK_REALTIME (0: no limit). 0, ETIMEDOUT, or EINTR: a
   signal handler ran (select and poll are never restarted, on Linux
   neither). */
int __pipe_wait_seq(unsigned s, const struct timespec *until);
int __pipe_wait_seq(unsigned s, const struct timespec *until)
{
	int r = 0;
	pthread_mutex_lock(&seq_m);
	while (seq == s && r == 0)
		r = __cond_wait_intr(&seq_c, &seq_m, until, PW_INTR | PW_INTR_ANY);
	pthread_mutex_unlock(&seq_m);
	return r;
}

/* ---- lifetime ---- */

void __pipe_hold(struct pipe *p);
void __pipe_hold(struct pipe *p)
{
	__atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
}

void __pipe_release(struct pipe *p);
void __pipe_release(struct pipe *p)
{
	if (__atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
		pthread_mutex_destroy(&p->m);
		pthread_cond_destroy(&p->can_read);
		pthread_cond_destroy(&p->can_write);
		free(p);
	}
}

/* A descriptor of end w (1: the write end) more: a dup. fd.c's table
   lock is held: atomics only. */
void __pipe_ref(struct pipe *p, int w);
void __pipe_ref(struct pipe *p, int w)
{
	__atomic_add_fetch(w ? &p->writers : &p->readers, 1, __ATOMIC_RELAXED);
	__pipe_hold(p);
}

/* A descriptor of end w closed: the other end's waiters look again (end
   of file, EPIPE). */
void __pipe_unref(struct pipe *p, int w);
void __pipe_unref(struct pipe *p, int w)
{
	__atomic_sub_fetch(w ? &p->writers : &p->readers, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_lock(&p->m);
	pthread_cond_broadcast(&p->can_read);
	pthread_cond_broadcast(&p->can_write);
	pthread_mutex_unlock(&p->m);
	changed();
	__pipe_release(p);
}

/* ---- state ---- */

/* Without waiting: can end w go on (data or end of file to read; room
   or EPIPE to write), and is the other end gone (hang-up)? */
void __pipe_ready(struct pipe *p, int w, int *ready, int *hup);
void __pipe_ready(struct pipe *p, int w, int *ready, int *hup)
{
	pthread_mutex_lock(&p->m);
	if (w) {
		*hup = __atomic_load_n(&p->readers, __ATOMIC_ACQUIRE) == 0;
		*ready = *hup || PIPE_SIZE - p->len >= PIPE_BUF;
	} else {
		*hup = __atomic_load_n(&p->writers, __ATOMIC_ACQUIRE) == 0;
		*ready = *hup || p->len > 0;
	}
	pthread_mutex_unlock(&p->m);
}

size_t __pipe_size(struct pipe *p);
size_t __pipe_size(struct pipe *p)
{
	return __atomic_load_n(&p->len, __ATOMIC_RELAXED);
}

/* ---- read and write ---- */

static void unlock(void *p)
{
	pthread_mutex_unlock(&((struct pipe *)p)->m);
}

ssize_t __pipe_read(struct pipe *p, void *buf, size_t n, int nonblock);
ssize_t __pipe_read(struct pipe *p, void *buf, size_t n, int nonblock)
{
	if (n == 0)
		return 0;
	int err = EAGAIN;
	pthread_mutex_lock(&p->m);
	pthread_cleanup_push(unlock, p);
	while (p->len == 0 && __atomic_load_n(&p->writers, __ATOMIC_ACQUIRE) > 0) {
		if (nonblock || __cond_wait_intr(&p->can_read, &p->m, 0, PW_INTR)) {
			err = nonblock ? EAGAIN : EINTR;
			break;
		}
	}
	pthread_cleanup_pop(0);
	ssize_t got;
	if (p->len == 0) {
		got = __atomic_load_n(&p->writers, __ATOMIC_ACQUIRE) ? (errno = err, -1) : 0;
		pthread_mutex_unlock(&p->m);
		return got;
	}
	size_t k = n < p->len ? n : p->len;
	for (size_t done = 0; done < k;) {       /* at most two pieces of the ring */
		size_t at = (p->head + done) % PIPE_SIZE, run = PIPE_SIZE - at;
		if (run > k - done)
			run = k - done;
		memcpy((char *)buf + done, p->buf + at, run);
		done += run;
	}
	p->head = (p->head + k) % PIPE_SIZE;
	p->len -= k;
	pthread_cond_broadcast(&p->can_write);
	pthread_mutex_unlock(&p->m);
	changed();
	return (ssize_t)k;
}

ssize_t __pipe_write(struct pipe *p, const void *buf, size_t n, int nonblock);
ssize_t __pipe_write(struct pipe *p, const void *buf, size_t n, int nonblock)
{
	size_t done = 0;
	int err = 0;
	pthread_mutex_lock(&p->m);
	pthread_cleanup_push(unlock, p);
	while (done < n) {
		if (__atomic_load_n(&p->readers, __ATOMIC_ACQUIRE) == 0) {
			err = EPIPE;
			break;
		}
		/* at most PIPE_BUF: all of it at once; more: any room will do */
		size_t room = PIPE_SIZE - p->len, need = n <= PIPE_BUF ? n : 1;
		if (room < need) {
			if (nonblock) {
				err = EAGAIN;
				break;
			}
			if (__cond_wait_intr(&p->can_write, &p->m, 0, PW_INTR)) {
				err = EINTR;
				break;
			}
			continue;
		}
		size_t k = n - done < room ? n - done : room;
		for (size_t put = 0; put < k;) {
			size_t at = (p->head + p->len + put) % PIPE_SIZE, run = PIPE_SIZE - at;
			if (run > k - put)
				run = k - put;
			memcpy(p->buf + at, (const char *)buf + done + put, run);
			put += run;
		}
		p->len += k;
		done += k;
		pthread_cond_broadcast(&p->can_read);
	}
	pthread_cleanup_pop(0);
	pthread_mutex_unlock(&p->m);
	if (done)
		changed();
	if (err == EPIPE)
		raise(SIGPIPE);          /* default: the end of the program */
	if (done)
		return (ssize_t)done;    /* a partial write counts what went in */
	errno = err;
	return -1;
}

/* ---- pipe, pipe2 ---- */

int __fd_pipe(struct pipe *p, int flags, int fd[2]);   /* fd.c: both ends, or -1 */

int pipe2(int fd[2], int flags)
{
	if (!fd || (flags & ~(O_CLOEXEC | O_NONBLOCK))) {
		errno = EINVAL;
		return -1;
	}
	struct pipe *p = malloc(sizeof *p);
	if (!p) {
		errno = ENFILE;
		return -1;
	}
	pthread_mutex_init(&p->m, 0);
	pthread_cond_init(&p->can_read, 0);
	pthread_cond_init(&p->can_write, 0);
	p->refs = 2;
	p->readers = p->writers = 1;
	p->head = p->len = 0;
	if (__fd_pipe(p, flags, fd) < 0) {   /* EMFILE */
		free(p);
		return -1;
	}
	return 0;
}

int pipe(int fd[2])
{
	return pipe2(fd, 0);
}
