/* <utime.h>: utime (ulib/libc/fmode.c): a file's access and modification
   times, in seconds; a null t sets both to now. */
#ifndef ULIB_UTIME_H
#define ULIB_UTIME_H

#include <sys/types.h>

struct utimbuf {
	time_t actime, modtime;
};
int utime(const char *path, const struct utimbuf *t);

#endif
