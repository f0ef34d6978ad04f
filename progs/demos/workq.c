/*
 * workq [PKGA PKGB [JOBS]]: two spaces share a work queue.
 *
 *   python3 -m harness run workq fifo naive 8 --smp 2
 *
 * The first space (package PKGA, default fifo) creates a shared segment,
 * puts a job queue in it -- a ring, an xmutex and two xconds from
 * <animart/xsync.h> -- and spawns the second space (PKGB, default naive), handing
 * it the segment's handle. The segment is mapped at the same address in
 * both, so the queue's pointers and the sync objects mean the same in
 * each. Two PKGA threads hand out jobs; two PKGB threads in the other
 * space take them, compute, and hand the answers back through a second
 * queue; every step prints who handed what to whom.
 *
 * Different packages, different spaces, one set of sync objects: a
 * waiter sleeps on a futex keyed by (segment, offset), and the kernel
 * routes the wake-up to the waiter's own space, where its own package
 * resumes it (docs/thread-interface.md, "Across spaces").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/xsync.h>
#include <animart/pkg.h>
#include <animart/thread.h>
#include "apppkg.h"

#define SLOTS 4

struct job {
	int id, arg;
	long answer;
	int from_space, from_thread;     /* who handed it over */
	char from_pkg[8];
};

struct queue {
	struct xmutex m;
	struct xcond nonempty, nonfull;
	int head, tail, count, closed;
	struct job slot[SLOTS];
};

struct shared {
	struct queue jobs, answers;
	int njobs;
};

static struct shared *S;
static const struct pkg *P;

static void put(struct queue *q, const struct job *j)
{
	xmutex_lock(&q->m);
	while (q->count == SLOTS)
		xcond_wait(&q->nonfull, &q->m);
	q->slot[q->tail++ % SLOTS] = *j;
	q->count++;
	xcond_signal(&q->nonempty);
	xmutex_unlock(&q->m);
}

/* 1 and the next job, or 0 once the queue is closed and empty. */
static int get(struct queue *q, struct job *j)
{
	xmutex_lock(&q->m);
	while (!q->count && !q->closed)
		xcond_wait(&q->nonempty, &q->m);
	int ok = q->count > 0;
	if (ok) {
		*j = q->slot[q->head++ % SLOTS];
		q->count--;
		xcond_signal(&q->nonfull);
	}
	xmutex_unlock(&q->m);
	return ok;
}

static void close_queue(struct queue *q)
{
	xmutex_lock(&q->m);
	q->closed = 1;
	xcond_broadcast(&q->nonempty);
	xmutex_unlock(&q->m);
}

static void sign(struct job *j)
{
	j->from_space = xspace_id();
	j->from_thread = (int)thread_self()->id;
	snprintf(j->from_pkg, sizeof j->from_pkg, "%s", P->name);
}

static long fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* ---- the first space: hands out jobs, collects answers ---- */

static volatile int next_job;

static void *boss(void *arg)
{
	(void)arg;
	int id;
	while ((id = __atomic_fetch_add(&next_job, 1, __ATOMIC_RELAXED)) < S->njobs) {
		struct job j = { .id = id, .arg = 10 + id % 12 };
		sign(&j);
		printf("space %d %s thread %d: hands job %d (fib %d) to the queue\n",
		       j.from_space, P->name, j.from_thread, j.id, j.arg);
		put(&S->jobs, &j);
	}
	return 0;
}

static void *first_main(void *arg)
{
	long child = (long)arg;
	struct thread *t[2];
	for (int i = 0; i < 2; i++)
		t[i] = P->create(boss, 0, 0);
	for (int i = 0; i < 2; i++)
		thread_join(t[i]);
	close_queue(&S->jobs);
	struct job a;
	int n = 0;
	while (get(&S->answers, &a)) {
		printf("space %d %s thread %d: got the answer to job %d from space %d %s thread %d: %ld\n",
		       xspace_id(), P->name, (int)thread_self()->id, a.id, a.from_space, a.from_pkg,
		       a.from_thread, a.answer);
		n++;
	}
	int st = -2;
	sys_wait((int)child, &st);
	printf("workq: %d of %d jobs answered; the other space ended with status %d\n", n, S->njobs, st);
	return (void *)(long)(n == S->njobs && st == 0 ? 0 : 1);
}

/* ---- the second space: does the work ---- */

static volatile int workers_left = 2;

static void *worker(void *arg)
{
	(void)arg;
	struct job j;
	while (get(&S->jobs, &j)) {
		int me = (int)thread_self()->id;
		printf("space %d %s thread %d: took job %d from space %d %s thread %d\n",
		       xspace_id(), P->name, me, j.id, j.from_space, j.from_pkg, j.from_thread);
		j.answer = fib(j.arg);
		sign(&j);
		put(&S->answers, &j);
	}
	if (__atomic_sub_fetch(&workers_left, 1, __ATOMIC_ACQ_REL) == 0)
		close_queue(&S->answers);
	return 0;
}

static void *second_main(void *arg)
{
	(void)arg;
	struct thread *t[2];
	for (int i = 0; i < 2; i++)
		t[i] = P->create(worker, 0, 0);
	for (int i = 0; i < 2; i++)
		thread_join(t[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *a = argc > 1 ? argv[1] : "fifo", *b = argc > 2 ? argv[2] : "naive";
	if (argc > 3 && !strcmp(argv[3], "worker")) {    /* the second space */
		P = app_pkg(a);
		long m = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
		if (sys_failed(m))
			return 4;
		S = (struct shared *)m;
		P->run(2, second_main, 0);
	}
	P = app_pkg(a);
	app_pkg(b);
	long h;
	S = app_seg("workq", sizeof *S, &h);
	S->njobs = argc > 3 ? atoi(argv[3]) : 8;
	printf("workq: space %d (%s) shares a work queue at %#lx with a new space (%s)\n",
	       xspace_id(), a, (long)S, b);
	const char *cargv[] = { "workq", b, a, "worker" };
	long child = sys_spawn_caps("workq", 4, cargv, &h, 1);
	if (child < 0) {
		printf("workq: spawn: %ld\n", child);
		return 3;
	}
	P->run(2, first_main, (void *)child);
}
