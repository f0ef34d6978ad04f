/*
 * xself PKG: a thread waits on an xsem in a segment and another thread
 * of the same process posts it, then yields until the waiter has woken,
 * counting its yields; a third thread yields meanwhile too. On det (own
 * time) the wait is a nap on det's clock (ulib/rt/xsync.c's own_wait,
 * 20 token moves a ms, or at once when nobody else can run: hence the
 * third thread); a post from this process must end it at once
 * (ulib/rt/ownwait.c), not at the waiter's next look: one yield, not a
 * nap's worth (PKG det=par too).
 * @result {"name": "xself", "pkg", "woke", "yields", "naps", "ownwoke"}
 */
#include <stdio.h>
#include <errno.h>
#include <animart/seg.h>
#include <animart/clock.h>
#include <animart/thread.h>
#include <animart/xsync.h>
#include <animart/xwait.h>
#include "apppkg.h"

struct shared {
	struct xsem sem;
	volatile uint32_t woke, done;
};

static struct shared *S;
static const struct pkg *P;

static void *waiter(void *arg)
{
	(void)arg;
	if (xsem_wait(&S->sem) == 0)
		__atomic_store_n(&S->woke, 1, __ATOMIC_SEQ_CST);
	return 0;
}

/* Keeps det's clock going while the waiter naps (see the top). */
static void *busy(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&S->done, __ATOMIC_SEQ_CST))
		thread_yield();
	return 0;
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread_attr a = { .stack_size = 16 * 1024 };
	struct thread *t = P->create(waiter, 0, &a), *b = P->create(busy, 0, &a);
	if (!t || !b) {
		printf("xself: create failed\n");
		exit(1);
	}
	/* (yields, not a timed wait: post just after its nap began, far
	   from its end) */
	while (!__atomic_load_n(&S->sem.nwait, __ATOMIC_SEQ_CST))
		thread_yield();
	xsem_post(&S->sem);
	long yields = 0;
	while (!__atomic_load_n(&S->woke, __ATOMIC_SEQ_CST) && yields < 100000) {
		thread_yield();
		yields++;
	}
	thread_join(t);
	__atomic_store_n(&S->done, 1, __ATOMIC_SEQ_CST);
	thread_join(b);
	struct result r;
	result_begin(&r, "xself");
	result_str(&r, "pkg", P->name);
	result_int(&r, "woke", S->woke);
	result_int(&r, "yields", yields);
	result_int(&r, "naps", (long)xw_stats.naps);
	result_int(&r, "ownwoke", (long)xw_stats.ownwoke);
	result_end(&r);
	exit(S->woke ? 0 : 1);
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 2, "xself PKG");
	S = app_seg("xself", sizeof *S, 0);
	xsem_init(&S->sem, 0);
	P->run(2, main_fn, 0);
}
