/* Error codes returned (negated) by syscalls. Shared by kernel and user. */
#ifndef ANIMA_ERRNO_H
#define ANIMA_ERRNO_H

#define EPERM    1   /* not allowed */
#define ENOENT   2   /* no such program or object */
#define ESRCH    3   /* no such space or VP */
#define EINTR    4
#define EIO      5
#define E2BIG    7   /* argument list too long */
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
#define ETIMEDOUT 110

#endif
