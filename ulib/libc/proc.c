/*
 * wait, waitpid and getppid's partner calls for the children fork makes
 * (ulib/pthread/pfork.c): SYS_waitpid, whose status word is Linux's
 * (<sys/wait.h>'s macros read it); pid 0 and -pg wait for children of
 * the caller's group and of group pg (the kernel's, kernel/pgrp.c).
 *
 * A wait that blocks is a poll in a program with a thread package:
 * SYS_waitpid blocks its whole VP, and the program's other threads
 * queued on that VP would wait with it; so the caller asks with WNOHANG
 * and naps between asks (nap.h). A program without threads blocks in
 * the kernel.
 *
 * A handler that runs meanwhile (a signal from another process, or
 * SIGCHLD's) ends the wait with EINTR if it was installed without
 * SA_RESTART, as on Linux (a shell's `wait` then ends with 128+N); with
 * SA_RESTART the wait goes on. The handlers run here, where their
 * SA_RESTART is known: async_hold keeps the package from running them
 * as it resumes the thread, as in a pipe's wait (pipe.c).
 */
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animart/clock.h>
#include <animart/thread.h>
#include <anima/psig.h>
#include "../pthread/pwait.h"
#include "nocancel.h"
#include "nap.h"

/* ulib/libc/signal.c (weak: a program that installs no handler has
   none): run the handlers due, SIGW_* of what ran. */
__attribute__((weak)) int __sig_run(void);

static long ask(pid_t pid, int *status, int options)
{
	int st = 0;
	long r;
	while ((r = sys_waitpid(pid, &st, options)) == -EINTR)
		if (__sig_run && (__sig_run() & SIGW_INTR)) {
			r = sys_waitpid(pid, &st, options | WNOHANG);   /* (see poll) */
			if (!r)
				return -EINTR;
			break;
		}
	if (r > 0 && status)
		*status = st;
	return r;
}

/* The poll of a thread of a package: 0 while nothing ended and no
   handler without SA_RESTART ran. A cancellation point if `cancel`. */
static long poll(pid_t pid, int *status, int options, int cancel)
{
	struct thread *self = thread_self();
	long r;
	self->async_hold = 1;
	for (uint64_t ns = 0; !(r = ask(pid, status, options | WNOHANG));) {
		/* a nap, not SYS_sleep: that would hold the VP, and on det
		   the token (a det thread cancelling this one never ran: the
		   wait went on until the child ended) */
		poll_nap(&ns);
		/* a cancellation point (POSIX): any cancel acts here; an
		   asynchronous one too, which async_hold holds back from the
		   package meanwhile */
		if (cancel && pcancel_pending()) {
			self->async_hold = 0;
			pcancel_act();
		}
		if (__sig_in_wait && (__sig_in_wait(self) & SIGW_INTR)) {
			/* a child that ended meanwhile still counts: its
			   SIGCHLD's handler ends no wait that has it to report */
			r = ask(pid, status, options | WNOHANG);
			if (!r)
				r = -EINTR;
			break;
		}
	}
	pw_release(self);
	return r;
}

static pid_t wait_for(pid_t pid, int *status, int options, int cancel)
{
	int now = options & (WNOHANG | KWNOWAIT | KWNOEXIT | WUNTRACED | WCONTINUED);
	long r = (options & WNOHANG) || !thread_pkgs_on ? ask(pid, status, now)
							: poll(pid, status, now, cancel);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
}

/* waitpid, and waitid's WNOWAIT (KWNOWAIT) and lack of WEXITED
   (KWNOEXIT): a cancellation point (POSIX; WNOHANG's too, as glibc's),
   as the wait begins and while it polls */
pid_t __waitpid(pid_t pid, int *status, int options);
pid_t __waitpid(pid_t pid, int *status, int options)
{
	pcancel_point();
	return wait_for(pid, status, options, 1);
}

/* ... none: pclose's and popen's reaping (nocancel.h) */
pid_t __waitpid_nocancel(pid_t pid, int *status, int options)
{
	return wait_for(pid, status, options, 0);
}

pid_t waitpid(pid_t pid, int *status, int options)
{
	if (options & ~(WNOHANG | WUNTRACED | WCONTINUED)) {
		errno = EINVAL;
		return -1;
	}
	return __waitpid(pid, status, options);
}

pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}
