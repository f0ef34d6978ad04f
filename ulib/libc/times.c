/* A file of its own, so a program with a global of its own called
   `times` still links whenever it uses the clocks. */
#include <sys/times.h>
#include <stdint.h>
#include <animart/clock.h>

#define NS 1000000000L
uint64_t __cpu_time_ns(void);      /* ulib/time.c */

/* times(): ticks of sysconf(_SC_CLK_TCK) (100 a second). The program's
   processor time (CLOCK_PROCESS_CPUTIME_ID, kernel time included) is
   tms_utime; there is no separate system time nor children. Returns the
   real time since boot (only differences mean anything, as on Linux). */
#define TICK_NS (NS / 100)
clock_t times(struct tms *buf)
{
	if (buf) {
		buf->tms_utime = (clock_t)(__cpu_time_ns() / TICK_NS);
		buf->tms_stime = buf->tms_cutime = buf->tms_cstime = 0;
	}
	return (clock_t)(now_ns() / TICK_NS);
}
