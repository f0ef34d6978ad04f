/*
 * setitimer/getitimer's ITIMER_VIRTUAL (SIGVTALRM) and ITIMER_PROF
 * (SIGPROF): interval timers on the program's processor time, the
 * CLOCK_PROCESS_CPUTIME_ID clock (ulib/time.c: the kernel's CPU time of
 * the space's VPs). That clock does not split user from kernel time, so
 * both count the same time (Linux's VIRTUAL counts user time only: ours
 * may fire a little earlier in a program that spends time in the kernel,
 * never before the program has used that much processor time).
 *
 * A thread of the program's package watches them, as timer.c's does the
 * real-time ones: it sleeps until the earliest moment a deadline could be
 * reached, the time left divided by the CPUs (the clock runs at most that
 * many times faster than the wall clock), reads the clock, and fires or
 * sleeps again; so an expiry is never early, and late by at most the last
 * sleep's rounding and the watcher's wait for a VP. The signal goes to
 * the program as a timer's does (__sig_post_timer: main unless it blocks
 * it, else a thread that does not). A program that arms none pays nothing.
 * An exec keeps both, their time left and periods, as Linux does
 * (SYS_itimerexec, read back at the new image's start).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <anima/syscall.h>
#include <animart/clock.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animart/thread.h>
#include "svc.h"

#define NS 1000000000ULL
#define MIN_NAP 1000000ULL       /* 1 ms: the least the watcher sleeps */

struct cputimer {
	uint64_t due;                /* on the process CPU clock, ns; 0: disarmed */
	uint64_t period;
};

static struct cputimer ct[2];    /* ITIMER_VIRTUAL, ITIMER_PROF */
static const int sigs[2] = { SIGVTALRM, SIGPROF };
static struct spin lk;
static struct thread *watcher;   /* once it runs */
static int started;

/* A fork's child (timer.c's __timer_forked): none armed, no watcher. */
void __itimer_forked(void);
void __itimer_forked(void)
{
	ct[0] = ct[1] = (struct cputimer){ 0 };
	lk = (struct spin)SPIN_INIT;
	watcher = 0;
	started = 0;
}

static uint64_t cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

/* Expire what is due at cpu time `now` (lk held): which signals to send
   (bits 0, 1); the wall time to sleep before the next look (0: none armed). */
static uint64_t scan(uint64_t now, int *fire)
{
	static long ncpu;
	if (!ncpu)
		ncpu = sysconf(_SC_NPROCESSORS_ONLN) > 0 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
	uint64_t nap = 0;
	*fire = 0;
	for (int i = 0; i < 2; i++) {
		struct cputimer *t = &ct[i];
		if (!t->due)
			continue;
		if (t->due <= now) {
			*fire |= 1 << i;
			t->due = t->period ? now + t->period : 0;   /* (missed periods: one signal) */
		}
		if (t->due) {
			uint64_t d = (t->due - now) / (uint64_t)ncpu;
			d = d < MIN_NAP ? MIN_NAP : d;
			nap = !nap || d < nap ? d : nap;
		}
	}
	return nap;
}

static void *watch(void *arg)
{
	(void)arg;
	__pt_daemon_enter();
	spin_lock(&lk);
	watcher = thread_self();
	spin_unlock(&lk);
	for (;;) {
		int fire;
		spin_lock(&lk);
		uint64_t nap = scan(cpu_now(), &fire);
		spin_unlock(&lk);
		for (int i = 0; i < 2; i++)
			if (fire & (1 << i)) {
				struct thread *m = __pt_main_hold();
				__sig_post_timer(m, sigs[i], (union sigval){ 0 }, 0);
				__pt_main_release();
			}
		thread_block_until(nap ? now_ns() + nap : 0);
	}
	return 0;
}

static int start(void)
{
	return __pt_daemon_once(&started, watch);
}

static uint64_t tv_ns(const struct timeval *tv)
{
	if ((uint64_t)tv->tv_sec >= (1ULL << 62) / NS)
		return 1ULL << 62;
	return (uint64_t)tv->tv_sec * NS + (uint64_t)tv->tv_usec * 1000;
}

static struct timeval ns_tv(uint64_t ns)
{
	ns = (ns + 999) / 1000;          /* up: one about to fire still reads armed */
	return (struct timeval){ .tv_sec = (time_t)(ns / 1000000), .tv_usec = (suseconds_t)(ns % 1000000) };
}

static struct itimerval get(struct cputimer *t, uint64_t now)
{
	uint64_t left = !t->due ? 0 : t->due > now ? t->due - now : 1;
	return (struct itimerval){ .it_interval = ns_tv(t->period), .it_value = ns_tv(left) };
}

/* ulib/posix/timer.c's setitimer and getitimer, for these two (which is
   checked there). */
int __itimer_cpu_set(int which, const struct itimerval *v, struct itimerval *old);
int __itimer_cpu_set(int which, const struct itimerval *v, struct itimerval *old)
{
	struct cputimer *t = &ct[which == ITIMER_PROF];
	uint64_t val = tv_ns(&v->it_value);
	if (val) {
		int e = start();
		if (e) {
			errno = e;
			return -1;
		}
	}
	spin_lock(&lk);
	uint64_t now = cpu_now();
	if (old)
		*old = get(t, now);
	t->due = val ? now + val : 0;
	t->period = val ? tv_ns(&v->it_interval) : 0;
	struct thread *w = val ? watcher : 0;
	spin_unlock(&lk);
	if (w)
		thread_unblock(w);           /* look again: the nap may be too long now */
	return 0;
}

int __itimer_cpu_get(int which, struct itimerval *v);
int __itimer_cpu_get(int which, struct itimerval *v)
{
	spin_lock(&lk);
	*v = get(&ct[which == ITIMER_PROF], cpu_now());
	spin_unlock(&lk);
	return 0;
}

/* exec (timer.c's __timer_exec_keep): what the next image keeps of both,
   their processor time left and periods, as Linux keeps them
   (SYS_itimerexec); undo: forget it (the exec failed). */
void __itimer_exec_keep(int undo);
void __itimer_exec_keep(int undo)
{
	uint64_t v[4] = { 0 };
	spin_lock(&lk);
	uint64_t now = undo || (!ct[0].due && !ct[1].due) ? 0 : cpu_now();
	for (int i = 0; now && i < 2; i++)
		if (ct[i].due) {
			v[2 * i] = ct[i].due > now ? ct[i].due - now : 1;
			v[2 * i + 1] = ct[i].period;
		}
	spin_unlock(&lk);
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
		__itimer_cpu_set(i ? ITIMER_PROF : ITIMER_VIRTUAL, &v, 0);
	}
}
