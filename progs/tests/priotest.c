/*
 * priotest TEST [VPS]: the `prio` package's own tests (harness/tests/
 * test_prio.py). Each prints its log and one
 *     @result {"name": "prio.TEST", "ok": true|false, ...}
 * and exits 0 iff ok.
 *
 *   order    one VP: threads of levels 0..6 created (in scrambled order)
 *            by a level-7 thread run highest first once it blocks
 *   preempt  one VP: a level-0 thread creating a level-5 one is
 *            preempted at once (the new thread has run when create returns)
 *   rr       one VP: three level-3 threads that yield 5 times each run in
 *            strict rotation
 *   starve   VPS VPs [MS]: 8 threads of one level yield for MS (1000) ms
 *            of guest time (100 quanta); none gets 4x another's share. The window
 *            is time, not a count of yields: 400,000 yields were about 45 ms
 *            (4 quanta), and a thread held by a VP preempted unwarned (a
 *            host stall makes the VP miss its warning, then it serves its
 *            probation unwarned, kernel/warn.c) loses a whole quantum, a
 *            quarter of such a window: 14,389 vs 60,153 yields in CI.
 *   share    VPS VPs [MS]: VPS threads of one level compute (never yield)
 *            for MS ms; none gets 4x another's share. With fewer CPUs
 *            than VPs only the kernel's warnings move them: a thread
 *            handed off at a warning must not be the next VP's pick
 *            again (it was, and at -smp 1 one thread got nothing).
 *   latency  VPS VPs: level-0 spinners hold every VP; a level-5 thread
 *            woken from a sleep (wake_ns late) posts a semaphore a level-7
 *            thread waits on, which runs post_ns later while the spinners
 *            still hold the other VPs (user-level preemption through
 *            SYS_vp_signal). Under icount the figures are instructions.
 *   waitq    one VP: threads of levels 2, 0, 5, 1, 4 queue, in that order,
 *            on a mutex, then a condition variable, then a semaphore
 *            (<animart/sync.h>); the mutex's unlock, each signal and each
 *            post must reach the highest level first (prio orders its
 *            waiters: thread_ops.wait_first, <animart/waitq.h>)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/sync.h>
#include <animalib/result.h>
#include <animart/pkg.h>

static const struct pkg *P;
static int nvps = 1;
static int ok = 1;
static char why[160];
static int logv[64], nlog;

static void fail(const char *s)
{
	if (ok)
		snprintf(why, sizeof why, "%s", s);
	ok = 0;
}

static struct thread *spawn(int prio, void *(*fn)(void *), void *arg)
{
	struct thread_attr a = { .prio = prio };
	struct thread *t = P->create(fn, arg, &a);
	if (!t) {
		printf("priotest: cannot create a thread\n");
		exit(3);
	}
	return t;
}

static void put(int v)
{
	logv[__atomic_fetch_add(&nlog, 1, __ATOMIC_RELAXED)] = v;
}

/* ---- order ---- */
static void *rec_prio(void *arg)
{
	(void)arg;
	put(thread_self()->prio);
	return 0;
}

static void t_order(void)
{
	static const int levels[] = { 3, 0, 6, 1, 5, 2, 4 };
	struct thread *h[7];
	thread_self()->prio = THREAD_PRIO_MAX;       /* create them all first */
	for (int i = 0; i < 7; i++)
		h[i] = spawn(levels[i], rec_prio, 0);
	for (int i = 0; i < 7; i++)
		thread_join(h[i]);
	for (int i = 0; i < 7; i++)
		if (nlog != 7 || logv[i] != 6 - i)
			fail("threads did not run highest level first");
}

/* ---- preempt ---- */
static volatile int ran;

static void *set_ran(void *arg)
{
	(void)arg;
	ran = 1;
	return 0;
}

static void t_preempt(void)
{
	thread_self()->prio = 0;
	struct thread *h = spawn(5, set_ran, 0);
	int seen = ran;                                  /* right after create */
	thread_join(h);
	if (!seen)
		fail("a level-5 thread did not preempt its level-0 creator");
}

/* ---- rr ---- */
static void *rr_fn(void *arg)
{
	for (int k = 0; k < 5; k++) {
		put((int)(intptr_t)arg);
		thread_yield();
	}
	return 0;
}

static void t_rr(void)
{
	struct thread *h[3];
	thread_self()->prio = THREAD_PRIO_MAX;
	for (int i = 0; i < 3; i++)
		h[i] = spawn(3, rr_fn, (void *)(intptr_t)i);
	for (int i = 0; i < 3; i++)
		thread_join(h[i]);
	for (int i = 0; i < 15; i++)
		if (nlog != 15 || logv[i] != i % 3)
			fail("threads of one level did not take strict turns");
}

/* ---- starve ---- */
#define SV_N 8
static long sv_ms = 1000;            /* 100 quanta of the default 10 ms (argument MS) */
static long sv_count[SV_N];
static volatile int sv_go;
static volatile uint64_t sv_end;
static long sv_min, sv_max;

