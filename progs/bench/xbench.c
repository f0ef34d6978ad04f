/*
 * xbench PKG [wall]: the cost of synchronizing across spaces, beside the
 * same operations inside one space, all with PKG's threads on one VP per
 * space. Run it under `-icount shift=0` at -smp 1, where rdtsc counts
 * guest instructions (kernel and both spaces included); `wall` reports
 * host ns instead. Figures (@result, unit per operation):
 *
 *   <pkg>.usem_signal_wait          <animart/sync.h>'s usem ping-pong between two
 *                                   threads of one space (as pkgbench)
 *   same.<pkg>.signal_wait          <animart/xsync.h>'s xsem ping-pong, one space
 *   xspace.<pkg>.signal_wait        the same, one thread in each of two spaces
 *   same.<pkg>.mutex_handoff        an xmutex passed back and forth by an
 *   xspace.<pkg>.mutex_handoff      xcond turn, one space / two spaces
 *
 * A signal-wait is half a round trip (post, then the other side's wait
 * returns); a hand-off is one unlock-to-lock passage of the mutex.
 *
 * naive runs on 2 VPs in the measuring space: its VPs are classic, so a
 * thread waiting in the kernel holds its VP, and one VP would deadlock
 * the same-space figures (its other thread could never run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/seg.h>
#include <animart/sync.h>
#include <animart/xsync.h>
#include <errno.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include "apppkg.h"

#define BATCH 200
#define RUNS 5

struct shared {
	struct xsem ping, pong;
	struct xmutex m;
	struct xcond c;
	int turn;
	long rounds;
};

static struct shared *S;
static const struct pkg *P;
static int wall;
static long handle;
static struct sem uping, upong;

static double per_op(uint64_t ticks, long ops)
{
	double t = (double)ticks / ops;
	if (wall)
		t = t * 1e9 / (double)sys_getinfo(INFO_TSC_HZ);
	return t;
}

static void report(const char *name, uint64_t best, long ops)
{
	struct result r;
	result_begin(&r, name);
	result_double(&r, "value", per_op(best, ops));
	result_str(&r, "unit", wall ? "ns" : "instructions");
	result_str(&r, "package", P->name);
	result_end(&r);
}

/* The other side of each benchmark: runs `rounds` of it. */
static void side_sem(long rounds)
{
	for (long i = 0; i < rounds; i++) {
		xsem_wait(&S->ping);
		xsem_post(&S->pong);
	}
}

static void side_mutex(long rounds)
{
	for (long i = 0; i < rounds; i++) {
		xmutex_lock(&S->m);
		while (S->turn != 1)
			xcond_wait(&S->c, &S->m);
		S->turn = 0;
		xcond_signal(&S->c);
		xmutex_unlock(&S->m);
	}
}

static void *usem_side(void *arg)
{
	for (long i = 0; i < (long)arg; i++) {
		usem_wait(&uping);
		usem_post(&upong);
	}
	return 0;
}

static void *sem_side(void *arg)
{
	side_sem((long)arg);
	return 0;
}

static void *mutex_side(void *arg)
{
	side_mutex((long)arg);
	return 0;
}

#define ROUNDS (RUNS * BATCH + 1)

static uint64_t time_sem(void)
{
	uint64_t best = ~0UL;
	xsem_post(&S->ping);             /* one warm-up round */
	xsem_wait(&S->pong);
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++) {
			xsem_post(&S->ping);
			xsem_wait(&S->pong);
		}
		uint64_t t = rdtsc() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static void handoff(void)
{
	xmutex_lock(&S->m);
	while (S->turn != 0)
		xcond_wait(&S->c, &S->m);
	S->turn = 1;
	xcond_signal(&S->c);
	xmutex_unlock(&S->m);
}

static uint64_t time_mutex(void)
{
	uint64_t best = ~0UL;
	handoff();
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++)
			handoff();
		uint64_t t = rdtsc() - t0;
		if (t < best)
			best = t;
	}
	return best;
}

static long spawn_side(const char *what)
{
	char nb[16];
	snprintf(nb, sizeof nb, "%d", ROUNDS);
	const char *argv[] = { "xbench", P->name, what, nb };
	long id = sys_spawn_caps("xbench", 4, argv, &handle, 1);
	if (id < 0) {
		printf("xbench: spawn: %s\n", errname((int)id));
		exit(3);
	}
	return id;
}

static void reset(void)
{
	memset(S, 0, sizeof *S);
}

static void *bench_main(void *arg)
{
	(void)arg;
	char name[64];
	uint64_t best = ~0UL;

	/* <animart/sync.h>, one space (the reference pkgbench measures) */
	usem_init(&uping, 0);
	usem_init(&upong, 0);
	struct thread *t = P->create(usem_side, (void *)(long)ROUNDS, 0);
	usem_post(&uping);
	usem_wait(&upong);
	for (int r = 0; r < RUNS; r++) {
		uint64_t t0 = rdtsc();
		for (int i = 0; i < BATCH; i++) {
			usem_post(&uping);
			usem_wait(&upong);
		}
		uint64_t d = rdtsc() - t0;
		if (d < best)
			best = d;
	}
	thread_join(t);
	snprintf(name, sizeof name, "%s.usem_signal_wait", P->name);
	report(name, best, 2 * BATCH);

	reset();
	t = P->create(sem_side, (void *)(long)ROUNDS, 0);
	best = time_sem();
	thread_join(t);
	snprintf(name, sizeof name, "same.%s.signal_wait", P->name);
	report(name, best, 2 * BATCH);

	reset();
	long id = spawn_side("sem");
	best = time_sem();
	sys_wait((int)id, 0);
	snprintf(name, sizeof name, "xspace.%s.signal_wait", P->name);
	report(name, best, 2 * BATCH);

	reset();
	t = P->create(mutex_side, (void *)(long)ROUNDS, 0);
	best = time_mutex();
	thread_join(t);
	snprintf(name, sizeof name, "same.%s.mutex_handoff", P->name);
	report(name, best, 2 * BATCH);

	reset();
	id = spawn_side("mutex");
	best = time_mutex();
	sys_wait((int)id, 0);
	snprintf(name, sizeof name, "xspace.%s.mutex_handoff", P->name);
	report(name, best, 2 * BATCH);
	return 0;
}

static long side_rounds;
static void *child_main(void *arg)
{
	if (arg)
		side_mutex(side_rounds);
	else
		side_sem(side_rounds);
	return 0;
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 2, "xbench PKG [wall]");
	if (argc == 4) {                 /* the other side: xbench PKG sem|mutex ROUNDS */
		long a = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
		if (sys_failed(a))
			return 4;
		S = (struct shared *)a;
		side_rounds = atol(argv[3]);
		P->run(1, child_main, (void *)(long)!strcmp(argv[2], "mutex"));
	}
	wall = argc > 2 && !strcmp(argv[2], "wall");
	handle = seg_create(sizeof(struct shared));
	long a = handle < 0 ? handle : seg_map(handle, PROT_READ | PROT_WRITE);
	if (sys_failed(a)) {
		printf("xbench: segment: %s\n", errname((int)a));
		return 3;
	}
	S = (struct shared *)a;
	P->run(!strcmp(P->name, "naive") ? 2 : 1, bench_main, 0);
}
