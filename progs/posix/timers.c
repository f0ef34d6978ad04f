/*
 * timers: alarm, setitimer/getitimer and timer_* (ulib/libc/timer.c)
 * as programs use them: alarm's return value (the seconds left of the
 * previous one); alarm + pause, the handler running in main and pause
 * ending with EINTR while another thread sleeps; setitimer's periodic
 * SIGALRM counted over a window (a lower bound only), getitimer, the old
 * value, disarming; timer_create with SIGEV_SIGNAL (si_code SI_TIMER and
 * si_value in an SA_SIGINFO handler), SIGEV_THREAD (the function in
 * another thread, with the value), SIGEV_NONE, TIMER_ABSTIME on both
 * clocks, disarm with 0, overruns counted while the signal is blocked
 * (and, for a 1 us timer, all of them, at almost no processor time),
 * a default-ignored signal (SIGURG) discarded without stopping its timer,
 * sigwait taking SIGALRM in a thread when every thread blocks it, and
 * bad calls (EINVAL for bad clocks, sigevents, times, deleted and forged
 * timers). `timers watchdog`: alarm(1) with SIGALRM's default action
 * ends the program (status 142) while main sleeps. Ends with
 * @result {"name": "timers", "checks": N, "failures": F, "pkg": the
 * package}, exit 0 iff F == 0.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <animalib/ulib.h>
#include <animart/pkg.h>

#define CHECK_NAME "timers"
#include <check.h>

extern const struct pkg *posix_pkg;     /* (ulib/pthread/pstart.c) */

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, 0);              /* may end early (EINTR): callers loop on a clock */
}

static pthread_t main_th;
static volatile int alrm, alrm_in_main;

static void on_alrm(int sig)
{
	(void)sig;
	alrm++;
	alrm_in_main = pthread_self() == main_th;
}

/* ---- alarm ---- */

static void *sleeper(void *arg)
{
	(void)arg;
	for (long long end = mono_ms() + 1500; mono_ms() < end;)
		sleep_ms(100);
	return 0;
}

static void test_alarm(void)
{
	CHECK(alarm(5) == 0);           /* none before */
	unsigned left = alarm(3);
	CHECK(left == 5 || left == 4);  /* rounded to the nearest second */
	CHECK(alarm(0) == 3);
	CHECK(alarm(0) == 0);

	/* alarm + pause: the handler runs in main, pause ends with EINTR,
	   though another thread that does not block SIGALRM sleeps */
	pthread_t th;
	pthread_create(&th, 0, sleeper, 0);
	signal(SIGALRM, on_alrm);
	alrm = 0;
	long long t0 = mono_ms();
	CHECK(alarm(1) == 0);
	errno = 0;
	int r = pause();
	CHECK(r == -1 && errno == EINTR);
	CHECK(alrm == 1);
	CHECK(alrm_in_main);
	CHECK(mono_ms() - t0 >= 900);
	CHECK(alarm(0) == 0);           /* it went off: none left */
	pthread_join(th, 0);
}

/* ---- setitimer ---- */

