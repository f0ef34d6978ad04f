/*
 * rwstress: a read-write lock hammered by timed waits and signals
 * (issue 34's rwsig). R readers and W writers each run ITERS rounds of
 * pthread_rwlock_timedrdlock/timedwrlock (and the clock, try and untimed
 * forms now and then) with deadlines 0-750 us ahead, while a signaller
 * thread pthread_kills them with SIGUSR1 one at a time, each signal
 * waited for (its handler counts) before the next: a signal lost in a
 * wait is a signaller that never sees its count move.
 *
 * Inside every critical section shared counters check the lock: no
 * writer beside a reader or another writer. A waiter that timed out
 * while owning the lock (or was granted it and not told) leaves it held
 * for ever: at the end, with every thread joined, a try must get it, the
 * lock must still work (a writer blocked behind readers gets in), and
 * destroy is 0. Every round ended 0 or ETIMEDOUT (EBUSY for a try), and
 * the counts add up. Both kinds: readers preferred (the default) and
 * PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, where a writer that
 * gives up must let the readers it kept out in; then a process-shared
 * lock (MAP_SHARED memory: pshared.c's futex word, not the queues).
 *
 * Bounded by rounds, not by time: args R W ITERS SIGNALS (defaults
 * 3 2 1500 300). "conf": only the conformance checks (conf area) run.
 * @result {"name": "rwstress.KIND", ...} per kind, then
 * @result {"name": "rwstress", "checks": N, "failures": F}; exit 0 iff F == 0.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define CHECK_NAME "rwstress"
#include <check.h>
#include <sigcatch.h>

#define MAXT 16

static pthread_rwlock_t *lp;           /* the lock (in MAP_SHARED memory for the pshared storm) */
static int nr = 3, nw = 2, iters = 1500, nsig = 300;
static pthread_t tids[MAXT];
static volatile int in_r, in_w;          /* holders now (atomics) */
static volatile int bad;                 /* invariant broken */
static volatile int handled[MAXT];       /* handlers run, per thread */
static volatile int stop;                /* the signaller is done */
static volatile int ready;               /* workers that know their index */
static __thread int me = -1;

struct count { long ok, timedout, busy, other, rounds; };
static struct count cnt[MAXT];

static void handler(int sig)
{
	(void)sig;
	if (me >= 0)
		__atomic_fetch_add(&handled[me], 1, __ATOMIC_RELAXED);
}

static struct timespec ahead(clockid_t c, long ns)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	ts.tv_nsec += ns;
	while (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	return ts;
}

/* Hold it a while: a few hundred loads, a yield now and then, so others
   wait and some deadlines pass meanwhile. The counters say who is in. */
static void inside(int wr, unsigned k)
{
	if (wr) {
		if (__atomic_fetch_add(&in_w, 1, __ATOMIC_ACQ_REL) != 0 ||
		    __atomic_load_n(&in_r, __ATOMIC_ACQUIRE) != 0)
			bad = 1;
	} else {
		__atomic_fetch_add(&in_r, 1, __ATOMIC_ACQ_REL);
		if (__atomic_load_n(&in_w, __ATOMIC_ACQUIRE) != 0)
			bad = 1;
	}
	for (volatile int i = 0; i < 200; i++)
		;
	if (k % 5 == 0)
		sched_yield();
	if (wr) {
		if (__atomic_load_n(&in_w, __ATOMIC_ACQUIRE) != 1 || __atomic_load_n(&in_r, __ATOMIC_ACQUIRE))
			bad = 1;
		__atomic_fetch_sub(&in_w, 1, __ATOMIC_ACQ_REL);
	} else {
		if (__atomic_load_n(&in_w, __ATOMIC_ACQUIRE) != 0)
			bad = 1;
		__atomic_fetch_sub(&in_r, 1, __ATOMIC_ACQ_REL);
	}
}

/* One round: which form is k's (mostly the timed ones), its deadline
   0-750 us ahead (0: already due, so a busy lock times out at once). */
static int round_of(int wr, unsigned k)
{
	long ns = (long)(k % 4) * 250000;
	struct timespec ts;
	switch (k % 16) {
	case 3:
		return wr ? pthread_rwlock_trywrlock(lp) : pthread_rwlock_tryrdlock(lp);
	case 7:
		return wr ? pthread_rwlock_wrlock(lp) : pthread_rwlock_rdlock(lp);
	case 1: case 9: case 13:
		ts = ahead(CLOCK_MONOTONIC, ns);
		return wr ? pthread_rwlock_clockwrlock(lp, CLOCK_MONOTONIC, &ts)
			  : pthread_rwlock_clockrdlock(lp, CLOCK_MONOTONIC, &ts);
	default:
		ts = ahead(CLOCK_REALTIME, ns);
		return wr ? pthread_rwlock_timedwrlock(lp, &ts) : pthread_rwlock_timedrdlock(lp, &ts);
	}
}

