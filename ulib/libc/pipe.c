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
 *   thread blocks on an upcall VP; a classic VP's thread waits there only
 *   once no other thread of the VP can run: vpwait), until the pipe
 *   changes; the kernel queues the wait on the thread's park word too,
 *   which it sets to PARK_TIMED as a timed park does, so that
 *   pthread_kill or pthread_cancel (thread_unblock) ends it.
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
#include <animart/spin.h>
#include <animart/clock.h>
#include <animart/sys.h>
#include <animart/intr.h>
#include <anima/file.h>
#include "../pthread/pwait.h"
#include "nap.h"
#include <animart/fence.h>

_Static_assert(PIPE_BUF == PIPE_ATOMIC, "PIPE_BUF is the kernel's atomic write");

/* ---- what select and poll wait for ---- */

static pthread_mutex_t seq_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t seq_c = PTHREAD_COND_INITIALIZER;
static unsigned seq;

/* Threads of select and poll waiting in the kernel on a pipe another
   process holds (__pipe_poll_wait): a change here must end their wait
   too, as it ends seq_c's waiters. A spin lock guards it: a thread
   holding one is never switched out or cancelled, so the waker never
   meets a poller that went away. */
#define NKPOLL 8
static struct thread *kpoll[NKPOLL];
static int nkpoll;
static struct spin kpoll_lk;

/* End poller t's kernel wait (PARK_TIMED: a futex wake ends it), or the
   one it is about to start (PARK_RUN: a permit, kwait then takes it). A
   poller parked elsewhere (PARK_PARKED: a handler, seq_m) is past its
   wait and looks again anyway: left alone, not requeued from a queue it
   is on. */
