/*
 * portcompat: what third-party Linux pthread programs reach for beyond
 * libcextra's set, one function per area, each checked against what
 * glibc does:
 *   headers  the old alias headers (<memory.h>, <syscall.h>, <wait.h>,
 *            <sys/poll.h>, <sys/fcntl.h>, <sys/errno.h>) and <sys/queue.h>'s
 *            lists, used as a thread pool's task queue.
 *   fenv     <fenv.h>: flags from real operations, rounding on both
 *            units, environments saved and restored, per thread.
 *   futex    syscall(SYS_futex): a mutex built on it (Drepper's),
 *            EAGAIN, timeouts, wake counts, bitsets.
 *   futexlate (only when named) futex's bitset wakes with the bit-2
 *            waiter late: a wake that finds nobody yet is asked again.
 *   names    prctl(PR_SET_NAME/PR_GET_NAME) and the default thread name.
 *   sysconf  the limits and cache figures programs size things by.
 *   rand     glibc's sequences: rand, random, rand_r, random_r, initstate,
 *            setstate (values taken from glibc 2.36), shared by threads.
 *   misc     fork/exec/popen failing cleanly, nice and the priorities,
 *            mlock*, readv/writev on a pipe, ftime, asctime_r/ctime_r,
 *            mempcpy, rawmemchr, explicit_bzero.
 *   stack    Linux's 8 MiB default stack: big local arrays in main and in
 *            threads made without attributes, many at once.
 *   gnu      what _GNU_SOURCE code expects of glibc: printf's %m, GNU's
 *            strerror_r returning the message.
 *   killproc kill(getpid(), sig) from a thread that blocks sig reaches a
 *            thread that does not (Linux picks one), here one that sleeps
 *            or waits on a condition.
 *   keys     glibc's 1024 thread-specific keys, values and destructors on
 *            the highest ones.
 *   prio     Linux's priority ranges (SCHED_FIFO/RR 1..99, SCHED_OTHER 0),
 *            so priorities named outright (10, 80) are taken; a
 *            PTHREAD_PRIO_INHERIT mutex under contention.
 *   robust   robust mutexes: a holder's exit makes the next lock
 *            EOWNERDEAD, then consistent or not recoverable.
 *   getopt   GNU's order: options after operands, argv permuted so the
 *            operands end up last (outcomes taken from glibc 2.36).
 *   sigspin  (only when named; run with vps=2: a thread that only
 *            computes takes a VP) a 10 ms ITIMER_REAL's SIGALRM (alarm's
 *            timer) runs its handler in a
 *            thread spinning in pthread_spin_lock, the one thread that
 *            does not block it.
 *   sigcompute (the same) kill(getpid()) from a thread that blocks the
 *            signal runs the handler in a worker that only computes.
 *   options  sysconf's priority options (200809: prio schedules by
 *            priority), the default priority ceiling (SCHED_FIFO's
 *            lowest), pathconf/fpathconf's limits and errors.
 *   itimer   setitimer's ITIMER_VIRTUAL and ITIMER_PROF on the process's
 *            processor time: fire, never early; get, disarm.
 *   users    <pwd.h>'s one user (root, uid 0) and sysinfo()'s uptime
 *            and memory.
 *   rwsig    a signal handler that runs in a thread waiting in
 *            pthread_rwlock_timedrdlock/timedwrlock: the wait goes on and
 *            times out or takes the lock; destroy returns 0 as glibc's.
 *   pinherit (only when named; pkg=prio vps=1) priority inversion: a low
 *            thread holding a PTHREAD_PRIO_INHERIT mutex that a high one
 *            waits for outruns a middle one; with PTHREAD_PRIO_NONE the
 *            middle one finishes first.
 *   pwaitq   (only when named; pkg=prio vps=1) waiters woken highest
 *            priority first: SCHED_FIFO 35, 10, 80, 20, 60 queue in that
 *            order on a mutex, a condition variable, a semaphore; the
 *            unlock, each signal and each post reach 80 first, then 60,
 *            35, 20, 10.
 *
 *   portcompat [AREA...]      (no AREA: all)
 *
 * Prints @result {"name": "portcompat", "checks": N, "failures": F} and
 * exits 1 if a check failed.
 */
#define _GNU_SOURCE                  /* GNU's strerror_r, as Linux code has it */
#include <memory.h>
#include <syscall.h>
#include <wait.h>
#include <sys/poll.h>
#include <sys/fcntl.h>
#include <sys/errno.h>
#include <sys/queue.h>
#include <fenv.h>
#include <math.h>
#include <sched.h>
#include <errno.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/prctl.h>
#include <limits.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/timeb.h>
#include <sys/uio.h>
#include <sys/time.h>
#include <sys/sysinfo.h>
#include <pwd.h>
#include <stdint.h>
#include <signal.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_NAME "portcompat"
#include <check.h>
#include <rtstart.h>
#include <sigcatch.h>

/* --- headers: a task queue of STAILQ entries fed to four workers, then
   every list kind's insert, walk and remove against an array. */
struct task {
	int v;
	STAILQ_ENTRY(task) link;
};
static STAILQ_HEAD(taskq, task) tasks = STAILQ_HEAD_INITIALIZER(tasks);
static pthread_mutex_t tq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tq_cond = PTHREAD_COND_INITIALIZER;
static int tq_closed;
static long tq_sum;

static void *tq_worker(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_mutex_lock(&tq_lock);
		while (STAILQ_EMPTY(&tasks) && !tq_closed)
			pthread_cond_wait(&tq_cond, &tq_lock);
		struct task *t = STAILQ_FIRST(&tasks);
		if (!t) {
			pthread_mutex_unlock(&tq_lock);
			return 0;
		}
		STAILQ_REMOVE_HEAD(&tasks, link);
		tq_sum += t->v;
		pthread_mutex_unlock(&tq_lock);
		free(t);
	}
}

struct node {
	int v;
	SLIST_ENTRY(node) s;
	LIST_ENTRY(node) l;
	TAILQ_ENTRY(node) t;
	CIRCLEQ_ENTRY(node) c;
	STAILQ_ENTRY(node) q;
};
SLIST_HEAD(shead, node);
LIST_HEAD(lhead, node);
TAILQ_HEAD(thead, node);
CIRCLEQ_HEAD(chead, node);
STAILQ_HEAD(qhead, node);

static void test_lists(void)
{
	struct node n[6];
	struct node *p, *tmp;
	struct shead sh = SLIST_HEAD_INITIALIZER(sh);
	struct lhead lh;
	struct thead th;
	struct chead ch;
	struct qhead qh;
	LIST_INIT(&lh);
	TAILQ_INIT(&th);
	CIRCLEQ_INIT(&ch);
	STAILQ_INIT(&qh);
	for (int i = 0; i < 6; i++) {
		n[i].v = i;
		SLIST_INSERT_HEAD(&sh, &n[i], s);       /* 5 4 3 2 1 0 */
		LIST_INSERT_HEAD(&lh, &n[i], l);        /* 5 4 3 2 1 0 */
		TAILQ_INSERT_TAIL(&th, &n[i], t);       /* 0 1 2 3 4 5 */
		CIRCLEQ_INSERT_TAIL(&ch, &n[i], c);     /* 0 1 2 3 4 5 */
		STAILQ_INSERT_TAIL(&qh, &n[i], q);      /* 0 1 2 3 4 5 */
	}
	char buf[16];
	int k;
#define WALK(FOREACH, head, f) (k = 0, ({ FOREACH(p, head, f) buf[k++] = (char)('0' + p->v); }), buf[k] = 0, buf)
	CHECK(!strcmp(WALK(SLIST_FOREACH, &sh, s), "543210"));
	CHECK(!strcmp(WALK(LIST_FOREACH, &lh, l), "543210"));
	CHECK(!strcmp(WALK(TAILQ_FOREACH, &th, t), "012345"));
	CHECK(!strcmp(WALK(CIRCLEQ_FOREACH, &ch, c), "012345"));
	CHECK(!strcmp(WALK(STAILQ_FOREACH, &qh, q), "012345"));
	k = 0;
	TAILQ_FOREACH_REVERSE(p, &th, thead, t)
		buf[k++] = (char)('0' + p->v);
	buf[k] = 0;
	CHECK(!strcmp(buf, "543210"));
	CHECK(TAILQ_LAST(&th, thead) == &n[5] && TAILQ_PREV(&n[3], thead, t) == &n[2]);
	CHECK(TAILQ_PREV(&n[0], thead, t) == 0);

	/* Remove the odd ones while walking (the _SAFE forms), and 0 by name. */
	TAILQ_FOREACH_SAFE(p, &th, t, tmp)
		if (p->v % 2)
			TAILQ_REMOVE(&th, p, t);
	LIST_FOREACH_SAFE(p, &lh, l, tmp)
		if (p->v % 2)
			LIST_REMOVE(p, l);
	SLIST_REMOVE(&sh, &n[3], node, s);
	SLIST_REMOVE(&sh, &n[5], node, s);
	STAILQ_REMOVE(&qh, &n[5], node, q);
	STAILQ_REMOVE(&qh, &n[0], node, q);
	CIRCLEQ_REMOVE(&ch, &n[0], c);
	CIRCLEQ_REMOVE(&ch, &n[5], c);
	CHECK(!strcmp(WALK(TAILQ_FOREACH, &th, t), "024"));
	CHECK(!strcmp(WALK(LIST_FOREACH, &lh, l), "420"));
	CHECK(!strcmp(WALK(SLIST_FOREACH, &sh, s), "4210"));
	CHECK(!strcmp(WALK(STAILQ_FOREACH, &qh, q), "1234"));
	CHECK(!strcmp(WALK(CIRCLEQ_FOREACH, &ch, c), "1234"));
	k = 0;
	CIRCLEQ_FOREACH_REVERSE(p, &ch, c)
		buf[k++] = (char)('0' + p->v);
	buf[k] = 0;
	CHECK(!strcmp(buf, "4321"));
	/* Appending after a removal of the tail must use the new tail. */
	STAILQ_INSERT_TAIL(&qh, &n[0], q);
	CHECK(!strcmp(WALK(STAILQ_FOREACH, &qh, q), "12340"));
	TAILQ_INSERT_TAIL(&th, &n[5], t);
	TAILQ_INSERT_BEFORE(&n[2], &n[1], t);
	CHECK(!strcmp(WALK(TAILQ_FOREACH, &th, t), "01245"));
	while (!TAILQ_EMPTY(&th))
		TAILQ_REMOVE(&th, TAILQ_FIRST(&th), t);
	CHECK(TAILQ_EMPTY(&th) && th.tqh_last == &th.tqh_first);
}

