/*
 * timefork: timers across fork and exec, as POSIX says (ulib/libc/timer.c,
 * itimer.c). argv[1]:
 *   fork: the parent has alarm (ITIMER_REAL), ITIMER_VIRTUAL and a
 *         timer_create timer armed for 100 s. Its child has none of them:
 *         alarm(0) is 0, getitimer says both disarmed, the parent's
 *         timer id is EINVAL (timer_gettime), nothing is pending; and the
 *         timers the child arms itself fire (ITIMER_REAL after 20 ms, a
 *         timer of its own, ITIMER_VIRTUAL after 10 ms of its CPU time),
 *         each taken by sigwaitinfo. The parent's stay armed. Waited
 *         for, the child's processor time is the parent's children's
 *         (times' tms_cutime, getrusage(RUSAGE_CHILDREN)); its own
 *         processor time started at 0, not at its parent's 100 ms.
 *   exec: a child arms ITIMER_REAL for 100 s every 50 s and a
 *         timer_create timer, then execs /bin/timefork execd ID (argv[2]
 *         its package): the new image has ITIMER_REAL's time left (90 to
 *         100 s; alarm(0) says so too) and its interval, and the timer
 *         is gone (EINVAL). A second child arms ITIMER_REAL for 50 ms and
 *         execs /bin/timefork execd2: its SIGALRM (blocked: the mask
 *         stays) comes in the new image, for sigwaitinfo.
 * Every wait here ends only by the signal it waits for: a timer that
 * never fires is a hang, failed by the harness's timeout.
 */
#define CHECK_NAME "timefork"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <sched.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sys/times.h>
#include <sys/resource.h>
#include <animalib/result.h>
#include <check.h>

static sigset_t timer_sigs(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	sigaddset(&s, SIGVTALRM);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGUSR2);
	return s;
}

static int take(int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	siginfo_t si;
	return sigwaitinfo(&s, &si);
}

static timer_t make_timer(int sig, time_t secs, long ns)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig };
	timer_t id = 0;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &id) == 0);
	struct itimerspec v = { .it_value = { secs, ns } };
	CHECK(timer_settime(id, 0, &v, 0) == 0);
	return id;
}

static long long parent_cpu;     /* the parent's processor time just before the fork */

static long long cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The fork's child: its parent's timers are not here; its own work. */
static void child(timer_t parents)
{
	/* its processor time starts at 0, not at its parent's 100 ms
	   (POSIX: a child's times are zero) */
	long long mine = cpu_ns();
	CHECK(mine < parent_cpu / 2);
	if (mine >= parent_cpu / 2)
		printf("timefork: child's CPU clock %lld ns, its parent's %lld\n", mine, parent_cpu);
	struct itimerval v;
	struct itimerspec ts;
	sigset_t p;
	CHECK(getitimer(ITIMER_REAL, &v) == 0 && v.it_value.tv_sec == 0 && v.it_value.tv_usec == 0);
	CHECK(getitimer(ITIMER_VIRTUAL, &v) == 0 && v.it_value.tv_sec == 0 && v.it_value.tv_usec == 0);
	CHECK(alarm(0) == 0);
	CHECK(timer_gettime(parents, &ts) == -1 && errno == EINVAL);
	CHECK(sigpending(&p) == 0 && sigisemptyset(&p));
	struct itimerval r = { .it_value = { 0, 20000 } };
	CHECK(setitimer(ITIMER_REAL, &r, 0) == 0);
	CHECK(take(SIGALRM) == SIGALRM);
	make_timer(SIGUSR2, 0, 10000000);
	CHECK(take(SIGUSR2) == SIGUSR2);
	struct itimerval c = { .it_value = { 0, 10000 } };
	CHECK(setitimer(ITIMER_VIRTUAL, &c, 0) == 0);
	sigset_t vt;
	sigemptyset(&vt);
	sigaddset(&vt, SIGVTALRM);
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(&vt, 0, &zero) != SIGVTALRM)
		sched_yield();   /* computing: the CPU clock moves (and the watcher gets turns) */
	CHECK(1);
}

