/*
 * Integer limits from the compiler's predefined macros. (GCC's own
 * limits.h would #include_next the host C library's, which a freestanding
 * target must not depend on.)
 */
#ifndef ULIB_LIMITS_H
#define ULIB_LIMITS_H

#define CHAR_BIT   __CHAR_BIT__
#define SCHAR_MAX  __SCHAR_MAX__
#define SCHAR_MIN  (-SCHAR_MAX - 1)
#define UCHAR_MAX  (SCHAR_MAX * 2 + 1)
#ifdef __CHAR_UNSIGNED__
#define CHAR_MIN   0
#define CHAR_MAX   UCHAR_MAX
#else
#define CHAR_MIN   SCHAR_MIN
#define CHAR_MAX   SCHAR_MAX
#endif
#define SHRT_MAX   __SHRT_MAX__
#define SHRT_MIN   (-SHRT_MAX - 1)
#define USHRT_MAX  (SHRT_MAX * 2 + 1)
#define INT_MAX    __INT_MAX__
#define INT_MIN    (-INT_MAX - 1)
#define UINT_MAX   (INT_MAX * 2U + 1U)
#define LONG_MAX   __LONG_MAX__
#define LONG_MIN   (-LONG_MAX - 1L)
#define ULONG_MAX  (LONG_MAX * 2UL + 1UL)
#define LLONG_MAX  __LONG_LONG_MAX__
#define LLONG_MIN  (-LLONG_MAX - 1LL)
#define ULLONG_MAX (LLONG_MAX * 2ULL + 1ULL)
#define SSIZE_MAX  LONG_MAX
#define LONG_BIT   64
#define WORD_BIT   32
#define MB_LEN_MAX 1

/* POSIX limits */
#define PATH_MAX   4096
#define NAME_MAX   255
#define PIPE_BUF   4096
#define PAGESIZE   4096
#define IOV_MAX    1024
#define ATEXIT_MAX 32
#define HOST_NAME_MAX 64
#define NGROUPS_MAX 32              /* supplementary groups (kernel CRED_NGROUPS) */
#define AIO_MAX            1024     /* asynchronous I/O requests in flight (ulib/libc/aio.c) */
#define AIO_LISTIO_MAX     1024     /* entries of a lio_listio list */
#define AIO_PRIO_DELTA_MAX 20       /* aio_reqprio's largest (glibc's) */
/* The least values POSIX allows for each limit (<limits.h>'s "Minimum
   Values", fixed by the standard, the same on every system): portable
   programs size things by them (a name of _POSIX_NAME_MAX bytes is
   valid everywhere). */
#define _POSIX_AIO_LISTIO_MAX 2
#define _POSIX_AIO_MAX        1
#define _POSIX_ARG_MAX        4096
#define _POSIX_CHILD_MAX      25
#define _POSIX_DELAYTIMER_MAX 32
#define _POSIX_HOST_NAME_MAX  255
#define _POSIX_LINK_MAX       8
#define _POSIX_LOGIN_NAME_MAX 9
#define _POSIX_MAX_CANON      255
#define _POSIX_MAX_INPUT      255
#define _POSIX_MQ_OPEN_MAX    8
#define _POSIX_MQ_PRIO_MAX    32
#define _POSIX_NAME_MAX       14
#define _POSIX_NGROUPS_MAX    8
#define _POSIX_OPEN_MAX       20
#define _POSIX_PATH_MAX       256
#define _POSIX_PIPE_BUF       512
#define _POSIX_RE_DUP_MAX     255
#define _POSIX_RTSIG_MAX      8
#define _POSIX_SEM_NSEMS_MAX  256
#define _POSIX_SEM_VALUE_MAX  32767
#define _POSIX_SIGQUEUE_MAX   32
#define _POSIX_SSIZE_MAX      32767
#define _POSIX_STREAM_MAX     8
#define _POSIX_SYMLINK_MAX    255
#define _POSIX_SYMLOOP_MAX    8
#define _POSIX_THREAD_DESTRUCTOR_ITERATIONS 4
#define _POSIX_THREAD_KEYS_MAX 128
#define _POSIX_THREAD_THREADS_MAX 64
#define _POSIX_TIMER_MAX      32
#define _POSIX_TTY_NAME_MAX   9
#define _POSIX_TZNAME_MAX     6
#define _POSIX_CLOCKRES_MIN   20000000
#define _XOPEN_IOV_MAX        16
#define _XOPEN_NAME_MAX       255
#define _XOPEN_PATH_MAX       1024

#endif
