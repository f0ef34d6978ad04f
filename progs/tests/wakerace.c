/*
 * wakerace PKG VPS ROUNDS: the "make a condition true, then unblock the
 * waiter" pattern, ROUNDS times each way, between two threads of package
 * PKG on VPS VPs (0: one per CPU), with a watchdog that catches a lost
 * wake-up instead of letting the run hang.
 *
 * Each round: main sets turn = 1 and unblocks the child, then blocks
 * until turn == 0; the child, woken, sets turn = 0 and unblocks main.
 * An unblock that finds its target running leaves a permit, which the
 * target later consumes in a thread_block that returns at once; so stale
 * permits are common here, and so is an unblock that finds one. That
 * unblock must still order the waker's store to `turn` before its look
 * at the permit. thread_unblock once did it with a plain load, which x86
 * may satisfy while the store still sits in the store buffer: the target
 * consumed the old permit, reread turn, found it unchanged and parked
 * for good, and so did main (fifo at -smp 2 hung every few seconds).
 *
 * The watchdog is a classic VP of its own (no package runs on it) that
 * sleeps in the kernel and checks that rounds go on: after 2 s without
 * one, it reports where they stopped and exits 3. Only punctual looks
 * count: a 200 ms sleep that ends over 200 ms late means the host stopped
 * the guest (TCG vCPUs are host threads), and a look after that proves
 * nothing about the threads. The report says how many looks were late
 * and the kernel's count of late timer interrupts. Otherwise prints
 *   @result {"name": "wakerace", "package", "vps", "rounds", "ns"}
 * and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/thread.h>
#include "apppkg.h"

static const struct pkg *P;
static int nvps;
static long rounds = 100000;
static struct thread *volatile wr_main, *volatile wr_child;
static volatile int turn;
static volatile long done;             /* rounds main has seen through */

static void *child(void *arg)
{
	for (long r = 0; r < rounds; r++) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 1)
			thread_block();
		__atomic_store_n(&turn, 0, __ATOMIC_RELEASE);
		thread_unblock(wr_main);
	}
	return arg;
}

static void watchdog(long arg) __attribute__((noreturn));
static void watchdog(long arg)
{
	(void)arg;
	long last = -1;
	int still = 0, late = 0;
	for (;;) {
		uint64_t t0 = now_ns();
		sys_sleep(200 * 1000000UL);
		long d = done;
		if (now_ns() - t0 > 400 * 1000000UL) {
			late++;          /* a host stall: this look counts for nothing */
			continue;
		}
		if (d != last) {
			last = d;
			still = 0;
		} else if (++still == 10) {
			printf("wakerace: %s: no round for 2 s: stuck after %ld of %ld rounds, "
			       "turn = %d (a lost wake-up; %d late looks, %ld late timer interrupts)\n",
			       P->name, d, rounds, turn, late, sys_getinfo(INFO_TIMER_LATE));
			exit(3);
		}
	}
}

static void *main_fn(void *arg)
{
	wr_main = thread_self();
	wr_child = app_create(P, child, 0);
	uint64_t t0 = now_ns();
	for (long r = 0; r < rounds; r++) {
		__atomic_store_n(&turn, 1, __ATOMIC_RELEASE);
		thread_unblock(wr_child);
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 0)
			thread_block();
		done = r + 1;
	}
	thread_join(wr_child);
	struct result res;
	result_begin(&res, "wakerace");
	result_str(&res, "package", P->name);
	result_int(&res, "vps", nvps);
	result_int(&res, "rounds", rounds);
	result_uint(&res, "ns", now_ns() - t0);
	result_end(&res);
	return arg;
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 3, "wakerace PKG VPS [ROUNDS]");
	nvps = app_vps(argv[2]);
	if (argc > 3)
		rounds = atol(argv[3]);
	if (rounds < 1) {
		printf("wakerace: ROUNDS must be positive\n");
		return 2;
	}
	char *stack = malloc(16384);
	if (!stack || syscall3(SYS_vp_create, (uint64_t)watchdog, (uint64_t)stack + 16384 - 8, 0) < 0) {
		printf("wakerace: cannot start the watchdog VP\n");
		return 1;
	}
	P->run(nvps, main_fn, 0);
}
