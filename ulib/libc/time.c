/*
 * POSIX clocks and sleeping. CLOCK_MONOTONIC is the kernel's clock read
 * in user mode (clock.c: TSC and the pseudo-register page, no syscall);
 * CLOCK_REALTIME adds the wall time at boot, which the kernel read from
 * the RTC (INFO_BOOT_EPOCH, fetched once), and the offset clock_settime
 * gave it (SYS_clockset: kernel-wide, one word of the pseudo-register
 * page, so still no syscall). CLOCK_PROCESS_CPUTIME_ID and
 * clock() sum the VPs' time on a CPU from their pseudo-register pages.
 * Thread CPU clocks (CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid's)
 * are the packages' (ulib/cpuclock.c).
 * Sleeping is SYS_sleep, which under a thread package blocks only the
 * calling thread.
 */
#include <time.h>
#include <sys/time.h>
#include <unistd.h>
#include <errno.h>
#include <animart/clock.h>
#include <animart/sys.h>
#include <animart/thread.h>
#include <animart/upcall.h>
#include <animart/fence.h>

#define NS 1000000000L

static long boot_epoch = -1;

static uint64_t epoch_ns(void)
{
	long e = __atomic_load_n(&boot_epoch, __ATOMIC_RELAXED);
	if (e < 0) {
		e = sys_getinfo(INFO_BOOT_EPOCH);
		if (e < 0)
			e = 0;
		__atomic_store_n(&boot_epoch, e, __ATOMIC_RELAXED);
	}
	return (uint64_t)e * NS;
}

/* What clock_settime added to the wall time, ns (kernel/rtclock.c):
   one aligned word the kernel stores whole, so never torn. */