static void test_itimer(void)
{
	signal(SIGALRM, on_alrm);
	struct itimerval v = { .it_interval = { 0, 20000 }, .it_value = { 0, 20000 } }, g, old;
	alrm = 0;
	long long t0 = mono_ms();       /* (before the arming: ticks may come before the checks end) */
	CHECK(setitimer(ITIMER_REAL, &v, &old) == 0);
	CHECK(!timerisset(&old.it_value) && !timerisset(&old.it_interval));
	CHECK(getitimer(ITIMER_REAL, &g) == 0);
	CHECK(g.it_interval.tv_sec == 0 && g.it_interval.tv_usec == 20000);
	CHECK(g.it_value.tv_sec == 0 && g.it_value.tv_usec > 0 && g.it_value.tv_usec <= 20000);
	/* periodic: 10 ticks come, however long a loaded host makes them
	   take (a fixed 600 ms window once held only 9), and no more than
	   the 20 ms periods that passed allow */
	long long end = t0 + 10000;
	while (alrm < 10 && mono_ms() < end)
		sleep_ms(5);
	int n = alrm;
	long long took = mono_ms() - t0;
	CHECK(n >= 10 && n <= took / 20 + 2);
	if (n < 10 || n > took / 20 + 2)
		printf("timers: %d ticks of 20 ms in %lld ms\n", n, took);
	struct itimerval zero = { 0 };
	CHECK(setitimer(ITIMER_REAL, &zero, &old) == 0);
	CHECK(old.it_interval.tv_usec == 20000 && old.it_value.tv_usec <= 20000);
	sleep_ms(30);                   /* one already sent may still run */
	n = alrm;
	for (long long end = mono_ms() + 150; mono_ms() < end;)
		sleep_ms(10);
	CHECK(alrm == n);               /* disarmed: no more */
	CHECK(getitimer(ITIMER_REAL, &g) == 0 && !timerisset(&g.it_value));

	/* one-shot: it_interval 0 */
	struct itimerval once = { .it_value = { 0, 30000 } };
	alrm = 0;
	CHECK(setitimer(ITIMER_REAL, &once, 0) == 0);
	/* it comes, however late a stalled host makes it (a fixed 300 ms
	   window once ended first), and then no more for 300 ms */
	for (long long end = mono_ms() + 10000; !alrm && mono_ms() < end;)
		sleep_ms(10);
	for (long long end = mono_ms() + 300; mono_ms() < end;)
		sleep_ms(10);
	CHECK(alrm == 1);

	/* the CPU-time timers exist (portcompat itimer runs them): disarmed */
	CHECK(getitimer(ITIMER_VIRTUAL, &g) == 0 && !g.it_value.tv_sec && !g.it_value.tv_usec);
	CHECK(getitimer(ITIMER_PROF, &g) == 0 && !g.it_value.tv_sec && !g.it_value.tv_usec);
	CHECK(setitimer(ITIMER_PROF, &zero, 0) == 0);
	errno = 0;
	CHECK(setitimer(7, &v, 0) == -1 && errno == EINVAL);
	struct itimerval bad = { .it_value = { 0, 1000000 } };
	errno = 0;
	CHECK(setitimer(ITIMER_REAL, &bad, 0) == -1 && errno == EINVAL);
	bad = (struct itimerval){ .it_value = { -1, 0 } };
	errno = 0;
	CHECK(setitimer(ITIMER_REAL, &bad, 0) == -1 && errno == EINVAL);
}

/* ---- timer_create: SIGEV_SIGNAL ---- */

static volatile int info_sig, info_code, info_val, info_n, info_in_main;

static void on_info(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	info_sig = sig;
	info_code = si->si_code;
	info_val = si->si_value.sival_int;
	info_in_main = pthread_self() == main_th;
	info_n++;
}

static int wait_for(volatile int *n, int want, long ms)
{
	for (long long end = mono_ms() + ms; *n < want && mono_ms() < end;)
		sleep_ms(5);
	return *n >= want;
}

