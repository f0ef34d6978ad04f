/*
 * aslimitvp N K: a program that lowers RLIMIT_AS keeps every VP of its
 * runtime. A VP's own memory (its record, its scheduler or upcall
 * stack) is taken when the VP is made, not when its CPU first runs it:
 * before, a VP that first ran after main had lowered the limit found
 * malloc refused and ended the program ("out of memory for VP 1", exit
 * 70; test_aslimit[naive-2] on a loaded host). Phases:
 *   start   main's first act: the soft limit to one page, below what is
 *           mapped already (every counted map refused), and the heap
 *           filled (mallocs of each size to 4 KiB until refused: what
 *           malloc's slabs had left); then it waits
 *           until the N VPs the package was started on (vps=N) have all
 *           joined it (each VP's page names the package once it has),
 *           sleeping 1 ms a poll, at most 20000 polls; the heap freed
 *   create  the limit lifted, K threads made, and the limit lowered
 *           again before they could run; each runs and is joined (det's
 *           parallel phase makes a VP for each: those first run under
 *           the limit)
 * The more VPs (vps=N), the later the last ones first run: under
 * -icount, before, VP 1 or a later one first ran under the limit at
 * -smp 1 and 2 on naive, fifo, prio and tutor with N=16, and det=par's
 * VP 1 in the create phase ("out of memory for VP 1", exit 70). At -smp
 * 2 main also ran on VP 1 while VP 0 was still making VPs 2..: main now
 * comes after them (rt_run). N=0 where the runtime makes no VPs
 * (kthread: a kernel VP per thread).
 */
#define CHECK_NAME "aslimitvp"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <animart/upcall.h>
#include <check.h>

#define MAXK 16

static int ran[MAXK];

static int set_soft(rlim_t cur)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_AS, &rl) || (rl.rlim_cur = cur, setrlimit(RLIMIT_AS, &rl));
}

/* How many of VPs 0..n-1 have joined the package (their pages are
   mapped from their making: vp_create). */
static int joined(int n)
{
	int k = 0;
	for (int i = 0; i < n; i++)
		k += vp_page((unsigned)i)->user_data[VPP_PKG] != 0;
	return k;
}

/* Mallocs of each size up to 4 KiB until refused, linked through
   their first word; their count. */
static long fill(void **list)
{
	long n = 0;
	for (size_t s = 16; s <= 4096; s += 16) {
		void **b;
		while ((b = malloc(s))) {
			*b = *list;
			*list = b;
			n++;
		}
	}
	return n;
}

static void *one(void *arg)
{
	ran[(intptr_t)arg] = 1;
	return arg;
}

int main(int argc, char **argv)
{
	CHECK(set_soft(4096) == 0);      /* the first act: below what is mapped */
	int n = argc > 1 ? atoi(argv[1]) : 1, k = argc > 2 ? atoi(argv[2]) : 2;
	CHECK(n >= 0 && n <= MAXVP && k >= 0 && k <= MAXK);
	void *heap = 0;
	long filled = fill(&heap);
	int polls = 0;
	struct timespec ms = { 0, 1000000 };
	while (joined(n) < n && polls < 20000) {
		nanosleep(&ms, 0);
		polls++;
	}
	int nj = joined(n);
	CHECK(nj == n);
	CHECK(malloc(4096) == 0);        /* the limit held meanwhile */
	while (heap) {
		void **b = heap;
		heap = *b;
		free(b);
	}
	/* create */
	CHECK(set_soft(RLIM_INFINITY) == 0);
	pthread_t t[MAXK];
	int made = 0;
	for (int i = 0; i < k; i++)
		made += pthread_create(&t[i], 0, one, (void *)(intptr_t)i) == 0;
	CHECK(set_soft(4096) == 0);
	CHECK(made == k);
	for (int i = 0; i < made; i++) {
		void *r = 0;
		CHECK(pthread_join(t[i], &r) == 0 && r == (void *)(intptr_t)i && ran[i]);
	}
	CHECK(set_soft(RLIM_INFINITY) == 0);
	struct result r;
	result_begin(&r, "aslimitvp");
	result_str(&r, "pkg", posix_pkg->name);
	result_int(&r, "vps", nj);
	result_int(&r, "polls", polls);
	result_int(&r, "filled", filled);
	result_int(&r, "threads", made);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
