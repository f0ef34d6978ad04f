/* <sys/syscall.h>: the Linux syscall numbers that syscall() (<unistd.h>,
   ulib/gettid.c) answers; every other number is ENOSYS there. These are
   Linux's, not Anima's (<anima/syscall.h>): do not mix the two. */
#ifndef ULIB_SYS_SYSCALL_H
#define ULIB_SYS_SYSCALL_H

#define __NR_read        0
#define __NR_write       1
#define __NR_sched_yield 24
#define __NR_nanosleep   35
#define __NR_getpid      39
#define __NR_getppid     110
#define __NR_gettid      186
#define __NR_futex       202
#define __NR_clock_gettime 228
#define __NR_getcpu      309
#define SYS_read         __NR_read
#define SYS_write        __NR_write
#define SYS_nanosleep    __NR_nanosleep
#define SYS_getppid      __NR_getppid
#define SYS_futex        __NR_futex
#define SYS_clock_gettime __NR_clock_gettime
#define SYS_sched_yield  __NR_sched_yield
#define SYS_getpid       __NR_getpid
#define SYS_gettid       __NR_gettid
#define SYS_getcpu       __NR_getcpu

#endif