static void test_headers(void)
{
	/* The alias headers bring their real ones' names. */
	char d[4];
	memcpy(d, "abc", 4);
	CHECK(!strcmp(d, "abc"));
	CHECK(SYS_gettid > 0 && WNOHANG == 1 && POLLIN == 1 && O_RDONLY == 0 && EINVAL == 22);

	pthread_t w[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&w[i], 0, tq_worker, 0) == 0);
	for (int i = 1; i <= 1000; i++) {
		struct task *t = malloc(sizeof *t);
		t->v = i;
		pthread_mutex_lock(&tq_lock);
		STAILQ_INSERT_TAIL(&tasks, t, link);
		pthread_cond_signal(&tq_cond);
		pthread_mutex_unlock(&tq_lock);
	}
	pthread_mutex_lock(&tq_lock);
	tq_closed = 1;
	pthread_cond_broadcast(&tq_cond);
	pthread_mutex_unlock(&tq_lock);
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], 0);
	CHECK(tq_sum == 500500 && STAILQ_EMPTY(&tasks));
	test_lists();
}

/* --- fenv. The operands are volatile so the compiler computes them at
   run time, under the mode in force. */
static volatile double one = 1.0, three = 3.0, zero = 0.0, huge_ = 1e308, two_5 = 2.5;
static volatile long double onel = 1.0L, threel = 3.0L;

static void *fe_thread(void *arg)
{
	(void)arg;
	int ok = fesetround(FE_UPWARD) == 0;
	for (int i = 0; i < 100; i++)
		sched_yield();                  /* main runs meanwhile, to nearest */
	volatile double up = one / three;
	fesetround(FE_DOWNWARD);
	volatile double down = one / three;
	ok &= up > down && fegetround() == FE_DOWNWARD;
	return (void *)(long)ok;
}

static void test_fenv(void)
{
	CHECK(fegetround() == FE_TONEAREST && fetestexcept(FE_ALL_EXCEPT & ~FE_INEXACT) == 0);
	CHECK(feclearexcept(FE_ALL_EXCEPT) == 0 && fetestexcept(FE_ALL_EXCEPT) == 0);
	volatile double r = one / zero;
	CHECK(isinf(r) && fetestexcept(FE_DIVBYZERO) == FE_DIVBYZERO);
	CHECK(fetestexcept(FE_OVERFLOW | FE_INVALID) == 0);
	r = huge_ * 10.0;
	CHECK(fetestexcept(FE_OVERFLOW | FE_INEXACT) == (FE_OVERFLOW | FE_INEXACT));
	r = sqrt(-one);
	CHECK(fetestexcept(FE_INVALID));
	fexcept_t saved;
	CHECK(fegetexceptflag(&saved, FE_ALL_EXCEPT) == 0);
	feclearexcept(FE_ALL_EXCEPT);
	CHECK(fetestexcept(FE_ALL_EXCEPT) == 0);
	CHECK(fesetexceptflag(&saved, FE_DIVBYZERO) == 0);
	CHECK(fetestexcept(FE_ALL_EXCEPT) == FE_DIVBYZERO);
	feclearexcept(FE_ALL_EXCEPT);
	CHECK(feraiseexcept(FE_INVALID | FE_UNDERFLOW) == 0);
	CHECK(fetestexcept(FE_ALL_EXCEPT) == (FE_INVALID | FE_UNDERFLOW));
	feclearexcept(FE_ALL_EXCEPT);

	/* Rounding: SSE (double) and x87 (long double) both follow. */
	CHECK(fesetround(FE_DOWNWARD) == 0 && fegetround() == FE_DOWNWARD);
	volatile double d_down = one / three;
	volatile long double l_down = onel / threel;
	CHECK(lrint(two_5 + 0.25) == 2 && lrint(-two_5) == -3);
	CHECK(fesetround(FE_UPWARD) == 0);
	volatile double d_up = one / three;
	volatile long double l_up = onel / threel;
	CHECK(d_up > d_down && l_up > l_down);
	CHECK(lrint(two_5) == 3 && lrint(2.1) == 3);
	CHECK(fesetround(FE_TOWARDZERO) == 0 && lrint(-2.7) == -2 && rint(2.7) == 2.0);
	CHECK(fesetround(FE_TONEAREST) == 0 && lrint(two_5) == 2 && lrint(3.5) == 4);
	CHECK(fesetround(12345) != 0 && fegetround() == FE_TONEAREST);

	/* Environments. */
	fenv_t env;
	CHECK(fegetenv(&env) == 0);
	fesetround(FE_UPWARD);
	r = one / zero;
	CHECK(fesetenv(&env) == 0 && fegetround() == FE_TONEAREST && !fetestexcept(FE_DIVBYZERO));
	fesetround(FE_DOWNWARD);
	CHECK(fesetenv(FE_DFL_ENV) == 0 && fegetround() == FE_TONEAREST);
	r = one / zero;
	CHECK(feholdexcept(&env) == 0 && fetestexcept(FE_ALL_EXCEPT) == 0);
	r = huge_ * 10.0;
	CHECK(fetestexcept(FE_OVERFLOW));
	CHECK(feupdateenv(&env) == 0);          /* the held flag plus the new ones */
	CHECK(fetestexcept(FE_DIVBYZERO | FE_OVERFLOW) == (FE_DIVBYZERO | FE_OVERFLOW));
	feclearexcept(FE_ALL_EXCEPT);
	/* Traps: enable one and disable it again (never taken here). */
	CHECK(fegetexcept() == 0);
	CHECK(feenableexcept(FE_DIVBYZERO) == 0 && fegetexcept() == FE_DIVBYZERO);
	CHECK(fedisableexcept(FE_DIVBYZERO) == FE_DIVBYZERO && fegetexcept() == 0);

	/* Per thread: a thread's modes stay its own across switches. */
	pthread_t t;
	void *ok = 0;
	CHECK(pthread_create(&t, 0, fe_thread, 0) == 0);
	for (int i = 0; i < 100; i++) {
		CHECK(fegetround() == FE_TONEAREST);
		sched_yield();
	}
	CHECK(pthread_join(t, &ok) == 0 && ok);
	CHECK(fegetround() == FE_TONEAREST);
	(void)r;
}

/* --- futex: Drepper's three-state mutex (0 free, 1 held, 2 held with
   waiters) over raw futex calls, and the calls' own rules. */
static long fx(atomic_int *w, int op, int val, const struct timespec *ts, unsigned val3)
{
	return syscall(SYS_futex, w, op, val, ts, (int *)0, val3);
}

static atomic_int fx_word;
static long fx_count;

static void fx_lock(void)
{
	int c = 0;
	if (atomic_compare_exchange_strong(&fx_word, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&fx_word, 2);
	while (c) {
		fx(&fx_word, FUTEX_WAIT_PRIVATE, 2, 0, 0);
		c = atomic_exchange(&fx_word, 2);
	}
}

static void fx_unlock(void)
{
	if (atomic_fetch_sub(&fx_word, 1) != 1) {
		atomic_store(&fx_word, 0);
		fx(&fx_word, FUTEX_WAKE_PRIVATE, 1, 0, 0);
	}
}

static void *fx_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5000; i++) {
		fx_lock();
		long v = fx_count;
		if (i % 64 == 0)
			sched_yield();           /* hold it across a switch: others wait */
		fx_count = v + 1;
		fx_unlock();
	}
	return 0;
}

static atomic_int fx_gate, fx_waiting, fx_woken, fx_last;
static int fx_late_ms;           /* futexlate: the bit-2 waiter comes late */

static void *fx_waiter(void *arg)
{
	unsigned bits = (unsigned)(long)arg;
	atomic_fetch_add(&fx_waiting, 1);
	if (bits == 2 && fx_late_ms)
		usleep(fx_late_ms * 1000);
	while (atomic_load(&fx_gate) == 0) {
		long r = fx(&fx_gate, FUTEX_WAIT_BITSET_PRIVATE, 0, 0, bits);
		if (r == 0)
			break;               /* woken (the gate may still read 0) */
	}
	atomic_store(&fx_last, (int)bits);
	atomic_fetch_add(&fx_woken, 1);
	return 0;
}

