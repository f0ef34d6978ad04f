/*
 * psort PKG NKEYS THREADS VPS [GRAIN] [REPS]: parallel sort of 32-bit keys
 * (Psyche's application table: 44.3 s with kernel-level threads, 27.1 s
 * with user-level threads, SOSP '91).
 *
 *   PKG      thread package: fifo, kthread (or naive, once built)
 *   NKEYS    keys to sort (the table uses 1048576 = 2^20)
 *   THREADS  the most sorter threads alive (created and not yet
 *            joined) at once (kthread: at most ~250, one VP each)
 *   VPS      virtual processors for the package, 0 = one per CPU
 *            (kthread ignores it: each of its threads is a VP)
 *   GRAIN    segments of at most this many keys are sorted sequentially;
 *            larger ones are split (default 1024)
 *   REPS     sorts to time, each of a fresh copy of the keys (default 1)
 *
 * Quicksort with a thread per segment — the fine-grained parallelism
 * that cheap threads make affordable. A sorter thread splits its segment
 * (median of three, Hoare partition), puts the larger half in a shared
 * pool and goes on with the smaller, until its segment has at most GRAIN
 * keys; it sorts that, adds it to the count of keys in place, puts itself
 * on a list of finished sorters, and exits. The first thread dispatches:
 * it waits on a condition variable, joins finished sorters, and creates a
 * new sorter for each pooled segment while fewer than THREADS are alive.
 * Pool, list and counts are guarded by one mutex, and every push and
 * finish signals the condition. So a sort creates, runs, exits and joins
 * about 2 NKEYS/GRAIN threads, each with a few mutex round trips and
 * condition signals, and the dispatcher blocks and is woken over and over:
 * those package costs recur every few hundred thousand instructions of
 * sorting, a larger share with a finer GRAIN.
 *
 * The keys are pseudo-random (fixed seed). The time is the sort only,
 * summed over REPS, read with now_ns() (guest ns: instructions under
 * -icount, else TCG wall clock). The last sort is checked: nondecreasing,
 * and the same multiset as the input (sum, and sum of a 64-bit hash of
 * every key, mod 2^64).
 *
 * Output, one line:
 *   @result {"name": "sort.PKG", "package": PKG, "unit": "seconds",
 *            "value": S, "seconds": S, "keys", "threads", "vps", "grain",
 *            "reps", "created", "joins_waited", "ok": true|false,
 *            "sorted": bool, "permutation": bool, "ncpu"}
 * ("created": sorters created in the last sort; "joins_waited": joins
 * that found the sorter still leaving, so the first thread blocked.) Exit
 * status 0 iff ok (1 check failed, 2 bad arguments, 3 a thread could not
 * be created).
 *
 * Default (the application table), PKG fifo, kthread or naive:
 *   python3 -m harness run psort PKG 1048576 32 0 --smp 1 [--icount]
 *   python3 -m harness run psort PKG 1048576 32 0 --smp 2
 * The sort takes 0.15-0.5 s under TCG (204 M instructions under -icount)
 * — except kthread at -smp 2, where 1-12 s have been seen. A finer GRAIN
 * (256) makes the package costs a larger share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/sync.h>
#include <animart/clock.h>
#include <animalib/rng.h>
#include <animalib/result.h>
#include "apppkg.h"

static const struct pkg *P;
static long nkeys, grain;
static int nthreads, nvps, reps;
static uint32_t *orig, *keys;

struct seg {
	uint32_t lo, hi;                /* keys [lo, hi) */
};

/* Shared state, guarded by m. */
static struct mutex m;
static struct cond ev;              /* for the first thread: a segment or a
				       finished sorter to deal with */
static struct seg *pool;            /* segments waiting for a sorter */
static long npool, cap;
static int live;                    /* sorters created and not yet joined */
static long placed;                 /* keys sorted into their final place */
static struct thread **finished;    /* sorters that are done, to be joined */
static long nfinished, created, joins_waited;

