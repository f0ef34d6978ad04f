/*
 * ptest: POSIX threads conformance on Anima, for whichever package the
 * POSIX start runs (pkg=NAME vps=N before the area names). Written as an
 * ordinary pthreads program: only <pthread.h>, <semaphore.h>, <sched.h>,
 * <sys/resource.h> and errno, plus ulib's printf and the boot clock.
 *
 *   ptest [AREA...]      (default: every area; `mainexit`, `exitcode`
 *                        end the program and run alone)
 *
 * Each area prints @result {"name": "ptest.AREA", "ok": B, "why": ...}.
 * `div=D` among the names divides the counts of the stress loops (mutex,
 * cond, barrier's spin lock, sem) by D: det=par's every lock is a round
 * of the token (threadpkgs/det/par.c), 50 s of a run at 3000-5000 each.
 */
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>
#include <sched.h>
#include <sys/resource.h>
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/upcall.h>
#include <animart/thread.h>
#include <animart/clock.h>
#include <mqueue.h>
#include <fcntl.h>
#include <sigcatch.h>

static const char *why;
static int why_line;
static long div_by = 1;              /* `div=D` (main) */
#define CHECK(c) do { if (!(c) && !why) { why = #c; why_line = __LINE__; } } while (0)

uint64_t __clock_realtime_ns(void);

/* An absolute time `ms` from now on `clock`. */
static struct timespec after_ms(clockid_t clock, long ms)
{
	uint64_t now = clock == CLOCK_REALTIME ? __clock_realtime_ns() : now_ns();
	uint64_t t = now + (uint64_t)ms * 1000000;
	return (struct timespec){ (time_t)(t / 1000000000), (long)(t % 1000000000) };
}

static void msleep(long ms)
{
	sys_sleep((uint64_t)ms * 1000000);
}

static long ms_since(uint64_t t0)
{
	return (long)((now_ns() - t0) / 1000000);
}

/* A timeout of `want` ms took `got`: not early, and not absurdly late
   (a loaded host may hold a vCPU for long). */
#define TIMELY(got, want) ((got) >= (want) - 1 && (got) < (want) + 2000)

/* ---- create, join, self, equal, exit ---- */

static pthread_t seen_self[16];

static void *ret_double(void *a)
{
	long i = (long)a;
	seen_self[i] = pthread_self();
	if (i % 3 == 0)
		sched_yield();
	if (i % 4 == 1)
		pthread_exit((void *)(i * 2));
	return (void *)(i * 2);
}

static void area_create(void)
{
	pthread_t t[16];
	for (long i = 0; i < 16; i++)
		CHECK(pthread_create(&t[i], 0, ret_double, (void *)i) == 0);
	for (long i = 0; i < 16; i++) {
		void *r = 0;
		CHECK(pthread_join(t[i], &r) == 0);
		CHECK((long)r == i * 2);
		CHECK(pthread_equal(seen_self[i], t[i]));
		CHECK(!pthread_equal(t[i], pthread_self()));
	}
	CHECK(pthread_equal(pthread_self(), pthread_self()));
	CHECK(pthread_join(pthread_self(), 0) == EDEADLK);
	pthread_attr_t a;
	size_t ss;
	CHECK(pthread_attr_init(&a) == 0);
	CHECK(pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN - 1) == EINVAL);
	CHECK(pthread_attr_setstacksize(&a, 1 << 20) == 0);
	CHECK(pthread_attr_getstacksize(&a, &ss) == 0 && ss == 1 << 20);
	CHECK(pthread_attr_setdetachstate(&a, 7) == EINVAL);
	CHECK(pthread_attr_destroy(&a) == 0);
}

/* A big stack really is there: use most of it. */
static void *deep(void *a)
{
	volatile char buf[900 * 1024];
	for (unsigned i = 0; i < sizeof buf; i += 4096)
		buf[i] = (char)i;
	(void)a;
	return (void *)(long)buf[4096];
}

static void area_stack(void)
{
	pthread_attr_t a;
	pthread_t t;
	void *r;
	pthread_attr_init(&a);
	CHECK(pthread_attr_setstacksize(&a, 1 << 20) == 0);
	CHECK(pthread_create(&t, &a, deep, 0) == 0);
	CHECK(pthread_join(t, &r) == 0 && (long)r == (char)4096);
}

/* ---- detach: no leak ---- */

/* Detached threads count their ends on a semaphore, which main takes:
   a synchronization on every package (a shared counter's atomic adds
   between synchronizations are lost under det=par: docs/posix.md). */
static sem_t ended;
static int ndone;

static void *bump(void *a)
{
	(void)a;
	sem_post(&ended);
	return 0;
}

static void count_ended(int at_least)
{
	while (sem_trywait(&ended) == 0)
		ndone++;
	while (ndone < at_least) {
		sem_wait(&ended);
		ndone++;
	}
}

static void *quick(void *a)
{
	return a;
}

static void *wait_sem(void *s)
{
	sem_wait(s);
	return 0;
}

static void area_detach(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	CHECK(pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0);
	enum { BATCH = 250, ROUNDS = 16 };
	long mem[ROUNDS];
	ndone = 0;
	sem_init(&ended, 0, 0);
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < BATCH; i++) {
			pthread_t t;
			/* at most 32 alive: the pools' high-water mark comes early */
			count_ended(r * BATCH + i - 32);
			CHECK(pthread_create(&t, &a, bump, 0) == 0);
		}
		count_ended((r + 1) * BATCH);
		mem[r] = sys_getinfo(INFO_MEM_AVAIL);
	}
	/* Memory levels off once the pools hold what the most threads alive
	   at once need (kthread's VPs leave late, so a few more may be in
	   flight): the second half of the rounds (2,000 threads) takes under
	   8 MB more, where a leaked 64 KiB stack each would be 128 MB. */
	CHECK(mem[ROUNDS / 2 - 1] - mem[ROUNDS - 1] < 8 << 20);
	printf("@result {\"name\": \"ptest.detach_mem\", \"threads\": %d, \"avail_first\": %ld, "
	       "\"avail_half\": %ld, \"avail_last\": %ld}\n", BATCH * ROUNDS, mem[0],
	       mem[ROUNDS / 2 - 1], mem[ROUNDS - 1]);
	/* detach a running thread, an exited one; twice is an error */
	pthread_t t;
	CHECK(pthread_create(&t, 0, quick, 0) == 0);
	CHECK(pthread_detach(t) == 0);
	CHECK(pthread_create(&t, 0, quick, 0) == 0);
	msleep(5);
	CHECK(pthread_detach(t) == 0);
	CHECK(pthread_create(&t, 0, quick, 0) == 0);
	CHECK(pthread_join(t, 0) == 0);
	pthread_t u;
	CHECK(pthread_create(&u, &a, quick, 0) == 0);
	/* joining a detached thread is EINVAL: alive (its join word names the
	   stand-in joiner), and exited but not yet reaped (nothing here
	   creates or detaches in between) */
	static sem_t hold;               /* (the threads may use it after we return) */
	sem_init(&hold, 0, 0);
	CHECK(pthread_create(&u, &a, wait_sem, &hold) == 0);
	CHECK(pthread_join(u, 0) == EINVAL);
	sem_post(&hold);
	CHECK(pthread_create(&u, &a, quick, 0) == 0);
	msleep(5);
	CHECK(pthread_join(u, 0) == EINVAL);
	CHECK(pthread_create(&t, 0, wait_sem, &hold) == 0);
	CHECK(pthread_detach(t) == 0);
	CHECK(pthread_join(t, 0) == EINVAL);
	sem_post(&hold);
}

/* ---- once ---- */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static volatile int once_runs;

static void once_fn(void)
{
	for (int i = 0; i < 20; i++)
		sched_yield();       /* let the others pile up on it */
	msleep(2);
	once_runs++;
}

/* Whether this caller found the routine done when pthread_once returned:
   a return value, not a shared counter (a counter's atomic adds between
   synchronizations are lost under det=par, which isolates the program's
   data between them, as DTHREADS does; docs/posix.md). */
static void *once_body(void *a)
{
	(void)a;
	pthread_once(&once, once_fn);
	return (void *)(long)(once_runs == 1);
}

/* An init routine cancelled at a cancellation point leaves the once
   object as if pthread_once had never been called: the next caller runs
   its own routine (it used to wait for ever for the first to finish). */
static pthread_once_t once2 = PTHREAD_ONCE_INIT;
static sem_t once2_in, once2_never;
static volatile int once2_runs;

static void once2_stuck(void)
{
	sem_post(&once2_in);
	sem_wait(&once2_never);          /* cancelled here */
}

static void once2_quick(void)
{
	once2_runs++;
}

static void *once2_body(void *a)
{
	(void)a;
	pthread_once(&once2, once2_stuck);
	return 0;
}

static void area_once(void)
{
	pthread_t c;
	void *cr;
	sem_init(&once2_in, 0, 0);
	sem_init(&once2_never, 0, 0);
	CHECK(pthread_create(&c, 0, once2_body, 0) == 0);
	sem_wait(&once2_in);
	CHECK(pthread_cancel(c) == 0);
	CHECK(pthread_join(c, &cr) == 0 && cr == PTHREAD_CANCELED);
	CHECK(pthread_once(&once2, once2_quick) == 0 && once2_runs == 1);
	CHECK(pthread_once(&once2, once2_quick) == 0 && once2_runs == 1);

	pthread_t t[8];
	for (int i = 0; i < 8; i++)
		CHECK(pthread_create(&t[i], 0, once_body, 0) == 0);
	long seen_done = 0;
	for (int i = 0; i < 8; i++) {
		void *r = 0;
		pthread_join(t[i], &r);
		seen_done += (long)r;
	}
	CHECK(once_runs == 1);
	CHECK(seen_done == 8);
	pthread_once(&once, once_fn);
	CHECK(once_runs == 1);
}

/* ---- mutexes ---- */

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *add_many(void *a)
{
	for (long i = 0; i < (long)a; i++) {
		pthread_mutex_lock(&m);
		long c = counter;
		if (i % 64 == 0)
			sched_yield();   /* inside: others must wait */
		counter = c + 1;
		pthread_mutex_unlock(&m);
	}
	return 0;
}

static pthread_mutex_t held;
static sem_t go, done_sem;

/* Take `held`, tell main, wait for main's word, unlock. */
static void *hold(void *a)
{
	(void)a;
	CHECK(pthread_mutex_lock(&held) == 0);
	sem_post(&go);
	sem_wait(&done_sem);
	CHECK(pthread_mutex_unlock(&held) == 0);
	return 0;
}

static void *unlock_other(void *a)
{
	return (void *)(long)pthread_mutex_unlock(a);
}

static void *try_other(void *a)
{
	return (void *)(long)pthread_mutex_trylock(a);
}

static void *release_later(void *a)
{
	msleep((long)a);
	sem_post(&done_sem);
	return 0;
}

static void check_held_by_other(int type)
{
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, type);
	pthread_mutex_init(&held, &ma);
	pthread_mutexattr_destroy(&ma);
	pthread_t h, x;
	void *r;
	pthread_create(&h, 0, hold, 0);
	sem_wait(&go);
	CHECK(pthread_mutex_trylock(&held) == EBUSY);
	if (type != PTHREAD_MUTEX_NORMAL)    /* undefined for a normal one */
		CHECK(pthread_mutex_unlock(&held) == EPERM);
	CHECK(pthread_mutex_destroy(&held) == EBUSY);
	uint64_t t0 = now_ns();
	struct timespec ts = after_ms(CLOCK_REALTIME, 20);
	CHECK(pthread_mutex_timedlock(&held, &ts) == ETIMEDOUT);
	long took = ms_since(t0);
	CHECK(TIMELY(took, 20));
	ts = (struct timespec){ -2, 0 };     /* a negative tv_sec is in the past */
	CHECK(pthread_mutex_timedlock(&held, &ts) == ETIMEDOUT);
	t0 = now_ns();
	ts = after_ms(CLOCK_MONOTONIC, 15);
	CHECK(pthread_mutex_clocklock(&held, CLOCK_MONOTONIC, &ts) == ETIMEDOUT);
	CHECK(TIMELY(ms_since(t0), 15));
	CHECK(pthread_mutex_clocklock(&held, CLOCK_PROCESS_CPUTIME_ID, &ts) == EINVAL);
	/* released before the deadline: timedlock gets it */
	pthread_create(&x, 0, release_later, (void *)20L);
	t0 = now_ns();
	ts = after_ms(CLOCK_REALTIME, 4000);
	CHECK(pthread_mutex_timedlock(&held, &ts) == 0);
	CHECK(ms_since(t0) < 3000);
	pthread_join(h, 0);
	pthread_join(x, 0);
	if (type != PTHREAD_MUTEX_NORMAL) {
		pthread_create(&x, 0, unlock_other, &held);
		pthread_join(x, &r);
		CHECK((long)r == EPERM);
	}
	CHECK(pthread_mutex_unlock(&held) == 0);
	CHECK(pthread_mutex_destroy(&held) == 0);
	(void)try_other;
}

/* glibc's adaptive kind: a normal mutex (no owner checks, no recursion) */
static void adaptive_mutex(void)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m, s = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
	int type = -1;
	CHECK(pthread_mutexattr_init(&a) == 0);
	CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP) == 0);
	CHECK(pthread_mutexattr_gettype(&a, &type) == 0 && type == PTHREAD_MUTEX_ADAPTIVE_NP);
	CHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP + 1) == EINVAL);
	CHECK(pthread_mutex_init(&m, &a) == 0);
	CHECK(pthread_mutex_lock(&m) == 0 && pthread_mutex_trylock(&m) == EBUSY);
	CHECK(pthread_mutex_unlock(&m) == 0 && pthread_mutex_trylock(&m) == 0);
	pthread_mutex_unlock(&m);
	CHECK(pthread_mutex_lock(&s) == 0 && pthread_mutex_trylock(&s) == EBUSY);
	pthread_mutex_unlock(&s);
	CHECK(PTHREAD_MUTEX_TIMED_NP == PTHREAD_MUTEX_NORMAL && PTHREAD_MUTEX_FAST_NP == 0);
}

