/*
 * The thread-package conformance suite: ONE source, compiled into one
 * program (progs/tests/conformance.c), which takes the package names on
 * its command line; `conformance A+B` mixes two packages. It calls
 *
 *     conformance_main(pkgs, npkgs, argc, argv)
 *
 * pkgs[0] runs the suite (its run() starts the program); thread number i
 * of a test is created by pkgs[i % npkgs], so with two packages every
 * test has threads of both sharing the same mutexes, conditions,
 * semaphores and barriers, blocking and waking each other, and joining
 * each other.
 *
 * Arguments: [vps=N] [yield_ms=M] [yield_pct=P] [cj=T] [TEST...]. N
 * (default 4) is the VP count given to run(); M (default 1000) the yield
 * test's window in ms; P (default 400) its bound: no thread may yield more
 * than P% as often as another; T (default 10,000, a multiple of 100) the
 * threads create_join makes; the tests named run (default: all, in the
 * order below).
 *
 * Each test prints one line, "conformance PKG: TEST ok (MS ms)" or
 * "... FAIL: why", and the program ends with one
 *     @result {"name": "conformance", "package": PKG, "vps": N,
 *              "tests": [{"name", "ok", "ms", "why"?}...], "failures": F}
 * and exits 0 iff F == 0. A test that hangs leaves its "TEST ..." start
 * line as the last word; a thread that cannot be created ends the run
 * at once (status 1, with the @result so far).
 */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/sync.h>
#include <animart/pkg.h>

#define CONF_MAXPKG 4

static const struct pkg *conf_pkgs[CONF_MAXPKG];
static int conf_npkgs;
static long conf_vps = 4;
static long conf_yield_ms = 1000;   /* the yield test's window */
static long conf_yield_pct = 400;   /* its bound: max <= pct% of min */
static long conf_cj = 10000;        /* create_join's threads (CJ_TOTAL at most) */
static char conf_label[64];         /* "kthread", "fifo+kthread" */

/* The test being run: its verdict and first failure. */
static struct conf_rec {
	const char *name;
	int ok;
	uint64_t ms;
	char why[160];
} conf_recs[16];
static int conf_nrecs;
static struct conf_rec *conf_cur;

static void conf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void conf_fail(const char *fmt, ...)
{
	if (conf_cur->ok) {             /* keep the first reason */
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(conf_cur->why, sizeof conf_cur->why, fmt, ap);
		va_end(ap);
		/* now, in case the test then hangs */
		printf("conformance %s: %s failing: %s\n", conf_label, conf_cur->name, conf_cur->why);
	}
	conf_cur->ok = 0;
}

#define CHECK(cond, ...) do { if (!(cond)) conf_fail(__VA_ARGS__); } while (0)

static int conf_report(void)
{
	int failures = 0;
	struct result r;
	result_begin(&r, "conformance");
	result_str(&r, "package", conf_label);
	result_int(&r, "vps", conf_vps);
	result_array(&r, "tests");
	for (int i = 0; i < conf_nrecs; i++) {
		struct conf_rec *c = &conf_recs[i];
		failures += !c->ok;
		result_object(&r, 0);
		result_str(&r, "name", c->name);
		result_bool(&r, "ok", c->ok);
		result_uint(&r, "ms", c->ms);
		if (!c->ok)
			result_str(&r, "why", c->why);
		result_close(&r);
	}
	result_close(&r);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures;
}

/* Thread i of a test: created by pkgs[i % npkgs]. */
static struct thread *conf_spawn(int i, void *(*fn)(void *), void *arg)
{
	const struct pkg *p = conf_pkgs[i % conf_npkgs];
	struct thread *t = p->create(fn, arg, 0);
	if (!t) {
		conf_fail("%s.create failed (thread %d)", p->name, i);
		printf("conformance %s: %s FAIL: %s\n", conf_label, conf_cur->name, conf_cur->why);
		conf_report();
		exit(1);
	}
	return t;
}

static const struct pkg *conf_pkg_of(int i)
{
	return conf_pkgs[i % conf_npkgs];
}

