/*
 * wakekill PKG ROUNDS: hand-off wake-ups of a space that ends under
 * them. SYS_seg_wake with SEGWAKE_YIELD claims an idle VP it wakes
 * (EVP_WAKE_KEEP: runnable and on no queue, kernel/segwake.c) and then
 * places it itself, after dropping the locks that kept the VP's space
 * alive: the one window where a VP belongs to nobody's queue. Here a
 * child space idles two VPs (its one thread asleep), its parent wakes
 * them in a loop with the hand-off (a token nobody waits for: each is a
 * spurious wake-up, and the child's VP idles again), and the child ends
 * at a random moment, 0-2 ms in: a second thread of the parent sends it
 * SIGKILL (rounds 3k), or SIGSTOP and, as long again later, SIGKILL
 * (3k+1: the stop parks the claimed VP's siblings, the kill ends the
 * stopped space), or the child exits on its own (3k+2: its last VP out
 * frees the others'). The loop runs until the kernel says the space is
 * gone (-ESRCH).
 *
 * Each child must end as it was told (killed, or status 0) and, after a
 * few unmeasured rounds (the runtime's one-time set-up), the kernel's
 * available memory must come back exactly. Booted with `memcheck` (a
 * freed VP written or posted to panics) and `jitter` (kernel/jitter.c
 * stretches the windows at every shake()).
 * @result {"name": "wakekill", "pkg", "rounds", "wakes", "killed",
 * "stopped" (then killed), "exited", "bad_status", "other_errors", "avail_lost"}
 */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/clock.h>
#include <animart/thread.h>
#include <animart/xsync.h>
#include <anima/exit.h>
#include <animalib/rng.h>
#include "apppkg.h"
#include "avail.h"
#include "child.h"

#define WARM 4                   /* rounds before the memory is measured */
#define MAX_DELAY 2000000        /* ns: when the child ends, at the most */

struct shared {
	volatile int ready;      /* the child's round, once it idles */
	volatile long target;    /* the killer's next child (0: none) */
	volatile uint64_t delay; /* ns before the kill */
	volatile int stop;       /* SIGSTOP first, the delay before each */
	volatile int done;       /* the killer stops */
};

static struct shared *S;
static const struct pkg *P;
static long H, rounds;

/* The child: its thread sleeps, so both VPs idle; it ends after exit_ns
   (0: never, the parent kills it). */
static void *child_main(void *arg)
{
	uint64_t exit_ns = (uint64_t)arg;
	S->ready = (int)rounds;
	thread_block_until(now_ns() + (exit_ns ? exit_ns : 60000000000UL));
	exit(exit_ns ? 0 : 1);
}

/* Sleep for ns: the VP idles (a spin would hold the CPU from the
   child at -smp 1, which then ended before the first wake-up). */
static void nap(uint64_t ns)
{
	thread_block_until(now_ns() + ns);
}

/* The parent's second thread: kills each child it is given, after the
   delay it is given (asleep: the waker's loop goes on meanwhile). */
static void *killer(void *arg)
{
	(void)arg;
	while (!S->done) {
		long t = __atomic_exchange_n(&S->target, 0, __ATOMIC_SEQ_CST);
		if (!t) {
			nap(50000);
			continue;
		}
		nap(S->delay);
		if (S->stop) {
			sys_kill((int)t, SIGSTOP);
			nap(S->delay);
		}
		sys_kill((int)t, SIGKILL);
	}
	return 0;
}

static void *parent_main(void *arg)
{
	(void)arg;
	uint64_t rs = 0x5eed;
	long wakes = 0, killed = 0, stopped = 0, exited = 0, bad = 0, other = 0, before = 0;
	struct thread *k = app_create(P, killer, 0);
	for (long r = 1; r <= WARM + rounds; r++) {
		if (r == WARM + 1)
			before = avail_settled(1);
		int kill = r % 3 != 2;
		uint64_t d = rand_below(&rs, MAX_DELAY);
		char rb[24], eb[24];
		snprintf(rb, sizeof rb, "%ld", r);
		snprintf(eb, sizeof eb, "%lu", kill ? 0 : d + 1);
		const char *cargv[] = { "wakekill", P->name, rb, "child", eb };
		long id = sys_spawn_caps("wakekill", 5, cargv, &H, 1);
		if (id < 0) {
			printf("wakekill: spawn: %s\n", errname((int)id));
			exit(3);
		}
		while (S->ready != r)
			nap(20000);
		if (kill) {
			S->delay = d;
			S->stop = r % 3 == 1;
			__atomic_store_n(&S->target, id, __ATOMIC_SEQ_CST);
		}
		for (uint64_t i = 0;; i++) {
			long e = syscall6(SYS_seg_wake, (long)&S->ready, id, i & 1, 1, SEGWAKE_YIELD, 0);
			if (e == -ESRCH)
				break;
			if (e == 0)
				wakes++;
			else
				other++;
			thread_yield();      /* (the killer may share this VP) */
		}
		int st = child_status(id);
		if (st == (kill ? EXIT_KILLED : 0))
			kill ? (S->stop ? stopped++ : killed++) : exited++;
		else {
			printf("wakekill: round %ld: child status %d\n", r, st);
			bad++;
		}
	}
	long lost = before - avail_settled(1);
	S->done = 1;
	thread_join(k);
	struct result res;
	result_begin(&res, "wakekill");
	result_str(&res, "pkg", P->name);
	result_int(&res, "rounds", rounds);
	result_int(&res, "wakes", wakes);
	result_int(&res, "killed", killed);
	result_int(&res, "stopped", stopped);
	result_int(&res, "exited", exited);
	result_int(&res, "bad_status", bad);
	result_int(&res, "other_errors", other);
	result_int(&res, "avail_lost", lost);
	result_end(&res);
	exit(bad || lost ? 1 : 0);
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 3, "wakekill PKG ROUNDS");
	rounds = atol(argv[2]);
	if (argc == 5) {                 /* the child: round ROUNDS, ends after argv[4] ns */
		long a = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
		if (sys_failed(a))
			return 4;
		S = (struct shared *)a;
		P->run(2, child_main, (void *)strtoul(argv[4], 0, 10));
	}
	S = app_seg("wakekill", sizeof *S, &H);
	P->run(2, parent_main, 0);
}