static void area_mutex(void)
{
	pthread_t t[4];
	long n = 3000 / div_by;
	adaptive_mutex();
	counter = 0;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, add_many, (void *)n);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	CHECK(counter == 4 * n);
	sem_init(&go, 0, 0);
	sem_init(&done_sem, 0, 0);
	check_held_by_other(PTHREAD_MUTEX_NORMAL);
	check_held_by_other(PTHREAD_MUTEX_ERRORCHECK);
	check_held_by_other(PTHREAD_MUTEX_RECURSIVE);

	/* error-checking */
	pthread_mutexattr_t ma;
	pthread_mutex_t e;
	int type;
	pthread_mutexattr_init(&ma);
	CHECK(pthread_mutexattr_settype(&ma, 99) == EINVAL);
	CHECK(pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK) == 0);
	CHECK(pthread_mutexattr_gettype(&ma, &type) == 0 && type == PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&e, &ma);
	CHECK(pthread_mutex_unlock(&e) == EPERM);
	CHECK(pthread_mutex_lock(&e) == 0);
	CHECK(pthread_mutex_lock(&e) == EDEADLK);
	CHECK(pthread_mutex_trylock(&e) == EBUSY);
	CHECK(pthread_mutex_unlock(&e) == 0);
	CHECK(pthread_mutex_unlock(&e) == EPERM);
	/* A free normal mutex unlocked (undefined): 0 and still free, as
	   glibc and musl; real code unlocks twice and checks for 0. */
	pthread_mutex_t nm = PTHREAD_MUTEX_INITIALIZER;
	CHECK(pthread_mutex_unlock(&nm) == 0);
	CHECK(pthread_mutex_trylock(&nm) == 0 && pthread_mutex_trylock(&nm) == EBUSY);
	CHECK(pthread_mutex_unlock(&nm) == 0 && pthread_mutex_unlock(&nm) == 0);
	CHECK(pthread_mutex_trylock(&nm) == 0 && pthread_mutex_unlock(&nm) == 0);

	/* recursive */
	pthread_mutex_t rm = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
	void *r;
	pthread_t x;
	CHECK(pthread_mutex_lock(&rm) == 0);
	CHECK(pthread_mutex_lock(&rm) == 0);
	CHECK(pthread_mutex_trylock(&rm) == 0);
	pthread_create(&x, 0, try_other, &rm);
	pthread_join(x, &r);
	CHECK((long)r == EBUSY);
	pthread_create(&x, 0, unlock_other, &rm);
	pthread_join(x, &r);
	CHECK((long)r == EPERM);
	CHECK(pthread_mutex_unlock(&rm) == 0);
	CHECK(pthread_mutex_unlock(&rm) == 0);
	CHECK(pthread_mutex_unlock(&rm) == 0);
	CHECK(pthread_mutex_unlock(&rm) == EPERM);
	pthread_create(&x, 0, try_other, &rm);
	pthread_join(x, &r);
	CHECK((long)r == 0);         /* it kept it: released by its exit? no: still held */

	/* ceilings */
	pthread_mutex_t pm;
	int c;
	CHECK(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT) == 0);
	CHECK(pthread_mutexattr_setprioceiling(&ma, sched_get_priority_max(SCHED_FIFO)) == 0);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_NORMAL);
	pthread_mutex_init(&pm, &ma);
	CHECK(pthread_mutex_getprioceiling(&pm, &c) == 0 && c == sched_get_priority_max(SCHED_FIFO));
	CHECK(pthread_mutex_lock(&pm) == 0);
	CHECK(pthread_mutex_unlock(&pm) == 0);
	CHECK(pthread_mutex_setprioceiling(&pm, 1, &c) == 0 && c == sched_get_priority_max(SCHED_FIFO));
	CHECK(pthread_mutex_getprioceiling(&pm, &c) == 0 && c == 1);
	CHECK(pthread_mutex_lock(&pm) == 0);
	CHECK(pthread_mutex_trylock(&pm) == EBUSY);
	CHECK(pthread_mutex_unlock(&pm) == 0);
	CHECK(pthread_mutex_destroy(&pm) == 0);
	pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;   /* no ceiling to change */
	CHECK(pthread_mutex_setprioceiling(&plain, 1, &c) == EINVAL);
	CHECK(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) == 0);   /* portcompat prio */
}

/* ---- condition variables ---- */

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn, waiting, released;

static void *pong(void *a)
{
	long n = (long)a;
	for (long i = 0; i < n; i++) {
		pthread_mutex_lock(&cm);
		while (turn != 1)
			pthread_cond_wait(&cv, &cm);
		turn = 0;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&cm);
	}
	return 0;
}

static void *bwait(void *a)
{
	(void)a;
	pthread_mutex_lock(&cm);
	waiting++;
	while (!released)
		pthread_cond_wait(&cv, &cm);
	waiting--;
	pthread_mutex_unlock(&cm);
	return 0;
}

static pthread_cond_t mcv;

static void *signal_later(void *a)
{
	msleep((long)a);
	pthread_mutex_lock(&cm);
	released = 1;
	pthread_cond_signal(&mcv);
	pthread_mutex_unlock(&cm);
	return 0;
}

static void area_cond(void)
{
	pthread_t t;
	const long N = 2000 / div_by;
	turn = 0;
	pthread_create(&t, 0, pong, (void *)(long)N);
	for (int i = 0; i < N; i++) {
		pthread_mutex_lock(&cm);
		turn = 1;
		pthread_cond_signal(&cv);
		while (turn != 0)
			pthread_cond_wait(&cv, &cm);
		pthread_mutex_unlock(&cm);
	}
	pthread_join(t, 0);

	/* broadcast wakes everyone */
	pthread_t w[6];
	released = 0;
	for (int i = 0; i < 6; i++)
		pthread_create(&w[i], 0, bwait, 0);
	for (int n = 0; n < 6;) {
		pthread_mutex_lock(&cm);
		n = waiting;
		pthread_mutex_unlock(&cm);
		sched_yield();
	}
	pthread_mutex_lock(&cm);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&cm);
	for (int i = 0; i < 6; i++)
		pthread_join(w[i], 0);
	CHECK(waiting == 0);

	/* timedwait on both clocks: times out, or a signal wins */
	clockid_t clocks[2] = { CLOCK_MONOTONIC, CLOCK_REALTIME };
	for (int k = 0; k < 2; k++) {
		pthread_condattr_t ca;
		clockid_t got;
		pthread_condattr_init(&ca);
		CHECK(pthread_condattr_setclock(&ca, clocks[k]) == 0);
		CHECK(pthread_condattr_getclock(&ca, &got) == 0 && got == clocks[k]);
		pthread_cond_init(&mcv, &ca);
		pthread_condattr_destroy(&ca);
		pthread_mutex_lock(&cm);
		uint64_t t0 = now_ns();
		struct timespec ts = after_ms(clocks[k], 25);
		int r = pthread_cond_timedwait(&mcv, &cm, &ts);
		long took = ms_since(t0);
		CHECK(r == ETIMEDOUT);
		CHECK(TIMELY(took, 25));
		/* the mutex is ours again after a timeout */
		CHECK(pthread_mutex_trylock(&cm) == EBUSY);
		released = 0;
		pthread_create(&t, 0, signal_later, (void *)20L);
		t0 = now_ns();
		ts = after_ms(clocks[k], 4000);
		r = 0;
		while (!released && r == 0)
			r = pthread_cond_timedwait(&mcv, &cm, &ts);
		CHECK(r == 0 && released);
		CHECK(ms_since(t0) < 3000);
		pthread_mutex_unlock(&cm);
		pthread_join(t, 0);
		ts.tv_nsec = 1000000000;
		pthread_mutex_lock(&cm);
		CHECK(pthread_cond_timedwait(&mcv, &cm, &ts) == EINVAL);
		ts = (struct timespec){ -2, 0 };     /* past (either clock) */
		CHECK(pthread_cond_timedwait(&mcv, &cm, &ts) == ETIMEDOUT);
		/* clockwait: the clock named, not the condition's */
		clockid_t other = clocks[1 - k];
		t0 = now_ns();
		ts = after_ms(other, 15);
		CHECK(pthread_cond_clockwait(&mcv, &cm, other, &ts) == ETIMEDOUT);
		CHECK(TIMELY(ms_since(t0), 15));
		CHECK(pthread_cond_clockwait(&mcv, &cm, CLOCK_PROCESS_CPUTIME_ID, &ts) == EINVAL);
		pthread_mutex_unlock(&cm);
		CHECK(pthread_cond_destroy(&mcv) == 0);
	}
	pthread_mutex_t em = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	CHECK(pthread_cond_wait(&cv, &em) == EPERM);   /* not holding it */
}

/* ---- rwlocks ---- */

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
/* Each reader marks its own slot while it holds the lock (a shared
   counter of readers would need atomics between synchronizations, which
   det=par does not isolate: docs/posix.md); a writer finds none set. */
#define RW_READERS 4
static volatile char reader_in[RW_READERS];
static volatile int writer_in, rw_bad;

static int readers_inside(void)
{
	int n = 0;
	for (int i = 0; i < RW_READERS; i++)
		n += reader_in[i];
	return n;
}

static void *reader(void *a)
{
	long me = (long)a;
	for (long i = 0; i < 300; i++) {
		pthread_rwlock_rdlock(&rw);
		reader_in[me] = 1;
		if (writer_in)
			rw_bad = 1;
		sched_yield();
		reader_in[me] = 0;
		pthread_rwlock_unlock(&rw);
	}
	return 0;
}

static void *writer(void *a)
{
	for (long i = 0; i < (long)a; i++) {
		pthread_rwlock_wrlock(&rw);
		if (writer_in++ || readers_inside())
			rw_bad = 1;
		sched_yield();
		writer_in--;
		pthread_rwlock_unlock(&rw);
		sched_yield();
	}
	return 0;
}

static void *try_rw(void *a)
{
	long wr = (long)a;
	return (void *)(long)(wr ? pthread_rwlock_trywrlock(&rw) : pthread_rwlock_tryrdlock(&rw));
}

/* Writer preference (PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP). */
static pthread_rwlock_t wp;

static void *wp_timed_writer(void *a)
{
	struct timespec ts = after_ms(CLOCK_REALTIME, (long)a);
	return (void *)(long)pthread_rwlock_timedwrlock(&wp, &ts);
}

static void *wp_try_reader(void *a)
{
	(void)a;
	return (void *)(long)pthread_rwlock_tryrdlock(&wp);
}

static void *wp_reader(void *a)
{
	struct timespec ts = after_ms(CLOCK_REALTIME, (long)a);
	int r = pthread_rwlock_timedrdlock(&wp, &ts);
	if (!r)
		pthread_rwlock_unlock(&wp);
	return (void *)(long)r;
}

#define WP_WRITER_MS 200L

static int queued(struct __pq *q)
{
	return __atomic_load_n(&q->__head, __ATOMIC_ACQUIRE) != 0;
}

/* Let the other threads run: a yield for a package whose sleep blocks the
   whole VP (naive, one VP), a sleep for one whose yield may find no one
   else (a thread still on its way to another VP). */
static void wait_a_little(void)
{
	sched_yield();
	msleep(1);
}

static void rwlock_prefer_writer(void)
{
	pthread_rwlockattr_t a;
	int kind = -1;
	void *r1, *r2;
	pthread_t w, r;
	CHECK(pthread_rwlockattr_init(&a) == 0);
	CHECK(pthread_rwlockattr_getkind_np(&a, &kind) == 0 && kind == PTHREAD_RWLOCK_PREFER_READER_NP);
	CHECK(pthread_rwlockattr_setkind_np(&a, 7) == EINVAL);
	CHECK(pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP) == 0);
	CHECK(pthread_rwlockattr_getkind_np(&a, &kind) == 0 &&
	      kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	CHECK(pthread_rwlock_init(&wp, &a) == 0);
	CHECK(pthread_rwlock_rdlock(&wp) == 0);
	/* Orderings are waited for, not slept for: on kthread each thread is
	   a VP, and on a loaded host a new one can take longer than 5 ms to
	   run (CI: the try-reader ran before w queued). */
	uint64_t t0 = now_ns();
	pthread_create(&w, 0, wp_timed_writer, (void *)WP_WRITER_MS);
	while (!queued(&wp.__wq))
		wait_a_little();             /* w waits behind our read hold */
	pthread_create(&r, 0, wp_try_reader, 0);
	pthread_join(r, &r1);
	/* No new reader while a writer waits (unless w's wait is over: a host
	   that stalled the guest for all of it). */
	CHECK((long)r1 == EBUSY || ms_since(t0) >= WP_WRITER_MS);
	pthread_create(&r, 0, wp_reader, (void *)20000L);
	while (!queued(&wp.__rq) && queued(&wp.__wq))
		wait_a_little();             /* r waits behind w */
	pthread_join(w, &r1);
	pthread_join(r, &r2);
	CHECK((long)r1 == ETIMEDOUT);
	CHECK((long)r2 == 0);            /* let in once w gave up, not at its own timeout */
	CHECK(pthread_rwlock_unlock(&wp) == 0);
	CHECK(pthread_rwlock_destroy(&wp) == 0);
	pthread_rwlock_t wi = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
	CHECK(wi.__kind == PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
}

static void area_rwlock(void)
{
	rwlock_prefer_writer();
	pthread_t t[6];
	for (long i = 0; i < RW_READERS; i++)
		pthread_create(&t[i], 0, reader, (void *)i);
	for (int i = 4; i < 6; i++)
		pthread_create(&t[i], 0, writer, (void *)100L);
	for (int i = 0; i < 6; i++)
		pthread_join(t[i], 0);
	CHECK(!rw_bad);                  /* (readers sharing: the try checks below) */
	void *r;
	pthread_t x;
	CHECK(pthread_rwlock_rdlock(&rw) == 0);
	pthread_create(&x, 0, try_rw, (void *)1L);
	pthread_join(x, &r);
	CHECK((long)r == EBUSY);
	pthread_create(&x, 0, try_rw, (void *)0L);
	pthread_join(x, &r);
	CHECK((long)r == 0);         /* readers share (it exits holding it) */
	CHECK(pthread_rwlock_unlock(&rw) == 0);
	CHECK(pthread_rwlock_unlock(&rw) == 0);
	CHECK(pthread_rwlock_unlock(&rw) == EPERM);
	CHECK(pthread_rwlock_wrlock(&rw) == 0);
	CHECK(pthread_rwlock_wrlock(&rw) == EDEADLK);
	CHECK(pthread_rwlock_trywrlock(&rw) == EBUSY);   /* the writer itself: EBUSY */
	CHECK(pthread_rwlock_tryrdlock(&rw) == EBUSY);   /* (not rdlock's EDEADLK) */
	pthread_create(&x, 0, try_rw, (void *)0L);
	pthread_join(x, &r);
	CHECK((long)r == EBUSY);
	uint64_t t0 = now_ns();
	struct timespec ts = after_ms(CLOCK_REALTIME, 30);
	CHECK(pthread_rwlock_timedrdlock(&rw, &ts) == EDEADLK);
	CHECK(pthread_rwlock_unlock(&rw) == 0);
	CHECK(pthread_rwlock_rdlock(&rw) == 0);
	t0 = now_ns();                   /* before the deadline's base (a stall between) */
	ts = after_ms(CLOCK_REALTIME, 15);
	CHECK(pthread_rwlock_timedwrlock(&rw, &ts) == ETIMEDOUT);
	CHECK(TIMELY(ms_since(t0), 15));
	ts = (struct timespec){ -2, 0 };
	CHECK(pthread_rwlock_timedwrlock(&rw, &ts) == ETIMEDOUT);
	t0 = now_ns();
	ts = after_ms(CLOCK_MONOTONIC, 15);
	CHECK(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, &ts) == ETIMEDOUT);
	CHECK(TIMELY(ms_since(t0), 15));
	CHECK(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, &ts) == 0);   /* readers share */
	CHECK(pthread_rwlock_unlock(&rw) == 0);
	CHECK(pthread_rwlock_clockwrlock(&rw, CLOCK_PROCESS_CPUTIME_ID, &ts) == EINVAL);
	CHECK(pthread_rwlock_unlock(&rw) == 0);
	CHECK(pthread_rwlock_destroy(&rw) == 0);
}

/* ---- barriers, spin locks ---- */

static pthread_barrier_t bar;
static volatile int serials[5], phase_bad, phase[5];   /* (each thread its own count) */

static void *bar_body(void *a)
{
	long me = (long)a;
	for (int r = 0; r < 30; r++) {
		phase[me] = r;
		int s = pthread_barrier_wait(&bar);
		if (s == PTHREAD_BARRIER_SERIAL_THREAD)
			serials[me]++;
		else if (s != 0)
			phase_bad = 1;
		for (int i = 0; i < 5; i++)
			if (phase[i] < r)
				phase_bad = 1;
		pthread_barrier_wait(&bar);
	}
	return 0;
}

static pthread_spinlock_t sl;
static long spin_count;

static void *spin_body(void *a)
{
	for (long i = 0; i < (long)a; i++) {
		pthread_spin_lock(&sl);
		spin_count++;
		pthread_spin_unlock(&sl);
	}
	return 0;
}

