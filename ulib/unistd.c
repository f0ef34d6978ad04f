/*
 * <unistd.h> without files: the console behind fds 1 and 2, an empty
 * stdin behind fd 0, and what the kernel can say about the machine.
 */
#include <unistd.h>
#include <pthread.h>             /* PTHREAD_KEYS_MAX, for sysconf */
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys.h>

#define CHUNK 4096      /* bytes per SYS_cputs (the kernel takes at most 64 KiB) */

ssize_t write(int fd, const void *buf, size_t n)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	/* Unbuffered, like the system call: stdout's pending text goes
	   first, so output keeps the order the program wrote it in. */
	fflush(stdout);
	const char *p = buf;
	size_t left = n;
	while (left) {
		long r = sys_cputs(p, left < CHUNK ? left : CHUNK);
		if (sys_failed(r)) {
			errno = (int)-r;
			return n == left ? -1 : (ssize_t)(n - left);
		}
		if (r == 0)
			break;
		p += r, left -= (size_t)r;
	}
	return (ssize_t)(n - left);
}

ssize_t read(int fd, void *buf, size_t n)
{
	(void)buf, (void)n;
	if (fd != 0) {
		errno = EBADF;
		return -1;
	}
	return 0;              /* end of file */
}

int close(int fd)
{
	if (fd < 0 || fd > 2) {
		errno = EBADF;
		return -1;
	}
	return 0;
}

int isatty(int fd)
{
	if (fd >= 0 && fd <= 2)
		return 1;
	errno = EBADF;
	return 0;
}

off_t lseek(int fd, off_t off, int whence)
{
	(void)fd, (void)off, (void)whence;
	errno = ESPIPE;
	return -1;
}

long sysconf(int name)
{
	switch (name) {
	case _SC_NPROCESSORS_CONF:
	case _SC_NPROCESSORS_ONLN:
		return sys_getinfo(INFO_NCPU);
	case _SC_PAGESIZE:
		return (long)PAGE_SIZE;
	case _SC_CLK_TCK:
		return 100;
	case _SC_OPEN_MAX:
		return 3;
	case _SC_PHYS_PAGES:
	case _SC_AVPHYS_PAGES:
		return sys_getinfo(INFO_MEM_AVAIL) / (long)PAGE_SIZE;
	case _SC_THREADS:
	case _SC_TIMERS:
	case _SC_SEMAPHORES:
	case _SC_THREAD_ATTR_STACKSIZE:
	case _SC_THREAD_ATTR_STACKADDR:
	case _SC_THREAD_PRIO_PROTECT:
	case _SC_BARRIERS:
	case _SC_CLOCK_SELECTION:
	case _SC_MONOTONIC_CLOCK:
	case _SC_READER_WRITER_LOCKS:
	case _SC_SPIN_LOCKS:
	case _SC_TIMEOUTS:
	case _SC_CPUTIME:
		return 200809L;          /* the options <unistd.h> defines */
	case _SC_THREAD_PRIORITY_SCHEDULING:
	case _SC_THREAD_PRIO_INHERIT:
	case _SC_THREAD_PROCESS_SHARED:
	case _SC_PRIORITY_SCHEDULING:
	case _SC_MAPPED_FILES:
	case _SC_THREAD_CPUTIME:
		return -1;               /* not supported: -1, errno as it was */
	case _SC_THREAD_STACK_MIN:
		return 16384;
	case _SC_THREAD_KEYS_MAX:
		return PTHREAD_KEYS_MAX;
	case _SC_THREAD_DESTRUCTOR_ITERATIONS:
		return PTHREAD_DESTRUCTOR_ITERATIONS;
	}
	errno = EINVAL;
	return -1;
}

int getpagesize(void) { return (int)PAGE_SIZE; }
pid_t getpid(void) { return (pid_t)sys_getinfo(INFO_SPACE); }
pid_t getppid(void) { return 0; }
uid_t getuid(void) { return 0; }
uid_t geteuid(void) { return 0; }
gid_t getgid(void) { return 0; }
gid_t getegid(void) { return 0; }

int gethostname(char *name, size_t n)
{
	if (strlcpy(name, "anima", n) >= n) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int get_nprocs(void) { return (int)sys_getinfo(INFO_NCPU); }
int get_nprocs_conf(void) { return get_nprocs(); }

int uname(struct utsname *u)
{
	strlcpy(u->sysname, "Anima", sizeof u->sysname);
	strlcpy(u->nodename, "anima", sizeof u->nodename);
	strlcpy(u->release, "0", sizeof u->release);
	strlcpy(u->version, "research kernel", sizeof u->version);
	strlcpy(u->machine, "x86_64", sizeof u->machine);
	return 0;
}
