/* clock_gettime, getres, settime, nanosleep, clock_nanosleep and the
   CPU-time clocks (Linux's errors: EINVAL for a bad clock or a bad
   nanosecond field, before any permission check). */
#include "conf.h"

static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
	CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID };

static void reads(void)
{
	struct timespec t, u;
	int bad = 0;
	for (unsigned i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
		t.tv_nsec = -1;
		EQ(clock_gettime(clocks[i], &t), 0);
		CK(t.tv_nsec >= 0 && t.tv_nsec < 1000000000 && t.tv_sec >= 0);
		EQ(clock_getres(clocks[i], &u), 0);
		CK(u.tv_sec == 0 && u.tv_nsec > 0);
		EQ(clock_getres(clocks[i], NULL), 0);
	}
	ERRNO(clock_gettime(12345, &t), EINVAL);
	ERRNO(clock_getres(12345, &t), EINVAL);
	clock_gettime(CLOCK_MONOTONIC, &t);
	for (int i = 0; i < 1000; i++) {
		clock_gettime(CLOCK_MONOTONIC, &u);
		bad += u.tv_sec < t.tv_sec || (u.tv_sec == t.tv_sec && u.tv_nsec < t.tv_nsec);
		t = u;
	}
	EQ(bad, 0);
	/* Realtime is a date after 2020. */
	clock_gettime(CLOCK_REALTIME, &t);
	CK(t.tv_sec > 1577836800);
	CK(time(NULL) >= t.tv_sec);
}

static void sets(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	ERRNO(clock_settime(CLOCK_MONOTONIC, &t), EINVAL);
	ERRNO(clock_settime(12345, &t), EINVAL);
	t.tv_nsec = 1000000000;
	ERRNO(clock_settime(CLOCK_REALTIME, &t), EINVAL);
	t.tv_nsec = -1;
	ERRNO(clock_settime(CLOCK_REALTIME, &t), EINVAL);
	t.tv_nsec = 0;
	t.tv_sec = -1;
	ERRNO(clock_settime(CLOCK_REALTIME, &t), EINVAL);
	/* As root on Linux: the realtime clock is set (to what it reads). */
	clock_gettime(CLOCK_REALTIME, &t);
	CK(clock_settime(CLOCK_REALTIME, &t) == 0);
}

static void sleeps(void)
{
	struct timespec d = { 0, 1000000000 }, t0, rem;
	ERRNO(nanosleep(&d, NULL), EINVAL);
	d.tv_nsec = -1;
	ERRNO(nanosleep(&d, NULL), EINVAL);
	d.tv_sec = -1;
	d.tv_nsec = 0;
	ERRNO(nanosleep(&d, NULL), EINVAL);
	d.tv_sec = 0;
	EQ(nanosleep(&d, NULL), 0);
	t0 = conf_now();
	d.tv_nsec = 20000000;
	EQ(nanosleep(&d, &rem), 0);
	CK(conf_ms_since(&t0) >= 19);
	d.tv_nsec = 1000000000;
	EQ(clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL), EINVAL);
	EQ(clock_nanosleep(12345, 0, &d, NULL), EINVAL);
	d.tv_nsec = 1000;
	EQ(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &d, NULL), EINVAL);
	EQ(clock_nanosleep(12345, 0, &d, NULL), EINVAL);
	/* An absolute deadline in the past returns at once. */
	d = conf_after(CLOCK_MONOTONIC, -100);
	t0 = conf_now();
	EQ(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &d, NULL), 0);
	d = conf_after(CLOCK_REALTIME, 20);
	EQ(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &d, NULL), 0);
	CK(conf_ms_since(&t0) >= 19);
	d.tv_sec = 0;
	d.tv_nsec = 20000000;
	t0 = conf_now();
	EQ(clock_nanosleep(CLOCK_REALTIME, 0, &d, NULL), 0);
	CK(conf_ms_since(&t0) >= 19);
}

/* nanosleep cut short by a handler: EINTR and the time left. */
static volatile int got;
static void on_usr1(int s)
{
	(void)s;
	got++;
}

static struct timespec left;
static int sleep_rc, sleep_errno, use_clock_ns;
static sem_t asleep;
static void *sleeper(void *a)
{
	struct timespec d = { 2, 0 };
	(void)a;
	left.tv_sec = -1;
	sem_post(&asleep);
	if (use_clock_ns) {
		sleep_rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &d, &left);
		return NULL;
	}
	sleep_rc = nanosleep(&d, &left);
	sleep_errno = errno;
	return NULL;
}

static void interrupted(void)
{
	struct timespec t0;
	conf_handle(SIGUSR1, on_usr1, 0);
	sem_init(&asleep, 0, 0);
	got = 0;
	pthread_t t = conf_start(sleeper, NULL);
	sem_wait(&asleep);
	conf_msleep(50);
	t0 = conf_now();
	EQ(pthread_kill(t, SIGUSR1), 0);
	pthread_join(t, NULL);
	CK(conf_ms_since(&t0) < 1500);
	EQ(got, 1);
	EQ(sleep_rc, -1);
	EQ(sleep_errno, EINTR);
	CK(left.tv_sec >= 0 && left.tv_sec <= 2 && left.tv_nsec >= 0 && left.tv_nsec < 1000000000);
	CK(left.tv_sec < 2 && (left.tv_sec > 0 || left.tv_nsec > 0));
	/* clock_nanosleep returns the error itself (EINTR), errno aside. */
	use_clock_ns = 1;
	t = conf_start(sleeper, NULL);
	sem_wait(&asleep);
	conf_msleep(50);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	EQ(got, 2);
	EQ(sleep_rc, EINTR);
	CK(left.tv_sec >= 0 && left.tv_sec < 2 && (left.tv_sec > 0 || left.tv_nsec > 0));
	use_clock_ns = 0;
	signal(SIGUSR1, SIG_DFL);
}

/* A thread's CPU clock, and the process's. */
static sem_t hold;
static void *spin_then_wait(void *a)
{
	volatile long x = 0;
	(void)a;
	for (long i = 0; i < 2000000; i++)
		x += i;
	sem_wait(&hold);
	return NULL;
}

static void cpuclocks(void)
{
	clockid_t c;
	struct timespec t;
	EQ(pthread_getcpuclockid(pthread_self(), &c), 0);
	EQ(clock_gettime(c, &t), 0);
	CK(t.tv_sec > 0 || t.tv_nsec > 0);
	EQ(clock_getcpuclockid(32000, &c), ESRCH);
	EQ(sleep(0), 0);
	EQ(clock_getcpuclockid(0, &c), 0);
	EQ(clock_gettime(c, &t), 0);
	CK(t.tv_sec > 0 || t.tv_nsec > 0);
	sem_init(&hold, 0, 0);
	pthread_t th = conf_start(spin_then_wait, NULL);
	conf_msleep(30);
	EQ(pthread_getcpuclockid(th, &c), 0);
	EQ(clock_gettime(c, &t), 0);
	sem_post(&hold);
	pthread_join(th, NULL);
}

void area_clock(void)
{
	reads();
	sets();
	sleeps();
	interrupted();
	cpuclocks();
}