static void *worker(void *arg)
{
	me = (int)(long)arg;
	__atomic_fetch_add(&ready, 1, __ATOMIC_RELEASE);   /* (its handler counts from here) */
	int wr = me >= nr;
	struct count *c = &cnt[me];
	unsigned seed = (unsigned)me * 7919u + 1;
	/* its rounds, then on (yielding) until the signaller is done, so
	   that every signal finds its thread still waiting for locks */
	for (long n = 0; n < iters || !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); n++) {
		seed = seed * 1103515245u + 12345u;
		unsigned k = seed >> 8;
		int r = round_of(wr, k);
		c->rounds++;
		if (r == 0) {
			c->ok++;
			inside(wr, k);
			if (pthread_rwlock_unlock(lp) != 0)
				c->other++;
		} else if (r == ETIMEDOUT && k % 16 != 3 && k % 16 != 7)
			c->timedout++;
		else if (r == EBUSY && k % 16 == 3)
			c->busy++;
		else
			c->other++;
		if (n >= iters)
			sched_yield();
	}
	return 0;
}

/* Every worker in turn: one signal, then wait for its handler. A lost
   one is a count that never moves: after 20 s of guest time (only a
   hang detector; a slow host just waits longer) it is counted lost. */
static long sent, lost;
static void *signaller(void *arg)
{
	(void)arg;
	int n = nr + nw;
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < n)
		usleep(1000);
	for (int s = 0; s < nsig; s++) {
		int i = s % n;
		int before = __atomic_load_n(&handled[i], __ATOMIC_ACQUIRE);
		if (pthread_kill(tids[i], SIGUSR1) != 0) {
			lost++;
			continue;
		}
		sent++;
		long spins = 0;
		while (__atomic_load_n(&handled[i], __ATOMIC_ACQUIRE) == before) {
			if (++spins < 100)
				sched_yield();
			else if (spins < 100 + 100000)
				usleep(200);
			else {
				printf("rwstress: signal %d to thread %d never handled\n", s, i);
				lost++;
				break;
			}
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A writer blocked behind two read holds gets in at the last unlock
   (the lock's state is whole after the storm). */
static volatile int wrote;
static void *late_writer(void *a)
{
	(void)a;
	int r = pthread_rwlock_wrlock(lp);
	wrote = 1;
	if (!r)
		r = pthread_rwlock_unlock(lp);
	return (void *)(long)r;
}

static void storm(int kind, int pshared, const char *name)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	CHECK(pthread_rwlockattr_setkind_np(&a, kind) == 0);
	CHECK(pthread_rwlockattr_setpshared(&a, pshared) == 0);
	CHECK(pthread_rwlock_init(lp, &a) == 0);
	memset(cnt, 0, sizeof cnt);
	memset((void *)handled, 0, sizeof handled);
	stop = bad = in_r = in_w = ready = 0;
	sent = lost = 0;
	int n = nr + nw;
	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&tids[i], 0, worker, (void *)(long)i) == 0);
	pthread_t sg;
	CHECK(pthread_create(&sg, 0, signaller, 0) == 0);
	CHECK(pthread_join(sg, 0) == 0);
	for (int i = 0; i < n; i++) {
		/* A hang detector only (60 s of guest time once the signals
		   are done): a hold left behind (a waiter that timed out
		   owning the lock) keeps an untimed waiter for ever. Say so
		   and end, rather than leave the harness a silent hang. */
		struct timespec bound;
		clock_gettime(CLOCK_REALTIME, &bound);
		bound.tv_sec += 60;
		if (pthread_timedjoin_np(tids[i], 0, &bound) != 0) {
			CHECK(!"every worker ends");
			printf("rwstress: %s: worker %d still waiting (rounds %ld, ok %ld, timedout %ld)\n",
			       name, i, cnt[i].rounds, cnt[i].ok, cnt[i].timedout);
			printf("@result {\"name\": \"rwstress\", \"checks\": %d, \"failures\": %d}\n",
			       checks, failures);
			exit(1);
		}
	}
	long ok = 0, to = 0, busy = 0, other = 0, rounds = 0, hd = 0;
	for (int i = 0; i < n; i++) {
		ok += cnt[i].ok, to += cnt[i].timedout, busy += cnt[i].busy;
		other += cnt[i].other, rounds += cnt[i].rounds, hd += handled[i];
		CHECK(cnt[i].rounds >= iters);
	}
	CHECK(!bad);
	CHECK(other == 0);
	CHECK(ok + to + busy == rounds);
	CHECK(lost == 0 && sent == nsig && hd == sent);
	CHECK(in_r == 0 && in_w == 0);
	/* nothing left held, nothing left queued */
	CHECK(pthread_rwlock_trywrlock(lp) == 0);
	CHECK(pthread_rwlock_unlock(lp) == 0);
	CHECK(pthread_rwlock_tryrdlock(lp) == 0);
	CHECK(pthread_rwlock_rdlock(lp) == 0);
	wrote = 0;
	pthread_t t;
	void *r = (void *)-1L;
	CHECK(pthread_create(&t, 0, late_writer, 0) == 0);
	usleep(2000);
	CHECK(!wrote);
	CHECK(pthread_rwlock_unlock(lp) == 0);
	CHECK(pthread_rwlock_unlock(lp) == 0);
	CHECK(pthread_join(t, &r) == 0 && r == 0 && wrote);
	CHECK(pthread_rwlock_unlock(lp) == EPERM);     /* nobody holds it */
	CHECK(pthread_rwlock_destroy(lp) == 0);
	printf("@result {\"name\": \"rwstress.%s\", \"rounds\": %ld, \"ok\": %ld, \"timedout\": %ld, "
	       "\"busy\": %ld, \"other\": %ld, \"sent\": %ld, \"handled\": %ld, \"lost\": %ld, \"bad\": %d}\n",
	       name, rounds, ok, to, busy, other, sent, hd, lost, bad);
}