/* Let other threads run for about `ms` milliseconds. */
static void conf_pause(uint64_t ms)
{
	uint64_t end = now_ns() + ms * 1000000;
	while (now_ns() < end)
		thread_yield();
}

/* A little work, so critical sections are long enough to be preempted in. */
static void conf_work(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

/* ---- create_join: 10,000 threads (cj=), 100 live at a time ---------- */

#define CJ_TOTAL 10000
#define CJ_BATCH 100
#define CJ_MAGIC 0x5eed

static struct thread *volatile cj_self[CJ_TOTAL];
static volatile int cj_ran[CJ_TOTAL];
static volatile int cj_badname, cj_badchild;

static void *cj_child(void *arg)
{
	return (void *)((intptr_t)arg ^ CJ_MAGIC);
}

static void *cj_fn(void *arg)
{
	int i = (int)(intptr_t)arg;
	struct thread *self = thread_self();
	cj_self[i] = self;
	__atomic_fetch_add(&cj_ran[i], 1, __ATOMIC_RELAXED);
	if (!self || strcmp(self->ops->name, conf_pkg_of(i)->name))
		__atomic_fetch_add(&cj_badname, 1, __ATOMIC_RELAXED);
	if (i % CJ_BATCH == 0) {
		/* a thread creates and joins a thread (of the next package) */
		struct thread *c = conf_spawn(i + 1, cj_child, (void *)(intptr_t)i);
		if ((intptr_t)thread_join(c) != (i ^ CJ_MAGIC))
			__atomic_fetch_add(&cj_badchild, 1, __ATOMIC_RELAXED);
	}
	if (i % 7 == 0)
		thread_yield();             /* some exit before their join, some after */
	return (void *)(intptr_t)i;
}

static void t_create_join(void)
{
	static struct thread *h[CJ_BATCH];
	int total = (int)conf_cj / CJ_BATCH * CJ_BATCH;
	for (int base = 0; base < total; base += CJ_BATCH) {
		for (int j = 0; j < CJ_BATCH; j++)
			h[j] = conf_spawn(base + j, cj_fn, (void *)(intptr_t)(base + j));
		/* join in creation order on even batches, reversed on odd ones */
		for (int k = 0; k < CJ_BATCH; k++) {
			int j = (base / CJ_BATCH) % 2 ? CJ_BATCH - 1 - k : k;
			int i = base + j;
			intptr_t v = (intptr_t)thread_join(h[j]);
			CHECK(v == i, "join of thread %d returned %ld", i, (long)v);
			CHECK(cj_self[i] == h[j], "thread %d: thread_self() %p != handle %p",
			      i, (void *)cj_self[i], (void *)h[j]);
		}
	}
	for (int i = 0; i < CJ_TOTAL; i++)
		CHECK(cj_ran[i] == (i < total), "thread %d ran %d times", i, cj_ran[i]);
	CHECK(!cj_badname, "%d threads had the wrong ops (or no thread_self)", cj_badname);
	CHECK(!cj_badchild, "%d nested joins returned a wrong value", cj_badchild);
}

/* ---- park: permits, and block/unblock ping-pong ---------------------- */

#define PK_ROUNDS 1000

static struct thread *volatile pk_main, *volatile pk_child;
static volatile int pk_phase, pk_turn, pk_passed;

static void *pk_fn(void *arg)
{
	(void)arg;
	while (pk_phase < 1)
		thread_yield();
	/* main unblocked us (twice) before phase 1: one permit, consumed here */
	thread_block();
	pk_phase = 2;
	/* no permit now: this must really block until main unblocks us */
	thread_block();
	pk_passed = 1;
	for (int r = 0; r < PK_ROUNDS; r++) {
		while (__atomic_load_n(&pk_turn, __ATOMIC_ACQUIRE) != 1)
			thread_block();
		__atomic_store_n(&pk_turn, 0, __ATOMIC_RELEASE);
		thread_unblock(pk_main);
	}
	return 0;
}

static void t_park(void)
{
	pk_main = thread_self();
	pk_phase = pk_turn = pk_passed = 0;
	pk_child = conf_spawn(1, pk_fn, 0);
	thread_unblock(pk_child);         /* leaves a permit (it is not blocked) */
	thread_unblock(pk_child);         /* permits do not add up */
	__atomic_store_n(&pk_phase, 1, __ATOMIC_RELEASE);
	uint64_t t0 = now_ns();
	while (pk_phase < 2 && now_ns() - t0 < 5000000000UL)
		thread_yield();
	CHECK(pk_phase == 2, "a permit did not let thread_block return");
	conf_pause(30);
	CHECK(!pk_passed, "thread_block returned with no permit and no unblock");
	thread_unblock(pk_child);
	for (int r = 0; r < PK_ROUNDS; r++) {
		__atomic_store_n(&pk_turn, 1, __ATOMIC_RELEASE);
		thread_unblock(pk_child);
		while (__atomic_load_n(&pk_turn, __ATOMIC_ACQUIRE) != 0)
			thread_block();
	}
	thread_join(pk_child);
	CHECK(pk_passed, "the child never passed its unblocked thread_block");
}

/* ---- yield fairness --------------------------------------------------- */

/* N threads of one package yield in a loop for yield_ms (default 1000) ms;
   each must have had a fair share, within yield_pct. The window is time,
   not a count of yields, so it spans as many quanta whatever a yield
   costs: 1,000 ms is 500 of the suite's 2 ms quanta, so one quantum lost
   to a VP preempted unwarned is a small part of it (priotest's starve
   test says why). Under icount (the suite's own runs) guest time is
   instructions, so the host cannot skew the window: a thread that gets a
   fraction of its peers' yields there was starved by the schedule. With
   two packages, each package's threads are measured on their own: a
   yield offers the processor to the threads of the same scheduler, so
   fairness across packages is not a property of yield. */
#define YF_N       8

static volatile int yf_go;
static volatile uint64_t yf_end;
static volatile long yf_total;
static long yf_count[YF_N];
static int yf_vp[YF_N], yf_cpu[YF_N];

static void *yf_fn(void *arg)
{
	int i = (int)(intptr_t)arg;
	while (!__atomic_load_n(&yf_go, __ATOMIC_ACQUIRE))
		thread_yield();
	long n = 0;
	while (now_ns() < yf_end) {
		n++;
		__atomic_fetch_add(&yf_total, 1, __ATOMIC_RELAXED);
		thread_yield();
	}
	yf_count[i] = n;
	yf_vp[i] = vp_index();          /* where it ended: for the report */
	yf_cpu[i] = vp_pseudo()->cpu;
	return 0;
}

static void t_yield(void)
{
	for (int p = 0; p < conf_npkgs; p++) {
		struct thread *h[YF_N];
		yf_go = 0;
		yf_total = 0;
		for (int i = 0; i < YF_N; i++)
			h[i] = conf_spawn(i * conf_npkgs + p, yf_fn, (void *)(intptr_t)i);
		yf_end = now_ns() + (uint64_t)conf_yield_ms * 1000000;
		__atomic_store_n(&yf_go, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < YF_N; i++)
			thread_join(h[i]);
		long sum = 0, min = __LONG_MAX__, max = 0;
		for (int i = 0; i < YF_N; i++) {
			sum += yf_count[i];
			min = yf_count[i] < min ? yf_count[i] : min;
			max = yf_count[i] > max ? yf_count[i] : max;
		}
		const char *name = conf_pkgs[p]->name;
		CHECK(sum == yf_total, "%s: iterations add up to %ld, the shared count is %ld",
		      name, sum, yf_total);
		CHECK(min > 0 && max * 100 <= conf_yield_pct * min,
		      "%s: unfair: min %ld max %ld iterations (bound %ld%%)", name, min, max,
		      conf_yield_pct);
		char line[256];
		int len = snprintf(line, sizeof line, "conformance %s: %s yield counts (count@vp/cpu):",
				   conf_label, name);
		for (int i = 0; i < YF_N && len < (int)sizeof line; i++)
			len += snprintf(line + len, sizeof line - len, " %ld@%d/%d",
					yf_count[i], yf_vp[i], yf_cpu[i]);
		printf("%s\n", line);
	}
}

/* ---- mutex: 32 threads, one counter ---------------------------------- */

#define MX_N     32
#define MX_ITERS 2000

static struct mutex mx;
static volatile long mx_counter;
static volatile int mx_inside, mx_overlap, mx_contended, mx_go;

static void *mx_fn(void *arg)
{
	int i = (int)(intptr_t)arg;
	while (!__atomic_load_n(&mx_go, __ATOMIC_ACQUIRE))
		thread_yield();             /* all contend from the start */
	for (int k = 0; k < MX_ITERS; k++) {
		if (__atomic_load_n(&mx.state, __ATOMIC_RELAXED))
			__atomic_fetch_add(&mx_contended, 1, __ATOMIC_RELAXED);
		if ((k + i) % 8 == 0)
			while (!umutex_trylock(&mx))
				thread_yield();
		else
			umutex_lock(&mx);
		if (__atomic_add_fetch(&mx_inside, 1, __ATOMIC_RELAXED) != 1)
			__atomic_fetch_add(&mx_overlap, 1, __ATOMIC_RELAXED);
		long v = mx_counter;        /* a non-atomic read-modify-write */
		conf_work(500);
		mx_counter = v + 1;
		__atomic_sub_fetch(&mx_inside, 1, __ATOMIC_RELAXED);
		umutex_unlock(&mx);
	}
	return 0;
}

static void t_mutex(void)
{
	struct thread *h[MX_N];
	memset(&mx, 0, sizeof mx);
	mx_counter = mx_inside = mx_overlap = mx_contended = mx_go = 0;
	for (int i = 0; i < MX_N; i++)
		h[i] = conf_spawn(i, mx_fn, (void *)(intptr_t)i);
	__atomic_store_n(&mx_go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < MX_N; i++)
		thread_join(h[i]);
	CHECK(mx_counter == MX_N * MX_ITERS, "counter %ld, expected %d", mx_counter, MX_N * MX_ITERS);
	CHECK(!mx_overlap, "%d times two threads held the mutex", mx_overlap);
	CHECK(mx.state == 0, "mutex state %d after the last unlock", mx.state);
	printf("conformance %s: mutex found held %d times of %d\n", conf_label, mx_contended,
	       MX_N * MX_ITERS);
}

/* ---- condition variables: bounded buffer ----------------------------- */

#define PC_PROD  4
#define PC_CONS  4
#define PC_ITEMS 2500               /* per producer */
#define PC_TOTAL (PC_PROD * PC_ITEMS)
#define PC_SLOTS 8

static struct mutex pc_m;
static struct cond pc_notempty, pc_notfull;
static int pc_buf[PC_SLOTS], pc_head, pc_count, pc_taken;
static int pc_last[PC_PROD];        /* last sequence number taken, per producer */
static volatile int pc_seen[PC_TOTAL];
static volatile int pc_disorder, pc_overflow;

static void *pc_producer(void *arg)
{
	int p = (int)(intptr_t)arg;
	for (int k = 0; k < PC_ITEMS; k++) {
		umutex_lock(&pc_m);
		while (pc_count == PC_SLOTS)
			ucond_wait(&pc_notfull, &pc_m);
		pc_buf[(pc_head + pc_count) % PC_SLOTS] = p * PC_ITEMS + k;
		pc_count++;
		ucond_signal(&pc_notempty);
		umutex_unlock(&pc_m);
	}
	return 0;
}

static void *pc_consumer(void *arg)
{
	(void)arg;
	long mine = 0;
	for (;;) {
		umutex_lock(&pc_m);
		while (pc_count == 0 && pc_taken < PC_TOTAL)
			ucond_wait(&pc_notempty, &pc_m);
		if (pc_count == 0) {        /* everything has been taken */
			umutex_unlock(&pc_m);
			break;
		}
		int item = pc_buf[pc_head];
		pc_head = (pc_head + 1) % PC_SLOTS;
		pc_count--;
		if (++pc_taken == PC_TOTAL)
			ucond_broadcast(&pc_notempty);   /* release the other consumers */
		int p = item / PC_ITEMS, seq = item % PC_ITEMS;
		if (p < 0 || p >= PC_PROD)
			pc_overflow++;
		else {
			if (seq != pc_last[p] + 1)
				pc_disorder++;
			pc_last[p] = seq;
		}
		ucond_signal(&pc_notfull);
		umutex_unlock(&pc_m);
		if (item >= 0 && item < PC_TOTAL)
			__atomic_fetch_add(&pc_seen[item], 1, __ATOMIC_RELAXED);
		mine++;
	}
	return (void *)mine;
}

static void t_cond(void)
{
	struct thread *prod[PC_PROD], *cons[PC_CONS];
	memset(&pc_m, 0, sizeof pc_m);
	memset(&pc_notempty, 0, sizeof pc_notempty);
	memset(&pc_notfull, 0, sizeof pc_notfull);
	pc_head = pc_count = pc_taken = pc_disorder = pc_overflow = 0;
	for (int p = 0; p < PC_PROD; p++)
		pc_last[p] = -1;
	/* with two packages, producer j and consumer j are of different ones */
	for (int j = 0; j < PC_CONS; j++)
		cons[j] = conf_spawn(j + 1, pc_consumer, 0);
	for (int p = 0; p < PC_PROD; p++)
		prod[p] = conf_spawn(p, pc_producer, (void *)(intptr_t)p);
	for (int p = 0; p < PC_PROD; p++)
		thread_join(prod[p]);
	long total = 0;
	for (int j = 0; j < PC_CONS; j++)
		total += (long)thread_join(cons[j]);
	CHECK(total == PC_TOTAL, "consumers took %ld items, not %d", total, PC_TOTAL);
	for (int i = 0; i < PC_TOTAL; i++)
		CHECK(pc_seen[i] == 1, "item %d consumed %d times", i, pc_seen[i]);
	CHECK(!pc_disorder, "%d items out of their producer's order", pc_disorder);
	CHECK(!pc_overflow, "%d garbage items", pc_overflow);
	CHECK(pc_count == 0 && pc_taken == PC_TOTAL, "buffer count %d taken %d at the end",
	      pc_count, pc_taken);
}

/* ---- barrier: nobody passes early ------------------------------------ */

#define BR_N      8
#define BR_ROUNDS 100

static struct barrier br;
static volatile int br_arrived[BR_ROUNDS], br_leaders[BR_ROUNDS];
static volatile int br_early, br_early_round = -1, br_early_seen;

static void *br_fn(void *arg)
{
	(void)arg;
	for (int r = 0; r < BR_ROUNDS; r++) {
		__atomic_fetch_add(&br_arrived[r], 1, __ATOMIC_ACQ_REL);
		if (r % 10 == (int)(intptr_t)arg % 10)
			thread_yield();         /* vary who arrives last */
		if (ubarrier_wait(&br))
			__atomic_fetch_add(&br_leaders[r], 1, __ATOMIC_RELAXED);
		int seen = __atomic_load_n(&br_arrived[r], __ATOMIC_ACQUIRE);
		if (seen != BR_N) {
			__atomic_fetch_add(&br_early, 1, __ATOMIC_RELAXED);
			br_early_round = r;
			br_early_seen = seen;
		}
	}
	return 0;
}

static void t_barrier(void)
{
	struct thread *h[BR_N];
	ubarrier_init(&br, BR_N);
	br_early = 0;
	for (int r = 0; r < BR_ROUNDS; r++)
		br_arrived[r] = br_leaders[r] = 0;
	for (int i = 0; i < BR_N; i++)
		h[i] = conf_spawn(i, br_fn, (void *)(intptr_t)i);
	for (int i = 0; i < BR_N; i++)
		thread_join(h[i]);
	CHECK(!br_early, "%d passes before all arrived (round %d saw %d of %d)",
	      br_early, br_early_round, br_early_seen, BR_N);
	for (int r = 0; r < BR_ROUNDS; r++)
		CHECK(br_leaders[r] == 1, "round %d: ubarrier_wait returned 1 in %d threads",
		      r, br_leaders[r]);
}

/* ---- semaphore: at most k inside ------------------------------------- */

#define SM_K     3
#define SM_N     12
#define SM_ITERS 100

static struct sem sm;
static volatile int sm_inside, sm_max, sm_done, sm_go;

static void *sm_fn(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&sm_go, __ATOMIC_ACQUIRE))
		thread_yield();             /* all contend from the start */
	for (int k = 0; k < SM_ITERS; k++) {
		usem_wait(&sm);
		int in = __atomic_add_fetch(&sm_inside, 1, __ATOMIC_ACQ_REL);
		for (int m = sm_max; in > m; m = sm_max)
			__atomic_compare_exchange_n(&sm_max, &m, in, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		/* Stay inside a while and let others run, so that k can be
		   inside together; the first time, until they are (or 100 ms). */
		uint64_t t0 = k ? 0 : now_ns();
		do {
			conf_work(50);
			thread_yield();
		} while (!k && __atomic_load_n(&sm_max, __ATOMIC_RELAXED) < SM_K &&
			 now_ns() - t0 < 100000000);
		__atomic_sub_fetch(&sm_inside, 1, __ATOMIC_ACQ_REL);
		usem_post(&sm);
	}
	__atomic_fetch_add(&sm_done, 1, __ATOMIC_RELAXED);
	return 0;
}