static void kpoll_wake(struct thread *t)
{
	int s = __atomic_load_n(&t->park, __ATOMIC_RELAXED);
	while (s == PARK_RUN || s == PARK_TIMED)
		if (__atomic_compare_exchange_n(&t->park, &s, s == PARK_RUN ? PARK_PERMIT : PARK_RUN, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
			if (s == PARK_TIMED)
				syscall3(SYS_futex_wake, &t->park, 1, 0);
			return;
		}
}

static void changed(void)
{
	pthread_mutex_lock(&seq_m);
	seq++;
	pthread_cond_broadcast(&seq_c);
	pthread_mutex_unlock(&seq_m);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* seq, then nkpoll: a poller joins, then reads seq */
	if (__atomic_load_n(&nkpoll, __ATOMIC_RELAXED)) {
		spin_lock(&kpoll_lk);
		for (int i = 0; i < nkpoll; i++)
			kpoll_wake(kpoll[i]);
		spin_unlock(&kpoll_lk);
	}
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
static void unlock_seq(void *arg);
int __pipe_wait_seq(unsigned s, const struct timespec *until)
{
	int r = 0;
	pthread_mutex_lock(&seq_m);
	pthread_cleanup_push(unlock_seq, 0);   /* (a cancel acts with the mutex held) */
	while (seq == s && r == 0)
		r = __cond_wait_intr(&seq_c, &seq_m, until, PW_INTR | PW_INTR_ANY);
	pthread_cleanup_pop(1);
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
   fork may be held for good here). The caller is the child's only
   thread, so seq_m, seq_c and the kernel pollers' list are fresh again:
   another parent thread may have held seq_m or polled at the fork, and
   it does not exist here to let go. */
void __pipe_forked(void);
void __pipe_forked(void)
{
	__atomic_add_fetch(&gen, 1, __ATOMIC_ACQ_REL);
	seq_m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	seq_c = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
	nkpoll = 0;
	kpoll_lk = (struct spin)SPIN_INIT;
}

/* In the kernel, for a pipe another process names: until the pipe
   changes, or the thread is unblocked (a signal, a cancel). The thread's
   park word says PARK_TIMED meanwhile, as in thread_park_timed. At most
   ns nanoseconds (0: no limit). */
static long kwait(int kfd, size_t want, long ns)
{
	struct thread *self = thread_self();
	int s = PARK_RUN;
	if (!self)                       /* no package: the kernel's wait alone */
		return syscall6(SYS_pipe_wait, kfd, want, 0, 0, PIPEW_BLOCK, ns);
	if (!__atomic_compare_exchange_n(&self->park, &s, PARK_TIMED, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_ACQUIRE)) {
		__atomic_exchange_n(&self->park, PARK_RUN, __ATOMIC_SEQ_CST);   /* a permit: taken */
		return 0;
	}
	long r = intr_waited(syscall6(SYS_pipe_wait, kfd, want, (long)&self->park, PARK_TIMED,
				      PIPEW_BLOCK, ns));
	s = PARK_TIMED;                  /* (else an unblock set RUN and woke us) */
	__atomic_compare_exchange_n(&self->park, &s, PARK_RUN, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE);
	return r;                        /* (PIPE_* bits: no wait at all) */
}

/* kwait for a thread of a classic VP (no upcalls: naive), whose kernel
   wait blocks the VP whole, and the other threads queued on it with it:
   while some of them can run (yield_other), the thread waits here
   instead, looking at the pipe between their turns, as the runtime's
   timed waits do there (rt_block_until); in the kernel only once none
   can. A handler or a cancel due ends it: the caller looks. */
static void vpwait(struct thread *self, int kfd, size_t want)
{
	int (*other)(struct thread *) = self->ops->yield_other;
	/* det with other threads: a kernel wait would hold the token, and
	   the thread that would cancel or signal this one never ran (nap.h):
	   poll. When the other process's bytes are seen depends on it, as
	   waitpid's and F_SETLKW's there */
	if (nap_polls(self)) {
		for (uint64_t ns = 0; !psig_due(self) && !pcancel_pending(); poll_nap(&ns)) {
			long st = syscall6(SYS_pipe_wait, kfd, want, 0, 0, 0, 0);
			if (st < 0 || (st & (PIPE_READY | PIPE_PRIVATE)))
				return;
		}
		return;
	}
	if (other && !__atomic_load_n(&self->vpp->upcall_entry, __ATOMIC_RELAXED))
		for (;;) {
			if (psig_due(self) || pcancel_pending())
				return;
			long st = syscall6(SYS_pipe_wait, kfd, want, 0, 0, 0, 0);
			if (st < 0 || (st & (PIPE_READY | PIPE_PRIVATE)))
				return;
			if (!other(self))
				break;
		}
	kwait(kfd, want, 0);
}

/* vpwait for a poll (__pipe_poll_wait, kernel descriptor kfd: the pipe
   another process holds): a change of our own pipes (seq moved on from
   s) ends it too, and so does the time, ns nanoseconds (0: none). On a
   classic VP it looks between the other threads' turns while some can
   run, then waits in the kernel on the pipe, as vpwait; our own pipes'
   changes end that wait (changed: kpoll_wake). What kwait says, or 0:
   look again. */
static long vppoll(struct thread *self, int kfd, size_t want, unsigned s, long ns)
{
	int (*other)(struct thread *) = self->ops->yield_other;
	uint64_t end = ns ? now_ns() + (uint64_t)ns : 0;
	int polls = nap_polls(self);     /* (det with other threads: as vpwait) */
	if (polls || (other && !__atomic_load_n(&self->vpp->upcall_entry, __ATOMIC_RELAXED)))
		for (uint64_t nap = 0;; polls ? poll_nap(&nap) : (void)0) {
			if (psig_due(self) || pcancel_pending() || __pipe_seq() != s ||
			    (end && now_ns() >= end))
				return 0;
			long st = syscall6(SYS_pipe_wait, kfd, want, 0, 0, 0, 0);
			if (st < 0 || (st & (PIPE_READY | PIPE_PRIVATE)))
				return st;
			if (!polls && !other(self))
				break;
		}
	long left = end ? (long)(end - now_ns()) : 0;
	return end && left <= 0 ? 0 : kwait(kfd, want, left);
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
		kwait(kfd, want, 0);
		return 0;
	}
	if (pcancel_pending())
		pcancel_act();
	/* As a wait of the POSIX layer's (pwait.h): async_hold keeps the
	   package from running a handler as it resumes the thread, so the
	   handlers run here (psig_run), where their SA_RESTART is known */
	self->async_hold = 1;
	vpwait(self, kfd, want);         /* (cut short: what came is fetched, intr_cut) */
	int sig = psig_due(self) ? psig_run(self) : 0;
	pw_done(self);                   /* (an asynchronous cancel held back meanwhile; a
					   handler posted since the look above) */
	if (sig & SIGW_INTR)
		return EINTR;
	if (pcancel_pending())
		pcancel_act();
	return 0;
}

/* select and poll with one pipe's end among their descriptors that
   another process holds (kernel descriptor kfd, the write end if w):
   wait in the kernel until it changes, a pipe of ours changes (changed:
   seq differs from s), a handler runs or the time `until` of
   CLOCK_REALTIME (0: no limit) passes. 0 (look again), ETIMEDOUT,
   EINTR (any handler, as __pipe_wait_seq), or -1: not here (no thread,
   NKPOLL pollers already): wait as for private pipes,
   looking again every so often. A cancellation point. */
int __pipe_poll_wait(int kfd, int w, unsigned s, const struct timespec *until);
int __pipe_poll_wait(int kfd, int w, unsigned s, const struct timespec *until)
{
	struct thread *self = thread_self();
	long ns = 0;
	if (until) {
		struct timespec now;
		clock_gettime(CLOCK_REALTIME, &now);
		ns = (until->tv_sec - now.tv_sec) * 1000000000L + until->tv_nsec - now.tv_nsec;
		if (ns <= 0)
			return ETIMEDOUT;
	}
	/* A classic VP (no upcalls: naive, kthread) blocks whole in the
	   kernel, and on naive its other threads with it: vppoll waits
	   there only once none of them can run */
	if (!self)
		return -1;
	if (pcancel_pending())
		pcancel_act();
	self->async_hold = 1;            /* (no cancel acts while it is in kpoll) */
	int in = 0;
	spin_lock(&kpoll_lk);
	if (nkpoll < NKPOLL) {
		kpoll[nkpoll] = self;
		__atomic_store_n(&nkpoll, nkpoll + 1, __ATOMIC_SEQ_CST);
		in = 1;
	}
	spin_unlock(&kpoll_lk);
	long st = 0;
	if (in && __pipe_seq() == s)     /* (a change before we joined: look again) */
		st = vppoll(self, kfd, w ? PIPE_BUF : 1, s, ns);
	int sig = psig_due(self) ? psig_run(self) : 0;
	spin_lock(&kpoll_lk);
	for (int i = 0; in && i < nkpoll; i++)
		if (kpoll[i] == self) {
			kpoll[i] = kpoll[nkpoll - 1];
			__atomic_store_n(&nkpoll, nkpoll - 1, __ATOMIC_RELAXED);
		}
	spin_unlock(&kpoll_lk);
	pw_done(self);                   /* (a handler posted since the look above) */
	if (sig & SIGW_RAN)
		return EINTR;
	if (pcancel_pending())
		pcancel_act();
	/* Ready at once, yet the caller found nothing it asks for (say, poll
	   for POLLHUP alone on a read end with bytes in it): no wait of ours
	   ends on what it wants. Not here either. */
	return in && !(st > 0 && (st & PIPE_READY)) ? 0 : -1;
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
	FENCED(pipe2(fd, flags));
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