static void *spin_try(void *a)
{
	(void)a;
	return (void *)(long)pthread_spin_trylock(&sl);
}

static void area_barrier(void)
{
	pthread_t t[5];
	CHECK(pthread_barrier_init(&bar, 0, 0) == EINVAL);
	CHECK(pthread_barrier_init(&bar, 0, 5) == 0);
	for (long i = 0; i < 5; i++)
		pthread_create(&t[i], 0, bar_body, (void *)i);
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], 0);
	CHECK(serials[0] + serials[1] + serials[2] + serials[3] + serials[4] == 30);
	CHECK(!phase_bad);
	CHECK(pthread_barrier_destroy(&bar) == 0);

	CHECK(pthread_spin_init(&sl, PTHREAD_PROCESS_PRIVATE) == 0);
	long n = 5000 / div_by;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, spin_body, (void *)n);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	CHECK(spin_count == 4 * n);
	void *r;
	pthread_spin_lock(&sl);
	pthread_create(&t[0], 0, spin_try, 0);
	pthread_join(t[0], &r);
	CHECK((long)r == EBUSY);
	pthread_spin_unlock(&sl);
	CHECK(pthread_spin_trylock(&sl) == 0);
	pthread_spin_unlock(&sl);
	/* The holder blocks holding it, the waiter spins on its VP: the
	   waiter must let the holder run again (it never did on one VP). */
	spin_count = 0;
	pthread_spin_lock(&sl);
	pthread_create(&t[0], 0, spin_body, (void *)1L);
	usleep(20000);
	pthread_spin_unlock(&sl);
	pthread_join(t[0], 0);
	CHECK(spin_count == 1);
	CHECK(pthread_spin_destroy(&sl) == 0);
}

/* ---- keys ---- */

static pthread_key_t key;
static volatile char dtor_of[9];   /* calls with each value, 0: any other (one thread each) */

static void key_dtor(void *v)
{
	dtor_of[(long)v > 0 && (long)v < 9 ? (long)v : 0]++;
}

static void *key_body(void *a)
{
	long me = (long)a;
	if (pthread_getspecific(key) != 0)
		return (void *)1L;
	pthread_setspecific(key, (void *)me);
	for (int i = 0; i < 10; i++) {
		sched_yield();
		if ((long)pthread_getspecific(key) != me)
			return (void *)1L;
	}
	return 0;
}

static void area_keys(void)
{
	pthread_t t[8];
	void *r;
	CHECK(pthread_key_create(&key, key_dtor) == 0);
	for (long i = 0; i < 8; i++)
		pthread_create(&t[i], 0, key_body, (void *)(i + 1));
	for (int i = 0; i < 8; i++) {
		pthread_join(t[i], &r);
		CHECK(r == 0);
	}
	for (int i = 0; i < 9; i++)
		CHECK(dtor_of[i] == (i > 0));
	CHECK(pthread_setspecific(key, (void *)99L) == 0);
	CHECK((long)pthread_getspecific(key) == 99);
	CHECK(pthread_key_delete(key) == 0);
	CHECK(pthread_key_delete(key) == EINVAL);
	pthread_key_t k2;
	CHECK(pthread_key_create(&k2, 0) == 0);
	CHECK(pthread_getspecific(k2) == 0);   /* a new key: no stale value */
	CHECK(pthread_key_delete(k2) == 0);
}

/* ---- TLS and errno ---- */

static __thread long tls_id;
static __thread char tls_buf[40] = "fresh";
static __thread double tls_big[300];
static pthread_mutex_t tm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tc = PTHREAD_COND_INITIALIZER;
static sem_t ts_sem;
static volatile int tls_bad;

static void *tls_body(void *a)
{
	long me = (long)a;
	if (tls_id != 0 || strcmp(tls_buf, "fresh") || tls_big[299] != 0)
		tls_bad = 1;
	tls_id = me;
	tls_big[299] = (double)me;
	snprintf(tls_buf, sizeof tls_buf, "t%ld", me);
	errno = (int)me;
	char want[40];
	snprintf(want, sizeof want, "t%ld", me);
	for (int i = 0; i < 50; i++) {
		switch (i % 4) {
		case 0:
			sched_yield();
			break;
		case 1:                          /* block on a mutex and a cond */
			pthread_mutex_lock(&tm);
			struct timespec ts = after_ms(CLOCK_REALTIME, 1);
			pthread_cond_timedwait(&tc, &tm, &ts);
			pthread_cond_broadcast(&tc);
			pthread_mutex_unlock(&tm);
			break;
		case 2:                          /* a semaphore handed round */
			sem_wait(&ts_sem);
			sched_yield();
			sem_post(&ts_sem);
			break;
		case 3:                          /* blocked in the kernel */
			if (i % 12 == 3)
				msleep(1);
			break;
		}
		if (tls_id != me || strcmp(tls_buf, want) || tls_big[299] != (double)me ||
		    errno != (int)me)
			tls_bad = 1;
	}
	return 0;
}

static void area_tls(void)
{
	pthread_t t[12];
	sem_init(&ts_sem, 0, 2);
	tls_id = -1;
	errno = 0;
	for (long i = 0; i < 12; i++)
		pthread_create(&t[i], 0, tls_body, (void *)(i + 1));
	for (int i = 0; i < 12; i++)
		pthread_join(t[i], 0);
	CHECK(!tls_bad);
	CHECK(tls_id == -1 && errno == 0 && !strcmp(tls_buf, "fresh"));
	/* a failing call sets this thread's errno only */
	sem_t s;
	sem_init(&s, 0, 0);
	CHECK(sem_trywait(&s) == -1 && errno == EAGAIN);
}

/* ---- cancellation ---- */

static volatile int cleaned, cleanup_had_mutex;
static pthread_mutex_t xm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t xc = PTHREAD_COND_INITIALIZER;
static volatile int xwaiting;

static void unlock_cleanup(void *a)
{
	cleanup_had_mutex = pthread_mutex_trylock(a) == EBUSY;   /* we hold it */
	pthread_mutex_unlock(a);
	cleaned++;
}

static void *cancel_in_wait(void *a)
{
	(void)a;
	pthread_mutex_lock(&xm);
	pthread_cleanup_push(unlock_cleanup, &xm);
	xwaiting = 1;
	for (;;)
		pthread_cond_wait(&xc, &xm);
	pthread_cleanup_pop(0);
	return 0;
}

static void *cancel_off(void *a)
{
	(void)a;
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	xwaiting = 2;
	while (xwaiting != 3)
		pthread_testcancel(), sched_yield();
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	pthread_testcancel();
	return (void *)1L;               /* not reached */
}

static sem_t xs;

static void *cancel_in_sem(void *a)
{
	(void)a;
	xwaiting = 4;
	sem_wait(&xs);
	return (void *)1L;
}

/* A cancel already pending when a cancellation point need not wait:
   sem_timedwait on a free unit, pthread_join of a thread that has
   exited. POSIX has them act on it all the same. */
static sem_t pend_sem, pend_ready;
static volatile int pend_cancelled;
static pthread_t pend_exited;

static void *exit_now(void *a)
{
	return a;
}

static void hold_until_cancelled(void)
{
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	sem_post(&pend_ready);
	while (!pend_cancelled)
		sched_yield();
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);   /* not a cancellation point */
}

static void *pending_at_semwait(void *a)
{
	(void)a;
	hold_until_cancelled();
	struct timespec ts = after_ms(CLOCK_REALTIME, 1000);
	sem_timedwait(&pend_sem, &ts);   /* a unit is there: acts on the cancel, takes none */
	return (void *)1L;
}

static void *pending_at_join(void *a)
{
	(void)a;
	hold_until_cancelled();
	pthread_join(pend_exited, 0);    /* exited already: acts on the cancel, joins not */
	return (void *)1L;
}

static void *sleeper(void *a)
{
	(void)a;
	sem_post(&pend_ready);
	sleep(100);                      /* a cancellation point */
	return (void *)1L;
}

/* A recursive mutex held twice, and a cancel acting as the wait starts:
   the cleanup handlers get it held twice (the wait had set its count to
   1 first, so their second unlock was EPERM and the first freed it). */
static pthread_mutex_t rcm;
static pthread_cond_t rcc = PTHREAD_COND_INITIALIZER;
static volatile int rc_second = -1;

static void unlock_twice(void *m)
{
	pthread_mutex_unlock(m);
	rc_second = pthread_mutex_unlock(m);
}

static void *pending_at_condwait(void *a)
{
	(void)a;
	pthread_mutex_lock(&rcm);
	pthread_mutex_lock(&rcm);
	pthread_cleanup_push(unlock_twice, &rcm);
	hold_until_cancelled();
	pthread_cond_wait(&rcc, &rcm);
	pthread_cleanup_pop(0);
	return (void *)1L;
}

/* Asynchronous cancellation of a thread that spins and never reaches a
   cancellation point: its package redirects it at an upcall (fifo,
   tutor, prio); classic VPs (naive, kthread) take none. */
static volatile int async_cleaned;

static void note_async(void *a)
{
	(void)a;
	async_cleaned = 1;
}

static void *spin_async(void *a)
{
	(void)a;
	int old;
	volatile unsigned long n = 0;
	pthread_cleanup_push(note_async, 0);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	sem_post(&pend_ready);
	for (;;)
		n++;
	pthread_cleanup_pop(0);
	return (void *)1L;
}

static void *async_pending(void *a)
{
	(void)a;
	hold_until_cancelled();          /* deferred, enabled, pending: then async */
	int old;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);   /* acts at once */
	return (void *)1L;
}

/* Asynchronous cancellation of a thread waiting for a mutex or a
   rwlock that main holds (no cancellation points): the cancel ends the
   wait, on every package (Open POSIX pthread_mutex_init/1-2 and 3-2
   hung: the waiter went back to sleep). */
static pthread_mutex_t async_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t async_rw = PTHREAD_RWLOCK_INITIALIZER;

/* The same in a barrier wait (no cancellation point either): the
   thread no longer counts as arrived. */
static pthread_barrier_t async_b;

/* a names the object to wait on: &async_m, &async_rw or &async_b. */
static void *async_waiter(void *a)
{
	int old;
	pthread_cleanup_push(note_async, 0);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old);
	sem_post(&pend_ready);
	if (a == &async_m)
		pthread_mutex_lock(&async_m);
	else if (a == &async_rw)
		pthread_rwlock_rdlock(&async_rw);
	else
		pthread_barrier_wait(&async_b);
	pthread_cleanup_pop(0);
	return (void *)1L;
}

static void pending_cancel_arg(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	void *r;
	pend_cancelled = 0;
	pthread_create(&t, 0, fn, arg);
	sem_wait(&pend_ready);
	CHECK(pthread_cancel(t) == 0);
	pend_cancelled = 1;
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
}

static void pending_cancel(void *(*fn)(void *))
{
	pending_cancel_arg(fn, 0);
}

static void area_cancel_points(void)
{
	sem_init(&pend_ready, 0, 0);
	sem_init(&pend_sem, 0, 1);
	pending_cancel(pending_at_semwait);
	int v;
	CHECK(sem_getvalue(&pend_sem, &v) == 0 && v == 1);
	void *r;
	pthread_create(&pend_exited, 0, exit_now, (void *)7L);
	pending_cancel(pending_at_join);
	CHECK(pthread_join(pend_exited, &r) == 0 && r == (void *)7L);   /* still joinable */
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&rcm, &ma);
	pending_cancel(pending_at_condwait);
	CHECK(rc_second == 0);
	CHECK(pthread_mutex_trylock(&rcm) == 0 && pthread_mutex_unlock(&rcm) == 0);
	uint64_t t0 = now_ns();
	pending_cancel(sleeper);
	CHECK(ms_since(t0) < 50000);
	pending_cancel(async_pending);
	async_cleaned = 0;
	pthread_mutex_lock(&async_m);
	pending_cancel_arg(async_waiter, &async_m);
	CHECK(async_cleaned == 1);
	CHECK(pthread_mutex_unlock(&async_m) == 0);
	async_cleaned = 0;
	pthread_rwlock_wrlock(&async_rw);
	pending_cancel_arg(async_waiter, &async_rw);
	CHECK(async_cleaned == 1);
	CHECK(pthread_rwlock_unlock(&async_rw) == 0);
	CHECK(pthread_rwlock_trywrlock(&async_rw) == 0 && pthread_rwlock_unlock(&async_rw) == 0);
	async_cleaned = 0;
	pthread_barrier_init(&async_b, 0, 2);
	pending_cancel_arg(async_waiter, &async_b);
	CHECK(async_cleaned == 1);
	pthread_t bt;
	pthread_create(&bt, 0, async_waiter, &async_b);   /* it arrives; with us, the round ends */
	sem_wait(&pend_ready);
	int bw = pthread_barrier_wait(&async_b);
	CHECK(bw == 0 || bw == PTHREAD_BARRIER_SERIAL_THREAD);
	pthread_join(bt, &r);
	CHECK(r == (void *)1L);
	pthread_barrier_destroy(&async_b);
	async_cleaned = 0;
	/* Upcalls, and main gets a CPU while the spinner spins: fifo's
	   time slices, or a second VP (tutor and prio never take the VP
	   from a spinning thread). */
	const char *pkg = ((struct thread *)pthread_self())->ops->name;
	if (vp_self()->upcall_entry && (!strcmp(pkg, "fifo") || vp_pseudo()->nvp > 1)) {
		pending_cancel(spin_async);
		CHECK(async_cleaned == 1);
	}
}

/* Asynchronous cancels landing anywhere in semaphore waits and posts.
   A thread that runs in its wait with its node still queued (woken, not
   yet off the queue) must not be ended there, or the queue keeps a node
   on a dead stack (2 of 10 boots of tutor at -smp 2 before); nor a poster
   between taking a waiter off the queue and granting it, or that waiter
   waits for ever (2 hangs in 9 boots before). */
static sem_t pp_sem;

static void *pp_waiter(void *arg)
{
	(void)arg;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, 0);
	for (;;)
		sem_wait(&pp_sem);
	return 0;
}

static sem_t pp_b;

static void *pp_side(void *arg)
{
	sem_t *mine = arg ? &pp_sem : &pp_b, *other = arg ? &pp_b : &pp_sem;
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, 0);
	for (;;) {
		sem_wait(mine);
		sem_post(other);
	}
	return 0;
}

static void async_waiters(void)
{
	for (int round = 0; round < 40; round++) {
		pthread_t a, b;
		void *ra, *rb;
		sem_init(&pp_sem, 0, 0);
		pthread_create(&a, 0, pp_waiter, 0);
		pthread_create(&b, 0, pp_waiter, 0);
		for (int i = 0; i < 50 + round * 7; i++) {
			sem_post(&pp_sem);
			if (i % 3 == round % 3)
				sched_yield();
		}
		CHECK(pthread_cancel(a) == 0 && pthread_cancel(b) == 0);
		CHECK(pthread_join(a, &ra) == 0 && ra == PTHREAD_CANCELED);
		CHECK(pthread_join(b, &rb) == 0 && rb == PTHREAD_CANCELED);
		CHECK(!pp_sem.__head);       /* no dead waiter queued */
	}
	for (int round = 0; round < 40; round++) {      /* both post, both wait */
		pthread_t a, b;
		void *ra, *rb;
		sem_init(&pp_sem, 0, 1);
		sem_init(&pp_b, 0, 0);
		pthread_create(&a, 0, pp_side, (void *)1L);
		pthread_create(&b, 0, pp_side, 0);
		for (int i = 0; i < round % 8; i++)
			sched_yield();
		usleep(50 * (round % 5));
		CHECK(pthread_cancel(a) == 0 && pthread_cancel(b) == 0);
		CHECK(pthread_join(a, &ra) == 0 && ra == PTHREAD_CANCELED);
		CHECK(pthread_join(b, &rb) == 0 && rb == PTHREAD_CANCELED);
		CHECK(!pp_sem.__head && !pp_b.__head);
	}
}

