/*
 * ITIMER_VIRTUAL (SIGVTALRM) and ITIMER_PROF (SIGPROF) across an exec.
 * Both are timer.c's timers on the program's processor time, the
 * CLOCK_PROCESS_CPUTIME_ID clock (ulib/time.c: the kernel's CPU time of
 * the space's VPs), watched by its timer thread as every CPU-time timer
 * is (cpuwatch.c). That clock does not split user from kernel time, so
 * both count the same time (Linux's VIRTUAL counts user time only: ours
 * may fire a little earlier in a program that spends time in the kernel,
 * never before the program has used that much processor time).
 *
 * An exec keeps both, their time left and periods, as Linux does
 * (SYS_itimerexec, read back at the new image's start); the POSIX
 * timers of timer_create go with the old image.
 */
#include <stdint.h>
#include <sys/time.h>
#include <anima/syscall.h>
#include <animart/sys.h>

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL + (uint64_t)tv->tv_usec * 1000;
}

static struct timeval ns_tv(uint64_t ns)
{
	ns = (ns + 999) / 1000;          /* up: never earlier than kept */
	return (struct timeval){ .tv_sec = (time_t)(ns / 1000000), .tv_usec = (suseconds_t)(ns % 1000000) };
}

/* exec (timer.c's __timer_exec_keep): what the next image keeps of both
   (getitimer's time left, rounded up to a microsecond, and period);
   undo: forget it (the exec failed). */
void __itimer_exec_keep(int undo);
void __itimer_exec_keep(int undo)
{
	uint64_t v[4] = { 0 };
	for (int i = 0; !undo && i < 2; i++) {
		struct itimerval g;
		if (!getitimer(i ? ITIMER_PROF : ITIMER_VIRTUAL, &g) && tv_ns(&g.it_value)) {
			v[2 * i] = tv_ns(&g.it_value);
			v[2 * i + 1] = tv_ns(&g.it_interval);
		}
	}
	syscall4(SYS_itimerexec, v[0], v[1], v[2], v[3]);
}

/* The start of an image (timer.c's __timer_exec_init): both armed again
   with what the exec that made it kept, counted from this image's own
   processor time (the process clock starts again at an exec here: its
   time left is what Linux's would count). */
void __itimer_exec_init(void);
void __itimer_exec_init(void)
{
	for (int i = 0; i < 2; i++) {
		long left = syscall2(SYS_getinfo, INFO_ITIMEREXEC, 2 * i);
		long period = left > 0 ? syscall2(SYS_getinfo, INFO_ITIMEREXEC, 2 * i + 1) : -1;
		if (period < 0)
			continue;
		struct itimerval v = { .it_value = ns_tv((uint64_t)left), .it_interval = ns_tv((uint64_t)period) };
		setitimer(i ? ITIMER_PROF : ITIMER_VIRTUAL, &v, 0);
	}
}