static void test_signal(void)
{
	struct sigaction sa = { .sa_sigaction = on_info, .sa_flags = SA_SIGINFO };
	sigaction(SIGUSR1, &sa, 0);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
			       .sigev_value.sival_int = 42 };
	timer_t t;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == 0);
	struct itimerspec v = { .it_value = { 0, 50000000 } }, g;
	info_n = 0;
	long long t0 = mono_ms();
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	CHECK(timer_gettime(t, &g) == 0);
	/* running, unless a host stall let its 50 ms pass before the read */
	CHECK(g.it_value.tv_sec == 0 && g.it_value.tv_nsec <= 50000000 &&
	      (g.it_value.tv_nsec > 0 || mono_ms() - t0 >= 49));
	CHECK(g.it_interval.tv_sec == 0 && g.it_interval.tv_nsec == 0);
	CHECK(wait_for(&info_n, 1, 2000));
	CHECK(mono_ms() - t0 >= 45);
	CHECK(info_sig == SIGUSR1 && info_code == SI_TIMER && info_val == 42);
	CHECK(info_in_main);
	CHECK(timer_gettime(t, &g) == 0 && g.it_value.tv_sec == 0 && g.it_value.tv_nsec == 0);
	CHECK(timer_getoverrun(t) == 0);

	/* TIMER_ABSTIME on CLOCK_MONOTONIC: 100 ms ahead (of `now`: t0 is
	   read first, so a stall after it cannot make the timer look early) */
	struct timespec now;
	t0 = mono_ms();
	clock_gettime(CLOCK_MONOTONIC, &now);
	v = (struct itimerspec){ .it_value = now };
	v.it_value.tv_nsec += 100000000;
	if (v.it_value.tv_nsec >= 1000000000) {
		v.it_value.tv_sec++;
		v.it_value.tv_nsec -= 1000000000;
	}
	info_n = 0;
	CHECK(timer_settime(t, TIMER_ABSTIME, &v, 0) == 0);
	CHECK(wait_for(&info_n, 1, 2000));
	CHECK(mono_ms() - t0 >= 90);
	/* a time already passed: at once */
	v.it_value = (struct timespec){ 0, 1 };   /* 1 ns after boot */
	info_n = 0;
	CHECK(timer_settime(t, TIMER_ABSTIME, &v, 0) == 0);
	CHECK(wait_for(&info_n, 1, 1000));
	CHECK(timer_delete(t) == 0);

	/* CLOCK_REALTIME, TIMER_ABSTIME: the wall clock's 100 ms ahead */
	CHECK(timer_create(CLOCK_REALTIME, &ev, &t) == 0);
	long long s0 = mono_ms();
	clock_gettime(CLOCK_REALTIME, &now);
	v = (struct itimerspec){ .it_value = { now.tv_sec, now.tv_nsec } };
	v.it_value.tv_nsec += 100000000;
	if (v.it_value.tv_nsec >= 1000000000) {
		v.it_value.tv_sec++;
		v.it_value.tv_nsec -= 1000000000;
	}
	info_n = 0;
	CHECK(timer_settime(t, TIMER_ABSTIME, &v, 0) == 0);
	CHECK(timer_gettime(t, &g) == 0 && g.it_value.tv_sec == 0 &&
	      (g.it_value.tv_nsec > 0 || mono_ms() - s0 >= 99));     /* (a stall: due) */
	CHECK(wait_for(&info_n, 1, 2000));
	CHECK(mono_ms() - s0 >= 90);      /* (s0: read before `now`) */

	/* disarm with 0: the old value comes back, nothing fires */
	v = (struct itimerspec){ .it_value = { 0, 100000000 } };
	struct itimerspec old, zero = { 0 };
	info_n = 0;
	s0 = mono_ms();
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	CHECK(timer_settime(t, 0, &zero, &old) == 0);
	/* a host stall of 100 ms between the two calls lets it fire first */
	int stalled = mono_ms() - s0 >= 99;
	CHECK(old.it_value.tv_sec == 0 && (old.it_value.tv_nsec > 0 || stalled));
	CHECK(timer_gettime(t, &g) == 0 && g.it_value.tv_sec == 0 && g.it_value.tv_nsec == 0);
	for (long long end = mono_ms() + 200; mono_ms() < end;)
		sleep_ms(10);
	CHECK(info_n == 0 || stalled);
	CHECK(timer_delete(t) == 0);

	/* SIGEV_NONE: it runs down, nothing is sent */
	struct sigevent none = { .sigev_notify = SIGEV_NONE };
	CHECK(timer_create(CLOCK_MONOTONIC, &none, &t) == 0);
	v = (struct itimerspec){ .it_value = { 5, 0 }, .it_interval = { 1, 0 } };
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	CHECK(timer_gettime(t, &g) == 0 && g.it_value.tv_sec <= 5 && (g.it_value.tv_sec > 0 ||
	      g.it_value.tv_nsec > 0) && g.it_interval.tv_sec == 1);
	CHECK(timer_delete(t) == 0);
}

/* ---- overruns while the signal is blocked ---- */

