/* gettid and Linux's syscall() for the numbers of <sys/syscall.h>: each
   is the libc call of the same name (futex: ulib/posix/futex.c). */
#include <unistd.h>
#include <sched.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <animart/thread.h>
#include <time.h>
#include "nocancel.h"

long __futex(volatile int *uaddr, int op, int val, const struct timespec *timeout, unsigned val3);

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
	case SYS_futex: {                /* (uaddr, op, val, timeout, uaddr2, val3) */
		volatile int *uaddr = va_arg(ap, volatile int *);
		int op = va_arg(ap, int), val = va_arg(ap, int);
		const struct timespec *ts = va_arg(ap, const struct timespec *);
		(void)va_arg(ap, int *);
		unsigned val3 = va_arg(ap, unsigned);
		r = __futex(uaddr, op, val, ts, val3);
		if (r < 0) {
			errno = (int)-r;
			r = -1;
		}
		break;
	}
	case SYS_read: {
		int fd = va_arg(ap, int);
		void *buf = va_arg(ap, void *);
		r = __read_nocancel(fd, buf, va_arg(ap, size_t));
		break;
	}
	case SYS_write: {
		int fd = va_arg(ap, int);
		const void *buf = va_arg(ap, const void *);
		r = __write_nocancel(fd, buf, va_arg(ap, size_t));
		break;
	}
	case SYS_clock_gettime: {
		clockid_t c = va_arg(ap, clockid_t);
		r = clock_gettime(c, va_arg(ap, struct timespec *));
		break;
	}
	case SYS_nanosleep: {
		const struct timespec *req = va_arg(ap, const struct timespec *);
		r = nanosleep(req, va_arg(ap, struct timespec *));
		break;
	}
	case SYS_getppid:
		r = getppid();
		break;
	default:
		errno = ENOSYS;
		r = -1;
	}
	va_end(ap);
	return r;
}