static void area_cancel(void)
{
	area_cancel_points();
	async_waiters();

	pthread_t t;
	void *r;
	pthread_create(&t, 0, cancel_in_wait, 0);
	while (xwaiting != 1)
		sched_yield();
	msleep(5);
	CHECK(pthread_cancel(t) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
	CHECK(cleaned == 1 && cleanup_had_mutex);
	CHECK(pthread_mutex_trylock(&xm) == 0);
	pthread_mutex_unlock(&xm);

	pthread_create(&t, 0, cancel_off, 0);
	while (xwaiting != 2)
		sched_yield();
	CHECK(pthread_cancel(t) == 0);
	msleep(5);
	xwaiting = 3;
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);

	sem_init(&xs, 0, 0);
	pthread_create(&t, 0, cancel_in_sem, 0);
	while (xwaiting != 4)
		sched_yield();
	msleep(5);
	pthread_cancel(t);
	CHECK(pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
	int old;
	CHECK(pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old) == 0);
	CHECK(pthread_setcancelstate(5, &old) == EINVAL);
}

/* ---- semaphores ---- */

static sem_t items, slots;
static int ring[4], ring_in, ring_out;

static void *producer(void *a)
{
	for (long i = 1; i <= (long)a; i++) {
		sem_wait(&slots);
		ring[ring_in++ % 4] = (int)i;
		sem_post(&items);
	}
	return 0;
}

static sem_t ps;

static void *post_later(void *a)
{
	msleep((long)a);
	sem_post(&ps);
	return 0;
}

static void area_sem(void)
{
	sem_t s;
	int v;
	CHECK(sem_init(&s, 0, 2) == 0);
	CHECK(sem_getvalue(&s, &v) == 0 && v == 2);
	CHECK(sem_trywait(&s) == 0 && sem_trywait(&s) == 0);
	CHECK(sem_trywait(&s) == -1 && errno == EAGAIN);
	CHECK(sem_post(&s) == 0 && sem_getvalue(&s, &v) == 0 && v == 1);
	CHECK(sem_destroy(&s) == 0);

	pthread_t t;
	sem_init(&items, 0, 0);
	sem_init(&slots, 0, 4);
	long n = 3000 / div_by;
	pthread_create(&t, 0, producer, (void *)n);
	long sum = 0, bad = 0;
	for (long i = 1; i <= n; i++) {
		sem_wait(&items);
		int x = ring[ring_out++ % 4];
		bad |= x != i;
		sum += x;
		sem_post(&slots);
	}
	pthread_join(t, 0);
	CHECK(!bad && sum == n * (n + 1) / 2);

	sem_init(&ps, 0, 0);
	uint64_t t0 = now_ns();
	struct timespec ts = after_ms(CLOCK_REALTIME, 20);
	CHECK(sem_timedwait(&ps, &ts) == -1 && errno == ETIMEDOUT);
	CHECK(TIMELY(ms_since(t0), 20));
	pthread_create(&t, 0, post_later, (void *)20L);
	t0 = now_ns();
	ts = after_ms(CLOCK_REALTIME, 4000);
	CHECK(sem_timedwait(&ps, &ts) == 0);
	CHECK(ms_since(t0) < 3000);
	pthread_join(t, 0);
	CHECK(sem_getvalue(&ps, &v) == 0 && v == 0);
	ts.tv_nsec = -1;
	CHECK(sem_timedwait(&ps, &ts) == -1 && errno == EINVAL);
	ts = (struct timespec){ -2, 0 };     /* before 1970: past, not malformed */
	CHECK(sem_timedwait(&ps, &ts) == -1 && errno == ETIMEDOUT);
	t0 = now_ns();
	ts = after_ms(CLOCK_MONOTONIC, 15);
	CHECK(sem_clockwait(&ps, CLOCK_MONOTONIC, &ts) == -1 && errno == ETIMEDOUT);
	CHECK(TIMELY(ms_since(t0), 15));
	CHECK(sem_clockwait(&ps, CLOCK_PROCESS_CPUTIME_ID, &ts) == -1 && errno == EINVAL);
	sem_post(&ps);
	CHECK(sem_clockwait(&ps, CLOCK_MONOTONIC, &ts) == 0);
}

/* ---- scheduling and rusage ---- */

static void *get_prio(void *a)
{
	(void)a;
	int pol;
	struct sched_param p;
	pthread_getschedparam(pthread_self(), &pol, &p);
	return (void *)(long)(pol * 100 + p.sched_priority);
}

/* A thread polling with usleep for one queued behind it on its VP: the
   sleep blocks only the thread (on naive's classic VPs SYS_sleep put the
   whole VP to sleep, and with one VP the poll never ended). */
static volatile int polled;

static void *set_polled(void *a)
{
	(void)a;
	polled = 1;
	return 0;
}

static void atfork_never(void)
{
	abort();                          /* there is no fork to run it */
}

static uint64_t cpu_ns(void);

static void area_sched(void)
{
	pthread_t w;
	CHECK(pthread_atfork(atfork_never, atfork_never, atfork_never) == 0);
	CHECK(pthread_atfork(0, 0, 0) == 0);
	CHECK(pthread_create(&w, 0, set_polled, 0) == 0);
	for (int i = 0; !polled && i < 100000; i++)
		usleep(100);
	CHECK(polled);
	pthread_join(w, 0);
	/* Alone, a sleeper's VP sleeps in the kernel too (on naive the
	   wait yielded in a loop for the whole sleep, never blocking): the
	   process's CPU time hardly grows during the sleep. (Not the VP's
	   block count: on the upcall packages a timed wait is the runtime's
	   now, ulib/rt/rt_tq.c, and the VP idles in the kernel without a
	   blocked call. A spinning VP would take all 50 ms; the bound leaves
	   40 ms for a stalled host; and none is asked when the host stalled
	   the emulated CPU meanwhile, a timer interrupt over 1 ms late: the
	   VP on the CPU in a stall is charged all of it, and det=par's in a
	   fresh-clone CI at a load of 7 took over 40 ms so.) */
	long late0 = sys_getinfo(INFO_TIMER_LATE);
	uint64_t c0 = cpu_ns(), t0 = now_ns();
	usleep(50000);
	uint64_t used = cpu_ns() - c0;
	CHECK(ms_since(t0) >= 50);
	if (sys_getinfo(INFO_TIMER_LATE) == late0)
		CHECK(used < 40000000);

	CHECK(sched_yield() == 0);
	int lo = sched_get_priority_min(SCHED_FIFO), hi = sched_get_priority_max(SCHED_FIFO);
	CHECK(lo >= 0 && hi > lo);
	CHECK(sched_get_priority_max(SCHED_OTHER) == sched_get_priority_min(SCHED_OTHER));
	pthread_attr_t a;
	struct sched_param p = { hi - 1 };
	pthread_attr_init(&a);
	CHECK(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED) == 0);
	CHECK(pthread_attr_setschedpolicy(&a, SCHED_FIFO) == 0);
	CHECK(pthread_attr_setschedparam(&a, &p) == 0);
	pthread_t t;
	void *r;
	pthread_create(&t, &a, get_prio, 0);
	pthread_join(t, &r);
	CHECK((long)r == SCHED_FIFO * 100 + hi - 1);
	int pol;
	struct sched_param q;
	CHECK(pthread_getschedparam(pthread_self(), &pol, &q) == 0 && pol == SCHED_OTHER);
	/* no attributes: the child inherits the creator's scheduling */
	p.sched_priority = lo + 1;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_RR, &p) == 0);
	pthread_create(&t, 0, get_prio, 0);
	pthread_join(t, &r);
	CHECK((long)r == SCHED_RR * 100 + lo + 1);
	p.sched_priority = 0;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_OTHER, &p) == 0);
	pthread_create(&t, 0, get_prio, 0);
	pthread_join(t, &r);
	CHECK((long)r == SCHED_OTHER * 100);
	p.sched_priority = hi + 1;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == EINVAL);

	/* the process calls act on the calling thread, as Linux's */
	q.sched_priority = -1;
	CHECK(sched_getparam(0, &q) == 0 && q.sched_priority == 0);
	CHECK(sched_getscheduler(getpid()) == SCHED_OTHER);
	p.sched_priority = lo + 2;
	CHECK(sched_setscheduler(0, SCHED_RR, &p) == 0);   /* glibc's 0 */
	CHECK(pthread_getschedparam(pthread_self(), &pol, &q) == 0);
	CHECK(pol == SCHED_RR && q.sched_priority == lo + 2);
	p.sched_priority = lo + 3;
	CHECK(sched_setparam(getpid(), &p) == 0 && sched_getscheduler(0) == SCHED_RR);
	CHECK(sched_getparam(getpid(), &q) == 0 && q.sched_priority == lo + 3);
	struct timespec iv = { -1, -1 };
	CHECK(sched_rr_get_interval(0, &iv) == 0 && iv.tv_sec >= 0 && iv.tv_nsec > 0);
	errno = 0;
	CHECK(sched_getscheduler(-1) == -1 && errno == EINVAL);
	CHECK(sched_getparam(0, 0) == -1 && errno == EINVAL);
	CHECK(sched_getparam(getpid() + 1, &q) == -1 && errno == ESRCH);
	p.sched_priority = hi + 1;
	CHECK(sched_setscheduler(0, SCHED_FIFO, &p) == -1 && errno == EINVAL);
	CHECK(sched_setscheduler(0, 99, &p) == -1 && errno == EINVAL);
	p.sched_priority = 0;
	CHECK(sched_setscheduler(0, SCHED_OTHER, &p) == 0 && sched_getscheduler(0) == SCHED_OTHER);
	CHECK(sched_rr_get_interval(0, &iv) == 0);
}

static void *post_it(void *s)
{
	sem_post(s);
	return 0;
}

/* ---- message queues ---- */

static mqd_t mq_rd;
static volatile int mq_notes, mq_code, mq_val;

static void *mq_reader(void *a)
{
	char buf[16];
	unsigned prio;
	ssize_t n = mq_receive(mq_rd, buf, sizeof buf, &prio);
	if (a == (void *)2L)             /* interrupted */
		return (void *)(long)(n == -1 && errno == EINTR);
	return (void *)(long)(a ? n : n == 3 && !memcmp(buf, "abc", 3) && prio == 2);
}

static void on_mq_intr(int sig)
{
	(void)sig;
}

static void on_mq_sig(int sig, siginfo_t *si, void *ctx)
{
	(void)sig, (void)ctx;
	mq_code = si->si_code;
	mq_val = si->si_value.sival_int;
	mq_notes++;
}

static void on_mq_thread(union sigval v)
{
	mq_val = v.sival_int;
	mq_notes++;
}

static void area_mqueue(void)
{
	struct mq_attr at = { 0, 4, 16, 0, { 0 } }, got;
	char buf[16];
	unsigned prio;
	CHECK(mq_open("noslash", O_RDWR | O_CREAT, 0600, &at) == -1 && errno == EINVAL);
	CHECK(mq_open("/a/b", O_RDWR | O_CREAT, 0600, &at) == -1 && errno == EACCES);
	CHECK(mq_open("/ptq", O_RDWR) == -1 && errno == ENOENT);
	struct mq_attr bad = { 0, 0, 16, 0, { 0 } };
	CHECK(mq_open("/ptq", O_RDWR | O_CREAT, 0600, &bad) == -1 && errno == EINVAL);
	mqd_t q = mq_open("/ptq", O_RDWR | O_CREAT | O_EXCL, 0600, &at);
	CHECK(q != -1);
	CHECK(mq_open("/ptq", O_RDWR | O_CREAT | O_EXCL, 0600, &at) == -1 && errno == EEXIST);
	mqd_t wr = mq_open("/ptq", O_WRONLY);
	mq_rd = mq_open("/ptq", O_RDONLY);
	CHECK(wr != -1 && mq_rd != -1 && wr != q && mq_rd != q);
	CHECK(mq_getattr(q, &got) == 0 && got.mq_maxmsg == 4 && got.mq_msgsize == 16);
	CHECK(got.mq_curmsgs == 0 && got.mq_flags == 0);
	/* the highest priority first, the oldest first within one */
	CHECK(mq_send(wr, "p1", 2, 1) == 0 && mq_send(wr, "p5a", 3, 5) == 0);
	CHECK(mq_send(q, "p3", 2, 3) == 0 && mq_send(wr, "p5b", 3, 5) == 0);
	CHECK(mq_getattr(mq_rd, &got) == 0 && got.mq_curmsgs == 4);
	CHECK(mq_receive(mq_rd, buf, sizeof buf, &prio) == 3 && !memcmp(buf, "p5a", 3) && prio == 5);
	CHECK(mq_receive(q, buf, sizeof buf, &prio) == 3 && !memcmp(buf, "p5b", 3) && prio == 5);
	CHECK(mq_receive(q, buf, sizeof buf, &prio) == 2 && !memcmp(buf, "p3", 2) && prio == 3);
	CHECK(mq_receive(q, buf, sizeof buf, 0) == 2 && !memcmp(buf, "p1", 2));
	/* errors */
	CHECK(mq_send(q, buf, 17, 0) == -1 && errno == EMSGSIZE);
	CHECK(mq_receive(q, buf, 15, 0) == -1 && errno == EMSGSIZE);
	CHECK(mq_send(q, "x", 1, MQ_PRIO_MAX) == -1 && errno == EINVAL);
	CHECK(mq_send(mq_rd, "x", 1, 0) == -1 && errno == EBADF);
	CHECK(mq_receive(wr, buf, sizeof buf, 0) == -1 && errno == EBADF);
	CHECK(mq_send(MQ_OPEN_MAX, "x", 1, 0) == -1 && errno == EBADF);
	/* full: O_NONBLOCK, a deadline, a bad one (looked at only when it must wait) */
	for (int i = 0; i < 4; i++)
		CHECK(mq_send(q, "f", 1, 0) == 0);
	struct mq_attr nb = { O_NONBLOCK, 0, 0, 0, { 0 } }, old;
	CHECK(mq_setattr(wr, &nb, &old) == 0 && old.mq_flags == 0);
	CHECK(mq_send(wr, "f", 1, 0) == -1 && errno == EAGAIN);
	CHECK(mq_getattr(wr, &got) == 0 && got.mq_flags == O_NONBLOCK);
	struct timespec past = { 1, 0 }, badts = { 1, 1000000000 };
	CHECK(mq_timedsend(q, "f", 1, 0, &past) == -1 && errno == ETIMEDOUT);
	CHECK(mq_timedsend(q, "f", 1, 0, &badts) == -1 && errno == EINVAL);
	for (int i = 0; i < 4; i++)
		CHECK(mq_receive(q, buf, sizeof buf, 0) == 1);
	CHECK(mq_timedreceive(q, buf, sizeof buf, 0, &past) == -1 && errno == ETIMEDOUT);
	/* a reader waits; a send wakes it */
	pthread_t t;
	void *r;
	CHECK(pthread_create(&t, 0, mq_reader, 0) == 0);
	usleep(20000);
	CHECK(mq_send(q, "abc", 3, 2) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)1L);
	/* mq_notify: once, on a message to an empty queue; EBUSY meanwhile */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_mq_sig;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, 0);
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR1,
			       .sigev_value = { .sival_int = 77 } };
	mq_notes = 0;
	CHECK(mq_notify(q, &ev) == 0 && mq_notify(wr, &ev) == -1 && errno == EBUSY);
	CHECK(mq_send(q, "n", 1, 0) == 0 && mq_notes == 1 && mq_code == SI_MESGQ && mq_val == 77);
	CHECK(mq_send(q, "n", 1, 0) == 0 && mq_notes == 1);    /* not empty; and it is gone */
	CHECK(mq_receive(q, buf, sizeof buf, 0) == 1 && mq_receive(q, buf, sizeof buf, 0) == 1);
	CHECK(mq_notify(q, &ev) == 0 && mq_notify(q, 0) == 0 && mq_notify(wr, &ev) == 0);
	CHECK(mq_close(wr) == 0);                              /* its registration goes with it */
	CHECK(mq_send(q, "n", 1, 0) == 0 && mq_notes == 1);
	CHECK(mq_receive(q, buf, sizeof buf, 0) == 1);
	signal(SIGUSR1, SIG_DFL);
	ev = (struct sigevent){ .sigev_notify = SIGEV_THREAD, .sigev_notify_function = on_mq_thread,
				.sigev_value = { .sival_int = 78 } };
	CHECK(mq_notify(q, &ev) == 0 && mq_send(q, "t", 1, 0) == 0);
	for (int i = 0; i < 2000 && mq_notes < 2; i++)
		usleep(1000);
	CHECK(mq_notes == 2 && mq_val == 78);
	CHECK(mq_receive(q, buf, sizeof buf, 0) == 1);
	ev.sigev_notify = 99;
	CHECK(mq_notify(q, &ev) == -1 && errno == EINVAL);
	/* a reader cancelled in its wait leaves the queue usable */
	CHECK(pthread_create(&t, 0, mq_reader, (void *)1L) == 0);
	usleep(20000);
	CHECK(pthread_cancel(t) == 0 && pthread_join(t, &r) == 0 && r == PTHREAD_CANCELED);
	CHECK(mq_send(q, "abc", 3, 2) == 0 && mq_receive(q, buf, sizeof buf, 0) == 3);
	/* a handler without SA_RESTART ends a waiting receive: EINTR */
	sig_catch(SIGUSR2, on_mq_intr, 0);
	CHECK(pthread_create(&t, 0, mq_reader, (void *)2L) == 0);
	usleep(20000);
	CHECK(pthread_kill(t, SIGUSR2) == 0 && pthread_join(t, &r) == 0 && r == (void *)1L);
	signal(SIGUSR2, SIG_DFL);
	/* unlinked: the name goes at once, the queue with its last close */
	CHECK(mq_unlink("/ptq") == 0 && mq_unlink("/ptq") == -1 && errno == ENOENT);
	CHECK(mq_open("/ptq", O_RDWR) == -1 && errno == ENOENT);
	CHECK(mq_send(q, "u", 1, 0) == 0 && mq_receive(mq_rd, buf, sizeof buf, 0) == 1);
	CHECK(mq_close(q) == 0 && mq_close(mq_rd) == 0 && mq_close(q) == -1 && errno == EBADF);
}

