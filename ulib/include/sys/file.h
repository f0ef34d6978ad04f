/*
 * <sys/file.h>: flock(2), a lock on a whole file owned by the open file
 * (shared by dup and fork), independent of fcntl's record locks
 * (ulib/libc/flock.c).
 */
#ifndef ULIB_SYS_FILE_H
#define ULIB_SYS_FILE_H

#include <fcntl.h>

#define LOCK_SH 1          /* shared */
#define LOCK_EX 2          /* exclusive */
#define LOCK_NB 4          /* do not wait: EWOULDBLOCK */
#define LOCK_UN 8          /* let go */

int flock(int fd, int op);

#endif
