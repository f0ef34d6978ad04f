/* <sys/times.h>: times() in clock ticks (sysconf(_SC_CLK_TCK), 100 a
   second): the program's processor time (as clock(), every VP's run time,
   kernel time included) as tms_utime; tms_stime and the children's 0. */
#ifndef ULIB_SYS_TIMES_H
#define ULIB_SYS_TIMES_H

#ifndef __clock_t_defined
#define __clock_t_defined
typedef long clock_t;
#endif

struct tms {
	clock_t tms_utime;
	clock_t tms_stime;
	clock_t tms_cutime;
	clock_t tms_cstime;
};

/* Returns the real time since boot in ticks (Linux: since an arbitrary
   point; only differences mean anything). */
clock_t times(struct tms *buf);

#endif
