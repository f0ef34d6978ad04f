/* POSIX <unistd.h>: what a program without files needs. docs/libc.md. */
#ifndef ULIB_UNISTD_H
#define ULIB_UNISTD_H

#include <stddef.h>
#include <sys/types.h>

#define STDIN_FILENO  0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2

/* sysconf names (Linux's numbers) */
#define _SC_VERSION           29
#define _SC_SEM_NSEMS_MAX     32
#define _SC_SEM_VALUE_MAX     33
#define _SC_TIMER_MAX         35
#define _SC_LINE_MAX          43
#define _SC_IOV_MAX           60
#define _SC_THREAD_SAFE_FUNCTIONS 68
#define _SC_LOGIN_NAME_MAX    71
#define _SC_TTY_NAME_MAX      72
#define _SC_THREAD_THREADS_MAX 76
#define _SC_ATEXIT_MAX        87
#define _SC_NZERO             109
#define _SC_HOST_NAME_MAX     180
#define _SC_LEVEL1_ICACHE_SIZE     185
#define _SC_LEVEL1_ICACHE_ASSOC    186
#define _SC_LEVEL1_ICACHE_LINESIZE 187
#define _SC_LEVEL1_DCACHE_SIZE     188
#define _SC_LEVEL1_DCACHE_ASSOC    189
#define _SC_LEVEL1_DCACHE_LINESIZE 190
#define _SC_LEVEL2_CACHE_SIZE      191
#define _SC_LEVEL2_CACHE_ASSOC     192
#define _SC_LEVEL2_CACHE_LINESIZE  193
#define _SC_LEVEL3_CACHE_SIZE      194
#define _SC_LEVEL3_CACHE_ASSOC     195
#define _SC_LEVEL3_CACHE_LINESIZE  196
#define _SC_LEVEL4_CACHE_SIZE      197
#define _SC_LEVEL4_CACHE_ASSOC     198
#define _SC_LEVEL4_CACHE_LINESIZE  199
#define _SC_ARG_MAX           0
#define _SC_CHILD_MAX         1
#define _SC_NGROUPS_MAX       3
#define _SC_CLK_TCK           2
#define _SC_OPEN_MAX          4
#define _SC_PAGESIZE          30
#define _SC_PAGE_SIZE         _SC_PAGESIZE
#define _SC_NPROCESSORS_CONF  83
#define _SC_NPROCESSORS_ONLN  84
#define _SC_PHYS_PAGES        85
#define _SC_AVPHYS_PAGES      86
#define _SC_THREAD_STACK_MIN  75
#define _SC_THREADS           67
#define _SC_PRIORITY_SCHEDULING 10
#define _SC_TIMERS            11
#define _SC_FSYNC             15
#define _SC_MAPPED_FILES      16
#define _SC_MEMLOCK           17
#define _SC_MEMLOCK_RANGE     18
#define _SC_MEMORY_PROTECTION 19
#define _SC_SEMAPHORES        21
#define _SC_SHARED_MEMORY_OBJECTS 22
#define _SC_THREAD_DESTRUCTOR_ITERATIONS 73
#define _SC_THREAD_KEYS_MAX   74
#define _SC_THREAD_ATTR_STACKADDR 77
#define _SC_THREAD_ATTR_STACKSIZE 78
#define _SC_THREAD_PRIORITY_SCHEDULING 79
#define _SC_THREAD_PRIO_INHERIT 80
#define _SC_THREAD_PRIO_PROTECT 81
#define _SC_THREAD_PROCESS_SHARED 82
#define _SC_BARRIERS          133
#define _SC_CLOCK_SELECTION   137
#define _SC_CPUTIME           138
#define _SC_THREAD_CPUTIME    139
#define _SC_MONOTONIC_CLOCK   149
#define _SC_READER_WRITER_LOCKS 153
#define _SC_SPIN_LOCKS        154
#define _SC_TIMEOUTS          164
#define _SC_REALTIME_SIGNALS  9
#define _SC_RTSIG_MAX         31
#define _SC_SIGQUEUE_MAX      34
#define _SC_MESSAGE_PASSING   20
#define _SC_MQ_OPEN_MAX       27
#define _SC_MQ_PRIO_MAX       28
#define _SC_ASYNCHRONOUS_IO   12
#define _SC_PRIORITIZED_IO    13
#define _SC_AIO_LISTIO_MAX    23
#define _SC_AIO_MAX           24
#define _SC_AIO_PRIO_DELTA_MAX 25
#define _SC_SPORADIC_SERVER   160
#define _SC_THREAD_SPORADIC_SERVER 161
#define _SC_TYPED_MEMORY_OBJECTS 165
#define _SC_TRACE             181
#define _SC_TRACE_EVENT_FILTER 182
#define _SC_TRACE_INHERIT     183
#define _SC_TRACE_LOG         184
#define _POSIX_THREADS        200809L
#define _POSIX_TIMERS         200809L
#define _POSIX_MONOTONIC_CLOCK 200809L
/* Options the POSIX layer has (docs/posix.md): programs test these
   before using the calls (glibc's tests skip what is not defined). */
