/* A file of its own, so a program with a global of its own called
   `times` still links whenever it uses the clocks. */
#include <sys/times.h>
#include <stdint.h>
#include <animart/clock.h>
#include <animart/sys.h>

#define NS 1000000000L
uint64_t __cpu_time_ns(void);      /* ulib/time.c */

/* times(): ticks of sysconf(_SC_CLK_TCK) (100 a second). The program's
   processor time (CLOCK_PROCESS_CPUTIME_ID, kernel time included) is
   tms_utime, its children's that it waited for (the kernel's count,
   INFO_CHILD_CPU) tms_cutime; there is no separate system time. Returns
   the real time since boot (only differences mean anything, as on Linux). */
#define TICK_NS (NS / 100)
clock_t times(struct tms *buf)
{
	if (buf) {
		buf->tms_utime = (clock_t)(__cpu_time_ns() / TICK_NS);
		buf->tms_cutime = (clock_t)((uint64_t)sys_getinfo(INFO_CHILD_CPU) / TICK_NS);
		buf->tms_stime = buf->tms_cstime = 0;
	}
	return (clock_t)(now_ns() / TICK_NS);
}
