/*
 * Error numbers: the kernel's, from <anima/errno.h>. Syscalls return them
 * negated; errno itself is set by the libc functions that report errors
 * that way (strtol & co, malloc). It is per thread where the program has
 * TLS (<animart/tls.h>: every POSIX program), else one global.
 */
#ifndef ULIB_ERRNO_H
#define ULIB_ERRNO_H

#include <anima/errno.h>

/* Linux's, for ulib's message queues (<mqueue.h>): no kernel call
   returns it, so it is not in the kernel's list */
#define EMSGSIZE 90
/* Linux's, for catgets (<nl_types.h>): a message the catalog lacks */
#define ENOMSG 42

int *__errno_location(void);
#define errno (*__errno_location())

/* GNU: argv[0], and its part after the last '/' ("" before main) */
extern char *program_invocation_name, *program_invocation_short_name;

/* "ENOSYS" for ENOSYS (or -ENOSYS); "E?" for numbers it does not know. */
const char *errname(int e);

#endif