static void t_sem(void)
{
	struct thread *h[SM_N];
	usem_init(&sm, SM_K);
	sm_inside = sm_max = sm_done = sm_go = 0;
	for (int i = 0; i < SM_N; i++)
		h[i] = conf_spawn(i, sm_fn, 0);
	__atomic_store_n(&sm_go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < SM_N; i++)
		thread_join(h[i]);
	CHECK(sm_max <= SM_K, "%d threads inside a semaphore of %d", sm_max, SM_K);
	CHECK(sm_max == SM_K, "never more than %d inside a semaphore of %d (it admits too few)",
	      sm_max, SM_K);
	CHECK(sm_done == SM_N, "%d of %d threads finished", sm_done, SM_N);
	CHECK(sm.count == SM_K && !sm.q.head, "semaphore count %d (waiters %s) at the end",
	      sm.count, sm.q.head ? "left" : "none");
}

/* ---- once: exactly once under contention ----------------------------- */

#define ON_N 32

static struct once on;
static volatile int on_runs, on_finished, on_go, on_early;

static void on_init(void)
{
	__atomic_fetch_add(&on_runs, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 10; i++) {  /* take a while: others pile up */
		conf_work(200);
		thread_yield();
	}
	__atomic_store_n(&on_finished, 1, __ATOMIC_RELEASE);
}

