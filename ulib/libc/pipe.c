/*
 * pipe and pipe2: a byte stream between threads of one program or of
 * several (fork, exec and posix_spawn carry it). The pipe is the
 * kernel's (kernel/pipe.c: SYS_pipe); its ends are kernel descriptors
 * that fd.c's entries name, so read, write, close, dup & co., fcntl,
 * fstat, select and poll know them. The kernel's reads and writes never
 * wait; the waiting is here:
 *
 * - while no other process holds the pipe (SYS_pipe_wait says
 *   PIPE_PRIVATE), only this program's threads can change it: a waiter
 *   waits on the program's pipe sequence number (below), which every
 *   read, write and close of a pipe here advances, as a condition wait
 *   of its package (cancellable; a handler runs inside it). fork
 *   advances it too, so a waiter then looks again and finds the pipe
 *   shared;
 * - else it waits in the kernel (SYS_pipe_wait, BLK_PIPE: only the
 *   thread blocks on an upcall VP), until the pipe changes; the kernel
 *   queues the wait on the thread's park word too, which it sets to
 *   PARK_TIMED as a timed park does, so that pthread_kill or
 *   pthread_cancel (thread_unblock) ends it.
 *
 * The semantics are POSIX's and Linux's: a read waits for data and takes
 * what there is (0 at the end: no write end open); a write of at most
 * PIPE_BUF bytes goes in whole, never interleaved with another's; a
 * longer one may go in parts; with no read end open a write fails with
 * EPIPE after raising SIGPIPE (its default action ends the program);
 * O_NONBLOCK makes a wait EAGAIN. A read or write that waits is a
 * cancellation point. A signal handler runs inside the wait; then, as
 * on Linux, the call fails with EINTR if nothing was moved yet and the
 * handler has no SA_RESTART (a write that moved some bytes returns
 * their count), else it goes on. select and poll end with EINTR after
 * any handler (__pipe_wait_seq).
 *
 * Lifetime: the kernel's (its open files count the descriptors of every
 * process, and a call under way holds its own).
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
#include <animart/sys.h>
#include <anima/file.h>
#include "../pthread/pwait.h"

_Static_assert(PIPE_BUF == PIPE_ATOMIC, "PIPE_BUF is the kernel's atomic write");

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

/* ---- waiting ---- */

/* What SYS_pipe_wait said last of each kernel descriptor: private as of
   generation gen (priv[k] == gen + 1), which every fork and close here
   advances. Only a fork of ours makes a private pipe shared, so until
   then a wait needs no call to know it (a pipe that became private
   meanwhile is waited for in the kernel, as correctly, once more). */
static unsigned gen, priv[MAXFILE_SPACE];

void __pipe_changed(void);
void __pipe_changed(void)
{
	__atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL);
	changed();
}

/* A fork's child: its pipes are shared too (no lock: one taken at the
   fork may be held for good here). */
void __pipe_forked(void);
void __pipe_forked(void)
{
	__atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL);
}

/* In the kernel, for a pipe another process names: until the pipe
   changes, or the thread is unblocked (a signal, a cancel). The thread's
   park word says PARK_TIMED meanwhile, as in thread_park_timed. */
static void kwait(int kfd, size_t want)
{
	struct thread *self = thread_self();
	int s = PARK_RUN;
	if (!self) {                     /* no package: the kernel's wait alone */
		syscall6(SYS_pipe_wait, kfd, want, 0, 0, PIPEW_BLOCK, 0);
		return;
	}
	if (!__atomic_compare_exchange_n(&self->park, &s, PARK_TIMED, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_ACQUIRE)) {
		__atomic_exchange_n(&self->park, PARK_RUN, __ATOMIC_SEQ_CST);   /* a permit: taken */
		return;
	}
	syscall6(SYS_pipe_wait, kfd, want, (long)&self->park, PARK_TIMED, PIPEW_BLOCK, 0);
	s = PARK_TIMED;                  /* (else an unblock set RUN and woke us) */
	__atomic_compare_exchange_n(&self->park, &s, PARK_RUN, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE);
}

static void unlock_seq(void *arg)
{
	(void)arg;
	pthread_mutex_unlock(&seq_m);
}

/* The caller could not go on with kernel descriptor kfd (a write: of
   want bytes); s is the sequence number from before it tried. Wait for
   a change: 0 (look again), or EINTR (a handler without SA_RESTART
   ran), -1 with errno (EBADF: closed meanwhile). A cancellation point. */
