/*
 * timedrace PKG VPS THREADS ROUNDS: timed blocks racing with unblocks,
 * preemptions and warnings. THREADS threads of package PKG on VPS VPs
 * (0: one per CPU) each block ROUNDS times with thread_block_until (a
 * deadline 0.1-0.3 ms away) and unblock a peer after each block, so an
 * unblock meets a peer running, parked, or asleep in the kernel on its
 * timed park. Run with more VPs than CPUs and a short quantum, VPs are
 * preempted and warned in the middle of all that.
 *
 * A thread resumed twice from one block (a stale context run again) is
 * caught: each block records the thread's generation in its own frame,
 * and after the block the thread's generation must still be that one.
 * Prints @result {"name": "timedrace", ...} and exits 0, or says which
 * thread ran a stale frame and exits 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/thread.h>
#include "apppkg.h"

#define MAXT 64

static const struct pkg *P;
static int nvps, nthreads = 8;
static long rounds = 2000;
static struct thread *volatile peer[MAXT];
static volatile uint64_t gen[MAXT];
static volatile long timeouts, wakes;

static void *body(void *arg)
{
	int me = (int)(intptr_t)arg;
	peer[me] = thread_self();
	for (long r = 0; r < rounds; r++) {
		uint64_t g = ++gen[me];
		uint64_t deadline = now_ns() + (uint64_t)(r % 3 + 1) * 100000;
		if (thread_block_until(deadline) == -ETIMEDOUT)
			__atomic_fetch_add(&timeouts, 1, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&wakes, 1, __ATOMIC_RELAXED);
		if (gen[me] != g) {
			printf("timedrace: %s: thread %d ran a stale frame: block of generation %lu "
			       "returned at generation %lu (round %ld)\n", P->name, me,
			       (unsigned long)g, (unsigned long)gen[me], r);
			exit(3);
		}
		struct thread *p = peer[(me + 1 + r % (nthreads - 1)) % nthreads];
		if (p)
			thread_unblock(p);
		if (r % 7 == 0)
			thread_yield();
	}
	return 0;
}

static void *main_fn(void *arg)
{
	struct thread *t[MAXT];
	uint64_t t0 = now_ns();
	for (int i = 0; i < nthreads; i++)
		t[i] = app_create(P, body, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		thread_join(t[i]);
	struct result res;
	result_begin(&res, "timedrace");
	result_str(&res, "package", P->name);
	result_int(&res, "vps", nvps);
	result_int(&res, "threads", nthreads);
	result_int(&res, "rounds", rounds);
	result_int(&res, "timeouts", timeouts);
	result_int(&res, "wakes", wakes);
	result_uint(&res, "ns", now_ns() - t0);
	result_end(&res);
	return arg;
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 3, "timedrace PKG VPS [THREADS [ROUNDS]]");
	nvps = app_vps(argv[2]);
	if (argc > 3)
		nthreads = atoi(argv[3]);
	if (argc > 4)
		rounds = atol(argv[4]);
	if (nthreads < 2 || nthreads > MAXT || rounds < 1) {
		printf("timedrace: THREADS must be 2..%d and ROUNDS positive\n", MAXT);
		return 2;
	}
	P->run(nvps, main_fn, 0);
}
