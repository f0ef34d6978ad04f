/* ftime (<sys/timeb.h>): the old wall clock in seconds and milliseconds,
   from CLOCK_REALTIME; UTC, so no zone and no DST. */
#include <sys/timeb.h>

int ftime(struct timeb *tb)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	tb->time = ts.tv_sec;
	tb->millitm = (unsigned short)(ts.tv_nsec / 1000000);
	tb->timezone = 0;
	tb->dstflag = 0;
	return 0;
}
