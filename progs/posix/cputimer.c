/*
 * cputimer: POSIX timers on CPU-time clocks (ulib/libc/timer.c,
 * cpuwatch.c), as Linux has them, and clock_nanosleep on the process's
 * CPU clock. In turn:
 *   max      63 timers on CLOCK_PROCESS_CPUTIME_ID (TIMER_MAX), the
 *            64th EAGAIN.
 *   einval   what Linux refuses: a made-up clock, an exited thread's
 *            clock (timer_create; timer_settime of a timer on it), and
 *            clock_nanosleep on a thread's clock.
 *   process  a 30 ms timer on the process clock, armed while main and a
 *            worker compute: its handler (in main) reads the clock, no
 *            earlier than 30 ms of CPU after the arming.
 *   thread   a 30 ms timer on the worker's clock (pthread_getcpuclockid):
 *            its signal goes to the process (main's handler), which reads
 *            the worker's clock, no earlier than 30 ms of the worker's
 *            time; and on main's own (CLOCK_THREAD_CPUTIME_ID,
 *            TIMER_ABSTIME), and an absolute time passed (at once).
 *   notify   SIGEV_THREAD on the process clock: its function reads it.
 *   periodic 10 ms periods on the process clock with the signal blocked
 *            for 150 ms of CPU: sigwaitinfo's si_overrun + 1 is the
 *            periods that ended by the take, timer_getoverrun the same;
 *            timer_gettime's interval; after timer_delete, 50 ms more
 *            of CPU bring no signal.
 *   blocked  a 1 ms timer on a thread blocked in sem_wait never fires
 *            while 100 ms of the process's CPU go by (still armed); the
 *            thread posted, it computes and the timer fires, its clock
 *            past the due.
 *   gone     a timer on a thread that exited reads disarmed.
 *   fork     the child has none of its parent's CPU timers (EINVAL).
 *   sleep    clock_nanosleep on CLOCK_PROCESS_CPUTIME_ID, relative and
 *            TIMER_ABSTIME, and on the worker's clock, while it
 *            computes: it returns no earlier than that much CPU time of
 *            that clock; one on a thread that exits ends (0).
 * Every firing is awaited only up to BOUND of CPU time past its due
 * (the result's late_ns: the latest seen); a timer that never fires is
 * a failed check, not a hang. Computing threads yield between chunks so
 * that packages without time slices run the others too.
 */
#define CHECK_NAME "cputimer"
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <sched.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#define MS 1000000LL
#define BOUND (1000 * MS)        /* CPU time a firing may be late by */

static volatile int stop_w, fired;
static volatile long long fired_at;      /* the clock in the handler */
static clockid_t watched;                /* the clock the handler reads */
static long long late_max;

static long long clk_ns(clockid_t c)
{
	struct timespec t;
	if (clock_gettime(c, &t))
		return -1;
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long cpu_ns(void)
{
	return clk_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static void chunk(void)
{
	for (volatile int i = 0; i < 20000; i++)
		;
	sched_yield();
}

static void *worker(void *a)
{
	(void)a;
	while (!stop_w)
		chunk();
	return 0;
}

static void on_sig(int sig)
{
	(void)sig;
	fired_at = clk_ns(watched);
	fired = 1;
}

/* Compute (main) until the handler ran or the process has used
   `limit` of CPU time; whether it ran. */
static int compute_until_fired(long long limit)
{
	while (!fired && cpu_ns() < limit)
		chunk();
	return fired;
}

static timer_t make(clockid_t c, int sig)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig };
	timer_t id = 0;
	CHECK(timer_create(c, &ev, &id) == 0);
	return id;
}

static int arm(timer_t id, int flags, long long val, long long period)
{
	struct itimerspec v = { .it_value = { val / 1000000000LL, val % 1000000000LL },
				.it_interval = { period / 1000000000LL, period % 1000000000LL } };
	return timer_settime(id, flags, &v, 0);
}

/* A one-shot `ms` on clock c (watched: the clock it counts, read in the
   handler), while `cpu` computes: fired, no earlier than due. */