/* A wake (op, n, bits) that must end exactly one waiter, the woken-th:
   the bits that waiter waited with, -1 if it ended more (or failed),
   -2 if none came. A waiter that said it comes (fx_waiting) may still be
   on its way to the wait: on a loaded host a kthread VP was not yet in
   it 20 ms later, the wake found nobody and the waiter then waited for
   ever. So a wake that finds nobody is asked again; one for bits nobody
   waits with (the caller's) ends none whatever the timing. */
static int fx_wake_one(int op, int n, unsigned bits, int woken)
{
	for (int i = 0; i < 20000; i++) {
		long r = fx(&fx_gate, op, n, 0, bits);
		if (r == 0) {
			usleep(500);
			continue;
		}
		if (r != 1)
			return -1;
		for (int j = 0; j < 20000 && atomic_load(&fx_woken) < woken; j++)
			usleep(500);
		return atomic_load(&fx_woken) == woken ? atomic_load(&fx_last) : -1;
	}
	return -2;
}

static void fx_bitset(void);

static int64_t ns_since(const struct timespec *a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000000000LL + (b.tv_nsec - a->tv_nsec);
}

static void test_futex(void)
{
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], 0, fx_worker, 0) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	CHECK(fx_count == 20000 && atomic_load(&fx_word) == 0);

	atomic_int w = 5;
	errno = 0;
	CHECK(fx(&w, FUTEX_WAIT, 6, 0, 0) == -1 && errno == EAGAIN);
	struct timespec t0, rel = { 0, 20000000 };
	clock_gettime(CLOCK_MONOTONIC, &t0);
	errno = 0;
	CHECK(fx(&w, FUTEX_WAIT, 5, &rel, 0) == -1 && errno == ETIMEDOUT);
	CHECK(ns_since(&t0) >= 20000000);
	struct timespec abs;
	clock_gettime(CLOCK_MONOTONIC, &t0);     /* before the deadline's base */
	clock_gettime(CLOCK_REALTIME, &abs);
	abs.tv_nsec += 10000000;
	if (abs.tv_nsec >= 1000000000) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000;
	}
	errno = 0;
	CHECK(fx(&w, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 5, &abs, FUTEX_BITSET_MATCH_ANY) == -1 &&
	      errno == ETIMEDOUT);
	CHECK(ns_since(&t0) >= 5000000);
	struct timespec bad = { 0, 1000000000 };
	errno = 0;
	CHECK(fx(&w, FUTEX_WAIT, 5, &bad, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(fx(&w, FUTEX_WAIT_BITSET, 5, 0, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(syscall(SYS_futex, (char *)&w + 1, FUTEX_WAKE, 1, 0, 0, 0) == -1 && errno == EINVAL);
	CHECK(fx(&w, FUTEX_WAKE, 10, 0, 0) == 0);         /* nobody waits */
	fx_bitset();
}

static void fx_bitset(void)
{
	/* Three waiters on one word: two with bit 1, one with bit 2. A wake
	   for bit 4 finds none; one for bit 2 one; then the rest, counted. */
	pthread_t wt[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&wt[i], 0, fx_waiter, (void *)(long)(i == 2 ? 2 : 1));
	while (atomic_load(&fx_waiting) < 3)
		sched_yield();
	usleep(20000);                       /* most likely in the wait (not relied on) */
	CHECK(fx(&fx_gate, FUTEX_WAKE_BITSET_PRIVATE, 3, 0, 4) == 0);
	CHECK(fx_wake_one(FUTEX_WAKE_BITSET_PRIVATE, 3, 2, 1) == 2);
	CHECK(fx_wake_one(FUTEX_WAKE_PRIVATE, 1, 0, 2) == 1);
	CHECK(fx_wake_one(FUTEX_WAKE_PRIVATE, 5, 0, 3) == 1);     /* the rest: one */
	for (int i = 0; i < 3; i++)
		pthread_join(wt[i], 0);
	CHECK(atomic_load(&fx_woken) == 3);
}

/* futexlate: the bitset wakes alone, the bit-2 waiter 60 ms late (after
   main's 20 ms: its first wake for bit 2 finds nobody). */
static void test_futexlate(void)
{
	fx_late_ms = 60;
	fx_bitset();
}

/* --- names: prctl's are the pthread names; a thread never named has the
   program's name, as Linux gives it (the process's comm). */
static void *named(void *arg)
{
	char n[16] = "x", m[16];
	int ok = prctl(PR_GET_NAME, n, 0, 0, 0) == 0 && !strcmp(n, program_invocation_short_name);
	ok &= prctl(PR_SET_NAME, (char *)arg, 0, 0, 0) == 0;
	ok &= prctl(PR_GET_NAME, n, 0, 0, 0) == 0;
	ok &= pthread_getname_np(pthread_self(), m, sizeof m) == 0 && !strcmp(n, m);
	return ok ? strdup(n) : 0;
}

static void test_names(void)
{
	pthread_t t;
	void *r = 0;
	CHECK(pthread_create(&t, 0, named, "worker-7") == 0 && pthread_join(t, &r) == 0);
	CHECK(r && !strcmp(r, "worker-7"));
	free(r);
	/* Linux cuts a long name to 15 characters (pthread_setname_np: ERANGE). */
	CHECK(pthread_create(&t, 0, named, "a-very-long-thread-name") == 0 && pthread_join(t, &r) == 0);
	CHECK(r && !strcmp(r, "a-very-long-thr"));
	free(r);
	char n[16];
	CHECK(pthread_getname_np(pthread_self(), n, sizeof n) == 0 &&
	      !strncmp(n, program_invocation_short_name, 15));
	errno = 0;
	CHECK(prctl(12345, 0, 0, 0, 0) == -1 && errno == EINVAL);
}

/* --- sysconf: the names programs size buffers and pad data by. */
static void test_sysconf(void)
{
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	CHECK(line == 0 || (line >= 16 && line <= 256 && (line & (line - 1)) == 0));
	long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
	CHECK(l1 >= 0 && l2 >= 0 && (l1 == 0 || l1 % 1024 == 0));
	CHECK(sysconf(_SC_LEVEL1_ICACHE_LINESIZE) >= 0 && sysconf(_SC_LEVEL3_CACHE_LINESIZE) >= 0);
	CHECK(sysconf(_SC_LEVEL4_CACHE_SIZE) >= -1);     /* glibc: 0 or -1 when none */
	printf("portcompat: L1d %ld bytes, line %ld; L2 %ld\n", l1, line, l2);
	CHECK(sysconf(_SC_VERSION) == 200809L && sysconf(_SC_THREAD_SAFE_FUNCTIONS) == 200809L);
	CHECK(sysconf(_SC_LINE_MAX) >= 2048 && sysconf(_SC_IOV_MAX) == IOV_MAX);
	CHECK(sysconf(_SC_HOST_NAME_MAX) == HOST_NAME_MAX && sysconf(_SC_SEM_VALUE_MAX) == SEM_VALUE_MAX);
	CHECK(sysconf(_SC_ATEXIT_MAX) >= 32 && sysconf(_SC_NZERO) == 20);
	CHECK(sysconf(_SC_LOGIN_NAME_MAX) >= 9 && sysconf(_SC_TTY_NAME_MAX) >= 9 && sysconf(_SC_TIMER_MAX) != 0);
	errno = 0;
	CHECK(sysconf(_SC_THREAD_THREADS_MAX) == -1 && errno == 0);
	errno = 0;
	CHECK(sysconf(-5) == -1 && errno == EINVAL);
}

/* --- rand: the first values glibc gives for a few seeds, and a shared
   generator drawn by four threads at once handing out each number of
   the one sequence exactly once. */
#define RN 2000
static int rn_seq[4 * RN], rn_got[4][RN];

static void *rn_thread(void *arg)
{
	int *out = arg;
	for (int i = 0; i < RN; i++) {
		out[i] = rand();
		if (i % 100 == 0)
			sched_yield();
	}
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void test_rand(void)
{
	srand(1);
	CHECK(rand() == 1804289383 && rand() == 846930886 && rand() == 1681692777);
	srand(0);                                /* 0 is seeded as 1 */
	CHECK(rand() == 1804289383);
	srandom(42);
	CHECK(random() == 71876166 && random() == 708592740);
	unsigned seed = 1;
	CHECK(rand_r(&seed) == 476707713 && rand_r(&seed) == 1186278907 && seed == 2516284547u);

	char st32[32], st8[8], st128[128];
	struct random_data rd;
	int32_t a, b;
	memset(&rd, 0, sizeof rd);
	CHECK(initstate_r(5, st32, sizeof st32, &rd) == 0);
	CHECK(random_r(&rd, &a) == 0 && random_r(&rd, &b) == 0 && a == 526245433 && b == 2030581801);
	memset(&rd, 0, sizeof rd);
	CHECK(initstate_r(5, st8, sizeof st8, &rd) == 0);           /* TYPE_0: the LCG */
	CHECK(random_r(&rd, &a) == 0 && random_r(&rd, &b) == 0 && a == 1222621274 && b == 554244747);
	errno = 0;
	CHECK(initstate_r(5, st8, 4, &rd) == -1 && errno == EINVAL);

	/* initstate/setstate: switching tables and back resumes each. */
	srandom(7);
	long first = random();
	srandom(7);
	char *old = initstate(1, st128, sizeof st128);
	CHECK(old != 0 && random() == 1804289383);      /* TYPE_3, seed 1: rand's */
	CHECK(setstate(old) == st128 && random() == first);

	srand(3);
	for (int i = 0; i < 4 * RN; i++)
		rn_seq[i] = rand();
	srand(3);
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], 0, rn_thread, rn_got[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	qsort(rn_seq, 4 * RN, sizeof(int), cmp_int);
	qsort(rn_got, 4 * RN, sizeof(int), cmp_int);
	CHECK(!memcmp(rn_seq, rn_got, sizeof rn_seq));
}

/* --- misc */
static void test_misc(void)
{
	/* No other processes: each fails with a clear errno. */
	errno = 0;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);                        /* (on Linux: the child) */
	if (pid > 0)
		waitpid(pid, 0, 0);
	CHECK(pid > 0 || errno == ENOSYS);
	char *argv[] = { "no-such-program-here", 0 };
	errno = 0;
	CHECK(execvp(argv[0], argv) == -1 && errno == ENOENT);
	FILE *p = popen("exit 0", "r");
	CHECK(p == 0 || pclose(p) == 0);

	/* nice and priorities: recorded and read back. */
	int base = getpriority(PRIO_PROCESS, 0);
	CHECK(base == 0);
	errno = 0;
	CHECK(nice(3) == 3 && errno == 0 && getpriority(PRIO_PROCESS, 0) == 3);
	CHECK(setpriority(PRIO_PROCESS, 0, -2) == 0 && getpriority(PRIO_PROCESS, getpid()) == -2);
	CHECK(setpriority(PRIO_PROCESS, 0, 50) == 0 && getpriority(PRIO_PROCESS, 0) == 19);
	errno = 0;
	CHECK(getpriority(PRIO_PROCESS, 999999) == -1 && errno == ESRCH);
	errno = 0;
	CHECK(setpriority(77, 0, 0) == -1 && errno == EINVAL);
	CHECK(setpriority(PRIO_PROCESS, 0, base) == 0);

	/* mlock: everything stays in memory; arguments are checked. */
	static char page[8192];
	CHECK(mlock(page, sizeof page) == 0 && munlock(page, sizeof page) == 0);
	CHECK(mlockall(MCL_CURRENT | MCL_FUTURE) == 0 && munlockall() == 0);
	errno = 0;
	CHECK(mlockall(0) == -1 && errno == EINVAL);

	/* readv/writev through a pipe. */
	int fd[2];
	CHECK(pipe(fd) == 0);
	struct iovec out[3] = { { "scatter ", 8 }, { "", 0 }, { "gather", 6 } };
	CHECK(writev(fd[1], out, 3) == 14);
	char a[5], b[20] = "";
	struct iovec in[2] = { { a, sizeof a }, { b, sizeof b } };
	CHECK(readv(fd[0], in, 2) == 14 && !memcmp(a, "scatt", 5) && !memcmp(b, "er gather", 9));
	errno = 0;
	CHECK(writev(fd[1], out, -1) == -1 && errno == EINVAL);
	close(fd[0]);
	close(fd[1]);

	struct timeb tb;
	time_t now = time(0);
	CHECK(ftime(&tb) == 0 && tb.millitm < 1000 && tb.time >= now && tb.time <= now + 2);

	char buf[32];
	struct tm tm;
	time_t t0 = 86400 * 365 + 3723;          /* 1971-01-01 01:02:03 UTC */
	CHECK(gmtime_r(&t0, &tm) && asctime_r(&tm, buf) == buf && !strcmp(buf, "Fri Jan  1 01:02:03 1971\n"));
	CHECK(ctime_r(&t0, buf) == buf && strlen(buf) == 25 && buf[24] == '\n');

	char d[8];
	CHECK((char *)mempcpy(d, "abc", 3) == d + 3 && !memcmp(d, "abc", 3));
	CHECK((char *)rawmemchr("hello", 'l') == (char *)"hello" + 2 || *(char *)rawmemchr("hello", 'l') == 'l');
	explicit_bzero(d, sizeof d);
	CHECK(d[0] == 0 && d[7] == 0);
}

/* --- stack: a thread made without attributes, and main, get Linux's
   8 MiB; code with a large local array relies on it. */
#define BIG (1 << 20)

static long __attribute__((noinline)) big_frame(int seed)
{
	volatile char buf[BIG];
	for (int i = 0; i < BIG; i += 512)
		buf[i] = (char)(i / 512 + seed);
	long sum = 0;
	for (int i = 0; i < BIG; i += 512)
		sum += buf[i];
	return sum;
}

static void *big_thread(void *arg)
{
	return (void *)big_frame((int)(long)arg);
}

/* pthread_getattr_np's stack holds the caller's locals, and has the size
   it was made with (glibc: the lowest address and the size). */
static int on_own_stack(size_t want)
{
	pthread_attr_t a;
	void *lo = 0;
	size_t size = 0;
	volatile char here;
	if (pthread_getattr_np(pthread_self(), &a) || pthread_attr_getstack(&a, &lo, &size))
		return 0;
	pthread_attr_destroy(&a);
	return (want ? size == want : size >= 1u << 20) &&   /* (Linux: main's is rlimit's less a bit) */
	       (char *)&here >= (char *)lo && (char *)&here < (char *)lo + size;
}

static void *stack_reporter(void *arg)
{
	return (void *)(long)on_own_stack((size_t)arg);
}

/* On a stack the program gave (pthread_attr_setstack): the locals are
   there, and pthread_getattr_np gives back exactly that stack. */
static void *given_stack(void *arg)
{
	void **want = arg;
	volatile char here;
	pthread_attr_t a;
	void *lo = 0;
	size_t size = 0;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &lo, &size);
	pthread_attr_destroy(&a);
	int in = (char *)&here >= (char *)want[0] && (char *)&here < (char *)want[0] + (size_t)want[1];
	return (void *)(long)(in && lo == want[0] && size == (size_t)want[1] && big_frame(3) != 0);
}

static void test_stack(void)
{
	pthread_attr_t a;
	size_t ss = 0;
	pthread_attr_init(&a);
	CHECK(pthread_attr_getstacksize(&a, &ss) == 0 && ss == 8u << 20);
	pthread_attr_destroy(&a);
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur == 8u << 20);
	long want = big_frame(0);
	CHECK(want != 0);                        /* main's own stack holds 1 MiB */
	CHECK(on_own_stack(0));
	pthread_t s;
	void *in = 0;
	CHECK(pthread_create(&s, 0, stack_reporter, (void *)(8ul << 20)) == 0 && pthread_join(s, &in) == 0 && in);
	pthread_attr_t sa;
	pthread_attr_init(&sa);
	pthread_attr_setstacksize(&sa, 256 << 10);
	in = 0;
	CHECK(pthread_create(&s, &sa, stack_reporter, (void *)(256ul << 10)) == 0 && pthread_join(s, &in) == 0 && in);
	pthread_attr_destroy(&sa);

	/* Threads on the program's own stacks (2 MiB each, from mmap, and
	   PTHREAD_STACK_MIN from posix_memalign), freed after the join; then
	   a thread on a stack of the package's again. */
	for (int i = 0; i < 3; i++) {
		size_t sz = i < 2 ? 2u << 20 : PTHREAD_STACK_MIN;
		void *mem = 0;
		if (i < 2)
			mem = mmap(0, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		else if (posix_memalign(&mem, 4096, sz))
			mem = 0;
		CHECK(mem != 0 && mem != MAP_FAILED);
		void *want[2] = { mem, (void *)sz };
		pthread_attr_init(&sa);
		CHECK(pthread_attr_setstack(&sa, mem, sz) == 0);
		in = 0;
		CHECK(pthread_create(&s, &sa, i < 2 ? given_stack : stack_reporter, i < 2 ? (void *)want : (void *)sz) == 0);
		CHECK(pthread_join(s, &in) == 0 && (i == 2 || in));
		pthread_attr_destroy(&sa);
		if (i < 2)
			munmap(mem, sz);
		else
			free(mem);
	}
	in = 0;
	CHECK(pthread_create(&s, 0, stack_reporter, (void *)(8ul << 20)) == 0 && pthread_join(s, &in) == 0 && in);
	/* 32 threads at once, each with 1 MiB on its stack: demand-zero
	   stacks, so only what they touch is memory. */
	pthread_t t[32];
	for (int i = 0; i < 32; i++)
		CHECK(pthread_create(&t[i], 0, big_thread, 0) == 0);
	for (int i = 0; i < 32; i++) {
		void *r = 0;
		CHECK(pthread_join(t[i], &r) == 0 && (long)r == want);
	}
}

/* --- gnu */
static void test_gnu(void)
{
	char buf[128], small[8];
	errno = ENOENT;
	snprintf(buf, sizeof buf, "open: %m (%d)", errno);
	CHECK(!strcmp(buf, "open: No such file or directory (2)"));
	errno = EAGAIN;
	snprintf(buf, sizeof buf, "[%-36m]");
	CHECK(!strcmp(buf, "[Resource temporarily unavailable    ]"));
	char *m = strerror_r(EINVAL, buf, sizeof buf);       /* GNU's: the message */
	CHECK(m && !strcmp(m, "Invalid argument"));
	m = strerror_r(9999, small, sizeof small);
	CHECK(m == small && !strcmp(m, "Unknown"));
	m = strerror_r(9999, buf, sizeof buf);
	CHECK(!strcmp(m, "Unknown error 9999"));
}

/* --- killproc: main and the sender block SIGUSR1; the worker unblocks
   it and sleeps (then waits on a condition); each kill of the program
   must run the handler in the worker, which posts a semaphore the
   sender waits on before the next kill. Before, every kill stayed
   pending for the program and the sender waited for ever. */
static sem_t kp_ran;
static pthread_t kp_worker;
static volatile int kp_in_worker, kp_runs, kp_stop;
static pthread_mutex_t kp_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kp_c = PTHREAD_COND_INITIALIZER;

static void kp_handler(int sig)
{
	(void)sig;
	kp_runs++;
	kp_in_worker += pthread_equal(pthread_self(), kp_worker) != 0;
	sem_post(&kp_ran);
}

static void *kp_work(void *arg)
{
	(void)arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	pthread_sigmask(SIG_UNBLOCK, &s, 0);
	while (!kp_stop && kp_runs < 5)
		usleep(1000);                    /* first: sleeping */
	pthread_mutex_lock(&kp_m);
	while (!kp_stop)
		pthread_cond_wait(&kp_c, &kp_m); /* then: in a condition wait */
	pthread_mutex_unlock(&kp_m);
	return 0;
}

static void *kp_send(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++) {
		if (kill(getpid(), SIGUSR1) != 0)
			return (void *)1;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 10;
		if (sem_timedwait(&kp_ran, &ts) != 0)
			return (void *)2;            /* the handler never ran */
	}
	return 0;
}

static void test_killproc(void)
{
	CHECK(sig_catch(SIGUSR1, kp_handler, 0) == 0);
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &s, &old) == 0);
	sem_init(&kp_ran, 0, 0);
	pthread_t sender;
	void *r = (void *)-1;
	CHECK(pthread_create(&kp_worker, 0, kp_work, 0) == 0);
	CHECK(pthread_create(&sender, 0, kp_send, 0) == 0);   /* inherits the mask */
	CHECK(pthread_join(sender, &r) == 0 && r == 0);
	pthread_mutex_lock(&kp_m);
	kp_stop = 1;
	pthread_cond_broadcast(&kp_c);
	pthread_mutex_unlock(&kp_m);
	CHECK(pthread_join(kp_worker, 0) == 0);
	CHECK(kp_runs == 10 && kp_in_worker == 10);
	sigset_t pend;
	CHECK(sigpending(&pend) == 0 && !sigismember(&pend, SIGUSR1));
	pthread_sigmask(SIG_SETMASK, &old, 0);
	signal(SIGUSR1, SIG_DFL);
}

