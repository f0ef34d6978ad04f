/*
 * permitrace [ITERS]: a litmus test of how a blocking thread consumes a
 * permit (<animart/thread.h>'s thread_park_commit, ulib/rt/thread.c's
 * thread_park_timed) against a concurrent thread_unblock, at the
 * instruction level, on two VPs of their own (no package, no kernel call
 * in the loop), so the race window is met millions of times a second.
 *
 * Each iteration, on a thread descriptor nobody runs (only its park word
 * is used): X leaves a stale permit on it and clears `cond`; then, at
 * once, X blocks (the block finds the permit, consumes it and returns)
 * and reads `cond`, while Y sets `cond` and unblocks. Y's unblock either
 * comes after the consumption (it leaves a new permit: X's next block
 * returns at once) or before it (Y found the old permit and left it as
 * it was: it trusts X to see `cond`). Lost: X read `cond` as 0 and no
 * permit is left, which in a real waiter is a thread parked for good
 * with its condition true. (Both kthread threads of wakerace, and
 * fifo+kthread's conformance `park`, were found parked that way.)
 *
 * The consumption used to be a plain store of PARK_RUN: x86 lets the
 * later load of `cond` pass that store while it sits in the store
 * buffer, and Y's locked read-modify-write then still finds the permit.
 * Iterations alternate between the two block paths; X's start is
 * staggered by 0..255 spins so that some iterations hit the window.
 * Prints
 *   @result {"name": "permitrace", "iters", "lost_commit", "lost_timed"}
 * and exits 0, or 3 if any wake-up was lost. Needs two CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/thread.h>

static long iters = 1000000;
static struct thread d;                 /* only its park word is used */
static volatile int cond;
static volatile long go, ack;           /* X starts iteration i, Y has done it */
static volatile long parked_seen;       /* unblocks that found PARKED (never) */

static void never_unblock(struct thread *t)
{
	(void)t;
	__atomic_fetch_add(&parked_seen, 1, __ATOMIC_RELAXED);
}

static const struct thread_ops dummy_ops = { .name = "litmus", .unblock = never_unblock };

static void spin(long n)
{
	for (volatile long k = 0; k < n; k++)
		;
}

/* Y: set the condition, then unblock, as every waker does. */
static void waker(long arg) __attribute__((noreturn));
static void waker(long arg)
{
	(void)arg;
	for (long i = 1; i <= iters; i++) {
		while (__atomic_load_n(&go, __ATOMIC_ACQUIRE) != i)
			__asm__ volatile("pause");
		__atomic_store_n(&cond, 1, __ATOMIC_RELEASE);
		thread_unblock(&d);
		__atomic_store_n(&ack, i, __ATOMIC_RELEASE);
	}
	syscall0(SYS_vp_exit);
	__builtin_unreachable();
}

int main(int argc, char **argv)
{
	if (argc > 1)
		iters = atol(argv[1]);
	if (iters < 1) {
		printf("permitrace: ITERS must be positive\n");
		return 2;
	}
	d.ops = &dummy_ops;
	char *stack = malloc(16384);
	if (!stack || syscall3(SYS_vp_create, (uint64_t)waker, (uint64_t)stack + 16384 - 8, 0) < 0) {
		printf("permitrace: cannot start the waker VP\n");
		return 1;
	}
	long lost[2] = { 0, 0 };
	for (long i = 1; i <= iters; i++) {
		int timed = i & 1;
		d.park = PARK_PERMIT;            /* stale: left by an earlier unblock */
		cond = 0;
		__atomic_store_n(&go, i, __ATOMIC_RELEASE);
		spin((i >> 1) % 256);
		/* X: block; the permit makes both paths return at once */
		int blocked = timed ? thread_park_timed(&d, ~0UL) != 0 : thread_park_commit(&d);
		int saw = __atomic_load_n(&cond, __ATOMIC_ACQUIRE);
		while (__atomic_load_n(&ack, __ATOMIC_ACQUIRE) != i)
			__asm__ volatile("pause");
		if (blocked) {
			printf("permitrace: iteration %ld: the block did not find the permit\n", i);
			return 1;
		}
		if (!saw && __atomic_load_n(&d.park, __ATOMIC_ACQUIRE) == PARK_RUN)
			lost[timed]++;
	}
	struct result r;
	result_begin(&r, "permitrace");
	result_int(&r, "iters", iters);
	result_int(&r, "lost_commit", lost[0]);
	result_int(&r, "lost_timed", lost[1]);
	result_int(&r, "parked_seen", parked_seen);
	result_end(&r);
	return lost[0] || lost[1] || parked_seen ? 3 : 0;
}