static void one_shot(const char *what, clockid_t c, clockid_t w, int flags)
{
	fired = 0;
	watched = w;
	timer_t id = make(c, SIGUSR1);
	long long at = clk_ns(w), due = at + 30 * MS;
	CHECK(arm(id, flags, flags ? due : 30 * MS, 0) == 0);
	int ok = compute_until_fired(cpu_ns() + 30 * MS * 4 + BOUND);
	CHECK(ok);
	CHECK(fired_at >= due);
	long long late = fired_at - due;
	if (late > late_max)
		late_max = late;
	if (!ok || fired_at < due)
		printf("cputimer: %s: fired %d at %lld, due %lld\n", what, ok, fired_at, due);
	CHECK(timer_delete(id) == 0);
}

static void area_max(void)
{
	timer_t ids[64];
	int n = 0;
	while (n < 64) {
		struct sigevent ev = { .sigev_notify = SIGEV_NONE };
		if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &ids[n]))
			break;
		n++;
	}
	CHECK(n == 63 && errno == EAGAIN);
	while (n)
		CHECK(timer_delete(ids[--n]) == 0);
}

static void area_einval(void)
{
	timer_t id;
	struct timespec ts = { 0, MS };
	CHECK(timer_create((clockid_t)12345, 0, &id) == -1 && errno == EINVAL);
	CHECK(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ts, 0) == EINVAL);
	clockid_t mine;
	CHECK(pthread_getcpuclockid(pthread_self(), &mine) == 0);
	CHECK(clock_nanosleep(mine, 0, &ts, 0) == EINVAL);
	pthread_t th;
	clockid_t c;
	stop_w = 0;
	CHECK(pthread_create(&th, 0, worker, 0) == 0);
	CHECK(pthread_getcpuclockid(th, &c) == 0);
	timer_t t2 = make(c, SIGUSR1);
	stop_w = 1;
	CHECK(pthread_join(th, 0) == 0);
	CHECK(timer_create(c, 0, &id) == -1 && errno == EINVAL);
	CHECK(arm(t2, 0, MS, 0) == -1 && errno == EINVAL);
	CHECK(timer_delete(t2) == 0);
}

static void area_process(void)
{
	pthread_t w;
	stop_w = 0;
	CHECK(pthread_create(&w, 0, worker, 0) == 0);
	one_shot("process", CLOCK_PROCESS_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID, 0);
	one_shot("process abs", CLOCK_PROCESS_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID, TIMER_ABSTIME);
	/* its time left, on its own clock */
	timer_t id = make(CLOCK_PROCESS_CPUTIME_ID, SIGUSR1);
	CHECK(arm(id, 0, 100 * 1000000000LL, 0) == 0);
	struct itimerspec g;
	CHECK(timer_gettime(id, &g) == 0 && g.it_value.tv_sec >= 98 && g.it_value.tv_sec <= 99 + 1);
	CHECK(timer_delete(id) == 0);
	stop_w = 1;
	CHECK(pthread_join(w, 0) == 0);
}

static void area_thread(void)
{
	pthread_t w;
	clockid_t wc, mine;
	stop_w = 0;
	CHECK(pthread_create(&w, 0, worker, 0) == 0);
	CHECK(pthread_getcpuclockid(w, &wc) == 0);
	CHECK(pthread_getcpuclockid(pthread_self(), &mine) == 0);
	/* the worker's: its signal comes to main, the process's */
	fired = 0;
	watched = wc;
	timer_t id = make(wc, SIGUSR1);
	long long due = clk_ns(wc) + 30 * MS;
	CHECK(arm(id, 0, 30 * MS, 0) == 0);
	int ok = compute_until_fired(cpu_ns() + 30 * MS * 4 + BOUND * 2);
	CHECK(ok && fired_at >= due);
	if (ok && fired_at - due > late_max)
		late_max = fired_at - due;
	if (!ok || fired_at < due)
		printf("cputimer: thread: fired %d at %lld, due %lld\n", ok, fired_at, due);
	CHECK(timer_delete(id) == 0);
	/* main's own, named by CLOCK_THREAD_CPUTIME_ID, relative and absolute */
	one_shot("self", CLOCK_THREAD_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, 0);
	one_shot("self abs", mine, CLOCK_THREAD_CPUTIME_ID, TIMER_ABSTIME);
	/* an absolute time passed: at once */
	fired = 0;
	id = make(CLOCK_THREAD_CPUTIME_ID, SIGUSR1);
	CHECK(arm(id, TIMER_ABSTIME, 1, 0) == 0);
	CHECK(compute_until_fired(cpu_ns() + BOUND));
	CHECK(timer_delete(id) == 0);
	stop_w = 1;
	CHECK(pthread_join(w, 0) == 0);
}