/* --- sigspin, sigcompute: a signal reaches a thread that only computes.
   The handler must run within SIG_BOUND_S seconds (guest time) of being
   sent: generous, for its delivery is due at the thread's next time
   slice or upcall (fifo, tutor, prio) or at its VP's next return to user
   mode (kthread, naive: an interrupt of the classic VP). Before, on
   every package, the signal stayed pending for ever and the waits below
   timed out. */
#define SIG_BOUND_S 20
static sem_t sc_ran;
static pthread_t sc_target;
static volatile int sc_runs, sc_in_target, sc_stop;
static volatile long sc_spins;

static void sc_handler(int sig)
{
	(void)sig;
	sc_runs++;
	sc_in_target += pthread_equal(pthread_self(), sc_target) != 0;
	sem_post(&sc_ran);
}

static int sc_wait(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += SIG_BOUND_S;
	int r;
	while ((r = sem_timedwait(&sc_ran, &ts)) != 0 && errno == EINTR)
		;
	return r;
}

static void sc_catch(int sig, int block_in_caller)
{
	sig_catch(sig, sc_handler, 0);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(block_in_caller ? SIG_BLOCK : SIG_UNBLOCK, &s, 0);
}

static pthread_spinlock_t ss_lock;

/* ITIMER_REAL's SIGALRM (alarm's timer: alarm(n) is setitimer(n s))
   interrupts this thread while it spins in pthread_spin_lock for a lock
   main holds; main blocks SIGALRM. 10 ms, not alarm(1)'s second: the
   spin's pause exits QEMU's CPU loop each time, so a guest second of it
   took 28 s of host CPU under --icount (30-54 s a boot, on every
   package in test_sigcomp), and 50 ms of it still 2.9 s a boot; the
   signal's path is the same, and the thread spins from microseconds
   after the arming, long before the timer falls due. */
