/*
 * wait, waitpid and getppid's partner calls for the children fork makes
 * (ulib/pthread/pfork.c): SYS_waitpid, whose status word is Linux's
 * (<sys/wait.h>'s macros read it). No process groups: pid 0, and
 * -getpid(), mean any child, as every child is in the caller's group.
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

pid_t waitpid(pid_t pid, int *status, int options)
{
	if (options & ~(WNOHANG | WUNTRACED)) {
		errno = EINVAL;
		return -1;
	}
	if (pid == 0 || (pid < -1 && -pid == getpid()))
		pid = -1;
	else if (pid < -1) {
		errno = ECHILD;                  /* a group that is not ours: none there */
		return -1;
	}
	long r;
	if ((options & WNOHANG) || !thread_pkgs_on)
		r = ask(pid, status, options & WNOHANG);
	else
		for (uint64_t ns = 50000; !(r = ask(pid, status, WNOHANG)); ns = ns < 2000000 ? ns * 2 : ns)
			sys_sleep(ns);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
}

pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}