static void *on_fn(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&on_go, __ATOMIC_ACQUIRE))
		thread_yield();
	uonce(&on, on_init);
	if (!__atomic_load_n(&on_finished, __ATOMIC_ACQUIRE))
		__atomic_fetch_add(&on_early, 1, __ATOMIC_RELAXED);
	uonce(&on, on_init);             /* the done fast path */
	return 0;
}

static void t_once(void)
{
	struct thread *h[ON_N];
	memset(&on, 0, sizeof on);
	on_runs = on_finished = on_go = on_early = 0;
	for (int i = 0; i < ON_N; i++)
		h[i] = conf_spawn(i, on_fn, 0);
	__atomic_store_n(&on_go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < ON_N; i++)
		thread_join(h[i]);
	CHECK(on_runs == 1, "the once function ran %d times", on_runs);
	CHECK(!on_early, "%d threads returned from uonce() before the function finished", on_early);
}

/* ---- driver ------------------------------------------------------------ */

static const struct conf_test {
	const char *name;
	void (*fn)(void);
} conf_tests[] = {
	{ "create_join", t_create_join },
	{ "park", t_park },
	{ "yield", t_yield },
	{ "mutex", t_mutex },
	{ "cond", t_cond },
	{ "barrier", t_barrier },
	{ "sem", t_sem },
	{ "once", t_once },
};
#define CONF_NTESTS ((int)(sizeof conf_tests / sizeof conf_tests[0]))