static void *ss_spin(void *arg)
{
	(void)arg;
	sc_catch(SIGALRM, 0);
	struct itimerval v = { .it_value = { .tv_usec = 10000 } };
	setitimer(ITIMER_REAL, &v, 0);
	pthread_spin_lock(&ss_lock);
	pthread_spin_unlock(&ss_lock);
	return 0;
}

static void test_sigspin(void)
{
	sem_init(&sc_ran, 0, 0);
	sc_runs = sc_in_target = 0;
	sc_catch(SIGALRM, 1);
	CHECK(pthread_spin_init(&ss_lock, PTHREAD_PROCESS_PRIVATE) == 0);
	CHECK(pthread_spin_lock(&ss_lock) == 0);
	CHECK(pthread_create(&sc_target, 0, ss_spin, 0) == 0);
	CHECK(sc_wait() == 0);           /* the handler ran */
	CHECK(sc_runs == 1 && sc_in_target == 1);
	pthread_spin_unlock(&ss_lock);
	CHECK(pthread_join(sc_target, 0) == 0);
	sigset_t s;
	sigemptyset(&s);
	pthread_sigmask(SIG_SETMASK, &s, 0);
	signal(SIGALRM, SIG_DFL);
}

/* A worker that never touched signals only computes; main and the sender
   block SIGUSR1 (the worker was made before: it does not), so each kill
   of the program must run the handler in the worker, which posts the
   semaphore the sender waits on. */
static void *sc_compute(void *arg)
{
	(void)arg;
	while (!sc_stop)
		sc_spins++;
	return 0;
}

static void *sc_send(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++) {
		if (kill(getpid(), SIGUSR1) != 0)
			return (void *)1;
		if (sc_wait() != 0)
			return (void *)2;    /* the handler never ran */
	}
	return 0;
}

static void test_sigcompute(void)
{
	sem_init(&sc_ran, 0, 0);
	sc_runs = sc_in_target = sc_stop = 0;
	CHECK(sig_catch(SIGUSR1, sc_handler, 0) == 0);
	CHECK(pthread_create(&sc_target, 0, sc_compute, 0) == 0);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &s, 0) == 0);
	pthread_t sender;
	void *r = (void *)-1;
	CHECK(pthread_create(&sender, 0, sc_send, 0) == 0);
	CHECK(pthread_join(sender, &r) == 0 && r == 0);
	sc_stop = 1;
	CHECK(pthread_join(sc_target, 0) == 0);
	CHECK(sc_runs == 5 && sc_in_target == 5 && sc_spins > 0);
	pthread_sigmask(SIG_UNBLOCK, &s, 0);
	signal(SIGUSR1, SIG_DFL);
}

/* --- options: the option and limit answers glibc gives. Before:
   sysconf(_SC_PRIORITY_SCHEDULING) -1 (prio schedules by priority), a
   default ceiling of 0 (outside SCHED_FIFO's 1..99), no pathconf. */
static void test_options(void)
{
	CHECK(sysconf(_SC_PRIORITY_SCHEDULING) == 200809L);
	CHECK(sysconf(_SC_THREAD_PRIORITY_SCHEDULING) == 200809L);
	CHECK(sysconf(_SC_THREAD_PRIO_INHERIT) == 200809L);
	CHECK(_POSIX_PRIORITY_SCHEDULING > 0 && _POSIX_THREAD_PRIORITY_SCHEDULING > 0);
	int min = sched_get_priority_min(SCHED_FIFO), c = -5;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	CHECK(pthread_mutexattr_getprioceiling(&a, &c) == 0 && c == min);
	CHECK(c >= min && c <= sched_get_priority_max(SCHED_FIFO));
	CHECK(pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT) == 0);
	pthread_mutex_t m, plain = PTHREAD_MUTEX_INITIALIZER;
	CHECK(pthread_mutex_init(&m, &a) == 0);
	c = -5;
	CHECK(pthread_mutex_getprioceiling(&m, &c) == 0 && c == min);
	CHECK(pthread_mutex_getprioceiling(&plain, &c) == EINVAL);
	pthread_mutex_destroy(&m);
	pthread_mutexattr_destroy(&a);

	CHECK(pathconf("/", _PC_PATH_MAX) == PATH_MAX && PATH_MAX == 4096);
	CHECK(pathconf("/", _PC_NAME_MAX) == 255);
	int fd[2];
	CHECK(pipe(fd) == 0);
	CHECK(fpathconf(fd[0], _PC_PIPE_BUF) == PIPE_BUF && PIPE_BUF == 4096);
	CHECK(fpathconf(1, _PC_PATH_MAX) == 4096);
	close(fd[0]);
	close(fd[1]);
	errno = 0;
	long r = pathconf("/", 9999);
	CHECK(r == -1 && errno == EINVAL);
	errno = 0;
	r = pathconf("/no/such/file", _PC_NAME_MAX);
	CHECK(r == -1 && errno == ENOENT);
	errno = 0;
	r = fpathconf(999, _PC_NAME_MAX);
	CHECK(r == -1 && errno == EBADF);
}

