/*
 * <unistd.h> without files (the descriptors are fd.c's): what the kernel
 * can say about the machine, and a file system of one directory, "/".
 */
#include <anima/file.h>
#include <unistd.h>
#include <pthread.h>             /* PTHREAD_KEYS_MAX, for sysconf */
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <signal.h>
#include <mqueue.h>
#include <semaphore.h>
#include <limits.h>

long __sysconf_cache(int name);      /* ulib/cacheinfo.c */

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
	case _SC_ARG_MAX:
		return MAX_ARGLEN;           /* argv's and envp's strings, 8 bytes a pointer (<anima/layout.h>) */
	case _SC_CHILD_MAX:
		return 32;                   /* kernel/vp.h's MAXCHILD: live children a space may have */
	case _SC_OPEN_MAX:
		return MAXFILE_SPACE;        /* fd.c's NFD */
	case _SC_PHYS_PAGES:            /* sysinfo's totalram, as glibc */
		return sys_getinfo(INFO_MEM_TOTAL) / (long)PAGE_SIZE;
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
	case _SC_THREAD_CPUTIME:
	case _SC_REALTIME_SIGNALS:
	case _SC_MESSAGE_PASSING:
		return 200809L;          /* the options <unistd.h> defines */
	case _SC_THREAD_PRIORITY_SCHEDULING:
	case _SC_THREAD_PRIO_INHERIT:
	case _SC_PRIORITY_SCHEDULING:
		return 200809L;          /* prio schedules by them; PI mutexes */
	case _SC_THREAD_PROCESS_SHARED:
		return 200809L;          /* in shared memory: ulib/pthread/pshared.c */
	case _SC_MAPPED_FILES:          /* file maps (fmap.c), shm_open, mprotect, fsync */
	case _SC_SHARED_MEMORY_OBJECTS:
	case _SC_MEMORY_PROTECTION:
	case _SC_FSYNC:
		return 200809L;
	case _SC_MEMLOCK:               /* no page leaves memory: locked ones stay (mlock.c) */
	case _SC_MEMLOCK_RANGE:
		return 200809L;
	case _SC_ASYNCHRONOUS_IO:       /* <aio.h>: helper threads (aio.c) */
		return 200809L;
	case _SC_AIO_MAX:
		return AIO_MAX;
	case _SC_AIO_LISTIO_MAX:
		return AIO_LISTIO_MAX;
	case _SC_AIO_PRIO_DELTA_MAX:
		return AIO_PRIO_DELTA_MAX;
	case _SC_PRIORITIZED_IO:
	case _SC_SPORADIC_SERVER:
	case _SC_THREAD_SPORADIC_SERVER:
	case _SC_TYPED_MEMORY_OBJECTS:
	case _SC_TRACE:
	case _SC_TRACE_EVENT_FILTER:
	case _SC_TRACE_INHERIT:
	case _SC_TRACE_LOG:
		return -1;               /* the options <unistd.h> says are absent */
	case _SC_RTSIG_MAX:
		return SIGRTMAX - SIGRTMIN + 1;
	case _SC_SIGQUEUE_MAX:
		return SIGQUEUE_MAX;
	case _SC_MQ_OPEN_MAX:
		return MQ_OPEN_MAX;
	case _SC_MQ_PRIO_MAX:
		return MQ_PRIO_MAX;
	case _SC_THREAD_STACK_MIN:
		return 16384;
	case _SC_THREAD_KEYS_MAX:
		return PTHREAD_KEYS_MAX;
	case _SC_THREAD_DESTRUCTOR_ITERATIONS:
		return PTHREAD_DESTRUCTOR_ITERATIONS;
	case _SC_VERSION:
	case _SC_THREAD_SAFE_FUNCTIONS:
		return 200809L;
	case _SC_SEM_VALUE_MAX:
		return SEM_VALUE_MAX;
	case _SC_TIMER_MAX:
		return 63;               /* ulib/posix/timer.c: 64 slots, one alarm's */
	case _SC_LINE_MAX:
		return 2048;             /* glibc's; nothing here limits a line */
	case _SC_IOV_MAX:
		return IOV_MAX;
	case _SC_HOST_NAME_MAX:
		return HOST_NAME_MAX;
	case _SC_LOGIN_NAME_MAX:
		return 256;
	case _SC_TTY_NAME_MAX:
		return 32;
	case _SC_ATEXIT_MAX:
		return ATEXIT_MAX;
	case _SC_NZERO:
		return 20;
	case _SC_NGROUPS_MAX:
		return NGROUPS_MAX;
	case _SC_SEM_NSEMS_MAX:
	case _SC_THREAD_THREADS_MAX:
		return -1;               /* no fixed limit (memory): -1, errno as it was */
	}
	if (name >= _SC_LEVEL1_ICACHE_SIZE && name <= _SC_LEVEL4_CACHE_LINESIZE)
		return __sysconf_cache(name);
	errno = EINVAL;
	return -1;
}

int getpagesize(void) { return (int)PAGE_SIZE; }
pid_t getpid(void) { return (pid_t)sys_getinfo(INFO_SPACE); }
pid_t getppid(void) { return (pid_t)sys_getinfo(INFO_PARENT); }   /* 0: none, or it ended */

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
long get_phys_pages(void) { return sysconf(_SC_PHYS_PAGES); }
long get_avphys_pages(void) { return sysconf(_SC_AVPHYS_PAGES); }

int uname(struct utsname *u)
{
	strlcpy(u->sysname, "Anima", sizeof u->sysname);
	strlcpy(u->nodename, "anima", sizeof u->nodename);
	strlcpy(u->release, "0", sizeof u->release);
	strlcpy(u->version, "research kernel", sizeof u->version);
	strlcpy(u->machine, "x86_64", sizeof u->machine);
	return 0;
}

/* getcwd and chdir: cwd.c */
