/*
 * The exec family over SYS_exec (kernel/exec.c): the calling process's
 * image becomes the program file at the path, with the same pid, parent
 * and children; every thread of every VP of the old image ends. The
 * descriptors without FD_CLOEXEC stay, under the same numbers (fd.c:
 * __fd_keep, and __fd_inherit in the new program): files, pipes, the
 * console and /dev/null; the new program's 0, 1 and 2 are the console
 * unless one of those was there.
 * Anima programs get argv only: envp is not passed (env.c: there is no
 * environment), nor the working directory. Of signals, as POSIX says,
 * ignored ones stay ignored, handled ones are reset to SIG_DFL, and the
 * calling thread's mask and the pending signals stay (signal.c:
 * __sig_exec_keep, kernel/psig.c: psig_exec), and so does ITIMER_REAL
 * (alarm's time left: timer.c, SYS_alarmexec), and the umask (nofile.c,
 * SYS_umaskexec). A relative path is made
 * absolute first; execvp and execlp search "/bin:/usr/bin" (no PATH).
 * A program that is not an ELF executable is ENOEXEC (no shell runs it).
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

void __fd_keep(signed char keep[MAXFILE_SPACE]);
void __fd_unkeep(void);
__attribute__((weak)) void __sig_exec_keep(int undo);   /* signal.c */
__attribute__((weak)) void __timer_exec_keep(int undo); /* timer.c: ITIMER_REAL */
mode_t __umask_now(void);                               /* nofile.c */

int execve(const char *path, char *const argv[], char *const envp[])
{
	(void)envp;
	char abs[PATH_MAX];
	int argc = 0;
	while (argv && argv[argc])
		if (++argc > MAX_ARGS) {
			errno = E2BIG;
			return -1;
		}
	if (abs_path(path, abs) < 0)
		return -1;
	signed char keep[MAXFILE_SPACE];
	__fd_keep(keep);
	if (__sig_exec_keep)
		__sig_exec_keep(0);
	if (__timer_exec_keep)
		__timer_exec_keep(0);
	syscall1(SYS_umaskexec, __umask_now());   /* (POSIX: kept; the next exec sets it again) */
	long r = sys_exec(abs, argc, (const char *const *)argv, keep, MAXFILE_SPACE);
	__fd_unkeep();                   /* (it returns only on an error) */
	if (__sig_exec_keep)
		__sig_exec_keep(1);
	if (__timer_exec_keep)
		__timer_exec_keep(1);
	errno = (int)-r;
	return -1;
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, 0);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	if (!file || !*file || strchr(file, '/'))
		return execve(file, argv, envp);
	static const char *const dirs[] = { "/bin/", "/usr/bin/" };
	int err = ENOENT;
	for (unsigned i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char p[PATH_MAX];
		if (strlen(dirs[i]) + strlen(file) >= sizeof p) {
			err = ENAMETOOLONG;
			continue;
		}
		strcpy(p, dirs[i]);
		strcat(p, file);
		execve(p, argv, envp);
		if (errno == EACCES)
			err = EACCES;        /* found, not runnable: said if nothing runs */
		else if (errno != ENOENT && errno != ENOTDIR)
			return -1;           /* found, and it failed: say why */
	}
	errno = err;
	return -1;
}

int execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, 0);
}

/* The list arguments after arg, to a null, into v (at most MAX_ARGS). */
#define LIST(v, arg, ap)                                                    \
	char *v[MAX_ARGS + 2];                                              \
	int n_ = 0;                                                         \
	for (char *a_ = (char *)arg; n_ <= MAX_ARGS + 1; a_ = va_arg(ap, char *)) { \
		v[n_++] = a_;                                               \
		if (!a_)                                                    \
			break;                                              \
	}                                                                   \
	if (n_ > MAX_ARGS + 1) {                                            \
		va_end(ap);                                                 \
		errno = E2BIG;                                              \
		return -1;                                                  \
	}

int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	LIST(v, arg, ap);
	va_end(ap);
	return execve(path, v, 0);
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