/* --- itimer: ITIMER_VIRTUAL and ITIMER_PROF (EINVAL before) count the
   process's processor time: a 50 ms one-shot and a 20 ms periodic one
   fire while main computes (yielding, so that a package without time
   slices runs the timers' watcher too), never before the process CPU
   clock has advanced that much, and well before it reaches 20 s. */
static volatile int it_hits[2];
static volatile uint64_t it_at[2][3];

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void it_handler(int sig)
{
	int i = sig == SIGPROF;
	if (it_hits[i] < 3)
		it_at[i][it_hits[i]] = cpu_ns();
	it_hits[i]++;
}

static void test_itimer(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = it_handler;
	sa.sa_flags = SA_RESTART;
	CHECK(sigaction(SIGVTALRM, &sa, 0) == 0 && sigaction(SIGPROF, &sa, 0) == 0);
	struct itimerval v = { .it_value = { 0, 50000 } }, p = { { 0, 20000 }, { 0, 20000 } }, g;
	uint64_t t0 = cpu_ns();
	CHECK(setitimer(ITIMER_VIRTUAL, &v, 0) == 0);
	CHECK(setitimer(ITIMER_PROF, &p, 0) == 0);
	CHECK(getitimer(ITIMER_VIRTUAL, &g) == 0 && g.it_value.tv_sec == 0 &&
	      g.it_value.tv_usec > 0 && g.it_value.tv_usec <= 60000 && g.it_interval.tv_usec == 0);
	/* (Linux rounds up to its clock tick: 54000 at 250 Hz) */
	CHECK(getitimer(ITIMER_PROF, &g) == 0 && g.it_interval.tv_usec == 20000);
	static volatile unsigned long spin;
	while ((it_hits[0] < 1 || it_hits[1] < 3) && cpu_ns() - t0 < 20000000000ULL) {
		for (int k = 0; k < 100000; k++)
			spin++;                  /* user time (VIRTUAL counts only that on Linux) */
		sched_yield();
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } }, old;
	CHECK(setitimer(ITIMER_PROF, &off, &old) == 0 && old.it_interval.tv_usec == 20000);
	CHECK(getitimer(ITIMER_PROF, &g) == 0 && g.it_value.tv_sec == 0 && g.it_value.tv_usec == 0);
	CHECK(it_hits[0] == 1 && it_hits[1] >= 3);
	CHECK(it_at[0][0] - t0 >= 50000000ULL);
	CHECK(it_at[1][2] - t0 >= 60000000ULL);
	CHECK(getitimer(ITIMER_VIRTUAL, &g) == 0 && g.it_value.tv_sec == 0 && g.it_value.tv_usec == 0);
	CHECK(setitimer(3, &v, 0) == -1 && errno == EINVAL);
	signal(SIGVTALRM, SIG_DFL);
	signal(SIGPROF, SIG_DFL);
}

/* --- users: <pwd.h> and <sys/sysinfo.h>'s sysinfo (neither existed:
   the file did not build). One user, the one getuid names; sysinfo's
   uptime agrees with the boot clock, its RAM figures are the machine's. */
static void test_users(void)
{
	struct passwd *pw = getpwuid(getuid());
	CHECK(pw && !strcmp(pw->pw_name, "root") && pw->pw_uid == 0 && pw->pw_gid == 0);
	CHECK(pw && pw->pw_dir && pw->pw_dir[0] == '/' && pw->pw_shell);
	pw = getpwnam("root");
	CHECK(pw && pw->pw_uid == 0);
	CHECK(getpwnam("no-such-user-here") == 0);
	struct passwd e, *out = &e;
	char buf[512], tiny[4];
	CHECK(getpwuid_r(0, &e, buf, sizeof buf, &out) == 0 && out == &e && !strcmp(e.pw_name, "root"));
	CHECK(getpwnam_r("root", &e, buf, sizeof buf, &out) == 0 && out == &e && e.pw_uid == 0);
	CHECK(getpwuid_r(0, &e, tiny, sizeof tiny, &out) == ERANGE && out == 0);
	CHECK(getpwuid_r(54321, &e, buf, sizeof buf, &out) == 0 && out == 0);

	struct sysinfo si;
	struct timespec bt;
	CHECK(sysinfo(&si) == 0);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	CHECK(si.uptime >= 0 && (bt.tv_sec - si.uptime) >= -1 && (bt.tv_sec - si.uptime) <= 1);
	CHECK(si.mem_unit >= 1 && si.totalram > 0 && si.freeram > 0 && si.freeram <= si.totalram);
	CHECK((unsigned long long)si.totalram * si.mem_unit >= (unsigned long long)si.freeram * si.mem_unit);
	CHECK(si.procs >= 1);
}

/* --- rwsig: a signal handler runs in a thread waiting in
   pthread_rwlock_timedrdlock/timedwrlock (POSIX: it then waits on as if
   not interrupted). Rounds 0 and 1: main holds the write lock
   throughout, so the wait ends ETIMEDOUT and the thread holds nothing;
   rounds 2 and 3: main unlocks after the handler ran, the thread gets
   the lock and exits holding it (as LTP's timed*lock/6-2 do), and the
   lock stays held (a try fails), but pthread_rwlock_destroy returns 0,
   as glibc's always does (it was EBUSY: those tests failed at it). */
/* The expiring rounds' timeout: main signals RS_SETTLE_MS after the
   thread said it waits, so a host stall of up to 250 ms on main still
   lands the handler inside the wait (rwhandler.c's margin is 150 ms). It
   was 1 s and 100 ms, 2.2 s of each of test_portcompat's ten boots. */
#define RS_EXPIRE_MS 300
#define RS_SETTLE_MS 50
#define RS_TRIES 5
static pthread_rwlock_t rs_l;
static volatile int rs_in, rs_handled;
static struct timespec rs_deadline;

/* Main is about to send the signal too close to the wait's deadline for
   it to land inside the wait (main was stalled by the host): that round
   would say nothing, so it is run again (at most RS_TRIES times). 20 ms:
   time for the wake of the waiting thread and its handler. */
static int rs_late(void)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t left = (int64_t)(rs_deadline.tv_sec - now.tv_sec) * 1000000000LL +
		       (rs_deadline.tv_nsec - now.tv_nsec);
	return left < 20000000LL;
}

static void rs_handler(int sig)
{
	(void)sig;
	rs_handled++;
}

static void *rs_thread(void *arg)
{
	long round = (long)arg;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* rounds 0 and 1 wait out RS_EXPIRE_MS; 2 and 3 end at main's unlock */
	if (round < 2) {
		ts.tv_nsec += RS_EXPIRE_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L)
			ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	} else
		ts.tv_sec += 20;
	rs_deadline = ts;
	rs_in = 1;
	int r = round % 2 ? pthread_rwlock_timedwrlock(&rs_l, &ts) : pthread_rwlock_timedrdlock(&rs_l, &ts);
	return (void *)(long)r;          /* (holding it if r is 0) */
}

static void test_rwsig(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = rs_handler;
	sigfillset(&sa.sa_mask);         /* every signal blocked in the handler (LTP's) */
	CHECK(sigaction(SIGUSR2, &sa, 0) == 0);
	for (long round = 0, tries = 0; round < 4; round++) {
		CHECK(pthread_rwlock_init(&rs_l, 0) == 0);
		CHECK(pthread_rwlock_wrlock(&rs_l) == 0);
		rs_in = rs_handled = 0;
		pthread_t t;
		void *r = (void *)-1;
		CHECK(pthread_create(&t, 0, rs_thread, (void *)round) == 0);
		while (!rs_in)
			usleep(1000);
		usleep(RS_SETTLE_MS * 1000);     /* (it waits for the lock now) */
		if (round < 2 && rs_late() && ++tries < RS_TRIES) {
			printf("portcompat: rwsig round %ld: main reached the signal past the deadline (host stall), again\n",
			       round);
			pthread_join(t, &r);
			pthread_rwlock_unlock(&rs_l);
			pthread_rwlock_destroy(&rs_l);
			round--;
			continue;
		}
		CHECK(pthread_kill(t, SIGUSR2) == 0);
		if (round >= 2) {
			/* No bound of wall time: a busy host made a bound of 2 s
			   fail rwhandler's same wait (2f3c745). A handler that
			   never runs is a hang the harness reports. */
			while (!rs_handled)
				usleep(1000);
			CHECK(rs_handled == 1);
			CHECK(pthread_rwlock_unlock(&rs_l) == 0);
		}
		CHECK(pthread_join(t, &r) == 0);
		CHECK(r == (void *)(long)(round < 2 ? ETIMEDOUT : 0));
		CHECK(rs_handled == 1);
		if (round < 2) {
			CHECK(pthread_rwlock_unlock(&rs_l) == 0);
			CHECK(pthread_rwlock_trywrlock(&rs_l) == 0 && pthread_rwlock_unlock(&rs_l) == 0);
		} else
			CHECK(pthread_rwlock_trywrlock(&rs_l) == EBUSY);   /* the exited thread's hold */
		CHECK(pthread_rwlock_destroy(&rs_l) == 0);
	}
	signal(SIGUSR2, SIG_DFL);
}