static void burn_ms(long ms);

static void area_rusage(void)
{
	struct rusage u0, u1, all;
	sem_t s;
	pthread_t t;
	sem_init(&s, 0, 0);
	CHECK(getrusage(RUSAGE_THREAD, &u0) == 0);
	for (int i = 0; i < 10; i++) {
		pthread_create(&t, 0, post_it, &s);
		sem_wait(&s);            /* blocks, or finds the post */
		pthread_join(t, 0);
	}
	pthread_mutex_t rm = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t rc = PTHREAD_COND_INITIALIZER;
	pthread_mutex_lock(&rm);
	for (int i = 0; i < 3; i++) {    /* nobody signals: these surely block */
		struct timespec ts = after_ms(CLOCK_REALTIME, 1);
		pthread_cond_timedwait(&rc, &rm, &ts);
	}
	pthread_mutex_unlock(&rm);
	CHECK(getrusage(RUSAGE_THREAD, &u1) == 0);
	CHECK(u1.ru_nvcsw > u0.ru_nvcsw);
	CHECK(getrusage(RUSAGE_SELF, &all) == 0);
	CHECK(all.ru_nvcsw >= u1.ru_nvcsw && all.ru_nivcsw >= 0);
	CHECK(getrusage(7, &all) == -1 && errno == EINVAL);
	CHECK(getrusage(RUSAGE_CHILDREN, &all) == 0 && all.ru_utime.tv_sec == 0 && all.ru_utime.tv_usec == 0);
	/* the thread's own processor time: it grows with work, and stays
	   within the process's */
	CHECK(getrusage(RUSAGE_THREAD, &u0) == 0);
	burn_ms(5);
	CHECK(getrusage(RUSAGE_THREAD, &u1) == 0 && getrusage(RUSAGE_SELF, &all) == 0);
	long t0 = u0.ru_utime.tv_sec * 1000000L + u0.ru_utime.tv_usec;
	long t1 = u1.ru_utime.tv_sec * 1000000L + u1.ru_utime.tv_usec;
	CHECK(t1 - t0 >= 2000 && t1 <= all.ru_utime.tv_sec * 1000000L + all.ru_utime.tv_usec);
	printf("@result {\"name\": \"ptest.rusage_figures\", \"thread_nvcsw\": %ld, "
	       "\"thread_nivcsw\": %ld, \"self_nvcsw\": %ld, \"self_nivcsw\": %ld}\n",
	       u1.ru_nvcsw, u1.ru_nivcsw, all.ru_nvcsw, all.ru_nivcsw);
}

/* ---- processor time ---- */

static volatile uint64_t burnt;

static void burn_ms(long ms)
{
	uint64_t t0 = now_ns();
	while (now_ns() - t0 < (uint64_t)ms * 1000000)
		burnt++;
}

static void *burner(void *ms)
{
	burn_ms((long)ms);
	return 0;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts = { 0, 0 };
	CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* CLOCK_PROCESS_CPUTIME_ID and clock() count the VPs' time on a CPU:
   a busy stretch nearly whole (half, for a loaded host), a sleep hardly,
   and threads that ran and exited still count (on kthread a thread is a
   VP, and the second thread's VP takes the first one's slot). */
static void area_cputime(void)
{
	struct timespec res;
	CHECK(clock_getres(CLOCK_PROCESS_CPUTIME_ID, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0);
	uint64_t c0 = cpu_ns();
	clock_t k0 = clock();
	burn_ms(20);
	uint64_t c1 = cpu_ns();
	clock_t k1 = clock();
	CHECK(c1 - c0 >= 10000000 && c1 - c0 < 2000000000);
	CHECK(k1 - k0 >= 10 * CLOCKS_PER_SEC / 1000);
	/* a sleep hardly counts, unless the host stalled the emulated CPU
	   meanwhile (a timer interrupt over 1 ms late): the VP on the CPU in
	   a stall is charged all of it (as in area_sched's usleep) */
	long late0 = sys_getinfo(INFO_TIMER_LATE);
	usleep(100000);
	uint64_t c2 = cpu_ns();
	CHECK(c2 >= c1);
	if (sys_getinfo(INFO_TIMER_LATE) == late0)
		CHECK(c2 - c1 < 50000000);
	pthread_t t;
	for (long ms = 100; ms >= 0; ms -= 100) {   /* (kthread: the second VP reuses the slot) */
		CHECK(pthread_create(&t, 0, burner, (void *)ms) == 0);
		pthread_join(t, 0);
		usleep(1000);
	}
	uint64_t c3 = cpu_ns();
	CHECK(c3 - c2 >= 50000000);
	struct rusage ru;
	CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
	CHECK((uint64_t)ru.ru_utime.tv_sec * 1000000 + (uint64_t)ru.ru_utime.tv_usec >= c3 / 1000);
	/* the process's own clock by pid; another process's is not ours
	   (threads' clocks: area_threadcpu) */
	clockid_t id = -1;
	CHECK(clock_getcpuclockid(0, &id) == 0 && id == CLOCK_PROCESS_CPUTIME_ID);
	id = -1;
	CHECK(clock_getcpuclockid(getpid(), &id) == 0 && id == CLOCK_PROCESS_CPUTIME_ID);
	CHECK(clock_getcpuclockid(getpid() + 1, &id) == ESRCH);
	CHECK(clock_getcpuclockid(0, 0) == EINVAL);
	CHECK(sysconf(_SC_CPUTIME) == 200809L && _POSIX_CPUTIME > 0);
	printf("@result {\"name\": \"ptest.cputime_figures\", \"burn_ns\": %lu, "
	       "\"sleep_ns\": %lu, \"threads_ns\": %lu}\n",
	       (unsigned long)(c1 - c0), (unsigned long)(c2 - c1), (unsigned long)(c3 - c2));
}

/* ---- threads' CPU-time clocks ---- */

static uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000 + (uint64_t)ts->tv_nsec;
}

static volatile int clk_failed;

/* A CPU clock's reading in ns (0 and clk_failed set if it failed). */
static uint64_t clk_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) == 0)
		return ts_ns(&ts);
	clk_failed = 1;
	return 0;
}

static volatile int tc_go, tc_read;

struct tcjob {
	long ms;                         /* wall time to spend */
	int how;                         /* 0 compute, 1 sleep, 2 compute in 1 ms turns */
	uint64_t wall, cpu, first;       /* its own measures: wall, CPU, CPU at start */
	int mono;                        /* its readings never went back */
	volatile int done;               /* its figures are in (not a shared count: see once_body) */
};

static void *tc_thread(void *a)
{
	struct tcjob *j = a;
	while (!tc_go)
		sched_yield();
	uint64_t w0 = now_ns(), c0 = clk_ns(CLOCK_THREAD_CPUTIME_ID), last = c0;
	j->first = c0;
	j->mono = 1;
	while (now_ns() - w0 < (uint64_t)j->ms * 1000000) {
		if (j->how == 1)
			/* the library's sleep, the thread's: msleep (raw
			   SYS_sleep) sleeps naive's whole VP, and once naive
			   time-slices the computer the sleeper held the VP 5
			   ms of every 6 (the process used 11 ms of CPU in 72;
			   the computer's clock read 10 ms: right, and under
			   the 3/10 below) */
			usleep(5000);
		else if (j->how == 2) {
			burn_ms(1);
			sched_yield();
		} else
			burnt++;
		uint64_t c = clk_ns(CLOCK_THREAD_CPUTIME_ID);
		j->mono &= c >= last;
		last = c;
	}
	j->cpu = clk_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	j->wall = now_ns() - w0;
	j->done = 1;
	while (!tc_read)                 /* main reads our clock while we live */
		sched_yield();
	return 0;
}

/* A computer and a sleeper side by side once more: 1 if the computer's
   clock shows the larger share (as area_threadcpu asks), or if the host
   stalled the emulated CPU meanwhile (no verdict). */
static int tc_pair_shares(void)
{
	struct tcjob c = { .ms = 60, .how = 0 }, s = { .ms = 60, .how = 1 };
	pthread_t a, b;
	tc_go = tc_read = 0;
	long late = sys_getinfo(INFO_TIMER_LATE);
	if (pthread_create(&a, 0, tc_thread, &c) != 0)
		return 0;
	if (pthread_create(&b, 0, tc_thread, &s) != 0) {
		tc_go = tc_read = 1;
		pthread_join(a, 0);
		return 0;
	}
	tc_go = 1;
	while (!c.done || !s.done)
		sched_yield();
	tc_read = 1;
	pthread_join(a, 0);
	pthread_join(b, 0);
	return sys_getinfo(INFO_TIMER_LATE) != late ||
	       (c.cpu >= c.wall * 3 / 10 && c.cpu >= 5 * s.cpu);
}

/* Per-thread CPU time (CLOCK_THREAD_CPUTIME_ID, pthread_getcpuclockid):
   a computing thread's is near its wall time, a sleeping one's near 0,
   two threads computing on one CPU each get a share and no more, main
   reads another thread's clock by its id, and the id is EINVAL once
   the thread is gone. Ratios only, measured side by side. */