static void *sv_fn(void *arg)
{
	while (!sv_go)
		thread_yield();
	long n = 0;
	while (now_ns() < sv_end) {
		n++;
		thread_yield();
	}
	sv_count[(intptr_t)arg] = n;
	return 0;
}

static void t_starve(void)
{
	struct thread *h[SV_N];
	thread_self()->prio = THREAD_PRIO_MAX;
	for (int i = 0; i < SV_N; i++)
		h[i] = spawn(2, sv_fn, (void *)(intptr_t)i);
	thread_self()->prio = 2;
	sv_end = now_ns() + (uint64_t)sv_ms * 1000000UL;
	sv_go = 1;
	for (int i = 0; i < SV_N; i++)
		thread_join(h[i]);
	long min = __LONG_MAX__, max = 0;
	for (int i = 0; i < SV_N; i++) {
		min = sv_count[i] < min ? sv_count[i] : min;
		max = sv_count[i] > max ? sv_count[i] : max;
		put((int)sv_count[i]);
	}
	sv_min = min, sv_max = max;
	if (!(min > 0 && max <= 4 * min))
		fail("a thread of the level starved (over 4x apart)");
}

/* ---- share ---- */
static void *sh_fn(void *arg)
{
	while (!sv_go)
		thread_yield();
	long n = 0;
	for (;; n++) {
		__asm__ volatile("" ::: "memory");
		if (!(n & 1023) && now_ns() >= sv_end)
			break;
	}
	sv_count[(intptr_t)arg] = n;
	return 0;
}

static void t_share(void)
{
	struct thread *h[SV_N];
	int n = nvps < SV_N ? nvps : SV_N;
	thread_self()->prio = THREAD_PRIO_MAX;
	for (int i = 0; i < n; i++)
		h[i] = spawn(2, sh_fn, (void *)(intptr_t)i);
	sv_end = now_ns() + (uint64_t)sv_ms * 1000000UL;
	sv_go = 1;
	for (int i = 0; i < n; i++)
		thread_join(h[i]);
	long min = __LONG_MAX__, max = 0;
	for (int i = 0; i < n; i++) {
		min = sv_count[i] < min ? sv_count[i] : min;
		max = sv_count[i] > max ? sv_count[i] : max;
		put((int)(sv_count[i] >> 10));
	}
	sv_min = min, sv_max = max;
	if (!(min > 0 && max <= 4 * min))
		fail("a computing thread of the level starved (over 4x apart)");
}

/* ---- latency ---- */
#define SLEEP_NS 2000000
static volatile int spin_stop, spinning;
static volatile uint64_t woke_ns, post_ns, posted_at;
static volatile int held;             /* spinners holding VPs when the waiter ran */
static int held_vps;                 /* VPs the spinners held at the post */
static struct sem sm;

static struct vp_page *volatile spin_vp[16];   /* the VP each spinner is on */

static void *spinner(void *arg)
{
	int me = (int)(long)arg;
	__atomic_fetch_add(&spinning, 1, __ATOMIC_RELAXED);
	for (long i = 0; !spin_stop && i < 400000000; i++)
		spin_vp[me] = thread_self()->vpp;       /* never yields */
	__atomic_fetch_sub(&spinning, 1, __ATOMIC_RELAXED);
	return 0;
}

/* How many VPs the spinners hold. Spinning threads are not enough: two
   level-0 spinners time-slice on one VP (prio's slices) while the other
   VP has not even started (-smp 1: it waits for the CPU), and the post
   then preempted the poster's own VP instead of a spinner's. */
static int vps_held(void)
{
	int n = 0;
	for (int i = 0; i < nvps; i++) {
		struct vp_page *v = spin_vp[i];
		int seen = !v;
		for (int j = 0; j < i && !seen; j++)
			seen = spin_vp[j] == v;
		n += !seen;
	}
	return n;
}

/* Level 5: woken by the kernel while spinners hold every VP, then posts. */
static void *poster(void *arg)
{
	(void)arg;
	/* First the spinners must hold every VP: on a starved host a single
	   2 ms sleep could end before they had even started. */
	while (spinning < nvps || vps_held() < nvps)
		sys_sleep(SLEEP_NS);
	uint64_t due = now_ns() + SLEEP_NS;
	sys_sleep(SLEEP_NS);
	held_vps = vps_held();
	posted_at = now_ns();
	woke_ns = posted_at - due;
	usem_post(&sm);
	return 0;
}

/* Level 7: woken by the level-5 poster. */
static void *waiter(void *arg)
{
	(void)arg;
	usem_wait(&sm);
	post_ns = now_ns() - posted_at;
	held = spinning;
	spin_stop = 1;
	return 0;
}