/* --- keys */
static pthread_key_t all_keys[PTHREAD_KEYS_MAX];
static int dtor_hits;

static void key_dtor(void *v)
{
	__atomic_fetch_add(&dtor_hits, (int)(long)v, __ATOMIC_RELAXED);
}

static void *key_user(void *arg)
{
	(void)arg;
	int ok = 1;
	for (int i = 0; i < PTHREAD_KEYS_MAX; i += 100)
		ok &= pthread_setspecific(all_keys[i], (void *)1L) == 0;
	ok &= pthread_setspecific(all_keys[PTHREAD_KEYS_MAX - 1], (void *)1000L) == 0;
	ok &= pthread_getspecific(all_keys[PTHREAD_KEYS_MAX - 1]) == (void *)1000L;
	ok &= pthread_getspecific(all_keys[1]) == 0 && pthread_getspecific(all_keys[500]) == (void *)1L;
	return (void *)(long)ok;
}

static void test_keys(void)
{
	CHECK(PTHREAD_KEYS_MAX == 1024 && sysconf(_SC_THREAD_KEYS_MAX) == PTHREAD_KEYS_MAX);
	int n = 0;
	while (n < PTHREAD_KEYS_MAX && pthread_key_create(&all_keys[n], key_dtor) == 0)
		n++;
	CHECK(n == PTHREAD_KEYS_MAX);
	pthread_key_t extra;
	CHECK(pthread_key_create(&extra, 0) == EAGAIN);
	pthread_t t;
	void *ok = 0;
	CHECK(pthread_create(&t, 0, key_user, 0) == 0 && pthread_join(t, &ok) == 0 && ok);
	CHECK(dtor_hits == 11 + 1000);          /* keys 0, 100, ..., 1000 and 1023 */
	for (int i = 0; i < n; i++)
		pthread_key_delete(all_keys[i]);
}

/* --- prio */
static pthread_mutex_t fx_pi;
static long pi_count;

static void *pi_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3000; i++) {
		pthread_mutex_lock(&fx_pi);
		long v = pi_count;
		if (i % 100 == 0)
			sched_yield();
		pi_count = v + 1;
		pthread_mutex_unlock(&fx_pi);
	}
	return 0;
}

static void *report_sched(void *arg)
{
	(void)arg;
	int pol;
	struct sched_param p;
	pthread_getschedparam(pthread_self(), &pol, &p);
	return (void *)(long)(pol * 1000 + p.sched_priority);
}

static void test_prio(void)
{
	CHECK(sched_get_priority_min(SCHED_FIFO) == 1 && sched_get_priority_max(SCHED_FIFO) == 99);
	CHECK(sched_get_priority_min(SCHED_RR) == 1 && sched_get_priority_max(SCHED_RR) == 99);
	CHECK(sched_get_priority_min(SCHED_OTHER) == 0 && sched_get_priority_max(SCHED_OTHER) == 0);
	pthread_attr_t a;
	struct sched_param p = { 50 };
	pthread_attr_init(&a);
	CHECK(pthread_attr_setschedparam(&a, &p) == EINVAL);        /* SCHED_OTHER: 0 only */
	CHECK(pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED) == 0);
	CHECK(pthread_attr_setschedpolicy(&a, SCHED_FIFO) == 0);
	p.sched_priority = 10;
	CHECK(pthread_attr_setschedparam(&a, &p) == 0);
	pthread_t t;
	void *r = 0;
	int e = pthread_create(&t, &a, report_sched, 0);
	CHECK(e == 0 || e == EPERM);             /* (Linux without CAP_SYS_NICE: EPERM) */
	if (e == 0)
		CHECK(pthread_join(t, &r) == 0 && (long)r == SCHED_FIFO * 1000 + 10);
	pthread_attr_destroy(&a);

	int pol;
	struct sched_param q;
	p.sched_priority = 80;
	e = pthread_setschedparam(pthread_self(), SCHED_RR, &p);
	CHECK(e == 0 || e == EPERM);
	if (e == 0) {
		CHECK(pthread_getschedparam(pthread_self(), &pol, &q) == 0 && pol == SCHED_RR &&
		      q.sched_priority == 80);
		CHECK(pthread_create(&t, 0, report_sched, 0) == 0 && pthread_join(t, &r) == 0 &&
		      (long)r == SCHED_RR * 1000 + 80);     /* inherited */
	}
	p.sched_priority = 0;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == EINVAL);
	p.sched_priority = 100;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == EINVAL);
	p.sched_priority = 5;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_OTHER, &p) == EINVAL);
	p.sched_priority = 0;
	CHECK(pthread_setschedparam(pthread_self(), SCHED_OTHER, &p) == 0);

	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	CHECK(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT) == 0);
	CHECK(pthread_mutexattr_setprioceiling(&ma, 0) == EINVAL);
	CHECK(pthread_mutexattr_setprioceiling(&ma, 100) == EINVAL);
	CHECK(pthread_mutexattr_setprioceiling(&ma, 90) == 0);
	pthread_mutex_t m;
	int c = 0;
	CHECK(pthread_mutex_init(&m, &ma) == 0);
	CHECK(pthread_mutex_getprioceiling(&m, &c) == 0 && c == 90);
	if (pthread_mutex_lock(&m) == 0)         /* (Linux without privilege: EINVAL) */
		pthread_mutex_unlock(&m);
	pthread_mutex_destroy(&m);

	/* PTHREAD_PRIO_INHERIT: accepted, and a working mutex under contention. */
	CHECK(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT) == 0);
	int proto = -1;
	CHECK(pthread_mutexattr_getprotocol(&ma, &proto) == 0 && proto == PTHREAD_PRIO_INHERIT);
	CHECK(pthread_mutex_init(&fx_pi, &ma) == 0);
	pthread_t w[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&w[i], 0, pi_worker, 0);
	for (int i = 0; i < 4; i++)
		pthread_join(w[i], 0);
	CHECK(pi_count == 4 * 3000);
	CHECK(pthread_mutex_destroy(&fx_pi) == 0);
}

/* --- pinherit: H (main, FIFO 90) waits for a mutex L (FIFO 10) holds
   while M (FIFO 50) only yields. Returns whether H got the mutex before M
   finished. One VP, a package that honours priorities (prio). */
static pthread_mutex_t inv_m;
static volatile int inv_locked, inv_go, inv_mid_done;

static void *inv_low(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&inv_m);
	inv_locked = 1;
	while (!inv_go)
		sched_yield();                   /* hold it until H is about to wait */
	for (int i = 0; i < 200; i++)
		sched_yield();                   /* runs only when nothing higher can */
	pthread_mutex_unlock(&inv_m);
	return 0;
}

static void *inv_mid(void *arg)
{
	(void)arg;
	for (int i = 0; i < 2000; i++)
		sched_yield();
	inv_mid_done = 1;
	return 0;
}

static pthread_t inv_start(void *(*fn)(void *), int prio)
{
	pthread_t t;
	rt_start(&t, fn, prio);
	return t;
}

static int inversion_avoided(int protocol)
{
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, protocol);
	pthread_mutex_init(&inv_m, &ma);
	inv_locked = inv_go = inv_mid_done = 0;
	struct sched_param p = { 90 };
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
	pthread_t lo = inv_start(inv_low, 10);
	while (!inv_locked)
		usleep(1000);                    /* (sleeping: L gets the VP) */
	pthread_t mid = inv_start(inv_mid, 50);
	inv_go = 1;
	pthread_mutex_lock(&inv_m);
	int avoided = !inv_mid_done;
	pthread_mutex_unlock(&inv_m);
	p.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &p);
	pthread_join(lo, 0);
	pthread_join(mid, 0);
	pthread_mutex_destroy(&inv_m);
	return avoided;
}

static void test_pinherit(void)
{
	CHECK(!inversion_avoided(PTHREAD_PRIO_NONE));    /* the inversion happens */
	CHECK(inversion_avoided(PTHREAD_PRIO_INHERIT));  /* and inheritance ends it */
}

/* --- pwaitq: the order waiters are woken in, on a package that orders
   them (prio) */
#define WQ_N 5
/* distinct priorities, each its own level (pt_level) */
static const int wq_prio[WQ_N] = { 35, 10, 80, 20, 60 };
static pthread_mutex_t wq_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wq_c = PTHREAD_COND_INITIALIZER;
static sem_t wq_s;
static int wq_kind, wq_log[WQ_N], wq_n;

static void *wq_waiter(void *arg)
{
	int me = (int)(long)arg;
	if (wq_kind == 2) {
		sem_wait(&wq_s);
		wq_log[wq_n++] = me;
		return 0;
	}
	pthread_mutex_lock(&wq_m);
	if (wq_kind == 1)
		pthread_cond_wait(&wq_c, &wq_m);
	wq_log[wq_n++] = me;
	pthread_mutex_unlock(&wq_m);
	return 0;
}

