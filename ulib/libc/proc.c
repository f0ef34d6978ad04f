/*
 * wait, waitpid and getppid's partner calls for the children fork makes
 * (ulib/pthread/pfork.c): SYS_waitpid, whose status word is Linux's
 * (<sys/wait.h>'s macros read it); pid 0 and -pg wait for children of
 * the caller's group and of group pg (the kernel's, kernel/pgrp.c).
 *
 * A wait that blocks is a poll in a program with a thread package:
 * SYS_waitpid blocks its whole VP, and the program's other threads
 * queued on that VP would wait with it; so the caller asks with WNOHANG
 * and sleeps (a thread-level block) between asks, from 50 us up to 2 ms.
 * A program without threads blocks in the kernel.
 */
#include <sys/wait.h>
#include <unistd.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <anima/psig.h>

/* ulib/libc/signal.c (weak: a program that installs no handler has
   none): a handler due meanwhile (SIGCHLD's) runs while the caller
   polls, and the wait goes on, as with SA_RESTART. */
__attribute__((weak)) int __sig_deliver(void);

static long ask(pid_t pid, int *status, int options)
{
	int st = 0;
	long r;
	do
		r = sys_waitpid(pid, &st, options);
	while (r == -EINTR);
	if (r > 0 && status)
		*status = st;
	return r;
}

/* waitpid, and waitid's WNOWAIT (KWNOWAIT) and lack of WEXITED (KWNOEXIT) */
pid_t __waitpid(pid_t pid, int *status, int options);
pid_t __waitpid(pid_t pid, int *status, int options)
{
	long r, now = options & (WNOHANG | KWNOWAIT | KWNOEXIT | WUNTRACED | WCONTINUED);
	if ((options & WNOHANG) || !thread_pkgs_on)
		r = ask(pid, status, (int)now);
	else
		for (uint64_t ns = 50000; !(r = ask(pid, status, (int)now | WNOHANG));
		     ns = ns < 2000000 ? ns * 2 : ns) {
			sys_sleep(ns);
			if (__sig_deliver)
				__sig_deliver();
		}
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
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