static void area_threadcpu(void)
{
	struct timespec res;
	CHECK(sysconf(_SC_THREAD_CPUTIME) > 0 && _POSIX_THREAD_CPUTIME > 0);
	CHECK(clock_getres(CLOCK_THREAD_CPUTIME_ID, &res) == 0 && res.tv_sec == 0 && res.tv_nsec > 0);
	/* the caller's clock: it moves with work, never back, across yields */
	clk_failed = 0;
	uint64_t a = clk_ns(CLOCK_THREAD_CPUTIME_ID), last = a;
	int mono = 1;
	for (int i = 0; i < 2000; i++) {
		if (i % 100 == 0)
			sched_yield();
		uint64_t c = clk_ns(CLOCK_THREAD_CPUTIME_ID);
		mono &= c >= last;
		last = c;
	}
	burn_ms(10);
	uint64_t b = clk_ns(CLOCK_THREAD_CPUTIME_ID);
	CHECK(!clk_failed && mono && b > a && b - a >= 3000000);
	/* a computer and a sleeper, side by side */
	struct tcjob jc = { .ms = 60, .how = 0 }, js = { .ms = 60, .how = 1 };
	pthread_t tc, tsl;
	clockid_t idc = 0, ids = 0, idm = 0;
	tc_go = tc_read = 0;
	CHECK(pthread_create(&tc, 0, tc_thread, &jc) == 0);
	CHECK(pthread_create(&tsl, 0, tc_thread, &js) == 0);
	CHECK(pthread_getcpuclockid(tc, &idc) == 0 && idc < 0);
	CHECK(pthread_getcpuclockid(tsl, &ids) == 0 && ids < 0 && ids != idc);
	CHECK(pthread_getcpuclockid(pthread_self(), &idm) == 0 && idm != idc);
	CHECK(clock_getres(idc, &res) == 0 && res.tv_nsec > 0);
	long late_cs = sys_getinfo(INFO_TIMER_LATE);
	tc_go = 1;
	uint64_t seen = 0;
	int mono_other = 1;
	/* The computer's clock, read by main as it runs. main yields, not
	   msleep()s: msleep is the raw SYS_sleep, which on naive (classic
	   VPs) sleeps the whole VP, so with one VP the two threads never
	   ran and main polled for ever (naive's documented nature, not a
	   bug: the library's sleeps use thread_block_until) */
	while (!jc.done || !js.done) {
		uint64_t c = clk_ns(idc);
		mono_other &= c >= seen;
		seen = c;
		sched_yield();
	}
	uint64_t mc = clk_ns(idc), ms = clk_ns(ids);
	tc_read = 1;
	pthread_join(tc, 0);
	pthread_join(tsl, 0);
	CHECK(jc.mono && js.mono && mono_other);
	CHECK(jc.cpu <= jc.wall + 2000000);
	/* The shares, unless the host stalled the emulated CPU meanwhile:
	   the thread on the CPU in a stall is charged all of it, so a stall
	   in one of the sleeper's short turns gave it more than a fifth of
	   the computer's time (prio at -smp 2 on a loaded host), and stalls
	   while main polled left the computer under 3/10 of its wall time
	   (tutor at -smp 1, kthread at 2, under a parallel test load) */
	if (sys_getinfo(INFO_TIMER_LATE) == late_cs &&
	    !(jc.cpu >= jc.wall * 3 / 10 && jc.cpu >= 5 * js.cpu)) {
		/* A loaded host can also slow the kernel calls of the
		   sleeper's sleeps, which its clock rightly counts, with no
		   late timer to show it (naive-2 in CI: the sleeper 29 ms of
		   CPU in 60 ms, the computer 60). Measure side by side again,
		   twice at most: a clock that charged a sleeper its sleep
		   would fail all three. */
		int ok = 0;
		for (int i = 0; i < 2 && !ok; i++)
			ok = tc_pair_shares();
		CHECK(ok);
	}
	/* main's reading from outside: at least what the thread saw itself */
	CHECK(!clk_failed && mc >= jc.first + jc.cpu && ms >= js.first + js.cpu);
	/* gone: its id is stale */
	errno = 0;
	CHECK(clock_gettime(idc, &res) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(clock_getres(ids, &res) == -1 && errno == EINVAL);
	CHECK(clk_ns(idm) > 0);          /* main's own, by id */
	/* forged ids, and sleeping on a CPU clock */
	static const clockid_t forged[] = { -1, -2, -3, -6, -7, -(8 * 1000000 + 2), -2147483647 - 1 };
	for (unsigned i = 0; i < sizeof forged / sizeof forged[0]; i++) {
		errno = 0;
		CHECK(clock_gettime(forged[i], &res) == -1 && errno == EINVAL);
	}
	struct timespec d = { 0, 1000 };
	CHECK(clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &d, 0) == EINVAL);
	CHECK(clock_nanosleep(idm, 0, &d, 0) == EINVAL);
	CHECK(pthread_getcpuclockid(pthread_self(), 0) == EINVAL);
	/* two computers on one CPU: each a share of the window, and
	   together no more than the process used meanwhile */
	struct tcjob j1 = { .ms = 80, .how = 2 }, j2 = { .ms = 80, .how = 2 };
	pthread_t t1, t2;
	tc_go = tc_read = 0;
	uint64_t p0 = cpu_ns();
	long late0 = sys_getinfo(INFO_TIMER_LATE);
	CHECK(pthread_create(&t1, 0, tc_thread, &j1) == 0);
	CHECK(pthread_create(&t2, 0, tc_thread, &j2) == 0);
	tc_go = 1;
	tc_read = 1;
	pthread_join(t1, 0);
	pthread_join(t2, 0);
	uint64_t p1 = cpu_ns();
	CHECK(!clk_failed && j1.mono && j2.mono && j1.cpu > 0 && j2.cpu > 0);
	CHECK(j1.cpu + j2.cpu <= p1 - p0 + 2000000);
	/* The shares, unless the host stalled the emulated CPU meanwhile (a
	   timer interrupt over 1 ms late): guest time runs on in a stall,
	   and the thread that was on the CPU is charged all of it (a loaded
	   CI host once gave one thread 70 ms of 80). Under -icount: never.
	   A thread's time within 2 ms of its wall time too: a CI host at
	   load 15 once gave one 82.8 ms of CPU in 80.5 ms of its wall time
	   with 7 stalls (kthread-2; how a stall lands outside the wall
	   reading is not found: an open question in docs/posix.md). */
	long stalls = sys_getinfo(INFO_TIMER_LATE) - late0;
	if (stalls == 0)
		CHECK(j1.cpu <= j1.wall + 2000000 && j2.cpu <= j2.wall + 2000000);
	if (sysconf(_SC_NPROCESSORS_ONLN) == 1 && stalls == 0)
		CHECK(j1.cpu >= j1.wall * 15 / 100 && j1.cpu <= j1.wall * 85 / 100 &&
		      j2.cpu >= j2.wall * 15 / 100 && j2.cpu <= j2.wall * 85 / 100);
	printf("@result {\"name\": \"ptest.threadcpu_figures\", \"compute_ns\": %lu, "
	       "\"compute_wall_ns\": %lu, \"sleep_ns\": %lu, \"share1_ns\": %lu, "
	       "\"share2_ns\": %lu, \"share_wall_ns\": %lu, \"host_stalls\": %ld}\n",
	       (unsigned long)jc.cpu, (unsigned long)jc.wall, (unsigned long)js.cpu,
	       (unsigned long)j1.cpu, (unsigned long)j2.cpu, (unsigned long)j1.wall, stalls);
}

/* ---- stdio's stream locks ---- */

static volatile int stdio_held, stdio_released;

/* Holds stdout (three deep) across a sleep: the other thread's print
   waits until the last funlockfile, so "flk A 0..2" come out together. */
static void *stdio_holder(void *a)
{
	(void)a;
	flockfile(stdout);
	flockfile(stdout);
	CHECK(ftrylockfile(stdout) == 0);        /* recursive: the owner gets it */
	printf("flk A 0\n");
	stdio_held = 1;
	usleep(20000);
	fputs_unlocked("flk A", stdout);
	putc_unlocked(' ', stdout);
	fwrite_unlocked("1", 1, 1, stdout);
	putchar_unlocked('\n');
	funlockfile(stdout);
	funlockfile(stdout);
	stdio_released = 1;              /* (still held once) */
	printf("flk A 2\n");
	funlockfile(stdout);
	return 0;
}

static void *stdio_other(void *a)
{
	(void)a;
	while (!stdio_held)
		sched_yield();
	CHECK(ftrylockfile(stdout) != 0);
	printf("flk B\n");                 /* waits for the holder */
	CHECK(stdio_released);
	CHECK(ftrylockfile(stdout) == 0);
	funlockfile(stdout);
	return 0;
}

static void area_stdio(void)
{
	pthread_t a, b;
	stdio_held = stdio_released = 0;
	CHECK(pthread_create(&a, 0, stdio_holder, 0) == 0);
	CHECK(pthread_create(&b, 0, stdio_other, 0) == 0);
	pthread_join(a, 0);
	pthread_join(b, 0);
	CHECK(getc_unlocked(stdin) == EOF);
}

/* ---- signals, delivered synchronously ---- */

static volatile int usr1_runs, usr2_runs, usr2_depth, usr2_nested, usr2_code;
static volatile pthread_t usr1_thread;

static void on_usr1(int sig)
{
	if (sig == SIGUSR1)
		usr1_runs++;
	usr1_thread = pthread_self();
}

/* SA_SIGINFO; raises itself once more from inside: the signal is
   blocked in its handler, so that one runs after, never nested. */
static void on_usr2(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (usr2_depth++)
		usr2_nested = 1;
	if (!usr2_runs)
		usr2_code = si->si_signo == sig ? si->si_code : 99;
	if (++usr2_runs == 1)
		raise(SIGUSR2);
	usr2_depth--;
}

static void *sig_sleeper(void *a)
{
	(void)a;
	int eintr = 0;
	for (int i = 0; i < 200 && !usr1_runs; i++)
		eintr |= usleep(100000) == -1 && errno == EINTR;
	return (void *)(long)eintr;
}

static void *sig_waiter(void *a)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, 0);
	*(volatile int *)a = 1;
	int sig = 0;
	CHECK(sigwait(&set, &sig) == 0);
	return (void *)(long)sig;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A handler that jumps out (siglongjmp): the mask sigsetjmp saved comes
   back, so the handler's own signal is not left blocked. */
static sigjmp_buf jump_env;
static void on_usr1_jump(int sig)
{
	siglongjmp(jump_env, sig);
}

static int usr1_blocked(void)
{
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, 0, &m);
	return sigismember(&m, SIGUSR1);
}

static void jump_out(void)
{
	signal(SIGUSR1, on_usr1_jump);
	volatile int jumped = 0;
	if (sigsetjmp(jump_env, 1) == 0)
		raise(SIGUSR1);
	else
		jumped = 1;
	CHECK(jumped && !usr1_blocked());       /* the mask saved: SIGUSR1 open */
	jumped = 0;
	if (sigsetjmp(jump_env, 0) == 0)
		raise(SIGUSR1);
	else
		jumped = 1;
	CHECK(jumped && usr1_blocked());        /* not saved: still the handler's */
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &m, 0);
	signal(SIGUSR1, SIG_DFL);
}

/* sigtimedwait and sigwaitinfo: a timeout, a bad one, a pending one */
static void timed_sigwait(void)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	struct timespec ts = { 0, 20000000 }, bad = { 0, 1000000000 };
	siginfo_t si;
	int64_t t0 = mono_ns();
	CHECK(sigtimedwait(&set, &si, &ts) == -1 && errno == EAGAIN);
	CHECK(mono_ns() - t0 >= 20000000);
	CHECK(sigtimedwait(&set, &si, &bad) == -1 && errno == EINVAL);
	CHECK(raise(SIGUSR2) == 0);                      /* pending: blocked */
	CHECK(sigwaitinfo(&set, &si) == SIGUSR2 && si.si_signo == SIGUSR2);
	CHECK(raise(SIGUSR2) == 0);
	CHECK(sigtimedwait(&set, 0, &ts) == SIGUSR2);
	pthread_sigmask(SIG_SETMASK, &old, 0);
}

/* Real-time signals queue: a handler run per send, in order, each with
   its own value; a standard one pending stays one (sigqueue included). */
/* (room for a queue's bound of them: SIGQUEUE_MAX) */
#define NRT_RUNS (SIGQUEUE_MAX + 16)
static int rt_sigs[NRT_RUNS], rt_vals[NRT_RUNS], rt_codes[NRT_RUNS], rt_n;

static void on_rt(int sig, siginfo_t *si, void *ctx)
{
	(void)ctx;
	if (rt_n < NRT_RUNS) {
		rt_sigs[rt_n] = sig;
		rt_vals[rt_n] = si->si_value.sival_int;
		rt_codes[rt_n] = si->si_code;
	}
	rt_n++;
}

static void queued_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO;
	CHECK(SIGRTMAX - SIGRTMIN >= 7 && sysconf(_SC_RTSIG_MAX) >= 8);
	CHECK(sysconf(_SC_SIGQUEUE_MAX) >= 32);
	CHECK(sigaction(SIGRTMIN, &sa, 0) == 0 && sigaction(SIGRTMIN + 1, &sa, 0) == 0);
	CHECK(sigaction(SIGUSR1, &sa, 0) == 0);
	sigset_t set, pend;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGRTMIN + 1);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, 0);
	rt_n = 0;
	CHECK(sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 99 }) == 0);
	for (int i = 0; i < 5; i++)
		CHECK(sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = i }) == 0);
	CHECK(raise(SIGRTMIN) == 0 && raise(SIGRTMIN) == 0);
	CHECK(sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_int = 7 }) == 0);
	CHECK(sigqueue(getpid(), SIGUSR1, (union sigval){ .sival_int = 8 }) == 0);
	CHECK(rt_n == 0 && sigpending(&pend) == 0 && sigismember(&pend, SIGRTMIN));
	pthread_sigmask(SIG_UNBLOCK, &set, 0);
	/* the thread's own first (raise: as Linux), then the program's, the
	   lowest number first: SIGUSR1 (once), SIGRTMIN (5), SIGRTMIN+1 */
	CHECK(rt_n == 9);
	CHECK(rt_sigs[0] == SIGRTMIN && rt_codes[0] == SI_TKILL && rt_sigs[1] == SIGRTMIN);
	CHECK(rt_sigs[2] == SIGUSR1 && rt_vals[2] == 7 && rt_codes[2] == SI_QUEUE);
	for (int i = 0; i < 5; i++)
		CHECK(rt_sigs[3 + i] == SIGRTMIN && rt_vals[3 + i] == i && rt_codes[3 + i] == SI_QUEUE);
	CHECK(rt_sigs[8] == SIGRTMIN + 1 && rt_vals[8] == 99);
	CHECK(sigpending(&pend) == 0 && !sigismember(&pend, SIGRTMIN));
	/* the queue's bound: EAGAIN, nothing lost of what was queued */
	pthread_sigmask(SIG_BLOCK, &set, 0);
	rt_n = 0;
	int sent = 0;
	while (sent < 1000 && sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = sent }) == 0)
		sent++;
	CHECK(errno == EAGAIN && sent == sysconf(_SC_SIGQUEUE_MAX));
	pthread_sigmask(SIG_UNBLOCK, &set, 0);
	CHECK(rt_n == sent && rt_vals[sent - 1] == sent - 1);
	/* sigwaitinfo gets the value */
	siginfo_t si;
	int x;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMAX);
	pthread_sigmask(SIG_BLOCK, &set, 0);
	CHECK(sigqueue(getpid(), SIGRTMAX, (union sigval){ .sival_ptr = &x }) == 0);
	CHECK(sigwaitinfo(&set, &si) == SIGRTMAX && si.si_value.sival_ptr == &x);
	CHECK(si.si_code == SI_QUEUE && si.si_pid == getpid());
	pthread_sigmask(SIG_UNBLOCK, &set, 0);
	CHECK(sigqueue(getpid() + 1, SIGRTMIN, (union sigval){ 0 }) == -1 && errno == ESRCH);
	CHECK(sigqueue(getpid(), NSIG, (union sigval){ 0 }) == -1 && errno == EINVAL);
	CHECK(sigqueue(getpid(), 0, (union sigval){ 0 }) == 0);
	signal(SIGRTMIN, SIG_DFL);
	signal(SIGRTMIN + 1, SIG_DFL);
	signal(SIGUSR1, SIG_DFL);
}

/* XSI's sigpause: SIGUSR1 leaves the mask while it waits, and is back
   in it when sigpause returns -1 (EINTR) after the handler ran */
static void *pauser(void *a)
{
	sighold(SIGUSR1);
	*(volatile int *)a = 1;
	int r = sigpause(SIGUSR1), e = errno;
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, 0, &m);
	return (void *)(long)(r == -1 && e == EINTR && sigismember(&m, SIGUSR1));
}

/* The older calls over sigprocmask and sigaction (ulib/libc/sigxsi.c) */
static void xsi_signals(void)
{
	struct sigaction sa, got;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_rt;
	sa.sa_flags = SA_SIGINFO;
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	sigset_t m;
	rt_n = 0;
	CHECK(sighold(SIGUSR2) == 0 && raise(SIGUSR2) == 0 && rt_n == 0);
	CHECK(pthread_sigmask(SIG_BLOCK, 0, &m) == 0 && sigismember(&m, SIGUSR2));
	CHECK(sigrelse(SIGUSR2) == 0 && rt_n == 1);
	CHECK(sighold(NSIG) == -1 && errno == EINVAL);
	/* sigset: SIG_HOLD blocks; a handler unblocks; the result is
	   SIG_HOLD if it was blocked, else the former disposition */
	CHECK(sigset(SIGUSR2, SIG_HOLD) == (sighandler_t)sa.sa_handler);
	CHECK(sigset(SIGUSR2, SIG_HOLD) == SIG_HOLD);
	CHECK(raise(SIGUSR2) == 0 && rt_n == 1);
	usr1_thread = 0;
	CHECK(sigset(SIGUSR2, on_usr1) == SIG_HOLD);
	CHECK(pthread_equal(usr1_thread, pthread_self()));   /* ran at the unblock */
	CHECK(pthread_sigmask(SIG_BLOCK, 0, &m) == 0 && !sigismember(&m, SIGUSR2));
	CHECK(sigset(SIGUSR2, SIG_DFL) == on_usr1);
	CHECK(sigset(SIGKILL, on_usr1) == SIG_ERR && errno == EINVAL);
	CHECK(sigignore(SIGUSR2) == 0 && raise(SIGUSR2) == 0);
	CHECK(sigaction(SIGUSR2, 0, &got) == 0 && got.sa_handler == SIG_IGN);
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	CHECK(siginterrupt(SIGUSR2, 0) == 0 && sigaction(SIGUSR2, 0, &got) == 0);
	CHECK(got.sa_flags & SA_RESTART);
	CHECK(siginterrupt(SIGUSR2, 1) == 0 && sigaction(SIGUSR2, 0, &got) == 0);
	CHECK(!(got.sa_flags & SA_RESTART));
	/* a boot program leads its own process group, in session 0 (kernel/pgrp.c) */
	CHECK(getpgrp() == getpid() && getpgid(0) == getpid() && getsid(0) == 0);
	CHECK(getpgid(getpid() + 1) == -1 && errno == ESRCH);
	rt_n = 0;
	CHECK(killpg(getpgrp(), SIGUSR2) == 0 && rt_n == 1);
	CHECK(killpg(getpid() + 1, SIGUSR2) == -1 && errno == ESRCH);
	signal(SIGUSR2, SIG_DFL);
	usr1_runs = 0;
	signal(SIGUSR1, on_usr1);
	volatile int ready = 0;
	pthread_t t;
	void *r;
	CHECK(pthread_create(&t, 0, pauser, (void *)&ready) == 0);
	while (!ready)
		sched_yield();
	usleep(20000);
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)1L && usr1_runs == 1);
	signal(SIGUSR1, SIG_DFL);
}