static volatile long long notified_at;

static void on_notify(union sigval v)
{
	notified_at = cpu_ns();
	*(volatile int *)v.sival_ptr = 1;
}

static void area_notify(void)
{
	fired = 0;
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_notify,
			       .sigev_value.sival_ptr = (void *)&fired };
	timer_t id;
	CHECK(timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &id) == 0);
	long long due = cpu_ns() + 20 * MS;
	CHECK(arm(id, 0, 20 * MS, 0) == 0);
	CHECK(compute_until_fired(cpu_ns() + 20 * MS * 4 + BOUND));
	CHECK(notified_at >= due);
	CHECK(timer_delete(id) == 0);
}

static void area_periodic(void)
{
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	CHECK(pthread_sigmask(SIG_BLOCK, &s, &old) == 0);
	pthread_t w;
	stop_w = 0;
	CHECK(pthread_create(&w, 0, worker, 0) == 0);
	const long long P = 10 * MS;
	timer_t id = make(CLOCK_PROCESS_CPUTIME_ID, SIGUSR2);
	long long a0 = cpu_ns();
	int armed = arm(id, 0, P, P) == 0;
	CHECK(armed);
	long long a1 = cpu_ns();
	while (cpu_ns() < a1 + 150 * MS)
		chunk();
	long long before = cpu_ns();
	siginfo_t si = { 0 };
	struct timespec zero = { 0, 0 };
	CHECK((armed ? sigwaitinfo(&s, &si) : sigtimedwait(&s, &si, &zero)) == SIGUSR2);
	long long after = cpu_ns();
	long long n = 1 + si.si_overrun, lo = (before - a1) / P, hi = (after - a0) / P;
	CHECK(n >= lo && n <= hi);
	CHECK(timer_getoverrun(id) == si.si_overrun);
	if (n < lo || n > hi)
		printf("cputimer: periodic: %lld expiries, between %lld and %lld\n", n, lo, hi);
	struct itimerspec g;
	CHECK(timer_gettime(id, &g) == 0 && g.it_interval.tv_nsec == P && g.it_value.tv_nsec <= P);
	CHECK(timer_delete(id) == 0);
	sigtimedwait(&s, 0, &zero);        /* one sent before the delete */
	long long t = cpu_ns();
	while (cpu_ns() < t + 50 * MS)
		chunk();
	CHECK(sigtimedwait(&s, 0, &zero) == -1 && errno == EAGAIN);
	stop_w = 1;
	CHECK(pthread_join(w, 0) == 0);
	CHECK(pthread_sigmask(SIG_SETMASK, &old, 0) == 0);
}

static sem_t go;
static volatile int waiting, b_done;

static void *blocked(void *a)
{
	(void)a;
	waiting = 1;
	sem_wait(&go);
	/* compute on its own clock until the timer fires */
	clockid_t self;
	pthread_getcpuclockid(pthread_self(), &self);
	long long end = clk_ns(self) + BOUND * 2;
	while (!fired && clk_ns(self) < end)
		chunk();
	b_done = 1;
	return 0;
}

static void area_blocked(void)
{
	pthread_t b, w;
	clockid_t bc;
	CHECK(sem_init(&go, 0, 0) == 0);
	fired = 0;
	CHECK(pthread_create(&b, 0, blocked, 0) == 0);
	while (!waiting)
		chunk();
	CHECK(pthread_getcpuclockid(b, &bc) == 0);
	/* in sem_wait once its clock stands still over a nap */
	struct timespec nap = { 0, 10 * MS };
	long long c0, c1 = clk_ns(bc);
	do {
		c0 = c1;
		nanosleep(&nap, 0);
		c1 = clk_ns(bc);
	} while (c1 != c0);
	watched = bc;
	timer_t id = make(bc, SIGUSR1);
	long long due = clk_ns(bc) + MS;
	CHECK(arm(id, 0, MS, 0) == 0);
	stop_w = 0;
	CHECK(pthread_create(&w, 0, worker, 0) == 0);
	long long t = cpu_ns();
	while (cpu_ns() < t + 100 * MS)
		chunk();
	CHECK(!fired);
	struct itimerspec g;
	CHECK(timer_gettime(id, &g) == 0 && g.it_value.tv_sec == 0 && g.it_value.tv_nsec > 0);
	stop_w = 1;
	CHECK(pthread_join(w, 0) == 0);
	CHECK(sem_post(&go) == 0);
	while (!fired && !b_done)        /* main takes the signal */
		chunk();
	CHECK(fired && fired_at >= due);
	if (!fired || fired_at < due)
		printf("cputimer: blocked: fired %d at %lld, due %lld\n", fired, fired_at, due);
	CHECK(pthread_join(b, 0) == 0);
	CHECK(timer_delete(id) == 0);
}