static int64_t rt_off(void)
{
	return __atomic_load_n(&vp_pseudo()->rt_off, __ATOMIC_ACQUIRE);
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now (mod 2^64: a clock set before
   the boot makes it negative, and sums with it still come out right) */
static uint64_t rt_base(void)
{
	return epoch_ns() + (uint64_t)rt_off();
}

/* CLOCK_REALTIME in ns since 1970, for the POSIX layer's absolute
   deadlines (ulib/posix/pwait.c). (It had only a weak stand-in there
   that returned time since boot, so a CLOCK_REALTIME deadline lay some
   56 years ahead: timed waits on that clock never timed out.) */
uint64_t __clock_realtime_ns(void);
uint64_t __clock_realtime_ns(void)
{
	return rt_base() + now_ns();
}

/* CLOCK_REALTIME less CLOCK_MONOTONIC, a constant until the clock is set: an absolute time on
   one converts to the other with it and a single clock read. (Two reads,
   now_ns() and then __clock_realtime_ns(), differ by whatever ran or
   stalled between them, and a deadline converted with both came early by
   that much: a 50 ms timedlock timed out after 35 ms under host load.) */
uint64_t __clock_epoch_ns(void);
uint64_t __clock_epoch_ns(void)
{
	return rt_base();
}

/*
 * The space's processor time: every VP slot's run_ns (whole turns on a
 * CPU; a slot keeps it after its VP exits, kernel/include/anima/vp.h)
 * plus the turn each VP on a CPU is in now, since run_start. The calling
 * VP's own part is exact: a preemption between the reads changes
 * `dispatches`, and it reads again. Another VP's turn that ends as we
 * read it is not missed: the kernel's turn_seq is odd until run_ns has
 * it, and we read again (else the process clock ran short by a turn, by
 * a host's stall of that VP's CPU when the stall came in between:
 * progs/posix/cpuread). Readings on two VPs may still cross, so the result never
 * goes below one returned before (cpu_last): a stretch of work timed
 * with it is never negative.
 */
uint64_t vp_cpu_ns(const struct pseudo_page *pp, uint64_t now)
{
	for (;;) {
		/* (a turn ending meanwhile: read again, else it is missed) */
		uint64_t q = __atomic_load_n(&pp->turn_seq, __ATOMIC_ACQUIRE);
		uint64_t r = __atomic_load_n(&pp->run_ns, __ATOMIC_ACQUIRE);
		uint64_t on = __atomic_load_n(&pp->oncpu, __ATOMIC_ACQUIRE);
		uint64_t s = __atomic_load_n(&pp->run_start, __ATOMIC_ACQUIRE);
		if (!(q & 1) && q == __atomic_load_n(&pp->turn_seq, __ATOMIC_ACQUIRE))
			return r + (on && now > s ? now - s : 0);
		__builtin_ia32_pause();
	}
}

uint64_t vp_cpu_self_ns(void)
{
	const struct pseudo_page *me = vp_pseudo();
	uint64_t d, t;
	do {
		d = __atomic_load_n(&me->dispatches, __ATOMIC_ACQUIRE);
		t = vp_cpu_ns(me, now_ns());
	} while (d != __atomic_load_n(&me->dispatches, __ATOMIC_ACQUIRE));
	return t;
}

static uint64_t cpu_last;

/* A fork's child (ulib/pthread/pfork.c): its processor time starts at 0
   (POSIX: its times are zero; its VP's pseudo page is new), so the
   parent's last reading, copied here, is no floor for it. */
void __cpu_time_forked(void);
void __cpu_time_forked(void)
{
	cpu_last = 0;
}

uint64_t __cpu_time_ns(void);
uint64_t __cpu_time_ns(void)
{
	const struct pseudo_page *me = vp_pseudo();
	uint64_t t = vp_cpu_self_ns(), now = now_ns();
	unsigned n = __atomic_load_n(&me->nvp, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < n; i++)
		if (pseudo_page(i) != me)
			t += vp_cpu_ns(pseudo_page(i), now);
	uint64_t last = __atomic_load_n(&cpu_last, __ATOMIC_RELAXED);
	while (t > last && !__atomic_compare_exchange_n(&cpu_last, &last, t, 1,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	return t > last ? t : last;
}

int64_t __thread_cpu_self_ns(void);            /* cpuclock.c */
int __thread_cpuclock(clockid_t clock);
int64_t __thread_cpuclock_ns(clockid_t clock);

/* The time of clock id in ns, or -1 for a clock we do not have. */
static int64_t clock_ns(clockid_t id)
{
	switch (id) {
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
		return (int64_t)now_ns();
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
		return (int64_t)(rt_base() + now_ns());
	case CLOCK_PROCESS_CPUTIME_ID:
		return (int64_t)__cpu_time_ns();
	case CLOCK_THREAD_CPUTIME_ID:
		return __thread_cpu_self_ns();
	}
	return __thread_cpuclock(id) ? __thread_cpuclock_ns(id) : -1;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (id >= 0 && id != CLOCK_PROCESS_CPUTIME_ID && id != CLOCK_THREAD_CPUTIME_ID)
		FENCED(clock_gettime(id, ts));   /* det=par: a clock every thread reads, in order */
	int64_t t = clock_ns(id);
	if (t < 0) {
		errno = EINVAL;
		return -1;
	}
	ts->tv_sec = t / NS;
	ts->tv_nsec = t % NS;
	return 0;
}

int clock_getres(clockid_t id, struct timespec *ts)
{
	if (clock_ns(id) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (ts) {
		ts->tv_sec = 0;
		ts->tv_nsec = 1;
	}
	return 0;
}

/* As root on Linux (Anima has no users): CLOCK_REALTIME steps to ts for
   every program (SYS_clockset); any other clock, a tv_nsec outside
   0..999999999 or a negative tv_sec is EINVAL, no ts EFAULT. */
int clock_settime(clockid_t id, const struct timespec *ts)
{
	if (id == CLOCK_REALTIME && !ts) {
		errno = EFAULT;
		return -1;
	}
	if (id != CLOCK_REALTIME || ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= NS) {
		errno = EINVAL;
		return -1;
	}
	long r = syscall2(SYS_clockset, ts->tv_sec, ts->tv_nsec);
	if (sys_failed(r)) {
		errno = (int)-r;
		return -1;
	}
	return 0;
}

/* (pid as an int: pid_t's type, without <sys/types.h> in <time.h>) */
int clock_getcpuclockid(int pid, clockid_t *clock)
{
	if (!clock)
		return EINVAL;
	if (pid != 0 && pid != getpid())
		return ESRCH;
	*clock = CLOCK_PROCESS_CPUTIME_ID;
	return 0;
}

int timespec_get(struct timespec *ts, int base)
{
	return base == TIME_UTC && clock_gettime(CLOCK_REALTIME, ts) == 0 ? base : 0;
}

int settimeofday(const struct timeval *tv, const void *tz)
{
	(void)tz;                        /* (no time zones: UTC) */
	if (!tv)
		return 0;
	if (tv->tv_usec < 0 || tv->tv_usec >= 1000000) {
		errno = EINVAL;
		return -1;
	}
	struct timespec ts = { tv->tv_sec, tv->tv_usec * 1000 };
	return clock_settime(CLOCK_REALTIME, &ts);
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts = { 0, 0 };
	clock_gettime(CLOCK_REALTIME, &ts);
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	if (tz) {
		struct timezone *z = tz;
		z->tz_minuteswest = z->tz_dsttime = 0;
	}
	return 0;
}

time_t time(time_t *t)
{
	FENCED(time(t));
	time_t now = (time_t)((rt_base() + now_ns()) / NS);
	if (t)
		*t = now;
	return now;
}

double difftime(time_t a, time_t b)
{
	return (double)(a - b);
}

/* Processor time, as CLOCK_PROCESS_CPUTIME_ID (ISO C: the time used
   by the program; it starts near 0, as the program does). */
clock_t clock(void)
{
	return (clock_t)(__cpu_time_ns() / (NS / CLOCKS_PER_SEC));
}

/* The POSIX layer's (ulib/posix/pthread.c): there a sleep is a
   cancellation point. Weak: a program without the layer has none. */
__attribute__((weak)) void pthread_testcancel(void);
/* ulib/signal.c: runs the caller's pending signals, returns how many.
   Weak: a program that installs no handler has none. */
__attribute__((weak)) int __sig_deliver(void);

/*
 * A thread of a package sleeps through the thread interface
 * (thread_block_until), which blocks only that thread in every package.
 * SYS_sleep would put a classic VP (naive) to sleep whole, and every
 * thread queued on it: a program whose main thread polled with usleep
 * for workers queued behind it on one VP never finished. An unblock
 * (pthread_cancel's, pthread_kill's, or a stale permit) ends the wait
 * early, so it loops to the deadline, acting on a cancel each time round
 * and ending early (EINTR, *left the time not slept) when a signal
 * handler ran, as POSIX's sleeps do. A deadline tagged DL_REALTIME
 * (<animart/clock.h>) is a CLOCK_REALTIME time: the waits follow a clock
 * set, and *left is on the clock of the moment.
 */
static int sleep_until(uint64_t deadline, uint64_t *left)
{
	struct thread *self = thread_self();
	/* handlers the runtime ran in us meanwhile (struct thread.sigpend:
	   a pthread_kill that interrupted us as we woke) end it too */
	int ran = self ? self->sigpend / SIGPEND_RAN : 0;
	*left = 0;
	for (;;) {
		if (pthread_testcancel)
			pthread_testcancel();
		if (__sig_deliver && (__sig_deliver() ||
				      (self && self->sigpend / SIGPEND_RAN != ran))) {
			uint64_t now = now_ns(), d = dl_boot(deadline);
			*left = now < d ? d - now : 0;
			errno = EINTR;
			return -1;
		}
		uint64_t now = now_ns(), d = dl_boot(deadline);
		if (now >= d && !(self && self->ops->own_time))
			return 0;            /* (det decides by its own clock) */
		if (!thread_self()) {            /* no package runs here */
			static uint32_t never;   /* (a word nobody wakes: the clock or a set ends it) */
			long r = deadline & DL_REALTIME
				 ? syscall3(SYS_futex_wait_rt, &never, 0, deadline & ~DL_REALTIME)
				 : sys_sleep(d - now);
			if (r == -ETIMEDOUT || r == -EAGAIN)
				r = 0;
			if (sys_failed(r)) {
				errno = (int)-r;
				return -1;
			}
		} else if (thread_block_until(deadline) == -ETIMEDOUT) {
			/* A signal posted as the time ran out (the thread woken,
			   not yet run: the Open POSIX suite's pthread_kill 1-1)
			   has its handler run before the sleep returns, as
			   Linux's return to user mode does; it ran at the
			   thread's next sleep, which it cut short. */
			if (__sig_deliver)
				__sig_deliver();
			return 0;
		}
	}
}

static int sleep_ns(uint64_t ns, uint64_t *left)
{
	return sleep_until(now_ns() + ns, left);
}

static int valid(const struct timespec *ts)
{
	return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < NS;
}

static void to_ts(uint64_t ns, struct timespec *ts)
{
	if (ts) {
		ts->tv_sec = (time_t)(ns / NS);
		ts->tv_nsec = (long)(ns % NS);
	}
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!valid(req)) {
		errno = EINVAL;
		return -1;
	}
	uint64_t left;
	int r = sleep_ns((uint64_t)req->tv_sec * NS + (uint64_t)req->tv_nsec, &left);
	to_ts(left, rem);
	return r;
}

/* Until CLOCK_REALTIME reads t, following the clock if it is set (a
   set forward past t ends the sleep, a set back makes it longer): the
   wait is to a DL_REALTIME deadline, which a clock set wakes. Past 2116
   (no room for the tag) the time is converted once. Returns an error
   number. */
static int rt_sleep_until(int64_t t)
{
	int64_t now = clock_ns(CLOCK_REALTIME);
	if (now >= t)
		return 0;
	uint64_t left, d = (uint64_t)t < DL_REALTIME ? (uint64_t)t | DL_REALTIME
			   : now_ns() + (uint64_t)(t - now);
	return sleep_until(d, &left) ? errno : 0;
}

uint64_t __cpu_nap(clockid_t clock, uint64_t left);   /* cpuwatch.c */
int __thread_getcpuclockid(struct thread *t, clockid_t *clock);

/* Until CPU clock id reads t, as Linux's: naps of the wall time that
   would take at the least (cpuwatch.c), then a look, so never early. A
   thread's clock whose thread exits ends it at the next look (Linux's
   timer is reset then, and the sleep returns 0). Returns an error number; *left, cut
   by a signal, the CPU time still to go. */
static int cpu_sleep_until(clockid_t id, uint64_t t, uint64_t *left)
{
	for (;;) {
		int64_t c = clock_ns(id);
		uint64_t now = c < 0 ? t : (uint64_t)c, l;
		*left = now < t ? t - now : 0;
		if (now >= t)
			return 0;
		if (sleep_ns(__cpu_nap(id, t - now), &l)) {
			c = clock_ns(id);
			now = c < 0 ? t : (uint64_t)c;
			*left = now < t ? t - now : 0;
			return errno;
		}
	}
}

/* Returns an error number, as POSIX's clock_nanosleep does. The
   caller's own thread CPU clock is EINVAL, as on Linux (no sleep until a
   thread has run so long: the thread would be the one asleep); the
   process's and another thread's count that clock's time
   (cpu_sleep_until). */
int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem)
{
	clockid_t mine;
	if (id == CLOCK_THREAD_CPUTIME_ID ||
	    (__thread_cpuclock(id) && thread_self() &&
	     !__thread_getcpuclockid(thread_self(), &mine) && mine == id))
		return EINVAL;
	int64_t now = clock_ns(id);
	if (now < 0 || !valid(req))
		return EINVAL;
	int64_t t = req->tv_sec * NS + req->tv_nsec;
	if (id == CLOCK_PROCESS_CPUTIME_ID || __thread_cpuclock(id)) {
		uint64_t left, at = flags & TIMER_ABSTIME ? (uint64_t)t : (uint64_t)now + (uint64_t)t;
		int e = cpu_sleep_until(id, at, &left);
		if (e && !(flags & TIMER_ABSTIME))
			to_ts(left, rem);
		return e;
	}
	if ((flags & TIMER_ABSTIME) && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		return rt_sleep_until(t);
	if (flags & TIMER_ABSTIME)
		t = t > now ? t - now : 0;
	uint64_t left = 0;
	int r = t ? sleep_ns((uint64_t)t, &left) : 0;
	if (!(flags & TIMER_ABSTIME))
		to_ts(left, rem);
	return r ? errno : 0;
}

unsigned sleep(unsigned s)
{
	uint64_t left;
	sleep_ns((uint64_t)s * NS, &left);
	return (unsigned)((left + NS - 1) / NS);
}

int usleep(useconds_t us)
{
	uint64_t left;
	return sleep_ns((uint64_t)us * 1000, &left);
}
