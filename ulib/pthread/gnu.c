/*
 * The GNU/Linux thread extras real pthread programs call (docs/posix.md):
 * names, CPU affinity, sched_getcpu, pthread_getattr_np, the CPU-time
 * clock id, and pthread_kill/pthread_sigmask. Joins with a deadline are
 * in pthread.c (they use its join protocol).
 *
 * Affinity: a thread runs on its package's VPs, and the kernel runs a VP
 * on whatever CPU it schedules it (nothing pins a VP), so a mask can only
 * be recorded and reported back. It is still checked as Linux checks it
 * (some online CPU in it, else EINVAL), so a program's mistakes show.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <animart/sys.h>
#include <animart/upcall.h>
#include "pwait.h"
#include "pt.h"

/* ---- names ---- */

int pthread_setname_np(pthread_t th, const char *name)
{
	size_t n = strlen(name);
	if (n >= sizeof ((struct pthread *)0)->name)
		return ERANGE;
	struct pthread *pt = pt_of((struct thread *)th);
	memcpy(pt->name, name, n + 1);
	return 0;
}

/* A thread never named has Linux's default: the program's name (the
   process's comm, which new threads copy), cut to 15 characters. */
int pthread_getname_np(pthread_t th, char *buf, size_t n)
{
	struct pthread *pt = pt_of((struct thread *)th);
	const char *name = pt->name[0] ? pt->name : program_invocation_short_name;
	size_t len = strnlen(name, sizeof pt->name - 1);
	if (n <= len)
		return ERANGE;
	memcpy(buf, name, len);
	buf[len] = 0;
	return 0;
}

/* ---- CPUs and affinity ---- */

int sched_getcpu(void)
{
	return (int)vp_pseudo()->cpu;    /* where this VP runs now (may change at once) */
}

static uint64_t online(void)
{
	long n = sys_getinfo(INFO_NCPU);
	return n >= 64 ? ~0UL : (1UL << n) - 1;
}

int __sched_cpucount(unsigned long size, const cpu_set_t *s)
{
	int c = 0;
	for (unsigned long i = 0; i < size / 8; i++)
		for (unsigned long b = s->__bits[i]; b; b &= b - 1)   /* (no libgcc popcount) */
			c++;
	return c;
}

cpu_set_t *__sched_cpualloc(unsigned long n)
{
	return calloc(1, CPU_ALLOC_SIZE(n));
}

void __sched_cpufree(cpu_set_t *s)
{
	free(s);
}

/* A set as a mask of the online CPUs; 0 (EINVAL) if it names none. */
static uint64_t mask_of(size_t size, const cpu_set_t *set)
{
	return size >= 8 ? set->__bits[0] & online() : 0;
}

static int report(uint64_t mask, size_t size, cpu_set_t *set)
{
	if (size < 8 || size % 8)
		return EINVAL;
	memset(set, 0, size);
	set->__bits[0] = mask ? mask : online();
	return 0;
}

int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set)
{
	uint64_t m = mask_of(size, set);
	if (!m)
		return EINVAL;
	pt_of((struct thread *)th)->affinity = m;   /* recorded only: see above */
	return 0;
}

int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *set)
{
	return report(pt_of((struct thread *)th)->affinity, size, set);
}

int pthread_attr_setaffinity_np(pthread_attr_t *a, size_t size, const cpu_set_t *set)
{
	uint64_t m = mask_of(size, set);
	if (!m)
		return EINVAL;
	a->__affinity = m;
	return 0;
}

int pthread_attr_getaffinity_np(const pthread_attr_t *a, size_t size, cpu_set_t *set)
{
	return report(a->__affinity, size, set);
}

static int errno_of(int e)
{
	if (!e)
		return 0;
	errno = e;
	return -1;
}

int sched_setaffinity(int pid, unsigned long size, const cpu_set_t *set)
{
	if (pid && pid != getpid())
		return errno_of(ESRCH);
	return errno_of(pthread_setaffinity_np(pthread_self(), size, set));
}

int sched_getaffinity(int pid, unsigned long size, cpu_set_t *set)
{
	if (pid && pid != getpid())
		return errno_of(ESRCH);
	return errno_of(pthread_getaffinity_np(pthread_self(), size, set));
}

/* ---- attributes of a running thread ---- */

int pthread_getattr_np(pthread_t th, pthread_attr_t *a)
{
	struct pthread *pt = pt_of((struct thread *)th);
	pthread_attr_init(a);
	a->__detach = pt->state == DETACHED;
	a->__policy = pt->policy;
	a->__prio = pt->prio;
	a->__inherit = PTHREAD_EXPLICIT_SCHED;   /* what it has, whatever it came from */
	a->__affinity = pt->affinity;
	if (pt->stacksize)
		a->__stacksize = pt->stacksize;
	/* The stack: main's runs down from where its start found it
	   (pstart.c); another thread's from just under its TLS block, which
	   its package put at the top of its stack (tls_place). Its lowest
	   address is what glibc reports, the top less the size. */
	if (pt->stackaddr) {             /* the program's, as it gave it */
		a->__stackaddr = pt->stackaddr;
		return 0;
	}
	uintptr_t top = (struct thread *)th == __pt_main_thread ? __pt_main_stack_top :
			(uintptr_t)((struct thread *)th)->tcb - tls_below_tcb();
	top &= ~(uintptr_t)15;
	if (top > a->__stacksize)
		a->__stackaddr = (void *)(top - a->__stacksize);
	return 0;
}

int pthread_attr_setstack(pthread_attr_t *a, void *addr, size_t n)
{
	int e = pthread_attr_setstacksize(a, n);
	if (!e)
		a->__stackaddr = addr;       /* the thread runs there, TLS block at the top */
	return e;
}

int pthread_attr_getstack(const pthread_attr_t *a, void **addr, size_t *n)
{
	*addr = a->__stackaddr;
	*n = a->__stacksize;
	return 0;
}

int __thread_getcpuclockid(struct thread *t, clockid_t *clock);   /* ulib/rt/cpuclock.c */

/* A clock id naming th for clock_gettime and clock_getres; EINVAL there
   once th has exited (docs/posix.md). */
int pthread_getcpuclockid(pthread_t th, clockid_t *clock)
{
	return __thread_getcpuclockid((struct thread *)th, clock);
}

int pthread_yield(void)
{
	return sched_yield();
}

/* ---- signals ---- */

int __sig_post(struct thread *t, int sig);   /* ulib/libc/signal.c */

/* Of the caller: raise. Of another thread: ulib/libc/signal.c's post (a
   default action at once, a handler's signal pending on the target). */
int pthread_kill(pthread_t th, int sig)
{
	if (sig < 0 || sig >= NSIG)
		return EINVAL;
	if (sig == 0) {
		thread_turn();           /* (det: a turn, as raise's) */
		return 0;
	}
	if ((struct thread *)th == thread_self())
		return raise(sig) == 0 ? 0 : errno;
	int r = __sig_post((struct thread *)th, sig) ? EAGAIN : 0;
	thread_turn();
	return r;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return sigprocmask(how, set, old) ? errno : 0;
}