static int await(int kfd, size_t want, unsigned s)
{
	unsigned g = __atomic_load_n(&gen, __ATOMIC_ACQUIRE);
	long st = kfd >= 0 && kfd < MAXFILE_SPACE && __atomic_load_n(&priv[kfd], __ATOMIC_RELAXED) == g + 1
		  ? PIPE_PRIVATE : syscall6(SYS_pipe_wait, kfd, want, 0, 0, 0, 0);
	if (st < 0)
		return (int)-st;
	if (st & PIPE_READY)
		return 0;
	if (st & PIPE_PRIVATE) {
		__atomic_store_n(&priv[kfd], g + 1, __ATOMIC_RELAXED);
		int r = 0;
		pthread_mutex_lock(&seq_m);
		pthread_cleanup_push(unlock_seq, 0);   /* (a cancel acts with the mutex held) */
		while (seq == s && r == 0)
			r = __cond_wait_intr(&seq_c, &seq_m, 0, PW_INTR);
		pthread_cleanup_pop(1);
		return r;
	}
	struct thread *self = thread_self();
	if (!self) {
		kwait(kfd, want);
		return 0;
	}
	if (pcancel_pending())
		pcancel_act();
	/* As a wait of the POSIX layer's (pwait.h): async_hold keeps the
	   package from running a handler as it resumes the thread, so the
	   handlers run here (psig_run), where their SA_RESTART is known */
	self->async_hold = 1;
	kwait(kfd, want);
	int sig = psig_due(self) ? psig_run(self) : 0;
	if (__atomic_exchange_n(&self->async_hold, 0, __ATOMIC_RELAXED) == 2)
		pw_retry(self);          /* an asynchronous cancel held back meanwhile */
	if (sig & SIGW_INTR)
		return EINTR;
	if (pcancel_pending())
		pcancel_act();
	return 0;
}

/* ---- state ---- */

/* Without waiting: can end w go on (data or end of file to read; room
   for PIPE_BUF or EPIPE to write), is the other end gone (hang-up), does
   another process name the pipe? */
void __pipe_ready(int kfd, int w, int *ready, int *hup, int *shared);
void __pipe_ready(int kfd, int w, int *ready, int *hup, int *shared)
{
	long st = syscall6(SYS_pipe_wait, kfd, w ? PIPE_BUF : 1, 0, 0, 0, 0);
	if (st < 0)
		st = PIPE_READY | PIPE_HUP | PIPE_PRIVATE;   /* (closed meanwhile: the call will say EBADF) */
	*ready = !!(st & PIPE_READY);
	*hup = !!(st & PIPE_HUP);
	*shared = !(st & PIPE_PRIVATE);
}

/* ---- read and write ---- */

static ssize_t fail(int e)
{
	errno = e;
	return -1;
}

ssize_t __pipe_read(int kfd, void *buf, size_t n, int nonblock);
ssize_t __pipe_read(int kfd, void *buf, size_t n, int nonblock)
{
	for (;;) {
		unsigned s = __pipe_seq();
		long r = syscall3(SYS_file_read, kfd, buf, n);
		if (r > 0)
			changed();
		if (r != -EAGAIN || nonblock)
			return r < 0 ? fail((int)-r) : r;
		int e = await(kfd, 1, s);
		if (e)
			return fail(e);
	}
}

/* At most PIPE_BUF bytes go in whole (the kernel's PIPE_ATOMIC); more
   may go in parts, and a wait ended by a handler or EPIPE after some
   returns their count. */
ssize_t __pipe_write(int kfd, const void *buf, size_t n, int nonblock);
ssize_t __pipe_write(int kfd, const void *buf, size_t n, int nonblock)
{
	size_t done = 0;
	int err = 0;
	while (done < n && !err) {
		unsigned s = __pipe_seq();
		long r = syscall3(SYS_file_write, kfd, (const char *)buf + done, n - done);
		if (r > 0) {
			done += (size_t)r;
			changed();
		} else if (r != -EAGAIN || nonblock)
			err = r ? (int)-r : EIO;
		else
			err = await(kfd, n - done <= PIPE_BUF ? n - done : 1, s);
	}
	if (err == EPIPE)
		raise(SIGPIPE);          /* default: the end of the program */
	if (done || !n)
		return (ssize_t)done;    /* a partial write counts what went in */
	return fail(err);
}

/* ---- pipe, pipe2 ---- */

int __fd_pipe(const int k[2], int flags, int fd[2]);   /* fd.c: both ends, or -1 */

int pipe2(int fd[2], int flags)
{
	if (!fd || (flags & ~(O_CLOEXEC | O_NONBLOCK)))
		return fail(EINVAL);
	int k[2];
	long r = syscall1(SYS_pipe, k);
	if (r < 0)
		return fail(r == -ENOMEM ? ENFILE : (int)-r);
	if (__fd_pipe(k, flags, fd) < 0) {   /* EMFILE */
		syscall1(SYS_file_close, k[0]);
		syscall1(SYS_file_close, k[1]);
		return -1;
	}
	return 0;
}

int pipe(int fd[2])
{
	return pipe2(fd, 0);
}
