/* gettid and Linux's syscall() for the numbers of <sys/syscall.h>. */
#include <unistd.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <thread.h>

pid_t gettid(void)
{
	struct thread *t = thread_self();
	return t ? (pid_t)t->id : getpid();
}

long syscall(long n, ...)
{
	va_list ap;
	va_start(ap, n);
	long r;
	switch (n) {
	case SYS_gettid:
		r = gettid();
		break;
	case SYS_getpid:
		r = getpid();
		break;
	case SYS_sched_yield:
		r = sched_yield();
		break;
	case SYS_getcpu: {               /* (unsigned *cpu, unsigned *node, cache) */
		unsigned *cpu = va_arg(ap, unsigned *), *node = va_arg(ap, unsigned *);
		if (cpu)
			*cpu = (unsigned)sched_getcpu();
		if (node)
			*node = 0;
		r = 0;
		break;
	}
	default:
		errno = ENOSYS;
		r = -1;
	}
	va_end(ap);
	return r;
}
