/* <sys/timeb.h>: the old ftime (ulib/time.c's clock): seconds and
   milliseconds of CLOCK_REALTIME; no time zone (UTC: 0, no DST). */
#ifndef ULIB_SYS_TIMEB_H
#define ULIB_SYS_TIMEB_H

#include <time.h>

struct timeb {
	time_t time;
	unsigned short millitm;
	short timezone;
	short dstflag;
};

int ftime(struct timeb *tb);

#endif