static void area_gone(void)
{
	pthread_t th;
	clockid_t c;
	stop_w = 0;
	CHECK(pthread_create(&th, 0, worker, 0) == 0);
	CHECK(pthread_getcpuclockid(th, &c) == 0);
	timer_t id = make(c, SIGUSR1);
	CHECK(arm(id, 0, 100 * 1000000000LL, 0) == 0);
	stop_w = 1;
	CHECK(pthread_join(th, 0) == 0);
	struct itimerspec g;
	CHECK(timer_gettime(id, &g) == 0 && !g.it_value.tv_sec && !g.it_value.tv_nsec);
	CHECK(timer_delete(id) == 0);
}

static void area_fork(void)
{
	timer_t id = make(CLOCK_PROCESS_CPUTIME_ID, SIGUSR1);
	CHECK(arm(id, 0, 100 * 1000000000LL, 0) == 0);
	pid_t p = fork();
	if (!p) {
		struct itimerspec g;
		_exit(timer_gettime(id, &g) == -1 && errno == EINVAL ? 0 : 1);
	}
	int st = -1;
	CHECK(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(timer_delete(id) == 0);
}

/* Computes 30 ms of its own CPU time, then exits. */
static void *run_for(void *a)
{
	(void)a;
	long long end = clk_ns(CLOCK_THREAD_CPUTIME_ID) + 30 * MS;
	while (clk_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		chunk();
	return 0;
}

static void area_sleep(void)
{
	pthread_t w;
	stop_w = 0;
	CHECK(pthread_create(&w, 0, worker, 0) == 0);
	struct timespec r = { 0, 30 * MS };
	long long t = cpu_ns();
	CHECK(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &r, 0) == 0);
	CHECK(cpu_ns() >= t + 30 * MS);
	long long at = cpu_ns() + 30 * MS;
	struct timespec a = { at / 1000000000LL, at % 1000000000LL };
	CHECK(clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, TIMER_ABSTIME, &a, 0) == 0);
	CHECK(cpu_ns() >= at);
	/* on the worker's clock (Linux: any thread's but the caller's) */
	clockid_t wc;
	CHECK(pthread_getcpuclockid(w, &wc) == 0);
	t = clk_ns(wc);
	CHECK(clock_nanosleep(wc, 0, &r, 0) == 0);
	CHECK(clk_ns(wc) >= t + 30 * MS);
	stop_w = 1;
	CHECK(pthread_join(w, 0) == 0);
	/* a thread that exits ends a sleep on its clock (0, as Linux's; at
	   the next look, its clock short of the 200 ms) */
	pthread_t q;
	clockid_t qc;
	CHECK(pthread_create(&q, 0, run_for, 0) == 0);
	CHECK(pthread_getcpuclockid(q, &qc) == 0);
	struct timespec far = { 0, 200 * MS };
	CHECK(clock_nanosleep(qc, 0, &far, 0) == 0);
	CHECK(pthread_join(q, 0) == 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct sigaction sa = { .sa_handler = on_sig };
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, 0) == 0);
	static const struct { const char *name; void (*fn)(void); } areas[] = {
		{ "max", area_max },
		{ "einval", area_einval },
		{ "process", area_process },
		{ "thread", area_thread },
		{ "notify", area_notify },
		{ "periodic", area_periodic },
		{ "blocked", area_blocked },
		{ "gone", area_gone },
		{ "fork", area_fork },
		{ "sleep", area_sleep },
	};
	for (unsigned i = 0; i < sizeof areas / sizeof areas[0]; i++) {
		printf("cputimer: %s\n", areas[i].name);   /* (where a hang was) */
		areas[i].fn();
	}
	struct result r;
	result_begin(&r, "cputimer");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_int(&r, "late_ns", late_max);
	result_end(&r);
	return failures != 0;
}