static void t_latency(void)
{
	struct thread *s[16], *w, *p;
	thread_self()->prio = THREAD_PRIO_MAX;
	usem_init(&sm, 0);
	w = spawn(7, waiter, 0);
	p = spawn(5, poster, 0);
	thread_yield();                          /* both start, and wait */
	for (int i = 0; i < nvps; i++)
		s[i] = spawn(0, spinner, (void *)(long)i);
	thread_self()->prio = 0;                 /* the spinners have the VPs */
	thread_join(w);
	thread_join(p);
	for (int i = 0; i < nvps; i++)
		thread_join(s[i]);
	/* Spinners stop only when the waiter tells them (or after 4e8 turns):
	   none left spinning means it ran only once they had given up. */
	if (held == 0)
		fail("the level-7 thread ran only once the spinners were done");
}

/* ---- waitq ---- */
#define WQ_N 5
static const int wq_levels[WQ_N] = { 2, 0, 5, 1, 4 };
static struct mutex wq_m;
static struct cond wq_c;
static struct sem wq_s;
static int wq_kind;                   /* 0 mutex, 1 condition, 2 semaphore */

/* The main thread (level 7) sleeps a while: the one VP runs the rest. */
static void nap(void)
{
	uint64_t until = now_ns() + 2000000;
	while (now_ns() < until)
		thread_block_until(until);
}

static void *wq_fn(void *arg)
{
	(void)arg;
	if (wq_kind == 0) {
		umutex_lock(&wq_m);
		put(thread_self()->prio);
		umutex_unlock(&wq_m);
	} else if (wq_kind == 1) {
		umutex_lock(&wq_m);
		ucond_wait(&wq_c, &wq_m);
		put(thread_self()->prio);
		umutex_unlock(&wq_m);
	} else {
		usem_wait(&wq_s);
		put(thread_self()->prio);
	}
	return 0;
}

static void t_waitq(void)
{
	struct thread *h[WQ_N];
	thread_self()->prio = THREAD_PRIO_MAX;
	usem_init(&wq_s, 0);
	for (wq_kind = 0; wq_kind < 3; wq_kind++) {
		int from = nlog;
		if (wq_kind == 0)
			umutex_lock(&wq_m);
		for (int i = 0; i < WQ_N; i++) {     /* each queues before the next is made */
			h[i] = spawn(wq_levels[i], wq_fn, 0);
			nap();
		}
		if (wq_kind == 0)
			umutex_unlock(&wq_m);        /* handed down the queue */
		for (int i = 0; wq_kind && i < WQ_N; i++) {
			if (wq_kind == 1) {
				umutex_lock(&wq_m);
				ucond_signal(&wq_c);
				umutex_unlock(&wq_m);
			} else
				usem_post(&wq_s);
			nap();                       /* the woken one logs */
		}
		for (int i = 0; i < WQ_N; i++)
			thread_join(h[i]);
		static const int want[WQ_N] = { 5, 4, 2, 1, 0 };
		for (int i = 0; i < WQ_N; i++)
			if (nlog != from + WQ_N || logv[from + i] != want[i])
				fail(wq_kind == 0 ? "a mutex did not go to its highest waiter first" :
				     wq_kind == 1 ? "a signal did not wake the highest waiter first" :
				     "a post did not wake the highest waiter first");
	}
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "order", t_order }, { "preempt", t_preempt }, { "rr", t_rr },
	{ "starve", t_starve }, { "share", t_share }, { "latency", t_latency },
	{ "waitq", t_waitq },
};
static int which;

static void *main_fn(void *arg)
{
	(void)arg;
	tests[which].fn();
	char name[32];
	snprintf(name, sizeof name, "prio.%s", tests[which].name);
	printf("%s: log", name);
	for (int i = 0; i < nlog; i++)
		printf(" %d", logv[i]);
	printf("\n");
	struct result r;
	result_begin(&r, name);
	result_bool(&r, "ok", ok);
	if (!ok)
		result_str(&r, "why", why);
	result_int(&r, "vps", nvps);
	if (!strcmp(tests[which].name, "starve") || !strcmp(tests[which].name, "share")) {
		result_int(&r, "min", sv_min);
		result_int(&r, "max", sv_max);
	}
	if (!strcmp(tests[which].name, "latency")) {
		result_str(&r, "package", "prio");
		result_str(&r, "unit", "ns");            /* under icount: instructions */
		result_uint(&r, "value", post_ns);
		result_uint(&r, "wake_ns", woke_ns);
		result_uint(&r, "post_ns", post_ns);
		result_int(&r, "spinners_holding", held);
		result_int(&r, "vps_held", held_vps);
	}
	result_end(&r);
	return (void *)(intptr_t)!ok;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: priotest order|preempt|rr|starve|share|latency|waitq [VPS] [MS]\n");
		return 2;
	}
	unsigned n = sizeof tests / sizeof tests[0];
	for (which = 0; which < (int)n && strcmp(tests[which].name, argv[1]); which++)
		;
	if (which == (int)n) {
		printf("priotest: no test '%s'\n", argv[1]);
		return 2;
	}
	if (argc > 2)
		nvps = atoi(argv[2]);
	if (nvps < 1 || nvps > 16)
		nvps = 1;
	if (argc > 3 && atol(argv[3]) > 0)
		sv_ms = atol(argv[3]);
	P = pkg_find("prio");
	P->run(nvps, main_fn, 0);
}