static char conf_selected[CONF_NTESTS];

static void *conf_suite(void *arg)
{
	(void)arg;
	for (int i = 0; i < CONF_NTESTS; i++) {
		if (!conf_selected[i])
			continue;
		struct conf_rec *c = &conf_recs[conf_nrecs++];
		c->name = conf_tests[i].name;
		c->ok = 1;
		conf_cur = c;
		printf("conformance %s: %s ...\n", conf_label, c->name);
		uint64_t t0 = now_ns();
		conf_tests[i].fn();
		c->ms = (now_ns() - t0) / 1000000;
		if (c->ok)
			printf("conformance %s: %s ok (%lu ms)\n", conf_label, c->name, c->ms);
		else
			printf("conformance %s: %s FAIL: %s\n", conf_label, c->name, c->why);
	}
	return (void *)(intptr_t)(conf_report() ? 1 : 0);
}

/* The numeric arguments, NAME=V with V in lo..hi. */
static const struct conf_opt {
	const char *name;               /* with its '=' */
	long lo, hi, *v;
} conf_opts[] = {
	{ "vps=", 1, 64, &conf_vps },
	{ "yield_ms=", 1, 60000, &conf_yield_ms },
	{ "yield_pct=", 100, 100000, &conf_yield_pct },
	{ "cj=", CJ_BATCH, CJ_TOTAL, &conf_cj },
};