static void test_overrun(void)
{
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2,
			       .sigev_value.sival_int = 7 };
	timer_t t;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == 0);
	struct itimerspec v = { .it_value = { 0, 10000000 }, .it_interval = { 0, 10000000 } };
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	/* ~30 expiries in 300 ms, one signal pending: the rest are overruns */
	for (long long end = mono_ms() + 300; mono_ms() < end;)
		sleep_ms(10);
	sigset_t p;
	CHECK(sigpending(&p) == 0 && sigismember(&p, SIGUSR2));
	siginfo_t si;
	struct timespec lim = { 2, 0 };
	CHECK(sigtimedwait(&s, &si, &lim) == SIGUSR2);
	CHECK(si.si_code == SI_TIMER && si.si_value.sival_int == 7);
	int o = timer_getoverrun(t);
	CHECK(o >= 9);
	CHECK(si.si_overrun == o);
	if (o < 9)
		printf("timers: overrun %d after 300 ms of a 10 ms timer\n", o);
	/* taken: the next expiry sends again */
	CHECK(sigtimedwait(&s, &si, &lim) == SIGUSR2);
	CHECK(timer_delete(t) == 0);
	/* one sent after that taking stays pending past the delete (POSIX):
	   unblocked, its default action would end the program */
	struct timespec none = { 0, 0 };
	sigtimedwait(&s, &si, &none);
	pthread_sigmask(SIG_SETMASK, &old, 0);
}

static long long clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A 1 us periodic timer whose signal stays blocked while the program
   sleeps 300 ms: its overruns are the periods that ended before the
   signal was taken, all of them (the count is of the taking, not of
   some earlier look), and while it waits for the taking the timer
   thread is not woken each period (it was: a whole processor). */
static void test_overrun_parked(void)
{
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGURG);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGURG };
	timer_t t;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == 0);
	const long long p = 1000;
	struct itimerspec v = { .it_value = { 0, p }, .it_interval = { 0, p } };
	/* Counted, not timed: the timer thread's looks at the table while
	   the signal waits, a few (the arming, the first expiry that parks
	   it), not one a period (it compared processor time with wall time,
	   which a busy host stretches unevenly) */
	uint64_t l0 = timer_counts.looks;
	long long a0 = clock_ns(CLOCK_MONOTONIC);
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	long long a1 = clock_ns(CLOCK_MONOTONIC);
	for (long long end = mono_ms() + 300, left; (left = end - mono_ms()) > 0;)
		sleep_ms(left);
	long long m1 = clock_ns(CLOCK_MONOTONIC), looks = (long long)(timer_counts.looks - l0);
	siginfo_t si;
	struct timespec lim = { 2, 0 };
	CHECK(sigtimedwait(&s, &si, &lim) == SIGURG);
	long long m2 = clock_ns(CLOCK_MONOTONIC);
	/* the first expiry is in [a0 + p, a1 + p], the taking in [m1, m2] */
	long long lo = (m1 - a1 - p) / p, hi = (m2 - a0 - p) / p;
	CHECK(si.si_overrun >= lo && si.si_overrun <= hi);
	CHECK(timer_getoverrun(t) == si.si_overrun);
	long long most = (m1 - a0) / 10000000 + 3;
	CHECK(looks <= most);
	if (si.si_overrun < lo || si.si_overrun > hi || looks > most)
		printf("timers: overrun %d, want %lld..%lld; %lld looks in %lld ms, want at most %lld\n",
		       si.si_overrun, lo, hi, looks, (m1 - a0) / 1000000, most);
	/* armed again: the next period sends again (SIGURG, whose default
	   is to ignore it: one sent as the timer goes is no harm) */
	CHECK(sigtimedwait(&s, &si, &lim) == SIGURG);
	CHECK(timer_delete(t) == 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
}

/* ---- SIGEV_THREAD ---- */

static sem_t fired;
static void *volatile thr_val;
static volatile int thr_other;

static void notify(union sigval v)
{
	thr_val = v.sival_ptr;
	thr_other = pthread_self() != main_th;
	sem_post(&fired);
}

static void test_thread(void)
{
	static int cookie;
	sem_init(&fired, 0, 0);
	struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = notify,
			       .sigev_value.sival_ptr = &cookie };
	timer_t t;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == 0);
	struct itimerspec v = { .it_value = { 0, 30000000 } };
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	struct timespec lim;
	clock_gettime(CLOCK_REALTIME, &lim);
	lim.tv_sec += 3;
	CHECK(sem_timedwait(&fired, &lim) == 0);
	CHECK(thr_val == &cookie);
	CHECK(thr_other);
	/* periodic: a thread per expiry */
	v = (struct itimerspec){ .it_value = { 0, 20000000 }, .it_interval = { 0, 20000000 } };
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	int n = 0;
	for (; n < 3; n++)
		if (sem_timedwait(&fired, &lim))
			break;
	CHECK(n == 3);
	CHECK(timer_delete(t) == 0);
}