#define _POSIX_CLOCK_SELECTION      200809L   /* condattr_setclock, clock_nanosleep */
#define _POSIX_TIMEOUTS             200809L   /* timedlock, sem_timedwait, ... */
#define _POSIX_SEMAPHORES           200809L
#define _POSIX_BARRIERS             200809L
#define _POSIX_SPIN_LOCKS           200809L
#define _POSIX_READER_WRITER_LOCKS  200809L
#define _POSIX_THREAD_ATTR_STACKSIZE 200809L
#define _POSIX_THREAD_ATTR_STACKADDR 200809L   /* pthread_attr_setstack */
#define _POSIX_THREAD_PRIO_PROTECT  200809L   /* ceilings */
#define _POSIX_THREAD_PROCESS_SHARED 200809L  /* in MAP_SHARED memory, across fork (docs/posix.md) */
#define _POSIX_THREAD_PRIO_INHERIT  200809L   /* one level (docs/posix.md) */
#define _POSIX_THREAD_PRIORITY_SCHEDULING 200809L   /* policies and priorities, honored by prio */
#define _POSIX_PRIORITY_SCHEDULING  200809L   /* sched_setscheduler & co. (psched.c) */
#define _POSIX_CPUTIME              200809L   /* CLOCK_PROCESS_CPUTIME_ID, clock() */
#define _POSIX_MESSAGE_PASSING      200809L   /* <mqueue.h>, within the program */
#define _POSIX_REALTIME_SIGNALS     200809L   /* SIGRTMIN..SIGRTMAX queued, sigqueue */
#define _POSIX_THREAD_CPUTIME       200809L   /* CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid (docs/libc.md) */
#define _POSIX_MAPPED_FILES         200809L   /* mmap of a file, MAP_SHARED coherent across processes (docs/files.md) */
#define _POSIX_SHARED_MEMORY_OBJECTS 200809L  /* shm_open: files in /dev/shm (the RAM disk without a disk) */
#define _POSIX_MEMORY_PROTECTION    200809L   /* mprotect */
#define _POSIX_FSYNC                200809L   /* fsync */
#define _POSIX_MEMLOCK              200809L   /* mlockall: memory never leaves RAM here (ulib/libc/mlock.c) */
#define _POSIX_MEMLOCK_RANGE        200809L   /* mlock, munlock */
#define _POSIX_ASYNCHRONOUS_IO      200809L   /* <aio.h>: helper threads in user space (ulib/libc/aio.c) */
/* Options Anima does not have: -1 says so at compile time (glibc
   defines the same -1s, and a program may test them with #if; an
   undefined one would mean "ask sysconf"). Prioritized I/O is absent
   too (glibc has it): aio_reqprio is checked, not used. */
