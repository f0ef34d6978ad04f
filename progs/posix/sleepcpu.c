/*
 * sleepcpu: a program that only sleeps costs next to no processor time,
 * with or without a timer armed. main sleeps 300 ms (nanosleep: the
 * thread's sleep) with no timer, then beside a 10 ms periodic setitimer
 * whose SIGALRM a handler counts, then beside a timer_create timer and
 * an alarm armed far off (their service threads waiting). Each phase's
 * process CPU time (CLOCK_PROCESS_CPUTIME_ID, and getrusage's) over its
 * wall time is reported. On naive, with a timer's service thread beside
 * the sleeper, two user-level timed waits on one classic VP each saw the
 * other as runnable and yielded to it: the VP never blocked, and the
 * sleep cost its whole wall time. Prints
 *   @result {"name":"sleepcpu","phases":[[cpu_us,ru_us,wall_us],..],
 *            "ticks":N}
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile int ticks;

static void on_alrm(int sig)
{
	if (sig == SIGALRM)
		ticks++;
}

static long long ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long ru_us(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000LL +
	       r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

/* Sleep 300 ms of wall time (a signal may cut a sleep short). */
static void phase(long long out[3])
{
	long long c0 = ns(CLOCK_PROCESS_CPUTIME_ID), r0 = ru_us(), m0 = ns(CLOCK_MONOTONIC);
	for (long long end = m0 + 300000000LL, left; (left = end - ns(CLOCK_MONOTONIC)) > 0;) {
		struct timespec t = { left / 1000000000LL, left % 1000000000LL };
		nanosleep(&t, 0);
	}
	out[2] = (ns(CLOCK_MONOTONIC) - m0) / 1000;
	out[0] = (ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / 1000;
	out[1] = ru_us() - r0;
}

int main(void)
{
	long long p[3][3];
	phase(p[0]);
	struct sigaction sa = { .sa_handler = on_alrm };
	sigaction(SIGALRM, &sa, 0);
	sigaction(SIGUSR1, &sa, 0);      /* (det=par's clock may reach the far timer) */
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	setitimer(ITIMER_REAL, &it, 0);
	phase(p[1]);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, 0);
	int n = ticks;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	timer_t t;
	timer_create(CLOCK_MONOTONIC, &ev, &t);
	struct itimerspec v = { .it_value = { 100, 0 } };
	timer_settime(t, 0, &v, 0);
	alarm(100);
	phase(p[2]);
	alarm(0);
	timer_delete(t);
	printf("@result {\"name\":\"sleepcpu\",\"phases\":[");
	for (int i = 0; i < 3; i++)
		printf("%s[%lld,%lld,%lld]", i ? "," : "", p[i][0], p[i][1], p[i][2]);
	printf("],\"ticks\":%d}\n", n);
	return 0;
}
