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
/* The rest of POSIX's list (<errno.h>), with Linux's values, so that
   programs written for it build and tell them apart: no kernel call
   returns these (Anima has no sockets, STREAMS or remote files), but a
   library function may (EBADMSG, ENODATA, ETXTBSY, ...). */
#define ENOSTR 60
#define ENODATA 61
#define ETIME 62
#define ENOSR 63
#define ENOLINK 67
#define EPROTO 71
#define EMULTIHOP 72
#define EBADMSG 74
#define ETXTBSY 26
#define ENOTSOCK 88
#define EDESTADDRREQ 89
#define EPROTOTYPE 91
#define ENOPROTOOPT 92
#define EPROTONOSUPPORT 93
#define EAFNOSUPPORT 97
#define EADDRINUSE 98
#define EADDRNOTAVAIL 99
#define ENETDOWN 100
#define ENETUNREACH 101
#define ENETRESET 102
#define ECONNABORTED 103
#define ECONNRESET 104
#define ECONNREFUSED 111
#define EISCONN 106
#define ENOTCONN 107
#define EHOSTUNREACH 113
#define ESTALE 116
#define EDQUOT 122

int *__errno_location(void);
#define errno (*__errno_location())

/* GNU: argv[0], and its part after the last '/' ("" before main) */
extern char *program_invocation_name, *program_invocation_short_name;

/* "ENOSYS" for ENOSYS (or -ENOSYS); "E?" for numbers it does not know. */
const char *errname(int e);

#endif
