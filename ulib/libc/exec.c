/*
 * The exec family over SYS_exec (kernel/exec.c): the calling process's
 * image becomes the program file at the path, with the same pid, parent
 * and children; every thread of every VP of the old image ends. The
 * descriptors without FD_CLOEXEC stay, under the same numbers (fd.c:
 * __fd_keep, and __fd_inherit in the new program): files, pipes, the
 * console and /dev/null; the new program's 0, 1 and 2 are the console
 * unless one of those was there.
 * The new program gets argv and envp (environ.c: execv, execvp, execl
 * and execlp pass `environ`; a null envp is an empty environment, as on
 * Linux), together at most ARG_MAX bytes (MAX_ARGLEN, kernel/args.c:
 * E2BIG); not the working directory. Of signals, as POSIX says,
 * ignored ones stay ignored, handled ones are reset to SIG_DFL, and the
 * calling thread's mask and the pending signals stay (signal.c:
 * __sig_exec_keep, kernel/psig.c: psig_exec), and so does ITIMER_REAL
 * (alarm's time left: timer.c, SYS_alarmexec), and the umask (nofile.c,
 * SYS_umaskexec). Message queue descriptors close (O_CLOEXEC) and
 * take this process's notifications with them (mqueue.c). A relative path is made
 * absolute first; execvp, execlp and execvpe search PATH (pathsearch.c).
 * A file that is not an ELF program runs by its "#!" line, and with
 * execvp, execlp and execvpe by /bin/sh if it has none (script.c).
 */
#include <unistd.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include <animart/sys.h>
#include <anima/file.h>
#include <anima/layout.h>
#include "path.h"
#include "script.h"

int __fd_keep(int16_t keep[MAXFILE_SPACE]);
void __fd_unkeep(void);
__attribute__((weak)) void __sig_exec_keep(int undo);   /* signal.c */
__attribute__((weak)) void __timer_exec_keep(int undo); /* timer.c: ITIMER_REAL */
__attribute__((weak)) void __mq_exec_keep(int undo);    /* mqueue.c: notifications */
mode_t __umask_now(void);                               /* nofile.c */

int __exec_elf(const char *path, char *const argv[], char *const envp[])
{
	char abs[PATH_MAX];
	int argc = 0;
	while (argv && argv[argc])
		if (++argc > MAX_ARGS) {
			errno = E2BIG;
			return -1;
		}
	if (abs_path(path, abs) < 0)
		return -1;
	int16_t keep[MAXFILE_SPACE];
	int nkeep = __fd_keep(keep);
	if (__sig_exec_keep)
		__sig_exec_keep(0);
	if (__timer_exec_keep)
		__timer_exec_keep(0);
	if (__mq_exec_keep)
		__mq_exec_keep(0);
	syscall1(SYS_umaskexec, __umask_now());   /* (POSIX: kept; the next exec sets it again) */
	long r = syscall6(SYS_exec, (long)abs, argc, (long)argv, (long)keep, nkeep, (long)envp);
	__fd_unkeep();                   /* (it returns only on an error) */
	if (__sig_exec_keep)
		__sig_exec_keep(1);
	if (__timer_exec_keep)
		__timer_exec_keep(1);
	if (__mq_exec_keep)
		__mq_exec_keep(1);
	errno = (int)-r;
	return -1;
}

int execve(const char *path, char *const argv[], char *const envp[])
{
	if (__exec_elf(path, argv, envp) < 0 && errno == ENOEXEC)
		__exec_script(path, argv, envp, 0);
	return -1;
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

struct vecs {
	char *const *argv, *const *envp;
};

static int try_exec(const char *path, void *arg)
{
	struct vecs *v = arg;
	if (__exec_elf(path, v->argv, v->envp) < 0 && errno == ENOEXEC)
		__exec_script(path, v->argv, v->envp, 1);
	return errno;
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	struct vecs v = { argv, envp };
	errno = path_search(file, try_exec, &v);
	return -1;
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* The list arguments arg... to the null, into the array v made here (a
   count first, so only as many words as there are). */
#define LIST(v, arg, ap)                                                    \
	va_list c_;                                                         \
	va_copy(c_, ap);                                                    \
	size_t n_ = 1;                                                      \
	for (char *a_ = (char *)arg; a_ && n_ <= MAX_ARGS; a_ = va_arg(c_, char *)) \
		n_++;                                                       \
	va_end(c_);                                                         \
	if (n_ > MAX_ARGS) {                                                \
		va_end(ap);                                                 \
		errno = E2BIG;                                              \
		return -1;                                                  \
	}                                                                   \
	char *v[n_];                                                        \
	v[0] = (char *)arg;                                                 \
	for (size_t i_ = 1; i_ < n_; i_++)                                  \
		v[i_] = va_arg(ap, char *);

int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	LIST(v, arg, ap);
	va_end(ap);
	return execve(path, v, environ);
}

int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	LIST(v, arg, ap);
	va_end(ap);
	return execvp(file, v);
}

int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	LIST(v, arg, ap);
	char *const *envp = va_arg(ap, char *const *);
	va_end(ap);
	return execve(path, v, envp);
}