#define _POSIX_PRIORITIZED_IO       -1
#define _POSIX_SPORADIC_SERVER      -1
#define _POSIX_THREAD_SPORADIC_SERVER -1
#define _POSIX_TYPED_MEMORY_OBJECTS -1
#define _POSIX_TRACE                -1
#define _POSIX_TRACE_EVENT_FILTER   -1
#define _POSIX_TRACE_INHERIT        -1
#define _POSIX_TRACE_LOG            -1
#define _POSIX_VERSION        200809L

/* pathconf names (Linux's numbers; ulib/pathconf.c) */
#define _PC_LINK_MAX          0
#define _PC_MAX_CANON         1
#define _PC_MAX_INPUT         2
#define _PC_NAME_MAX          3
#define _PC_PATH_MAX          4
#define _PC_PIPE_BUF          5
#define _PC_CHOWN_RESTRICTED  6
#define _PC_NO_TRUNC          7
#define _PC_VDISABLE          8
#define _PC_SYNC_IO           9
#define _PC_ASYNC_IO          10
#define _PC_PRIO_IO           11
#define _PC_SOCK_MAXBUF       12
#define _PC_FILESIZEBITS      13
#define _PC_REC_INCR_XFER_SIZE 14
#define _PC_REC_MAX_XFER_SIZE 15
#define _PC_REC_MIN_XFER_SIZE 16
#define _PC_REC_XFER_ALIGN    17
#define _PC_ALLOC_SIZE_MIN    18
#define _PC_SYMLINK_MAX       19
#define _PC_2_SYMLINKS        20
long pathconf(const char *path, int name);
long fpathconf(int fd, int name);

int pause(void);                 /* until a signal handler ran (ulib/signal.c): -1, EINTR */
long sysconf(int name);
int getpagesize(void);

/* Descriptors (ulib/fd.c): the console's input (0: end of file), its
   output (1, 2), /dev/null (open), and copies of them; 64 at most. */
ssize_t write(int fd, const void *buf, size_t n);
ssize_t read(int fd, void *buf, size_t n);
ssize_t pread(int fd, void *buf, size_t n, off_t off);   /* a file on the disk; else ESPIPE */
int close(int fd);
/* lockf's commands: record locks from the offset (ulib/libc/flock.c) */
#define F_ULOCK 0
#define F_LOCK  1
#define F_TLOCK 2
#define F_TEST  3
int lockf(int fd, int cmd, off_t len);
int dup(int fd);
int pipe(int fd[2]);
int pipe2(int fd[2], int flags);     /* O_CLOEXEC, O_NONBLOCK (ulib/posix/pipe.c) */
int dup2(int old, int new);
int dup3(int old, int new, int flags);              /* flags: O_CLOEXEC */
int isatty(int fd);                                 /* 1 for the console's */
off_t lseek(int fd, off_t off, int whence);         /* console: -1, ESPIPE */
/* One directory, "/", the working one for good. */
char *getcwd(char *buf, size_t size);
int chdir(const char *path);        /* ulib keeps the working directory (ulib/libc/cwd.c) */
int fchdir(int fd);
char *get_current_dir_name(void);
int getdtablesize(void);                             /* 64 */
/* Without a disk, "/" and /dev/null exist: access F_OK/R_OK (and X_OK on
   "/") 0, W_OK on "/" EROFS, else ENOENT. With one, what is on it. */
#define F_OK 0
#define X_OK 1
#define W_OK 2
#define R_OK 4
int access(const char *path, int mode);
/* Writing files on the disk (ulib/libc/fswrite.c, kernel/ext2w.c) */
int unlink(const char *path);
ssize_t readlink(const char *path, char *buf, size_t n);        /* (link.c) */
ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t n);
int symlink(const char *target, const char *path);
int symlinkat(const char *target, int dirfd, const char *path);
int link(const char *from, const char *to);                     /* (fmode.c) */
int linkat(int fromfd, const char *from, int tofd, const char *to, int flag);
int rmdir(const char *path);
int unlinkat(int dirfd, const char *path, int flags);             /* ulib/libc/atcalls.c */
int faccessat(int dirfd, const char *path, int mode, int flags);
int chown(const char *path, uid_t uid, gid_t gid);                /* ulib/libc/chown.c: only to */
int lchown(const char *path, uid_t uid, gid_t gid);               /* the owner it has (else EPERM) */
int fchown(int fd, uid_t uid, gid_t gid);
int fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags);
ssize_t pwrite(int fd, const void *buf, size_t n, off_t off);
int ftruncate(int fd, off_t len);
int truncate(const char *path, off_t len);
int fsync(int fd);
int fdatasync(int fd);