/* Blocked, timer t's signal sig comes within 2 s as a timer's
   (SI_TIMER); t is deleted and the mask put back. sigtimedwait's answer,
   or -2 if a signal came that was not the timer's. */
static int timer_sig_comes(timer_t t, int sig)
{
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_BLOCK, &s, &old);
	siginfo_t si;
	struct timespec lim = { 2, 0 };
	int got = sigtimedwait(&s, &si, &lim);
	if (got == sig && si.si_code != SI_TIMER)
		got = -2;
	CHECK(timer_delete(t) == 0);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	return got;
}

/* A timer's signal whose default action is to ignore it (SIGURG), not
   blocked: each expiry is discarded (Linux's rule), and the timer goes
   on: once the program blocks it, the next expiry waits for sigwait.
   A discarded one was taken for sent, so the timer never sent again. */
static void test_dfl_ignored(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGURG };
	timer_t t;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == 0);
	struct itimerspec v = { .it_value = { 0, 10000000 }, .it_interval = { 0, 10000000 } };
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	for (long long end = mono_ms() + 100; mono_ms() < end;)
		sleep_ms(10);
	CHECK(timer_sig_comes(t, SIGURG) == SIGURG);
}

/* A 1 us periodic timer whose signal is discarded (SIG_IGN, then the
   default of SIGURG) while the program sleeps 300 ms: it expires at most
   once per 10 ms, and blocked again the signal comes. Each
   discarded signal re-armed the timer at its next period, so the timer
   thread looped without sleeping: a whole processor, and on det main
   never got the token back (the public suite's timer_getoverrun 2-3
   hung there once it unblocked SIGCONT). Linux lets such a timer expire
   at most once a tick. */
static void test_ignored_short(int sig, int ign)
{
	struct sigaction sa = { .sa_handler = SIG_IGN }, oldsa;
	if (ign)
		sigaction(sig, &sa, &oldsa);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig };
	timer_t t;
	CHECK(timer_create(CLOCK_REALTIME, &ev, &t) == 0);
	/* Counted, not timed: a discarded expiry re-arms the timer no
	   sooner than 10 ms on, so at most one per 10 ms of the sleep (plus
	   the edges); re-armed at its next 1 us period it was thousands. (It
	   compared processor time with wall time: 153 ms of 382 at host load
	   17, a busy host charging its stalls to the timer thread.) */
	struct itimerspec v = { .it_value = { 0, 1000 }, .it_interval = { 0, 1000 } };
	uint64_t d0 = timer_counts.discarded;
	long long a0 = clock_ns(CLOCK_MONOTONIC);
	CHECK(timer_settime(t, 0, &v, 0) == 0);
	for (long long end = mono_ms() + 300, left; (left = end - mono_ms()) > 0;)
		sleep_ms(left);
	long long wall = clock_ns(CLOCK_MONOTONIC) - a0;
	long long d = (long long)(timer_counts.discarded - d0), most = wall / 10000000 + 3;
	CHECK(d > 0 && d <= most);
	if (d <= 0 || d > most)
		printf("timers: ignored %d: %lld discarded in %lld ms, want 1..%lld\n",
		       sig, d, wall / 1000000, most);
	int got = timer_sig_comes(t, sig);
	CHECK(got == sig);
	if (got != sig)
		printf("timers: ignored %d: sigtimedwait %d (errno %d)\n", sig, got, errno);
	if (ign)
		sigaction(sig, &oldsa, 0);
}

/* ---- sigwait takes SIGALRM when every thread blocks it ---- */

static void *waiter(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	int sig = 0;
	sigwait(&s, &sig);
	*(int *)arg = sig;
	return 0;
}

static void test_sigwait(void)
{
	signal(SIGALRM, on_alrm);
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &s, &old);   /* the waiter inherits it */
	int got = 0;
	pthread_t th;
	pthread_create(&th, 0, waiter, &got);
	alrm = 0;
	struct itimerval v = { .it_value = { 0, 50000 } };
	CHECK(setitimer(ITIMER_REAL, &v, 0) == 0);
	CHECK(pthread_join(th, 0) == 0);
	CHECK(got == SIGALRM);
	CHECK(alrm == 0);               /* taken by sigwait, not a handler */
	pthread_sigmask(SIG_SETMASK, &old, 0);
	CHECK(alrm == 0);               /* nothing was left pending either */
}

