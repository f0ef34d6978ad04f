/* Error codes returned (negated) by syscalls. Shared by kernel and user. */
#ifndef ANIMA_ERRNO_H
#define ANIMA_ERRNO_H

#define EPERM    1   /* not allowed */
#define ENOENT   2   /* no such program or object */
#define ESRCH    3   /* no such space or VP */
#define EINTR    4
#define EIO      5
#define E2BIG    7   /* argument list too long */
#define ENOEXEC  8   /* not a program this kernel runs (a bad ELF file) */
#define EBADF    9   /* not a handle in the caller's table */
#define ECHILD   10  /* not a child of the caller */
#define EAGAIN   11
#define ENOMEM   12  /* out of memory */
#define EFAULT   14  /* bad user address */
#define EBUSY    16
#define EEXIST   17
#define EINVAL   22  /* bad argument */
#define ERANGE   34
#define ENOSYS   38  /* no such syscall */
#define EIDRM    43  /* the segment was revoked or unmapped (a waiter on it, a dead handle) */
/* Numbers the user libraries report (the kernel returns none of these yet);
   Linux's values, so ported code that prints them reads familiar. */
#define EACCES   13  /* a grant does not allow this access */
#define ENOTDIR  20
#define ENFILE   23
#define EMFILE   24
#define ENOTTY   25
#define ENOSPC   28
#define ESPIPE   29
#define EDOM     33  /* math argument out of domain */
#define EDEADLK  35  /* the lock is the caller's own (error-checking mutex) */
#define ENAMETOOLONG 36
#define ENOLCK   37  /* no room for another file lock (kernel/flock.c: its bounds) */
#define ENOTSUP  95
#define EOVERFLOW 75
#define ECANCELED 125
#define EOWNERDEAD 130       /* a robust lock's owner ended holding it */
#define ENOTRECOVERABLE 131  /* ... and nobody made its state consistent */
#define ETIMEDOUT 110
/* More of Linux's, for ported code that names them (libc: docs/libc.md). */
#define ENXIO    6
#define EXDEV    18
#define ENODEV   19
#define EISDIR   21
#define EFBIG    27
#define EROFS    30
#define EMLINK   31
#define EPIPE    32
#define ENOTEMPTY 39
#define ELOOP    40
#define EWOULDBLOCK EAGAIN
#define EILSEQ   84
#define EOPNOTSUPP ENOTSUP
#define ENOBUFS  105
#define EALREADY 114
#define EINPROGRESS 115
#define EUCLEAN  117  /* the file system on the disk is inconsistent (kernel/ext2.c) */

#endif
