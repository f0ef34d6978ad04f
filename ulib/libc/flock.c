/*
 * Advisory file locks: fcntl's F_GETLK, F_SETLK, F_SETLKW (record
 * locks, owned by the process), F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW
 * (record locks owned by the open file, Linux's), flock (owned by the open file: shared by
 * dup and fork) and lockf (record locks from the offset). The locks are
 * the kernel's (kernel/flock.c: SYS_lock), which never waits: a request
 * in another owner's way is EAGAIN there. F_SETLKW, flock without
 * LOCK_NB and F_LOCK wait here, as a pipe's reader does for a pipe
 * another process holds (pipe.c): in the kernel (SYS_lock_wait, only the
 * thread blocked on an upcall VP; on a classic VP only once none of its
 * other threads can run), until a lock of the file changes, then they
 * try again; the kernel queues the wait on the thread's park word too,
 * so pthread_kill and pthread_cancel end it. A handler runs inside the
 * wait; then the call fails with EINTR unless the handler has
 * SA_RESTART (Linux restarts these calls then too). A waiting call is a
 * cancellation point. EDEADLK when a POSIX wait would close a cycle of
 * POSIX waits (the kernel walks the chain, up to 10 steps).
 *
 * POSIX's rule that closing any descriptor of a file drops the
 * process's record locks on it: the kernel does it when its descriptor
 * closes; a close here of one of several descriptors that share one
 * kernel descriptor (dup) asks for it (__lock_closed, from fd.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/file.h>
#include <unistd.h>
#include <animart/sys.h>
#include <animart/intr.h>
#include <animart/clock.h>
#include <animart/thread.h>
#include <anima/flock.h>
#include "../pthread/pwait.h"
#include "nap.h"

_Static_assert(sizeof(struct flock) == sizeof(struct kflock), "struct flock is the kernel's");
_Static_assert(__builtin_offsetof(struct flock, l_start) == __builtin_offsetof(struct kflock, start) &&
	       __builtin_offsetof(struct flock, l_len) == __builtin_offsetof(struct kflock, len) &&
	       __builtin_offsetof(struct flock, l_pid) == __builtin_offsetof(struct kflock, pid),
	       "struct flock's fields are the kernel's");
_Static_assert(F_RDLCK == LK_RD && F_WRLCK == LK_WR && F_UNLCK == LK_UN, "lock types");

int __fd_kfd(int fd);                    /* fd.c: fd's kernel descriptor, -1 if not a disk file */

static int used;                         /* a record lock was ever asked for (close's LK_CLOSE) */

static int fail(int e)
{
	errno = e;
	return -1;
}

/* The kernel's descriptor of fd, a file on the disk: -1 with errno set
   if not (EINVAL for a pipe: Linux locks one; not here). fd.c. */
int __fd_kfd_or_err(int fd);
#define kfd_of __fd_kfd_or_err

/* SYS_lock_wait for the calling thread, parked as in a timed park
   (PARK_TIMED: thread_unblock's futex wake ends it). What it says. */
static long parked(struct thread *self, int kfd, struct kflock *k, int cmd)
{
	int s = PARK_RUN;
	if (!__atomic_compare_exchange_n(&self->park, &s, PARK_TIMED, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_ACQUIRE)) {
		__atomic_exchange_n(&self->park, PARK_RUN, __ATOMIC_SEQ_CST);   /* a permit: taken */
		return 0;
	}
	long r = intr_waited(syscall6(SYS_lock_wait, kfd, (long)k, (long)&self->park, PARK_TIMED, LKW_BLOCK, cmd));
	s = PARK_TIMED;
	__atomic_compare_exchange_n(&self->park, &s, PARK_RUN, 0, __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE);
	return r;
}

/* Wait for a change of kfd's file's locks: on a classic VP (no upcalls)
   whose other threads can run, looking between their turns; in the
   kernel once none can. 0, 1 (look again) or an error (-EDEADLK). */
static long waitfor(struct thread *self, int kfd, struct kflock *k, int cmd)
{
	int (*other)(struct thread *) = self->ops->yield_other;
	long st = 0;
	/* det (own time) with other threads: a wait in the kernel would hold
	   the token (nap.h), so poll. A lone thread waits in the kernel,
	   queued: only a queued wait is a link of a chain the kernel finds
	   EDEADLK along (a cycle of single-threaded det processes hung
	   polling: test_ofdlock det) */
	if (nap_polls(self)) {
		for (uint64_t ns = 0; !psig_due(self) && !pcancel_pending(); poll_nap(&ns))
			if ((st = syscall6(SYS_lock_wait, kfd, (long)k, 0, 0, 0, cmd)) != 0)
				return st;
		return 0;
	}
	if (other && !__atomic_load_n(&self->vpp->upcall_entry, __ATOMIC_RELAXED))
		while (!psig_due(self) && !pcancel_pending() &&
		       (st = syscall6(SYS_lock_wait, kfd, (long)k, 0, 0, 0, cmd)) == 0 && other(self))
			;
	if (st != 0 || psig_due(self) || pcancel_pending())
		return st;
	return parked(self, kfd, k, cmd);
}