/* --- conf: the answers glibc gives on Linux. Its timed forms look at
   the clock and the time first, whether or not they would wait
   (nptl/pthread_rwlock_common.c: EINVAL before EDEADLK), then at a
   write hold of the caller's own (EDEADLK; the try forms EBUSY). */
static void *try_other(void *a)
{
	long wr = (long)a;
	return (void *)(long)(wr ? pthread_rwlock_trywrlock(lp) : pthread_rwlock_tryrdlock(lp));
}

static long other_try(long wr)
{
	pthread_t t;
	void *r = (void *)-1L;
	pthread_create(&t, 0, try_other, (void *)wr);
	pthread_join(t, &r);
	return (long)r;
}

/* Writers preferred: a writer that gives up must let in the readers
   it kept out, though a reader still holds the lock (nobody else would
   unlock to admit them). */
static void *wp_writer(void *a)
{
	(void)a;
	struct timespec ts = ahead(CLOCK_MONOTONIC, 100000000L);
	return (void *)(long)pthread_rwlock_clockwrlock(lp, CLOCK_MONOTONIC, &ts);
}

static void *wp_reader(void *a)
{
	(void)a;
	int r = pthread_rwlock_rdlock(lp);
	return (void *)(long)(r ? r : pthread_rwlock_unlock(lp));
}

