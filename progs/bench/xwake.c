/*
 * xwake ROUNDS [GAP_US]: cross-CPU wake-up latency. Two kthreads (each its
 * own classic VP, so the kernel schedules them), one per CPU: a sleeper
 * that futex-waits, so its CPU has nothing to do and halts, and a waker.
 * Each round the waker lets GAP_US (default 200) pass after the sleeper
 * announced it is going to sleep, so the sleeper's CPU is halted, not
 * still on its way to idle; then it stamps the time and futex-wakes the
 * sleeper, which stamps the time it runs again in user mode. The
 * difference is the whole path: wake syscall, enqueue, IPI to the halted
 * CPU, leaving hlt, dispatch, return to user mode. Without the IPI the
 * woken VP waits for a timer tick or for the waker's quantum to end
 * (10 ms). The waker never blocks: it spins until the round is over, so
 * its CPU stays busy and the sleeper keeps the other one.
 *
 * The waker's spin loops pause now and then: under QEMU's round-robin
 * TCG (all vCPUs on one host thread, as with -icount) a vCPU spinning
 * without a pause keeps the thread, and the other vCPU, halted or not,
 * does not run until the next timer deadline. (Under multi-threaded TCG
 * each pause takes QEMU's global lock, which the woken vCPU needs too:
 * hence not every iteration.)
 *
 *   @result {"name": "wake.cross_cpu_ns", "value" (median ns), "p99_ns",
 *            "max_ns", "min_ns", "rounds", "same_cpu", "not_blocked",
 *            "quantum_ns"}
 *
 * same_cpu counts rounds where both ran on one CPU at the wake (the
 * figure is then not cross-CPU); not_blocked, rounds where the wake found
 * nobody asleep yet (the sleeper had not reached the kernel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animart/upcall.h>
#include <animalib/result.h>
#include "apppkg.h"

static int rounds;
static uint64_t gap_ns;
static uint64_t *lat;
static volatile uint32_t word;           /* the futex: 1 = wake up */
static volatile int sleeping;            /* the sleeper is about to wait */
static volatile int done;                /* rounds the sleeper finished */
static volatile uint64_t t_wake;
static volatile uint32_t sleeper_cpu;

static void *sleeper(void *arg)
{
	for (int i = 0; i < rounds; i++) {
		__atomic_store_n(&sleeping, 1, __ATOMIC_SEQ_CST);
		while (!__atomic_load_n(&word, __ATOMIC_ACQUIRE))
			syscall3(SYS_futex_wait, &word, 0, 0);
		lat[i] = now_ns() - t_wake;
		sleeper_cpu = vp_pseudo()->cpu;
		word = 0;
		__atomic_store_n(&done, i + 1, __ATOMIC_RELEASE);
	}
	return arg;
}

static void spin(unsigned *n)
{
	if ((++*n & 63) == 0)
		__asm__ volatile("pause");
}

static void *main_fn(void *arg)
{
	(void)arg;
	const struct pkg *p = app_pkg("kthread");
	struct thread *t = app_create(p, sleeper, 0);
	int same = 0, not_blocked = 0;
	unsigned n = 0;
	for (int i = 0; i < rounds; i++) {
		while (!__atomic_load_n(&sleeping, __ATOMIC_ACQUIRE))
			spin(&n);
		sleeping = 0;
		uint64_t until = now_ns() + gap_ns;
		while (now_ns() < until)
			spin(&n);
		uint32_t me = vp_pseudo()->cpu;
		t_wake = now_ns();
		__atomic_store_n(&word, 1, __ATOMIC_SEQ_CST);
		if (syscall3(SYS_futex_wake, &word, 1, 0) == 0)
			not_blocked++;
		while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) != i + 1)
			spin(&n);
		same += sleeper_cpu == me;
	}
	thread_join(t);
	app_lat_sort(lat, rounds);
	struct result r;
	result_begin(&r, "wake.cross_cpu_ns");
	result_str(&r, "unit", "ns");
	result_uint(&r, "value", lat[rounds / 2]);
	result_uint(&r, "p99_ns", lat[rounds * 99 / 100]);
	result_uint(&r, "max_ns", lat[rounds - 1]);
	result_uint(&r, "min_ns", lat[0]);
	result_int(&r, "rounds", rounds);
	result_int(&r, "same_cpu", same);
	result_int(&r, "not_blocked", not_blocked);
	result_uint(&r, "quantum_ns", vp_pseudo()->quantum_ns);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: xwake ROUNDS [GAP_US]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	gap_ns = (argc > 2 ? (uint64_t)atoi(argv[2]) : 200) * 1000;
	if (rounds < 1 || rounds > 100000 || sys_getinfo(INFO_NCPU) < 2) {
		printf("xwake: want 1..100000 rounds and at least 2 CPUs\n");
		return 2;
	}
	lat = malloc(sizeof *lat * (size_t)rounds);
	app_pkg("kthread")->run(1, main_fn, 0);
}