/* The request *k (cmd LK_SETLK or LK_FLOCK) was in another's way: wait
   until it may not be. 0 (try again), EINTR, EDEADLK. */
static int await(int kfd, struct kflock *k, int cmd)
{
	struct thread *self = thread_self();
	if (!self) {                     /* no package: the kernel's wait alone */
		long r = syscall6(SYS_lock_wait, kfd, (long)k, 0, 0, LKW_BLOCK, cmd);
		return r < 0 && r != -EINTR ? (int)-r : 0;
	}
	if (pcancel_pending())
		pcancel_act();
	self->async_hold = 1;            /* (handlers run here, where SA_RESTART is known) */
	long r = waitfor(self, kfd, k, cmd);
	int sig = psig_due(self) ? psig_run(self) : 0;
	pw_done(self);                   /* (a handler posted since that look: now too) */
	if (r < 0 && r != -EINTR)
		return (int)-r;
	if (sig & SIGW_INTR)
		return EINTR;
	if (pcancel_pending())
		pcancel_act();
	return 0;
}

/* Set *k (cmd LK_SETLK, LK_FLOCK), waiting while another's lock is in
   the way if `wait`: 0 or an errno. */
static int take(int kfd, struct kflock *k, int cmd, int wait)
{
	for (;;) {
		long r = syscall3(SYS_lock, kfd, cmd, k);
		if (r != -EAGAIN || !wait)
			return (int)-r;
		int e = await(kfd, k, cmd);
		if (e)
			return e;
	}
}

/* fcntl's F_GETLK, F_SETLK, F_SETLKW and their F_OFD_ forms on fd (fd.c). */
int __lock_fcntl(int fd, int cmd, struct flock *fl);
int __lock_fcntl(int fd, int cmd, struct flock *fl)
{
	if (cmd == F_SETLKW || cmd == F_OFD_SETLKW)
		pcancel_point();         /* (POSIX's F_SETLKW; lockf's F_LOCK) */
	int kfd = kfd_of(fd);
	if (kfd < 0)
		return -1;
	int ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;
	if (!ofd)                        /* (an OFD lock is not the process's: a close keeps it) */
		__atomic_store_n(&used, 1, __ATOMIC_RELAXED);
	long r = cmd == F_GETLK || cmd == F_OFD_GETLK
		? syscall3(SYS_lock, kfd, ofd ? LK_OFD_GETLK : LK_GETLK, fl)
		: -take(kfd, (struct kflock *)fl, ofd ? LK_OFD_SETLK : LK_SETLK,
			cmd == F_SETLKW || cmd == F_OFD_SETLKW);
	return r < 0 ? fail((int)-r) : 0;
}

/* fd.c: one of several descriptors sharing kernel descriptor kfd was
   closed: the process's record locks on the file go (POSIX). */
void __lock_closed(int kfd);
void __lock_closed(int kfd)
{
	if (__atomic_load_n(&used, __ATOMIC_RELAXED))
		syscall3(SYS_lock, kfd, LK_CLOSE, 0);
}

int flock(int fd, int op)
{
	int how = op & ~LOCK_NB;
	if (how != LOCK_SH && how != LOCK_EX && how != LOCK_UN)
		return fail(EINVAL);
	int kfd = kfd_of(fd);
	if (kfd < 0)
		return -1;
	struct kflock k = { .type = how == LOCK_SH ? LK_RD : how == LOCK_EX ? LK_WR : LK_UN };
	int e = take(kfd, &k, LK_FLOCK, !(op & LOCK_NB));
	return e ? fail(e == EAGAIN ? EWOULDBLOCK : e) : 0;
}

/* lockf: F_LOCK, F_TLOCK, F_ULOCK, F_TEST of len bytes from the offset
   (0: to the end, however far), as record locks. */
int lockf(int fd, int cmd, off_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_CUR, .l_start = 0, .l_len = len };
	switch (cmd) {
	case F_ULOCK:
		fl.l_type = F_UNLCK;
		return fcntl(fd, F_SETLK, &fl);
	case F_LOCK:
	case F_TLOCK:
		return fcntl(fd, cmd == F_LOCK ? F_SETLKW : F_SETLK, &fl);
	case F_TEST:
		if (fcntl(fd, F_GETLK, &fl) < 0)
			return -1;
		return fl.l_type == F_UNLCK ? 0 : fail(EACCES);
	default:
		return fail(EINVAL);
	}
}
