/*
 * futexfork: what a futex wait costs before and after its space forks,
 * in guest instructions (run with --icount at -smp 1, where sys_time's
 * nanoseconds are instructions: the CPU is never idle here).
 *
 * Two bare VPs hand a word back and forth with futex_wait/futex_wake,
 * ROUNDS round trips (two waits that block, two wakes), before a fork
 * and after it. The child sleeps 300 ms through the second measurement,
 * so the word's page is shared when main first stores to it, with the
 * partner blocked on it: the copy gives main a new frame, and the wake
 * must still find the partner (a private word is keyed by its address,
 * vpsys.c's futex_key, so a copy moves no key). Keyed by its frame, as
 * before, the copy had to move the partner's wait to the new frame, and
 * every futex_wait in a space that had forked walked the page tables
 * again under kop_lock: after the fork a round trip cost 5.8% more.
 * @result {"name": "futexfork", "before": instructions per round trip,
 *          "after": .., "rounds": ROUNDS}
 */
#include <stdio.h>
#include <animalib/result.h>
#include <animart/sys.h>

#define ROUNDS 2000
#define A 1                              /* main's turn */
#define B 2                              /* the partner's turn */
#define STOP 3

static volatile uint32_t word = A;
static char stack[16384] __attribute__((aligned(16)));

static void partner(long arg)
{
	(void)arg;
	for (;;) {
		while (word == A)
			syscall3(SYS_futex_wait, (long)&word, A, 0);
		if (word == STOP)
			break;
		word = A;
		syscall2(SYS_futex_wake, (long)&word, 1);
	}
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* Instructions per round trip, the best of 3 batches. */
static uint64_t measure(void)
{
	uint64_t best = ~0UL;
	for (int b = 0; b < 3; b++) {
		uint64_t t0 = sys_time();
		for (int i = 0; i < ROUNDS; i++) {
			word = B;
			syscall2(SYS_futex_wake, (long)&word, 1);
			while (word == B)
				syscall3(SYS_futex_wait, (long)&word, B, 0);
		}
		uint64_t t = (sys_time() - t0) / ROUNDS;
		best = t < best ? t : best;
	}
	return best;
}

int main(void)
{
	if (sys_failed(syscall3(SYS_vp_create, (long)partner, (long)stack + sizeof stack - 8, 0))) {
		printf("futexfork: no second VP\n");
		return 2;
	}
	uint64_t before = measure();
	long pid = sys_fork();
	if (pid == 0) {
		syscall1(SYS_sleep, 300000000);
		sys_exit(0);
	}
	uint64_t after = measure();
	int st = -1;
	if (pid < 0 || sys_waitpid((int)pid, &st, 0) != pid || st != 0) {
		printf("futexfork: fork %ld status %d\n", pid, st);
		return 2;
	}
	word = STOP;
	syscall2(SYS_futex_wake, (long)&word, 1);
	struct result res;
	result_begin(&res, "futexfork");
	result_int(&res, "before", (long)before);
	result_int(&res, "after", (long)after);
	result_int(&res, "rounds", ROUNDS);
	result_end(&res);
	return 0;
}
