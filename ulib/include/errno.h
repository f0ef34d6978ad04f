/*
 * Error numbers: the kernel's, from <anima/errno.h>. Syscalls return them
 * negated; errno itself is only set by the few libc functions that
 * report errors that way (strtol & co). It is one global, not per thread.
 */
#ifndef ULIB_ERRNO_H
#define ULIB_ERRNO_H

#include <anima/errno.h>

extern int errno;

/* "ENOSYS" for ENOSYS (or -ENOSYS); "E?" for numbers it does not know. */
const char *errname(int e);

#endif
