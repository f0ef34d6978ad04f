/*
 * xflood PKG NT: NT threads of PKG wait on one xsem in a segment, then
 * main posts NT times and joins them. An xsem names XWQ_RECS waiters at
 * user level; the others wait in the kernel (xwait's fallback), and past
 * the space's MAXKOP_SPACE (1,024) blocked calls the kernel refuses the
 * wait (-EAGAIN): those threads look again and wait again. They must
 * yield first (thread_wait_refused, ulib/rt/thread.c): on a package
 * without time slices (tutor, prio) at -smp 2 they held both VPs, and
 * main, which must run to post, waited for chance (the harness's timeout).
 * @result {"name": "xflood", "pkg", "threads", "arrived", "woke",
 * "fallback"}: woke == threads is the pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/clock.h>
#include <animart/thread.h>
#include <animart/xsync.h>
#include <animart/xwait.h>
#include "apppkg.h"

struct shared {
	struct xsem sem;
	volatile uint32_t arrived, woke;
};

static struct shared *S;
static const struct pkg *P;
static long NT;

static void *waiter(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&S->arrived, 1, __ATOMIC_SEQ_CST);
	if (xsem_wait(&S->sem) == 0)
		__atomic_add_fetch(&S->woke, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread **t = calloc(NT, sizeof *t);
	struct thread_attr a = { .stack_size = 16 * 1024 };
	long made = 0;
	while (made < NT && (t[made] = P->create(waiter, 0, &a)))
		made++;
	while (__atomic_load_n(&S->arrived, __ATOMIC_SEQ_CST) < made)
		thread_block_until(now_ns() + 1000000);
	for (long i = 0; i < made; i++)
		xsem_post(&S->sem);
	for (long i = 0; i < made; i++)
		thread_join(t[i]);
	struct result r;
	result_begin(&r, "xflood");
	result_str(&r, "pkg", P->name);
	result_int(&r, "threads", made);
	result_int(&r, "arrived", S->arrived);
	result_int(&r, "woke", S->woke);
	result_int(&r, "fallback", (long)xw_stats.fallback);
	result_end(&r);
	exit(made == NT && S->woke == made ? 0 : 1);
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 3, "xflood PKG NT");
	NT = atol(argv[2]);
	S = app_seg("xflood", sizeof *S, 0);
	xsem_init(&S->sem, 0);
	P->run(2, main_fn, 0);
}