/* 1 if `a` is a numeric argument (its value set), 2 if it is one with a
   bad value (said), 0 if it is not one. */
static int conf_opt(const char *a)
{
	for (unsigned i = 0; i < sizeof conf_opts / sizeof conf_opts[0]; i++) {
		const struct conf_opt *o = &conf_opts[i];
		size_t n = strlen(o->name);
		if (strncmp(a, o->name, n))
			continue;
		long v = atol(a + n);
		if (v < o->lo || v > o->hi) {
			printf("conformance: bad %s (%ld..%ld)\n", a, o->lo, o->hi);
			return 2;
		}
		*o->v = v;
		return 1;
	}
	return 0;
}

static int conformance_main(const struct pkg *const *pkgs, int npkgs, int argc, char **argv)
{
	conf_npkgs = npkgs < CONF_MAXPKG ? npkgs : CONF_MAXPKG;
	conf_label[0] = 0;
	for (int i = 0; i < conf_npkgs; i++) {
		conf_pkgs[i] = pkgs[i];
		if (i)
			strcat(conf_label, "+");
		strcat(conf_label, pkgs[i]->name);
	}
	int any = 0;
	for (int a = 1; a < argc; a++) {
		int k = conf_opt(argv[a]);
		if (k == 2)
			return 2;
		if (k)
			continue;
		int found = 0;
		for (int i = 0; i < CONF_NTESTS; i++)
			if (!strcmp(argv[a], conf_tests[i].name))
				conf_selected[i] = found = any = 1;
		if (!found) {
			printf("conformance: unknown argument '%s'; usage: [vps=N] [yield_ms=M] [yield_pct=P] [cj=T] [TEST...], TEST one of:",
			       argv[a]);
			for (int i = 0; i < CONF_NTESTS; i++)
				printf(" %s", conf_tests[i].name);
			printf("\n");
			return 2;
		}
	}
	if (!any)
		memset(conf_selected, 1, sizeof conf_selected);
	printf("conformance %s: %ld VPs\n", conf_label, conf_vps);
	conf_pkgs[0]->run((int)conf_vps, conf_suite, 0);
}

#endif
