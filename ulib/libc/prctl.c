/* prctl (<sys/prctl.h>): the calling thread's name. Linux keeps 16 bytes
   (the task's comm) and cuts a longer name to 15 characters without an
   error, where pthread_setname_np refuses it with ERANGE. */
#include <sys/prctl.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
#include <anima/syscall.h>
#include <animart/sys.h>

int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	char *arg = va_arg(ap, char *);
	va_end(ap);
	switch (option) {
	case PR_SET_NAME: {
		char name[16];
		strncpy(name, arg, sizeof name - 1);
		name[sizeof name - 1] = 0;
		return pthread_setname_np(pthread_self(), name) ? (errno = EINVAL, -1) : 0;
	}
	case PR_SET_CHILD_SUBREAPER:         /* (any nonzero value: on) */
		return (int)syscall1(SYS_subreaper, arg != 0);
	case PR_GET_CHILD_SUBREAPER: {
		long r = syscall1(SYS_subreaper, 2);
		if (r < 0 || !arg)
			return errno = EFAULT, -1;
		*(int *)arg = (int)r;
		return 0;
	}
	case PR_GET_NAME:
		memset(arg, 0, 16);
		return pthread_getname_np(pthread_self(), arg, 16) ? (errno = EINVAL, -1) : 0;
	}
	errno = EINVAL;
	return -1;
}