/* sigaltstack: an SA_ONSTACK handler runs on the thread's alternate
   stack, and sees itself there (SS_ONSTACK); others on the thread's */
static char *volatile alt_local;
static volatile int alt_flags, alt_eperm, alt_ready;

static void on_alt_usr2(int sig)
{
	(void)sig;
	char here;
	stack_t cur, ss = { 0, SS_DISABLE, 0 };
	alt_local = &here;
	sigaltstack(0, &cur);
	alt_flags = cur.ss_flags;
	alt_eperm = sigaltstack(&ss, 0) == -1 && errno == EPERM;
}

static int on_stack(const char *p, const char *base, size_t n)
{
	return p >= base && p < base + n;
}

static void *alt_thread(void *a)
{
	char *stk = a;
	stack_t ss = { stk, 0, SIGSTKSZ }, cur;
	sigaltstack(0, &cur);
	int none = cur.ss_flags == SS_DISABLE;    /* not inherited */
	sigaltstack(&ss, 0);
	alt_local = 0;
	alt_ready = 1;
	for (int i = 0; i < 2000 && !alt_local; i++)
		usleep(1000);                 /* the handler ends the sleep */
	return (void *)(long)(none && on_stack(alt_local, stk, SIGSTKSZ));
}

static void alt_stack(void)
{
	char *stk = malloc(SIGSTKSZ), *stk2 = malloc(SIGSTKSZ);
	stack_t ss = { stk, 0, SIGSTKSZ }, old;
	CHECK(sigaltstack(0, &old) == 0 && old.ss_flags == SS_DISABLE);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alt_usr2;
	sa.sa_flags = SA_ONSTACK;
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	char here;
	CHECK(raise(SIGUSR2) == 0 && !on_stack(alt_local, stk, SIGSTKSZ));   /* none yet */
	CHECK(alt_local && alt_local < &here && alt_flags == SS_DISABLE);
	CHECK(sigaltstack(&ss, &old) == 0 && old.ss_flags == SS_DISABLE);
	CHECK(raise(SIGUSR2) == 0 && on_stack(alt_local, stk, SIGSTKSZ));
	CHECK(alt_flags == SS_ONSTACK && alt_eperm);
	CHECK(sigaltstack(0, &old) == 0 && old.ss_flags == 0 && old.ss_sp == stk);
	CHECK(old.ss_size == SIGSTKSZ);
	sa.sa_flags = 0;                               /* not SA_ONSTACK: the thread's stack */
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	CHECK(raise(SIGUSR2) == 0 && !on_stack(alt_local, stk, SIGSTKSZ));
	stack_t bad = { stk, 4, SIGSTKSZ }, tiny = { stk, 0, MINSIGSTKSZ - 1 };
	CHECK(sigaltstack(&bad, 0) == -1 && errno == EINVAL);
	CHECK(sigaltstack(&tiny, 0) == -1 && errno == ENOMEM);
	stack_t off = { 0, SS_DISABLE, 0 };
	CHECK(sigaltstack(&off, 0) == 0 && sigaltstack(0, &old) == 0 && old.ss_flags == SS_DISABLE);
	/* another thread's handler, run in its sleep, on its own alt stack */
	sa.sa_flags = SA_ONSTACK;
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	pthread_t t;
	void *r;
	alt_ready = 0;
	CHECK(pthread_create(&t, 0, alt_thread, stk2) == 0);
	while (!alt_ready)
		sched_yield();
	usleep(20000);
	CHECK(pthread_kill(t, SIGUSR2) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)1L);
	signal(SIGUSR2, SIG_DFL);
	free(stk);
	free(stk2);
}

static void area_signal(void)
{
	jump_out();
	timed_sigwait();
	queued_signals();
	xsi_signals();
	alt_stack();
	usr1_runs = usr2_runs = usr2_nested = 0;
	CHECK(signal(SIGUSR1, on_usr1) == SIG_DFL);
	CHECK(raise(SIGUSR1) == 0 && usr1_runs == 1 && pthread_equal(usr1_thread, pthread_self()));
	CHECK(pthread_kill(pthread_self(), SIGUSR1) == 0 && usr1_runs == 2);
	CHECK(kill(getpid(), SIGUSR1) == 0 && usr1_runs == 3);
	/* blocked: pending until unblocked, then it runs in the unblocking call */
	sigset_t set, old, pend;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &set, &old) == 0 && !sigismember(&old, SIGUSR1));
	CHECK(raise(SIGUSR1) == 0 && usr1_runs == 3);
	CHECK(sigpending(&pend) == 0 && sigismember(&pend, SIGUSR1));
	CHECK(pthread_sigmask(SIG_UNBLOCK, &set, 0) == 0 && usr1_runs == 4);
	CHECK(sigpending(&pend) == 0 && !sigismember(&pend, SIGUSR1));
	/* SA_SIGINFO, the signal blocked in its handler, SA_RESETHAND */
	struct sigaction sa, got;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr2;
	sa.sa_flags = SA_SIGINFO;
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	CHECK(raise(SIGUSR2) == 0 && usr2_runs == 2 && !usr2_nested && usr2_code == SI_TKILL);
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;     /* (usr2_runs > 1: no raise inside) */
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	CHECK(raise(SIGUSR2) == 0 && usr2_runs == 3);
	CHECK(sigaction(SIGUSR2, 0, &got) == 0 && got.sa_handler == SIG_DFL);
	/* another thread: its sleep ends (EINTR) and the handler runs there */
	pthread_t t;
	void *r;
	usr1_runs = 0;
	usr1_thread = 0;
	CHECK(pthread_create(&t, 0, sig_sleeper, 0) == 0);
	usleep(20000);
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)1L);
	CHECK(usr1_runs == 1 && pthread_equal(usr1_thread, t));
	/* sigwait takes a blocked signal; no handler runs */
	volatile int ready = 0;
	sa.sa_sigaction = on_usr2;
	sa.sa_flags = SA_SIGINFO;
	usr2_runs = 0;
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	CHECK(pthread_create(&t, 0, sig_waiter, (void *)&ready) == 0);
	while (!ready)
		sched_yield();
	CHECK(pthread_kill(t, SIGUSR2) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)(long)SIGUSR2 && usr2_runs == 0);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	/* the same with no handler at all: a signal the target blocks waits
	   for its sigwait, its default action (the end of the program) is
	   not taken at the post */
	ready = 0;
	CHECK(pthread_create(&t, 0, sig_waiter, (void *)&ready) == 0);
	while (!ready)
		sched_yield();
	CHECK(pthread_kill(t, SIGUSR2) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)(long)SIGUSR2);
}

/* ---- a new thread's signal mask is its creator's ---- */

static sigset_t mask_now(void)
{
	sigset_t m;
	sigemptyset(&m);
	pthread_sigmask(SIG_BLOCK, 0, &m);
	return m;
}

static void *report_mask(void *a)
{
	*(sigset_t *)a = mask_now();
	return 0;
}

/* Changes its own mask, then makes a thread: that one gets this
   thread's mask, not main's. */
static void *mask_parent(void *a)
{
	sigset_t add, kid;
	sigemptyset(&add);
	sigaddset(&add, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &add, 0);
	pthread_t t;
	sigemptyset(&kid);
	if (pthread_create(&t, 0, report_mask, &kid) || pthread_join(t, 0))
		return (void *)1L;
	*(sigset_t *)a = kid;
	return 0;
}

static pthread_barrier_t mask_bar;

/* Two threads that both inherited SIGUSR1 blocked: one unblocks it, the
   other must still block it (their masks are their own). */
static void *mask_keeper(void *a)
{
	(void)a;
	pthread_barrier_wait(&mask_bar);     /* the other unblocks */
	pthread_barrier_wait(&mask_bar);
	return (void *)(long)sigismember((sigset_t[]){ mask_now() }, SIGUSR1);
}

static void *mask_dropper(void *a)
{
	(void)a;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_barrier_wait(&mask_bar);
	pthread_sigmask(SIG_UNBLOCK, &set, 0);
	pthread_barrier_wait(&mask_bar);
	return (void *)(long)sigismember((sigset_t[]){ mask_now() }, SIGUSR1);
}

static void *mask_raise(void *a)
{
	(void)a;
	raise(SIGUSR1);                      /* blocked: pending, no handler yet */
	int before = usr1_runs;
	sigset_t pend;
	sigpending(&pend);
	return (void *)(long)(before == 0 && sigismember(&pend, SIGUSR1) ? 1 : 0);
}

/* pthread_kill of threads that have exited, not yet joined: nothing is
   sent, and nothing stays behind in the signal table (more kills than
   its 128 slots: they had filled it, and every later thread shared one
   spare slot, masks included) */
static pthread_barrier_t own_bar;

static void *own_mask(void *a)
{
	if (a) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR2);
		pthread_sigmask(SIG_BLOCK, &s, 0);
	}
	pthread_barrier_wait(&own_bar);      /* the other has blocked it */
	int has = sigismember((sigset_t[]){ mask_now() }, SIGUSR2);
	pthread_barrier_wait(&own_bar);
	return (void *)(long)has;
}

static void kill_exited(void)
{
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < 200; i++) {
		pthread_t t;
		CHECK(pthread_create(&t, 0, quick, 0) == 0);
		usleep(1000);                    /* (it has exited by now, mostly) */
		CHECK(pthread_kill(t, SIGUSR1) == 0);
		pthread_join(t, 0);
	}
	signal(SIGUSR1, SIG_DFL);
	pthread_t a, b;
	void *ra, *rb;
	pthread_barrier_init(&own_bar, 0, 2);
	CHECK(pthread_create(&a, 0, own_mask, (void *)1L) == 0);
	CHECK(pthread_create(&b, 0, own_mask, 0) == 0);
	CHECK(pthread_join(a, &ra) == 0 && pthread_join(b, &rb) == 0);
	CHECK(ra == (void *)1L && rb == 0);
	pthread_barrier_destroy(&own_bar);
}

static void area_sigmask(void)
{
	kill_exited();
	sigset_t set, old, got;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	pthread_t t, u;
	void *r;
	/* no mask: a new thread has none */
	sigemptyset(&got);
	sigaddset(&got, SIGHUP);
	CHECK(pthread_create(&t, 0, report_mask, &got) == 0 && pthread_join(t, 0) == 0);
	CHECK(sigisemptyset(&got));
	CHECK(pthread_sigmask(SIG_BLOCK, &set, &old) == 0);
	/* without and with attributes */
	sigemptyset(&got);
	CHECK(pthread_create(&t, 0, report_mask, &got) == 0 && pthread_join(t, 0) == 0);
	CHECK(sigismember(&got, SIGUSR1) == 1 && sigismember(&got, SIGTERM) == 1);
	CHECK(sigismember(&got, SIGUSR2) == 0);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 1 << 17);
	sigemptyset(&got);
	CHECK(pthread_create(&t, &a, report_mask, &got) == 0 && pthread_join(t, 0) == 0);
	CHECK(sigismember(&got, SIGUSR1) == 1 && sigismember(&got, SIGTERM) == 1);
	pthread_attr_destroy(&a);
	/* a thread's child gets that thread's mask */
	sigemptyset(&got);
	CHECK(pthread_create(&t, 0, mask_parent, &got) == 0 && pthread_join(t, &r) == 0 && !r);
	CHECK(sigismember(&got, SIGUSR1) == 1 && sigismember(&got, SIGUSR2) == 1);
	/* the inherited mask holds a raised signal back (no handler runs in
	   the new thread before it unblocks it) */
	usr1_runs = 0;
	CHECK(signal(SIGUSR1, on_usr1) == SIG_DFL);
	CHECK(pthread_create(&t, 0, mask_raise, 0) == 0 && pthread_join(t, &r) == 0);
	CHECK(r == (void *)1L && usr1_runs == 0);
	signal(SIGUSR1, SIG_DFL);
	/* many threads with masks come and go: each gives its mask's slot
	   back as it exits, so later ones still have masks of their own */
	for (int i = 0; i < 300; i++) {
		if (pthread_create(&t, 0, report_mask, &got) || pthread_join(t, 0)) {
			CHECK(!"create/join of a thread with a mask");
			break;
		}
	}
	CHECK(sigismember(&got, SIGUSR1) == 1);
	CHECK(pthread_barrier_init(&mask_bar, 0, 2) == 0);
	CHECK(pthread_create(&t, 0, mask_keeper, 0) == 0);
	CHECK(pthread_create(&u, 0, mask_dropper, 0) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)1L);
	CHECK(pthread_join(u, &r) == 0 && r == (void *)0L);
	pthread_barrier_destroy(&mask_bar);
	CHECK(sigismember((sigset_t[]){ mask_now() }, SIGUSR1) == 1);
	CHECK(pthread_sigmask(SIG_SETMASK, &old, 0) == 0);
	/* unblocked again: new threads start with nothing blocked */
	sigaddset(&got, SIGHUP);
	CHECK(pthread_create(&t, 0, report_mask, &got) == 0 && pthread_join(t, 0) == 0);
	CHECK(!sigismember(&got, SIGUSR1) && !sigismember(&got, SIGHUP));
}

/* ---- a signal for a thread blocked in a wait ----
   pthread_kill of a thread blocked in a condition wait, a mutex lock, a
   join, a semaphore wait or a sleep: its handler runs there, in that
   thread, while the wait is still on (sw_in_wait), and the wait then
   goes on or ends as POSIX (and Linux) say. A signal the thread blocks
   runs no handler in the wait: only once the thread unblocks it. */

static volatile int sw_in_wait, sw_runs, sw_runs_in_wait, sw_go;
static volatile pthread_t sw_thread;
static pthread_mutex_t sw_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sw_c = PTHREAD_COND_INITIALIZER;
static sem_t sw_s;

static void on_sw(int sig)
{
	(void)sig;
	sw_thread = pthread_self();
	sw_runs_in_wait += sw_in_wait;
	sw_runs++;
}

/* SIGUSR2 for sigwait: taken by sigwait, never run (a default action
   would end the program at the post); for a sleep that blocks SIGUSR1,
   the signal that ends it (sw_release). */
static volatile int sw_usr2_runs;
static void on_usr2_none(int sig)
{
	(void)sig;
	sw_usr2_runs++;
}

/* What a target thread does, and what came of it. */
struct sw {
	int kind;                /* SW_* */
	int masked;              /* it blocks SIGUSR1 across the wait */
	volatile int ready;      /* it is about to wait */
	volatile int done;       /* its wait returned */
	int ret, err;            /* the wait's result (and errno) */
	long left_ns;            /* a sleep's time not slept */
};
enum { SW_COND, SW_TIMEDCOND, SW_MUTEX, SW_TIMEDLOCK, SW_JOIN, SW_SEM, SW_TIMEDSEM,
       SW_NANOSLEEP, SW_SLEEP, SW_SIGWAIT };

