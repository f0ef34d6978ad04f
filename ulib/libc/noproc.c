/* Processes without files: fork is SYS_fork (ulib/pthread/pfork.c), but
   there is no file to exec. The exec family fails with ENOENT (as on an
   empty file system); popen, built on fork and exec, returns null with
   ENOSYS and pclose has no child to wait for (ECHILD). Code that falls
   back when these fail keeps working; code that needs to run another
   program cannot (a new program is started by the kernel's spawn,
   <animart/sys.h>). */
#include <unistd.h>
#include <stdio.h>
#include <errno.h>

static int noexec(void)
{
	errno = ENOENT;
	return -1;
}

int execv(const char *path, char *const argv[]) { (void)path; (void)argv; return noexec(); }
int execvp(const char *file, char *const argv[]) { (void)file; (void)argv; return noexec(); }
int execve(const char *path, char *const argv[], char *const envp[])
{
	(void)path; (void)argv; (void)envp;
	return noexec();
}
int execl(const char *path, const char *arg, ...) { (void)path; (void)arg; return noexec(); }
int execlp(const char *file, const char *arg, ...) { (void)file; (void)arg; return noexec(); }
int execle(const char *path, const char *arg, ...) { (void)path; (void)arg; return noexec(); }

FILE *popen(const char *cmd, const char *mode)
{
	(void)cmd; (void)mode;
	errno = ENOSYS;
	return 0;
}

int pclose(FILE *f)
{
	(void)f;
	errno = ECHILD;
	return -1;
}