unsigned sleep(unsigned s);
/* Processes: fork and vfork (ulib/pthread/pfork.c); the exec family runs a
   program file of the disk in this process's place (ulib/libc/exec.c),
   with `environ` or the envp given */
extern char **environ;
pid_t fork(void);
pid_t vfork(void);
int execv(const char *path, char *const argv[]);
int execvp(const char *file, char *const argv[]);
int execve(const char *path, char *const argv[], char *const envp[]);
int execl(const char *path, const char *arg, ...);
int execlp(const char *file, const char *arg, ...);
int execle(const char *path, const char *arg, ...);
int execvpe(const char *file, char *const argv[], char *const envp[]);
int nice(int inc);               /* the recorded nice value (ulib/nice.c) */
int usleep(useconds_t us);
pid_t getpid(void);                                 /* the space id */
pid_t getppid(void);                                /* the parent's id, 0 if none (or it ended) */
/* process groups and sessions (kernel/pgrp.c, ulib/libc/sigxsi.c): a
   child starts in its parent's group; a boot program leads its own group
   in session 0; another pid that does not exist is ESRCH */
pid_t getpgrp(void);
int setpgid(pid_t pid, pid_t pgid);
int setpgrp(void);
pid_t setsid(void);
pid_t getpgid(pid_t pid);
pid_t getsid(pid_t pid);
/* real, effective and saved ids, Linux's rules (ulib/libc/ids.c, kernel/cred.c) */
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
gid_t getegid(void);
int setuid(uid_t uid);
int seteuid(uid_t uid);
int setreuid(uid_t r, uid_t e);
int setresuid(uid_t r, uid_t e, uid_t s);
int getresuid(uid_t *r, uid_t *e, uid_t *s);
int setgid(gid_t gid);
int setegid(gid_t gid);
int setregid(gid_t r, gid_t e);
int setresgid(gid_t r, gid_t e, gid_t s);
int getresgid(gid_t *r, gid_t *e, gid_t *s);
int getgroups(int n, gid_t list[]);      /* at most NGROUPS_MAX (32) */
char *getlogin(void);                     /* "root", <pwd.h>'s one user name (login.c) */
int getlogin_r(char *buf, size_t n);
char *ttyname(int fd);                    /* the console's: "/dev/console" (ulib/libc/termios.c) */
int ttyname_r(int fd, char *buf, size_t n);
void sync(void);                          /* every dirty block to the disk (ulib/libc/sync.c) */
int syncfs(int fd);
int getentropy(void *buf, size_t n);      /* at most 256 bytes (ulib/libc/random.c) */
int gethostname(char *name, size_t n);
__attribute__((noreturn)) void _exit(int status);

/* SIGALRM for the program in s seconds (0: cancel); the seconds left of
   the previous alarm, rounded, or 0. It is setitimer's ITIMER_REAL
   (ulib/posix/timer.c, docs/libc.md). */
unsigned alarm(unsigned s);
/* The calling thread's id: its struct thread's (unique, never 0), or the
   space id before any thread runs. */
pid_t gettid(void);
/* Linux's syscall(2) for the few numbers of <sys/syscall.h> that mean
   something here (gettid, getpid, sched_yield, getcpu); any other: -1,
   ENOSYS. (Anima's own syscalls: <animart/sys.h>.) */
long syscall(long n, ...);

extern char *optarg;
extern int optind, opterr, optopt;
int getopt(int argc, char *const argv[], const char *opts);

#endif