/* Sort a[0..n) in place: quicksort, insertion sort below 16 keys. */
static void seq_sort(uint32_t *a, long n)
{
	while (n > 16) {
		uint32_t p = a[n / 2];
		long i = 0, j = n - 1;
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				uint32_t t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		/* recurse into the smaller part, loop on the larger */
		if (j + 1 < n - i) {
			seq_sort(a, j + 1);
			a += i, n -= i;
		} else {
			seq_sort(a + i, n - i);
			n = j + 1;
		}
	}
	for (long i = 1; i < n; i++) {
		uint32_t v = a[i];
		long j = i;
		for (; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

static void swap(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;
	*a = *b;
	*b = t;
}

/* Split [lo, hi) (at least 3 keys) into [lo, j] <= [j+1, hi), both
   nonempty: the median of three goes to a[lo] as the pivot, then Hoare's
   scheme (which with the pivot at the low end returns lo <= j < hi-1). */
static long partition(uint32_t *a, long lo, long hi)
{
	long mid = lo + (hi - lo) / 2, last = hi - 1;
	if (a[mid] < a[lo])
		swap(&a[mid], &a[lo]);
	if (a[last] < a[lo])
		swap(&a[last], &a[lo]);
	if (a[last] < a[mid])
		swap(&a[last], &a[mid]);
	swap(&a[lo], &a[mid]);              /* the median is the pivot */
	uint32_t p = a[lo];
	long i = lo - 1, j = hi;
	for (;;) {
		do
			i++;
		while (a[i] < p);
		do
			j--;
		while (a[j] > p);
		if (i >= j)
			return j;
		swap(&a[i], &a[j]);
	}
}

/* Add [lo, hi) to the pool (m held). */
static void pool_push(long lo, long hi)
{
	if (npool == cap) {
		struct seg *g = realloc(pool, sizeof *g * (size_t)cap * 2);
		if (!g) {
			printf("psort: out of memory for the pool\n");
			exit(1);
		}
		pool = g;
		cap *= 2;
	}
	pool[npool++] = (struct seg){ (uint32_t)lo, (uint32_t)hi };
}

/* A sorter: split its segment, handing the larger half to the pool,
   until at most GRAIN keys are left; sort those; then put itself on the
   finished list for the first thread to join. */
static void *sorter(void *arg)
{
	uint64_t a = (uintptr_t)arg;
	long lo = (long)(a >> 32), hi = (long)(a & 0xffffffffu);
	while (hi - lo > grain) {
		long j = partition(keys, lo, hi) + 1;
		umutex_lock(&m);
		if (j - lo > hi - j) {
			pool_push(lo, j);
			lo = j;
		} else {
			pool_push(j, hi);
			hi = j;
		}
		ucond_signal(&ev);
		umutex_unlock(&m);
	}
	seq_sort(keys + lo, hi - lo);
	umutex_lock(&m);
	placed += hi - lo;
	finished[nfinished++] = thread_self();   /* nfinished <= live <= THREADS */
	ucond_signal(&ev);
	umutex_unlock(&m);
	return 0;
}

/* The first thread: give every pooled segment a new sorter while fewer
   than THREADS are alive, and join the finished ones, until every key
   is placed and every sorter joined. */
static void dispatch(struct thread **batch, struct seg *todo)
{
	for (;;) {
		umutex_lock(&m);
		while (!nfinished && !(npool && live < nthreads) && !(placed == nkeys && !live))
			ucond_wait(&ev, &m);
		if (!nfinished && !npool && !live) {
			umutex_unlock(&m);
			return;
		}
		int nb = 0, nt = 0;
		while (nfinished)
			batch[nb++] = finished[--nfinished];
		while (npool && live < nthreads) {
			todo[nt++] = pool[--npool];
			live++;
		}
		umutex_unlock(&m);
		for (int i = 0; i < nb; i++) {
			if (!__atomic_load_n(&batch[i]->join, __ATOMIC_ACQUIRE))
				joins_waited++;      /* still leaving: the join blocks */
			thread_join(batch[i]);
		}
		for (int i = 0; i < nt; i++)
			app_create(P, sorter, (void *)(uintptr_t)((uint64_t)todo[i].lo << 32 | todo[i].hi));
		created += nt;
		umutex_lock(&m);
		live -= nb;
		umutex_unlock(&m);
	}
}

static uint64_t mix(uint64_t x)
{
	return rand64(&x);              /* splitmix64 of x: a good 64-bit hash */
}

/* The multiset fingerprint of a[0..n): (sum, sum of hashes) mod 2^64. */
static void fingerprint(const uint32_t *a, long n, uint64_t f[2])
{
	f[0] = f[1] = 0;
	for (long i = 0; i < n; i++) {
		f[0] += a[i];
		f[1] += mix(a[i]);
	}
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread **batch = malloc(sizeof *batch * (size_t)nthreads);
	struct seg *todo = malloc(sizeof *todo * (size_t)nthreads);
	cap = 64;
	pool = malloc(sizeof *pool * (size_t)cap);
	if (!batch || !todo || !pool) {
		printf("psort: out of memory\n");
		return (void *)1;
	}
	uint64_t total = 0;
	for (int r = 0; r < reps; r++) {
		memcpy(keys, orig, sizeof *keys * (size_t)nkeys);
		placed = created = joins_waited = 0;
		npool = 0;
		pool_push(0, nkeys);
		uint64_t t0 = now_ns();
		dispatch(batch, todo);
		total += now_ns() - t0;
	}

	int sorted = 1;
	for (long i = 1; i < nkeys && sorted; i++)
		sorted = keys[i - 1] <= keys[i];
	uint64_t f0[2], f1[2];
	fingerprint(orig, nkeys, f0);
	fingerprint(keys, nkeys, f1);
	int perm = f0[0] == f1[0] && f0[1] == f1[1];
	int ok = sorted && perm && live == 0 && placed == nkeys;

	char name[48];
	snprintf(name, sizeof name, "sort.%s", P->name);
	struct result rr;
	app_result_begin(&rr, name, P, total);
	result_int(&rr, "keys", nkeys);
	result_int(&rr, "threads", nthreads);
	result_int(&rr, "vps", nvps);
	result_int(&rr, "grain", grain);
	result_int(&rr, "reps", reps);
	result_int(&rr, "created", created);
	result_int(&rr, "joins_waited", joins_waited);
	result_bool(&rr, "ok", ok);
	result_bool(&rr, "sorted", sorted);
	result_bool(&rr, "permutation", perm);
	result_int(&rr, "ncpu", sys_getinfo(INFO_NCPU));
	result_end(&rr);
	return (void *)(intptr_t)(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 5, "psort PKG NKEYS THREADS VPS [GRAIN] [REPS]");
	nkeys = atol(argv[2]);
	nthreads = atoi(argv[3]);
	nvps = app_vps(argv[4]);
	grain = argc > 5 ? atol(argv[5]) : 1024;
	reps = argc > 6 ? atoi(argv[6]) : 1;
	if (nkeys < 1 || nkeys > 0x7fffffffL || nthreads < 1 || grain < 16 || reps < 1) {
		printf("psort: bad arguments (THREADS >= 1, GRAIN >= 16, 1 <= NKEYS < 2^31)\n");
		return 2;
	}
	orig = malloc(sizeof *orig * (size_t)nkeys);
	keys = malloc(sizeof *keys * (size_t)nkeys);
	finished = malloc(sizeof *finished * (size_t)nthreads);
	if (!orig || !keys || !finished) {
		printf("psort: out of memory\n");
		return 1;
	}
	uint64_t seed = 271828;
	for (long i = 0; i < nkeys; i++)
		orig[i] = (uint32_t)(rand64(&seed) >> 32);
	P->run(nvps, main_fn, 0);
}