static void sw_handler(int flags)
{
	CHECK(sig_catch(SIGUSR1, on_sw, flags) == 0);
}

static void sw_mask(int how, int sig)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	pthread_sigmask(how, &set, 0);
}

/* v reaches `want` within ms (1 if so). */
static int sw_await(volatile int *v, int want, long ms)
{
	uint64_t t0 = now_ns();
	while (*v < want && ms_since(t0) < ms)
		usleep(1000);
	return *v >= want;
}

static void *sw_polls(void *a)
{
	(void)a;
	while (!sw_go)
		usleep(1000);
	return (void *)5L;
}

static void *sw_target(void *arg)
{
	struct sw *x = arg;
	pthread_t u = 0;
	struct timespec ts;
	int sig = 0;
	if (x->masked)
		sw_mask(SIG_BLOCK, SIGUSR1);
	if (x->kind == SW_JOIN)
		pthread_create(&u, 0, sw_polls, 0);
	if (x->kind <= SW_TIMEDCOND)
		pthread_mutex_lock(&sw_m);
	errno = 0;
	sw_in_wait = 1;
	x->ready = 1;
	switch (x->kind) {
	case SW_COND:
		while (!sw_go && !x->ret)
			x->ret = pthread_cond_wait(&sw_c, &sw_m);
		break;
	case SW_TIMEDCOND:
		ts = after_ms(CLOCK_REALTIME, 10000);
		while (!sw_go && !x->ret)
			x->ret = pthread_cond_timedwait(&sw_c, &sw_m, &ts);
		break;
	case SW_MUTEX:
		x->ret = pthread_mutex_lock(&sw_m);
		break;
	case SW_TIMEDLOCK:
		ts = after_ms(CLOCK_REALTIME, 10000);
		x->ret = pthread_mutex_timedlock(&sw_m, &ts);
		break;
	case SW_JOIN: {
		void *r = 0;
		x->ret = pthread_join(u, &r);
		x->ret |= r != (void *)5L;
		break;
	}
	case SW_SEM:
		x->ret = sem_wait(&sw_s);
		break;
	case SW_TIMEDSEM:
		ts = after_ms(CLOCK_REALTIME, 10000);
		x->ret = sem_timedwait(&sw_s, &ts);
		break;
	case SW_NANOSLEEP: {
		struct timespec req = { 10, 0 }, rem = { 0, 0 };
		x->ret = nanosleep(&req, &rem);
		x->left_ns = rem.tv_sec * 1000000000L + rem.tv_nsec;
		break;
	}
	case SW_SLEEP:
		x->ret = (int)sleep(10);
		break;
	case SW_SIGWAIT: {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		x->ret = sigwait(&set, &sig) ? -1 : sig;
		break;
	}
	}
	x->err = errno;
	sw_in_wait = 0;
	x->done = 1;
	if (x->kind <= SW_TIMEDLOCK)
		pthread_mutex_unlock(&sw_m);
	if (x->masked)
		sw_mask(SIG_UNBLOCK, SIGUSR1);        /* the pending signal's handler runs now */
	return 0;
}

/* Ends the target's wait from outside (nothing for those a handler
   ends by itself): a sleep that blocks SIGUSR1 ends at a SIGUSR2 (its
   handler installed by sw_case), so that it still sleeps when main
   posts SIGUSR1, however late main runs. */
static void sw_release(struct sw *x, pthread_t t)
{
	switch (x->kind) {
	case SW_COND: case SW_TIMEDCOND:
		pthread_mutex_lock(&sw_m);
		sw_go = 1;
		pthread_cond_signal(&sw_c);
		pthread_mutex_unlock(&sw_m);
		break;
	case SW_MUTEX: case SW_TIMEDLOCK:
		pthread_mutex_unlock(&sw_m);
		break;
	case SW_JOIN:
		sw_go = 1;
		break;
	case SW_SEM: case SW_TIMEDSEM:
		sem_post(&sw_s);
		break;
	case SW_SIGWAIT:
		pthread_kill(t, SIGUSR2);
		break;
	case SW_NANOSLEEP: case SW_SLEEP:
		if (x->masked)
			pthread_kill(t, SIGUSR2);
		break;
	}
}

/* One case: `kind` with a handler of `flags`, the signal blocked or not.
   `ends`: a handler (not blocked) ends the wait by itself. Returns the
   target's record for the caller's own checks of the result. */
static struct sw sw_case(int kind, int flags, int masked, int ends)
{
	struct sw x = { .kind = kind, .masked = masked };
	pthread_t t;
	sw_in_wait = sw_runs = sw_runs_in_wait = sw_go = 0;
	sw_thread = 0;
	sw_handler(flags);
	if (kind == SW_MUTEX || kind == SW_TIMEDLOCK)
		pthread_mutex_lock(&sw_m);   /* the target waits for it */
	if (kind == SW_SIGWAIT) {        /* the target inherits SIGUSR2 blocked */
		signal(SIGUSR2, on_usr2_none);
		sw_mask(SIG_BLOCK, SIGUSR2);
	}
	if (masked && (kind == SW_NANOSLEEP || kind == SW_SLEEP))
		signal(SIGUSR2, on_usr2_none);   /* ends the sleep (sw_release) */
	CHECK(pthread_create(&t, 0, sw_target, &x) == 0);
	if (kind == SW_SIGWAIT)
		sw_mask(SIG_UNBLOCK, SIGUSR2);
	CHECK(sw_await(&x.ready, 1, 5000));
	usleep(20000);                   /* it waits by now */
	CHECK(pthread_kill(t, SIGUSR1) == 0);
	if (masked) {
		usleep(50000);
		CHECK(sw_runs == 0);     /* blocked: no handler in the wait */
		CHECK(!x.done);          /* nor an early end */
	} else {
		CHECK(sw_await(&sw_runs, 1, 5000));
		CHECK(sw_runs_in_wait == 1);         /* ran inside the wait ... */
		CHECK(pthread_equal(sw_thread, t));  /* ... of the target */
		if (ends)
			CHECK(sw_await(&x.done, 1, 5000));
		else {
			usleep(20000);
			CHECK(!x.done);      /* the wait went on after the handler */
		}
	}
	if (!x.done)
		sw_release(&x, t);
	CHECK(pthread_join(t, 0) == 0);
	CHECK(sw_runs == 1 && pthread_equal(sw_thread, t));  /* masked: once unblocked */
	CHECK(sw_runs_in_wait == !masked);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	return x;
}

static void area_sigcond(void)
{
	struct sw x;
	x = sw_case(SW_COND, SA_RESTART, 0, 0);
	CHECK(x.ret == 0);
	x = sw_case(SW_COND, 0, 0, 0);   /* no EINTR either way */
	CHECK(x.ret == 0);
	x = sw_case(SW_TIMEDCOND, 0, 0, 0);
	CHECK(x.ret == 0);
	x = sw_case(SW_COND, 0, 1, 0);
	CHECK(x.ret == 0);
}

static void area_sigmutex(void)
{
	struct sw x;
	x = sw_case(SW_MUTEX, 0, 0, 0);  /* resumes: never EINTR */
	CHECK(x.ret == 0);
	x = sw_case(SW_TIMEDLOCK, 0, 0, 0);
	CHECK(x.ret == 0);
	x = sw_case(SW_MUTEX, 0, 1, 0);
	CHECK(x.ret == 0);
}

static void area_sigjoin(void)
{
	struct sw x;
	x = sw_case(SW_JOIN, 0, 0, 0);   /* resumes: never EINTR */
	CHECK(x.ret == 0);
	x = sw_case(SW_JOIN, 0, 1, 0);
	CHECK(x.ret == 0);
}

/* Linux's rule: sem_wait ends with EINTR after a handler without
   SA_RESTART, and goes on after one with it. */
static void area_sigsem(void)
{
	struct sw x;
	CHECK(sem_init(&sw_s, 0, 0) == 0);
	x = sw_case(SW_SEM, 0, 0, 1);
	CHECK(x.ret == -1 && x.err == EINTR);
	x = sw_case(SW_TIMEDSEM, 0, 0, 1);
	CHECK(x.ret == -1 && x.err == EINTR);
	x = sw_case(SW_SEM, SA_RESTART, 0, 0);
	CHECK(x.ret == 0);
	x = sw_case(SW_SEM, 0, 1, 0);    /* blocked: the wait goes on */
	CHECK(x.ret == 0);
	int v = -1;
	CHECK(sem_getvalue(&sw_s, &v) == 0 && v == 0);   /* no unit lost nor made */
	sem_destroy(&sw_s);
}

/* Sleeps end early (EINTR, the time left); sigwait runs the handler of
   another signal and goes on waiting for its own. */
static void area_sigsleep(void)
{
	struct sw x;
	x = sw_case(SW_NANOSLEEP, SA_RESTART, 0, 1);   /* never restarted */
	CHECK(x.ret == -1 && x.err == EINTR && x.left_ns > 1000000000L && x.left_ns <= 10000000000L);
	x = sw_case(SW_SLEEP, 0, 0, 1);
	CHECK(x.ret > 0 && x.ret <= 10);
	sw_usr2_runs = 0;
	x = sw_case(SW_NANOSLEEP, 0, 1, 1);            /* blocked: sleeps on, till a SIGUSR2 */
	CHECK(x.ret == -1 && x.err == EINTR && x.left_ns > 1000000000L && sw_usr2_runs == 1);
	sw_usr2_runs = 0;
	x = sw_case(SW_SIGWAIT, 0, 0, 0);
	CHECK(x.ret == SIGUSR2 && sw_usr2_runs == 0);
}

/* ---- a signal for a thread that only computes ---- */

static volatile int sa_started, sa_stop;
static volatile pthread_t sa_thread;
static volatile int64_t sa_post_ns, sa_seen_ns;


static void on_usr1_stop(int sig)
{
	(void)sig;
	sa_thread = pthread_self();
	sa_seen_ns = mono_ns();
	sa_stop = 1;
}

/* The same walk as the loop below, for n steps: what the registers
   (integer and floating point) must hold if the handler's run left the
   interrupted context as it was. */
static void sa_walk(unsigned long n, uint64_t *x, double *d)
{
	uint64_t a = 1;
	double b = 0.5;
	for (unsigned long i = 0; i < n; i++) {
		a = a * 6364136223846793005ULL + 1442695040888963407ULL;
		b = b * 0.999 + (double)(a >> 56);
	}
	*x = a;
	*d = b;
}

/* Computes, calling nothing of the library but the clock (read in user
   mode), until its handler has run or 2 s have passed; then checks its
   own state against a second walk, then yields once. */
static void *sa_computer(void *arg)
{
	long *out = arg;
	uint64_t a = 1;
	double b = 0.5;
	unsigned long i = 0;
	int64_t end = mono_ns() + 2000000000LL;
	sa_started = 1;
	for (;; i++) {
		a = a * 6364136223846793005ULL + 1442695040888963407ULL;
		b = b * 0.999 + (double)(a >> 56);
		if (sa_stop || ((i & 4095) == 0 && mono_ns() > end))
			break;
	}
	out[0] = sa_stop;                /* delivered while it computed */
	uint64_t x;
	double d;
	sa_walk(i + 1, &x, &d);
	out[1] = x == a && d == b;       /* its registers came back intact */
	sched_yield();
	out[2] = sa_stop;                /* delivered by its yield at the latest */
	return 0;
}

/* Prints {"delivered": 1 if the handler ran while the thread computed,
   "intact": 1 if its context survived, "by_yield": 1 if it ran by the
   thread's next sched_yield, "ms": from pthread_kill to the handler}. */
static void sigasync(void)
{
	pthread_t t;
	long out[3] = { 0, 0, 0 };
	signal(SIGUSR1, on_usr1_stop);
	pthread_create(&t, 0, sa_computer, out);
	/* main waits computing too, never leaving its VP: the computing
	   thread then runs on another VP (with one VP, fifo's time slices
	   share it), and main is never queued behind it */
	int64_t end = mono_ns() + 3000000000LL;
	while (!sa_started && mono_ns() < end)
		;
	end = mono_ns() + 20000000;
	while (mono_ns() < end)
		;
	sa_post_ns = mono_ns();
	int e = pthread_kill(t, SIGUSR1);
	pthread_join(t, 0);
	int in_it = pthread_equal(sa_thread, t);
	printf("@result {\"name\": \"ptest.sigasync\", \"kill\": %d, \"delivered\": %ld, "
	       "\"intact\": %ld, \"by_yield\": %ld, \"in_target\": %d, \"ms\": %.3f}\n",
	       e, out[0], out[1], out[2], in_it, sa_stop ? (sa_seen_ns - sa_post_ns) / 1e6 : -1.0);
}

static void on_abrt(int sig)
{
	printf("sigabrt handler %d\n", sig);
}

/* ---- the end of the program ---- */

static void *last_one(void *a)
{
	msleep((long)a);
	printf("@result {\"name\": \"ptest.mainexit\", \"ok\": true}\n");
	return 0;                        /* the last thread: the process ends, 0 */
}

static void *exit7(void *a)
{
	msleep((long)a);
	exit(7);
}

static const struct {
	const char *name;
	void (*fn)(void);
} areas[] = {
	{ "create", area_create }, { "stack", area_stack }, { "detach", area_detach },
	{ "once", area_once }, { "mutex", area_mutex }, { "cond", area_cond },
	{ "rwlock", area_rwlock }, { "barrier", area_barrier }, { "keys", area_keys },
	{ "tls", area_tls }, { "cancel", area_cancel }, { "sem", area_sem },
	{ "sched", area_sched }, { "mqueue", area_mqueue }, { "rusage", area_rusage }, { "cputime", area_cputime },
	{ "threadcpu", area_threadcpu },
	{ "stdio", area_stdio }, { "signal", area_signal }, { "sigmask", area_sigmask },
	{ "sigcond", area_sigcond }, { "sigmutex", area_sigmutex }, { "sigjoin", area_sigjoin },
	{ "sigsem", area_sigsem }, { "sigsleep", area_sigsleep },
};

int main(int argc, char **argv)
{
	pthread_t t;
	if (argc > 1 && !strcmp(argv[1], "mainexit")) {
		pthread_create(&t, 0, last_one, (void *)20L);
		pthread_exit(0);
	}
	if (argc > 1 && !strcmp(argv[1], "sigabort")) {
		signal(SIGABRT, on_abrt);        /* runs, then abort still ends it */
		abort();
	}
	if (argc > 1 && !strcmp(argv[1], "sigasync")) {
		sigasync();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "exitcode")) {
		pthread_create(&t, 0, exit7, (void *)5L);
		for (;;)
			msleep(100);
	}
	int failures = 0, named = 0;
	for (int a = 1; a < argc; a++) {
		if (!strncmp(argv[a], "div=", 4))
			div_by = atol(argv[a] + 4) > 0 ? atol(argv[a] + 4) : 1;
		else
			named = 1;
	}
	for (unsigned i = 0; i < sizeof areas / sizeof areas[0]; i++) {
		int want = !named;
		for (int a = 1; a < argc; a++)
			want |= !strcmp(argv[a], areas[i].name);
		if (!want)
			continue;
		why = 0;
		areas[i].fn();
		failures += why != 0;
		if (why)
			printf("@result {\"name\": \"ptest.%s\", \"ok\": false, \"why\": \"line %d: %s\"}\n",
			       areas[i].name, why_line, why);
		else
			printf("@result {\"name\": \"ptest.%s\", \"ok\": true}\n", areas[i].name);
	}
	return failures ? 1 : 0;
}
