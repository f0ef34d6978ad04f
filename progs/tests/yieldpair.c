/*
 * yieldpair PKG MS: two spaces that share a segment hand the CPU to each
 * other as fast as they can (SYS_seg_wake with SEGWAKE_YIELD, a token
 * nobody waits for), for MS ms. Run beside a CPU hog on one CPU
 * (run=yieldpair,fifo,MS run=spin,MS --smp 1): the directed yield lets a
 * woken VP run a little out of turn, never far, so the hog must still get
 * about its third of the CPU (harness/tests/test_xwake.py). Without the
 * kernel's bound the two would pass the CPU back and forth for good, each
 * yield a fresh quantum, and the hog would starve.
 *
 * One @result from the first space: yields (its successful calls), and
 * the other side's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/xsync.h>
#include <errno.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include "apppkg.h"

struct shared {
	volatile int sid[2];             /* each side's space id */
	volatile long yields[2];
	volatile int done;
};

static struct shared *S;
static uint64_t end_ns;

static void *side(void *arg)
{
	int me = (int)(long)arg;
	while (!S->sid[!me])
		sys_yield();
	long n = 0;
	while (sys_time() < end_ns)
		if (syscall6(SYS_seg_wake, (long)&S->done, S->sid[!me], 0, 1, SEGWAKE_YIELD, 0) == 0)
			n++;
	S->yields[me] = n;
	return 0;
}

static long child;
static void *first(void *arg);

int main(int argc, char **argv)
{
	const struct pkg *P = app_args(argc, argv, 3, "yieldpair PKG MS [child]");
	uint64_t ms = strtoull(argv[2], 0, 10);
	end_ns = sys_time() + ms * 1000000;
	if (argc == 4) {                 /* the other side */
		long a = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
		if (sys_failed(a))
			return 4;
		S = (struct shared *)a;
		S->sid[1] = xspace_id();
		P->run(1, side, (void *)1L);
	}
	long h;
	S = app_seg("yieldpair", sizeof *S, &h);
	memset(S, 0, sizeof *S);
	S->sid[0] = xspace_id();
	const char *cargv[] = { "yieldpair", P->name, argv[2], "child" };
	long id = sys_spawn_caps("yieldpair", 4, cargv, &h, 1);
	if (id < 0) {
		printf("yieldpair: spawn: %s\n", errname((int)id));
		return 3;
	}
	child = id;
	P->run(1, first, 0);
}

/* The first space's main thread: its side, then the report. */
static void *first(void *arg)
{
	(void)arg;
	side(0);
	sys_wait((int)child, 0);
	struct result r;
	result_begin(&r, "yieldpair");
	result_int(&r, "yields", S->yields[0]);
	result_int(&r, "other_yields", S->yields[1]);
	result_end(&r);
	return 0;
}