static void test_pwaitq(void)
{
	struct sched_param p = { 90 };
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &p);
	sem_init(&wq_s, 0, 0);
	for (wq_kind = 0; wq_kind < 3; wq_kind++) {
		pthread_t t[WQ_N];
		wq_n = 0;
		if (wq_kind == 0)
			pthread_mutex_lock(&wq_m);
		for (int i = 0; i < WQ_N; i++) {
			pthread_attr_t a;
			struct sched_param q = { wq_prio[i] };
			pthread_attr_init(&a);
			pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
			pthread_attr_setschedpolicy(&a, SCHED_FIFO);
			pthread_attr_setschedparam(&a, &q);
			pthread_create(&t[i], &a, wq_waiter, (void *)(long)wq_prio[i]);
			pthread_attr_destroy(&a);
			usleep(2000);                    /* it queues before the next comes */
		}
		if (wq_kind == 0)
			pthread_mutex_unlock(&wq_m);     /* handed down the queue */
		for (int i = 0; wq_kind && i < WQ_N; i++) {
			if (wq_kind == 1) {
				pthread_mutex_lock(&wq_m);
				pthread_cond_signal(&wq_c);
				pthread_mutex_unlock(&wq_m);
			} else
				sem_post(&wq_s);
			usleep(2000);                    /* the woken one logs */
		}
		for (int i = 0; i < WQ_N; i++)
			pthread_join(t[i], 0);
		printf("pwaitq %s:", wq_kind == 0 ? "mutex" : wq_kind == 1 ? "cond" : "sem");
		for (int i = 0; i < wq_n; i++)
			printf(" %d", wq_log[i]);
		printf("\n");
		CHECK(wq_n == WQ_N && wq_log[0] == 80 && wq_log[1] == 60 && wq_log[2] == 35 &&
		      wq_log[3] == 20 && wq_log[4] == 10);
	}
	sem_destroy(&wq_s);
	p.sched_priority = 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &p);
}

/* --- robust */
static pthread_mutex_t rb_m;
static sem_t rb_locked;

static void *rb_die(void *arg)
{
	pthread_mutex_lock(&rb_m);
	sem_post(&rb_locked);
	if (arg)
		usleep(20000);                   /* a waiter queues meanwhile */
	return 0;                                /* exits holding it */
}

static void *rb_wait(void *arg)
{
	(void)arg;
	int e = pthread_mutex_lock(&rb_m);
	if (e == EOWNERDEAD) {
		pthread_mutex_consistent(&rb_m);
		pthread_mutex_unlock(&rb_m);
	}
	return (void *)(long)e;
}

static void test_robust(void)
{
	pthread_mutexattr_t ma;
	int v = -1;
	pthread_mutexattr_init(&ma);
	CHECK(pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST) == 0);
	CHECK(pthread_mutexattr_getrobust(&ma, &v) == 0 && v == PTHREAD_MUTEX_ROBUST);
	CHECK(pthread_mutexattr_setrobust(&ma, 77) == EINVAL);
	CHECK(pthread_mutex_init(&rb_m, &ma) == 0);
	sem_init(&rb_locked, 0, 0);
	pthread_t t, w;
	void *r = 0;
	/* Owner dies; the next lock gets it, made consistent it goes on. */
	pthread_create(&t, 0, rb_die, 0);
	pthread_join(t, 0);
	CHECK(pthread_mutex_lock(&rb_m) == EOWNERDEAD);
	CHECK(pthread_mutex_consistent(&rb_m) == 0);
	CHECK(pthread_mutex_unlock(&rb_m) == 0);
	CHECK(pthread_mutex_lock(&rb_m) == 0 && pthread_mutex_unlock(&rb_m) == 0);
	/* A waiter queued when the owner dies gets it with EOWNERDEAD. (The
	   first dier's post is still counted: drain it first.) */
	while (sem_trywait(&rb_locked) == 0)
		;
	pthread_create(&t, 0, rb_die, (void *)1);
	sem_wait(&rb_locked);
	pthread_create(&w, 0, rb_wait, 0);
	pthread_join(t, 0);
	CHECK(pthread_join(w, &r) == 0 && (long)r == EOWNERDEAD);
	CHECK(pthread_mutex_trylock(&rb_m) == 0 && pthread_mutex_unlock(&rb_m) == 0);
	/* Unlocked without being made consistent: not recoverable. */
	pthread_create(&t, 0, rb_die, 0);
	pthread_join(t, 0);
	CHECK(pthread_mutex_trylock(&rb_m) == EOWNERDEAD);
	CHECK(pthread_mutex_unlock(&rb_m) == 0);
	CHECK(pthread_mutex_lock(&rb_m) == ENOTRECOVERABLE);
	CHECK(pthread_mutex_consistent(&rb_m) == EINVAL);
	pthread_mutex_destroy(&rb_m);
	pthread_mutex_t plain = PTHREAD_MUTEX_INITIALIZER;
	CHECK(pthread_mutex_consistent(&plain) == EINVAL);
}

/* --- getopt: each case's returns, optind and argv afterwards, as glibc
   2.36 gives them. */
static void opt_case(const char *want, int argc, char **argv, const char *opts,
		     const struct option *lo)
{
	char got[256];
	int n = 0, c, idx;
	optind = 0;
	opterr = 0;
	while ((c = lo ? getopt_long(argc, argv, opts, lo, &idx) : getopt(argc, argv, opts)) != -1) {
		n += snprintf(got + n, sizeof got - n, " %c", c);
		if (optarg)
			n += snprintf(got + n, sizeof got - n, "=%s", optarg);
	}
	n += snprintf(got + n, sizeof got - n, " | %d:", optind);
	for (int i = 0; i < argc; i++)
		n += snprintf(got + n, sizeof got - n, " %s", argv[i]);
	if (strcmp(got, want))
		printf("portcompat: getopt got '%s', want '%s'\n", got, want);
	CHECK(!strcmp(got, want));
}

static void test_getopt(void)
{
	static const struct option lo[] = { { "name", 1, 0, 'n' }, { "verbose", 0, 0, 'v' }, { 0, 0, 0, 0 } };
	char *a1[] = { "p", "in1", "-a", "in2", "-b", "val", "in3", 0 };
	opt_case(" a b=val | 4: p -a -b val in1 in2 in3", 7, a1, "ab:", 0);
	char *a2[] = { "p", "-a", "--", "-b", "in", 0 };
	opt_case(" a | 3: p -a -- -b in", 5, a2, "ab:", 0);
	char *a3[] = { "p", "x", "--", "-a", 0 };
	opt_case(" | 2: p -- x -a", 4, a3, "ab:", 0);
	char *a4[] = { "p", "x", "-a", 0 };
	opt_case(" | 1: p x -a", 3, a4, "+ab:", 0);          /* POSIX order asked for */
	char *a5[] = { "p", "file1", "--name=bob", "file2", "-v", "--verbose", "-bq", "file3", 0 };
	opt_case(" n=bob v v b=q | 5: p --name=bob -v --verbose -bq file1 file2 file3", 8, a5, "vb:", lo);
	char *a6[] = { "p", "-", "-a", "x", 0 };
	opt_case(" a | 2: p -a - x", 4, a6, "a", 0);
	char *a7[] = { "p", "a1", "-b", 0 };
	opt_case(" ? | 2: p -b a1", 3, a7, "b:", 0);
	char *a8[] = { "p", "-a", "x", "-a", "y", "-a", 0 };
	opt_case(" a a a | 4: p -a -a -a x y", 6, a8, "a", 0);
}

static const struct {
	const char *name;
	void (*fn)(void);
	int named_only;                  /* not in the default run: needs its own package */
} areas[] = {
	{ "headers", test_headers, 0 },
	{ "fenv", test_fenv, 0 },
	{ "futex", test_futex, 0 },
	{ "names", test_names, 0 },
	{ "sysconf", test_sysconf, 0 },
	{ "rand", test_rand, 0 },
	{ "misc", test_misc, 0 },
	{ "stack", test_stack, 0 },
	{ "gnu", test_gnu, 0 },
	{ "killproc", test_killproc, 0 },
	{ "keys", test_keys, 0 },
	{ "prio", test_prio, 0 },
	{ "robust", test_robust, 0 },
	{ "getopt", test_getopt, 0 },
	{ "options", test_options, 0 },
	{ "itimer", test_itimer, 0 },
	{ "users", test_users, 0 },
	{ "rwsig", test_rwsig, 0 },
	{ "pinherit", test_pinherit, 1 },
	{ "pwaitq", test_pwaitq, 1 },
	{ "sigspin", test_sigspin, 1 },
	{ "sigcompute", test_sigcompute, 1 },
	{ "futexlate", test_futexlate, 1 },
};

int main(int argc, char **argv)
{
	int n = sizeof areas / sizeof areas[0];
	for (int i = 0; i < n; i++) {
		int want = argc < 2 && !areas[i].named_only;
		for (int j = 1; j < argc; j++)
			want |= !strcmp(argv[j], areas[i].name);
		if (want)
			areas[i].fn();
	}
	printf("@result {\"name\": \"portcompat\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures ? 1 : 0;
}
