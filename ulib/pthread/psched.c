/*
 * POSIX's process scheduling calls (<sched.h>): sched_getparam,
 * sched_setparam, sched_getscheduler, sched_setscheduler and
 * sched_rr_get_interval. As on Linux, where a "process" here is a
 * thread, they act on the calling thread's policy and priority, the
 * ones pthread_getschedparam/pthread_setschedparam keep (pthread.c).
 * A pid is 0 or getpid() (the program itself): another program's
 * threads are out of reach, so any other pid is ESRCH, a negative one
 * EINVAL, as POSIX and Linux say; but a set on another user's process
 * is EPERM first, as Linux's (INFO_OWNER: kernel/cred.c).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <animart/pkg.h>
#include <animart/sys.h>
#include <animart/upcall.h>

static int check(pid_t pid, const void *p)
{
	if (pid < 0 || !p)
		return EINVAL;
	if (pid && pid != getpid())
		return ESRCH;
	return 0;
}

static int fail(int e)
{
	errno = e;
	return -1;
}

int sched_getparam(pid_t pid, struct sched_param *p)
{
	int policy, e = check(pid, p);
	if (!e)
		e = pthread_getschedparam(pthread_self(), &policy, p);
	return e ? fail(e) : 0;
}

int sched_getscheduler(pid_t pid)
{
	struct sched_param p;
	int policy, e = check(pid, &p);
	if (!e)
		e = pthread_getschedparam(pthread_self(), &policy, &p);
	return e ? fail(e) : policy;
}

/* 0, as glibc on Linux, not POSIX's former policy: programs written
   for Linux take anything but 0 for a failure (the conformance suite's
   forked children, which inherit SCHED_FIFO, did) */
/* A set on pid: not if it is another user's process (kernel/cred.c) */
static int may_set(pid_t pid)
{
	return !(pid > 0 && pid != getpid() && syscall2(SYS_getinfo, INFO_OWNER, pid) == 0);
}

int sched_setscheduler(pid_t pid, int policy, const struct sched_param *p)
{
	if (!may_set(pid))
		return fail(EPERM);
	if (sched_getscheduler(pid) < 0)
		return -1;
	int e = p ? pthread_setschedparam(pthread_self(), policy, p) : EINVAL;
	return e ? fail(e) : 0;
}

int sched_setparam(pid_t pid, const struct sched_param *p)
{
	if (!may_set(pid))
		return fail(EPERM);
	int policy = sched_getscheduler(pid);
	if (policy < 0)
		return -1;
	int e = p ? pthread_setschedparam(pthread_self(), policy, p) : EINVAL;
	return e ? fail(e) : 0;
}

/* SCHED_FIFO runs until it yields (0, as Linux); SCHED_RR on a package
   with priorities (prio) gets its slice among its level (PKG_SLICE_NS);
   the others get at most the kernel's quantum of their VP before another
   VP has the CPU */
int sched_rr_get_interval(pid_t pid, struct timespec *ts)
{
	int policy = sched_getscheduler(pid);
	if (policy < 0)
		return -1;
	if (!ts)
		return fail(EFAULT);
	uint64_t ns = policy == SCHED_FIFO ? 0 : vp_pseudo()->quantum_ns;
	if (policy == SCHED_RR && posix_pkg && (posix_pkg->attrs & PKG_ATTR_PRIO))
		ns = PKG_SLICE_NS;
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
	return 0;
}