static void fork_area(void)
{
	sigset_t s = timer_sigs();
	CHECK(sigprocmask(SIG_BLOCK, &s, 0) == 0);
	alarm(100);
	struct itimerval c = { .it_value = { 100, 0 } };
	CHECK(setitimer(ITIMER_VIRTUAL, &c, 0) == 0);
	timer_t id = make_timer(SIGUSR1, 100, 0);
	struct tms tm;
	CHECK(times(&tm) != (clock_t)-1 && tm.tms_cutime == 0 && tm.tms_cstime == 0);
	while ((parent_cpu = cpu_ns()) < 100000000)
		;                        /* 100 ms of processor time */
	pid_t k = fork();
	if (k == 0) {
		child(id);
		_exit(failures ? 10 + failures : 0);
	}
	int st = -1;
	CHECK(waitpid(k, &st, 0) == k);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		printf("timefork: child status %#x\n", st);
	/* waited for, the child's processor time is ours as a child's
	   (its ITIMER_VIRTUAL took 10 ms of it): times' tms_cutime (100
	   ticks a second) and getrusage(RUSAGE_CHILDREN) */
	struct rusage ru;
	CHECK(times(&tm) != (clock_t)-1 && tm.tms_cutime + tm.tms_cstime >= 1);
	CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0 &&
	      ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec >= 10000);
	struct itimerspec ts;
	CHECK(timer_gettime(id, &ts) == 0 && ts.it_value.tv_sec >= 90);
	CHECK(getitimer(ITIMER_VIRTUAL, &c) == 0 && c.it_value.tv_sec >= 90);
	unsigned left = alarm(0);
	CHECK(left >= 90 && left <= 100);
}

/* A child that arms ITIMER_REAL for secs s + us µs (every `every` s)
   and execs /bin/timefork `area` ID (ID: a timer_create timer of its). */
static pid_t exec_child(const char *pkg, const char *area, time_t secs, long us, time_t every)
{
	pid_t k = fork();
	if (k == 0) {
		sigset_t s = timer_sigs();
		sigprocmask(SIG_BLOCK, &s, 0);
		struct itimerval r = { .it_value = { secs, us }, .it_interval = { every, 0 } };
		if (setitimer(ITIMER_REAL, &r, 0))
			_exit(97);
		timer_t id = make_timer(SIGUSR1, 100, 0);
		char pk[32], ids[32];
		snprintf(pk, sizeof pk, "pkg=%s", pkg);
		snprintf(ids, sizeof ids, "%ld", (long)(intptr_t)id);
		char *args[] = { "timefork", pk, (char *)area, ids, 0 };
		execv("/bin/timefork", args);
		_exit(99);
	}
	return k;
}

static void exec_area(const char *pkg)
{
	for (int i = 0; i < 2; i++) {
		pid_t k = i ? exec_child(pkg, "execd2", 0, 50000, 0) : exec_child(pkg, "execd", 100, 0, 50);
		int st = -1;
		CHECK(waitpid(k, &st, 0) == k);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			printf("timefork: exec'd child %d status %#x\n", i, st);
	}
}

/* The image the exec made: ITIMER_REAL kept, the timer gone. */
static int execd(long id)
{
	struct itimerval v;
	struct itimerspec ts;
	CHECK(getitimer(ITIMER_REAL, &v) == 0 && v.it_value.tv_sec >= 90 &&
	      v.it_value.tv_sec <= 100 && v.it_interval.tv_sec == 50);
	unsigned left = alarm(0);
	CHECK(left >= 90 && left <= 100);
	CHECK(timer_gettime((timer_t)(intptr_t)id, &ts) == -1 && errno == EINVAL);
	if (failures)
		printf("timefork: execd: %d failures (itimer %ld s every %ld s, alarm %u)\n",
		       failures, (long)v.it_value.tv_sec, (long)v.it_interval.tv_sec, left);
	return failures;
}

int main(int argc, char **argv)
{
	const char *area = argc > 1 ? argv[1] : "fork";
	if (!strcmp(area, "execd"))
		return execd(argc > 2 ? atol(argv[2]) : 0);
	if (!strcmp(area, "execd2"))     /* the 50 ms ITIMER_REAL the exec kept fires here */
		return take(SIGALRM) == SIGALRM ? 0 : 1;
	if (!strcmp(area, "fork"))
		fork_area();
	else if (!strcmp(area, "exec"))
		exec_area(argc > 2 ? argv[2] : "fifo");
	else
		CHECK(!"no such area");
	struct result r;
	result_begin(&r, "timefork");
	result_str(&r, "area", area);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