/* ---- bad calls ---- */

static void test_bad(void)
{
	timer_t t;
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1 };
	/* a CPU-time clock is no bad clock (cputimer.c runs them) */
	CHECK(timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &t) == 0 && timer_delete(t) == 0);
	errno = 0;
	CHECK(timer_create(99, &ev, &t) == -1 && errno == EINVAL);
	ev.sigev_signo = 0;
	errno = 0;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == -1 && errno == EINVAL);
	ev.sigev_signo = NSIG;
	errno = 0;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == -1 && errno == EINVAL);
	ev = (struct sigevent){ .sigev_notify = 99 };
	errno = 0;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == -1 && errno == EINVAL);
	ev = (struct sigevent){ .sigev_notify = SIGEV_THREAD };    /* no function */
	errno = 0;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &t) == -1 && errno == EINVAL);

	CHECK(timer_create(CLOCK_MONOTONIC, 0, &t) == 0);   /* SIGALRM, the id as value */
	struct itimerspec v = { .it_value = { 0, 1000000000 } }, g;
	errno = 0;
	CHECK(timer_settime(t, 0, &v, 0) == -1 && errno == EINVAL);
	v = (struct itimerspec){ .it_value = { 0, -1 } };
	errno = 0;
	CHECK(timer_settime(t, 0, &v, 0) == -1 && errno == EINVAL);
	v = (struct itimerspec){ .it_value = { 1, 0 }, .it_interval = { -1, 0 } };
	errno = 0;
	CHECK(timer_settime(t, 0, &v, 0) == -1 && errno == EINVAL);
	CHECK(timer_delete(t) == 0);
	/* deleted */
	v = (struct itimerspec){ .it_value = { 1, 0 } };
	errno = 0;
	CHECK(timer_settime(t, 0, &v, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(timer_gettime(t, &g) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(timer_getoverrun(t) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(timer_delete(t) == -1 && errno == EINVAL);
	/* forged */
	timer_t forged[] = { 0, (timer_t)1, (timer_t)12345, (timer_t)-1, (timer_t)&t,
			     (timer_t)((uintptr_t)t + 256) };
	for (unsigned i = 0; i < sizeof forged / sizeof *forged; i++) {
		errno = 0;
		CHECK(timer_gettime(forged[i], &g) == -1 && errno == EINVAL);
		errno = 0;
		CHECK(timer_settime(forged[i], 0, &v, 0) == -1 && errno == EINVAL);
		errno = 0;
		CHECK(timer_delete(forged[i]) == -1 && errno == EINVAL);
	}
	/* the table fills (EAGAIN), then every timer goes */
	timer_t all[200];
	int n = 0;
	struct sigevent none = { .sigev_notify = SIGEV_NONE };
	while (n < 200 && timer_create(CLOCK_MONOTONIC, &none, &all[n]) == 0)
		n++;
	CHECK(n > 8 && n < 200 && errno == EAGAIN);
	int ok = 1;
	for (int i = 0; i < n; i++)
		ok &= timer_delete(all[i]) == 0;
	CHECK(ok);
}

/* `timers watchdog`: nothing catches SIGALRM, so it ends the program */
static int watchdog(void)
{
	alarm(1);
	for (long long end = mono_ms() + 5000; mono_ms() < end;)
		sleep_ms(50);
	printf("timers: still here after the alarm\n");
	return 0;
}

int main(int argc, char **argv)
{
	main_th = pthread_self();
	if (argc > 1 && !strcmp(argv[1], "watchdog"))
		return watchdog();
	test_alarm();
	test_itimer();
	test_signal();
	test_overrun();
	test_overrun_parked();
	test_thread();
	test_dfl_ignored();
	test_ignored_short(SIGUSR2, 1);
	test_ignored_short(SIGURG, 0);
	test_sigwait();
	test_bad();
	printf("@result {\"name\": \"timers\", \"checks\": %d, \"failures\": %d, \"pkg\": \"%s\"}\n",
	       checks, failures, posix_pkg->name);
	return failures != 0;
}
