/* Processes: a POSIX program here is one process and cannot make
   another (a new address space is a different program, started by the
   kernel's spawn, <sys.h>). fork and vfork fail with ENOSYS, as Linux
   answers a call it lacks; the exec family with ENOENT (there is no file
   to run, as on an empty file system); popen, built on both, returns
   null with ENOSYS and pclose has no child to wait for (ECHILD). Code
   that falls back when these fail (most does: fork can fail with EAGAIN
   on Linux too) keeps working; code that needs a child cannot. */
#include <unistd.h>
#include <stdio.h>
#include <errno.h>

pid_t fork(void)
{
	errno = ENOSYS;
	return -1;
}

pid_t vfork(void)
{
	return fork();
}

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
