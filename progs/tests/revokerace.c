/*
 * revokerace [ROUNDS]: a segment revoked while the waiters on its words
 * are still entering SYS_futex_wait, with no timeout
 * (harness/tests/test_segments.py::test_revoke_races_entering_waiters).
 *
 * Each round the root creates a one-page segment and spawns a child with
 * a handle to it; the child maps it and starts 4 VPs, each waiting on its
 * own word of the segment (value 0, no timeout: nobody ever wakes them).
 * The root revokes after a delay that sweeps 0 to ~2 ms over the rounds
 * (spinning, or sleeping so that on one CPU the child runs meanwhile),
 * so some revokes land while waits are being entered and some after all
 * are blocked. Every wait must end, with -EIDRM (cancelled, or its word
 * found gone) or -EFAULT (the mapping was gone before it looked): the
 * kernel cancels a space's waiters when it unmaps the segment from that
 * space, and a wait entering meanwhile finds its word gone. A waiter
 * missed would wait for ever, and the boot would time out.
 * The child exits 0 when its 4 VPs saw such an end, 3 if the segment was
 * revoked before it could map it, else 1 or 2. Prints @result {"name":
 * "revokerace", "rounds": R, "waited": W, "early": E, "bad": B,
 * "avail_lost": L}: rounds whose child waited, was too late to, or went
 * wrong, and INFO_MEM_AVAIL before the rounds less after.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include "child.h"
#include "avail.h"

#define NW 4
static char stacks[NW][4096] __attribute__((aligned(16)));
static volatile int ended, badend;
static volatile uint32_t *words;

static void waiter(long i)
{
	long r = syscall3(SYS_futex_wait, &words[i * 16], 0, 0);
	if (r != -EIDRM && r != -EFAULT)
		badend = 1;
	__atomic_fetch_add(&ended, 1, __ATOMIC_RELAXED);
	syscall0(SYS_vp_exit);
}

static int child(void)
{
	long a = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
	if (sys_failed(a))
		return a == -EIDRM ? 3 : 2;       /* 3: revoked before we mapped it */
	words = (volatile uint32_t *)a;
	for (long i = 1; i < NW; i++)
		syscall3(SYS_vp_create, (long)waiter, (long)(stacks[i] + sizeof stacks[i]), i);
	long r = syscall3(SYS_futex_wait, &words[0], 0, 0);
	if (r != -EIDRM && r != -EFAULT)
		badend = 1;
	while (ended < NW - 1)
		sys_yield();
	return badend;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	int rounds = argc > 1 ? atoi(argv[1]) : 100, bad = 0, waited = 0, early = 0;
	long avail = sys_getinfo(INFO_MEM_AVAIL);
	const char *av[] = { "revokerace", "child" };
	for (int i = 0; i < rounds; i++) {
		long h = seg_create(4096);
		long id = h < 0 ? h : sys_spawn_caps("revokerace", 2, av, &h, 1);
		uint64_t delay = (uint64_t)(i % 50) * 40000;       /* 0 .. 1.96 ms */
		if (i % 2)
			sys_sleep(delay);                  /* the child may run here too */
		else
			for (uint64_t until = sys_time() + delay; sys_time() < until;)
				;
		int st = h < 0 || id < 0 || seg_revoke(h) != 0 ? -2 : child_status(id);
		waited += st == 0;
		early += st == 3;
		bad += st != 0 && st != 3;
		syscall1(SYS_cap_drop, h);
	}
	/* the last child's tables may still be held by a CPU that ran it:
	   counted once only this space holds any (INFO_SPACES_HELD) */
	long lost = avail - avail_settled(1);
	printf("@result {\"name\": \"revokerace\", \"rounds\": %d, \"waited\": %d, \"early\": %d, "
	       "\"bad\": %d, \"avail_lost\": %ld}\n", rounds, waited, early, bad, lost);
	return bad != 0;
}