static void writer_gives_up(void)
{
	pthread_rwlockattr_t a;
	pthread_rwlockattr_init(&a);
	pthread_rwlockattr_setkind_np(&a, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	CHECK(pthread_rwlock_init(lp, &a) == 0);
	CHECK(pthread_rwlock_rdlock(lp) == 0);
	pthread_t w, r;
	void *wr = (void *)-1L, *rr = (void *)-1L;
	CHECK(pthread_create(&w, 0, wp_writer, 0) == 0);
	usleep(20000);                      /* (it waits now; if not yet, the reader just gets in) */
	CHECK(pthread_create(&r, 0, wp_reader, 0) == 0);
	CHECK(pthread_join(w, &wr) == 0 && wr == (void *)(long)ETIMEDOUT);
	/* A hang detector only (20 s): the reader needs no unlock of ours */
	struct timespec bound;
	clock_gettime(CLOCK_REALTIME, &bound);
	bound.tv_sec += 20;
	int j = pthread_timedjoin_np(r, &rr, &bound);
	CHECK(j == 0 && rr == 0);
	CHECK(pthread_rwlock_unlock(lp) == 0);
	if (j)
		pthread_join(r, &rr);
	CHECK(pthread_rwlock_destroy(lp) == 0);
}

static void conf(void)
{
	struct timespec bad_ns = ahead(CLOCK_REALTIME, 1000000), ok_ts = ahead(CLOCK_REALTIME, 1000000);
	bad_ns.tv_nsec = 1000000000L;
	struct timespec neg = bad_ns;
	neg.tv_nsec = -1;
	CHECK(pthread_rwlock_init(lp, 0) == 0);
	/* free: still EINVAL for a bad time or clock */
	CHECK(pthread_rwlock_timedrdlock(lp, &bad_ns) == EINVAL);
	CHECK(pthread_rwlock_timedwrlock(lp, &neg) == EINVAL);
	CHECK(pthread_rwlock_clockrdlock(lp, CLOCK_MONOTONIC, &bad_ns) == EINVAL);
	CHECK(pthread_rwlock_clockwrlock(lp, CLOCK_REALTIME, &neg) == EINVAL);
	CHECK(pthread_rwlock_clockrdlock(lp, CLOCK_PROCESS_CPUTIME_ID, &ok_ts) == EINVAL);
	CHECK(pthread_rwlock_clockwrlock(lp, 12345, &ok_ts) == EINVAL);
	CHECK(pthread_rwlock_clockwrlock(lp, -1, &ok_ts) == EINVAL);
	CHECK(pthread_rwlock_trywrlock(lp) == 0);       /* (none of those took it) */
	CHECK(pthread_rwlock_unlock(lp) == 0);
	pthread_rwlock_destroy(lp);         /* (afresh: a failure above leaves no hold behind) */
	CHECK(pthread_rwlock_init(lp, 0) == 0);
	/* both clocks, free: 0 */
	struct timespec m = ahead(CLOCK_MONOTONIC, 1000000);
	CHECK(pthread_rwlock_clockrdlock(lp, CLOCK_MONOTONIC, &m) == 0);
	CHECK(pthread_rwlock_clockrdlock(lp, CLOCK_REALTIME, &ok_ts) == 0);
	CHECK(other_try(0) == 0 && pthread_rwlock_unlock(lp) == 0);   /* (its hold) */
	CHECK(other_try(1) == EBUSY);
	CHECK(pthread_rwlock_unlock(lp) == 0 && pthread_rwlock_unlock(lp) == 0);
	CHECK(pthread_rwlock_unlock(lp) == EPERM);
	pthread_rwlock_destroy(lp);
	CHECK(pthread_rwlock_init(lp, 0) == 0);
	/* a time long past, free: 0 (the time only matters to a wait) */
	struct timespec past = { 0, 0 };
	CHECK(pthread_rwlock_timedwrlock(lp, &past) == 0);
	/* the writer itself: EINVAL first, then EDEADLK; tries EBUSY */
	CHECK(pthread_rwlock_timedrdlock(lp, &bad_ns) == EINVAL);
	CHECK(pthread_rwlock_clockwrlock(lp, 999, &ok_ts) == EINVAL);
	CHECK(pthread_rwlock_timedrdlock(lp, &past) == EDEADLK);
	CHECK(pthread_rwlock_clockwrlock(lp, CLOCK_MONOTONIC, &m) == EDEADLK);
	CHECK(pthread_rwlock_rdlock(lp) == EDEADLK);
	CHECK(pthread_rwlock_wrlock(lp) == EDEADLK);
	CHECK(pthread_rwlock_tryrdlock(lp) == EBUSY);
	CHECK(pthread_rwlock_trywrlock(lp) == EBUSY);
	CHECK(other_try(0) == EBUSY && other_try(1) == EBUSY);
	CHECK(pthread_rwlock_unlock(lp) == 0);
	CHECK(pthread_rwlock_unlock(lp) == EPERM);
	CHECK(pthread_rwlock_destroy(lp) == 0);
	writer_gives_up();
	printf("@result {\"name\": \"rwstress.conf\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
}

int main(int argc, char **argv)
{
	static pthread_rwlock_t priv;
	lp = &priv;
	int only_conf = 0, *num[] = { &nr, &nw, &iters, &nsig }, n = 0;
	for (int a = 1; a < argc; a++)      /* (pkg=... and other knobs: skipped) */
		if (!strcmp(argv[a], "conf"))
			only_conf = 1;
		else if (!strchr(argv[a], '=') && n < 4)
			*num[n++] = atoi(argv[a]);
	if (nr < 1 || nw < 1 || nr + nw > MAXT)
		nr = 3, nw = 2;
	conf();
	if (!only_conf) {
		CHECK(sig_catch(SIGUSR1, handler, 0) == 0);
		storm(PTHREAD_RWLOCK_PREFER_READER_NP, PTHREAD_PROCESS_PRIVATE, "reader");
		storm(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, PTHREAD_PROCESS_PRIVATE, "writer");
		lp = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		CHECK(lp != MAP_FAILED);
		if (lp != MAP_FAILED)
			storm(PTHREAD_RWLOCK_PREFER_READER_NP, PTHREAD_PROCESS_SHARED, "pshared");
	}
	printf("@result {\"name\": \"rwstress\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
