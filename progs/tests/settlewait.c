/*
 * settlewait: avail_settled waits for the caller's own tree only.
 * Forks a child that touches 1 MiB and exits, collects it, then takes
 * avail_settled(1) and counts the polls that made (avail.h). Booted
 * beside a program that runs on (harness/tests/test_settle.py), the
 * wait must end once the child's memory is back, not run out its 5,000
 * polls waiting for the other program to end (INFO_SPACES_HELD never
 * falls to 1 meanwhile). @result {"name": "settlewait", "child": status,
 * "polls": n, "held": INFO_SPACES_HELD, "tree": INFO_TREE_HELD (both at
 * the reading), "avail_lost": before - after (meaningful alone only)}.
 *
 * settlewait race N: N rounds of a child collected, then INFO_TREE_HELD
 * read with no sleep between until it falls to 1 and available memory
 * read at once: it must be the figure before the child, every round.
 * A space leaves the count only with all its memory back, its struct
 * too (a 3-page run, freed by the CPU that lets go of its tables once
 * its parent has collected it: kernel/space.c space_put). Before, it
 * left the count first, and a reader could come in between (a loaded
 * host stretches that window: kopflood's audit read avail_lost 12,288
 * once in CI). @result {"name": "settlerace", "rounds", "short":
 * rounds whose figure differed, "worst": the largest shortfall in
 * bytes, "polls": the most polls a round took, "lost": short rounds
 * still short 20 ms later}.
 *
 * settlewait cowrace PKG VPS N (VPS 2): the same N rounds, with a second
 * thread (on the other VP) writing to COW_PAGES pages the fork left
 * shared while the child ends: each write a copy-on-write break, whose
 * drop of the old frame frees it if the child let go of it meanwhile.
 * The figure read once INFO_TREE_HELD falls to 1 must be the one read
 * after the writer is done: before, a break in flight at the reading
 * still held an ended child's frame (kopflood's audit read avail_lost
 * -4,096, a vCPU descheduled mid-break; kernel/cow.c). @result
 * {"name": "cowrace", "rounds", "short": rounds whose two figures
 * differed, "worst": the largest difference in bytes (after - before)}.
 */
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <animart/thread.h>
#include "apppkg.h"
#include <animart/sys.h>
#include <animalib/result.h>
#include "avail.h"

#define CHILD_BYTES (1 << 20)

/* A child that touches CHILD_BYTES and ends; its status, or -1.
   `spin`: collected with WNOHANG polls, no sleep, so that the collect
   comes as the child ends, while its CPU may still be letting go. */
static int child_collected(int spin)
{
	long pid = sys_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *p = malloc(CHILD_BYTES);
		if (p)
			memset(p, 1, CHILD_BYTES);
		sys_exit(p ? 0 : 1);
	}
	int st = -1;
	long r;
	while ((r = sys_waitpid((int)pid, &st, spin)) == 0)
		;
	return r == pid ? st : -1;
}

static int child(void)
{
	return child_collected(0);
}

/* The race mode's rounds (see the head comment); 0 if all ran. */
static int race(int n)
{
	if (child() != 0)
		return 11;
	long base = avail_settled(1);
	int shorts = 0, lost = 0;
	long worst = 0, maxpolls = 0;
	for (int i = 0; i < n; i++) {
		if (child_collected(1) != 0)
			return 12;
		long polls = 0;
		while (sys_getinfo(INFO_TREE_HELD) > 1 && polls < 100000000)
			polls++;
		long now = avail();
		if (now != base) {
			shorts++;
			worst = base - now > worst ? base - now : worst;
			sys_sleep(20000000);       /* late, or lost for good? */
			if (avail() != base)
				lost++;
			base = avail();
		}
		maxpolls = polls > maxpolls ? polls : maxpolls;
	}
	struct result r;
	result_begin(&r, "settlerace");
	result_int(&r, "rounds", n);
	result_int(&r, "short", shorts);
	result_int(&r, "worst", worst);
	result_int(&r, "polls", maxpolls);
	result_int(&r, "lost", lost);
	result_end(&r);
	return 0;
}

#define COW_PAGES 64
static char *cowbuf;
static int go_round, done_round;

/* cowrace's writer: a byte to each page of cowbuf each round. */
static void *writer(void *arg)
{
	(void)arg;
	for (int r = 1;; r++) {
		int g;
		while ((g = __atomic_load_n(&go_round, __ATOMIC_ACQUIRE)) != r && g >= 0)
			thread_yield();
		if (g < 0)
			return 0;
		for (int i = 0; i < COW_PAGES; i++)
			cowbuf[i * 4096] = (char)r;
		__atomic_store_n(&done_round, r, __ATOMIC_RELEASE);
	}
}

static const struct pkg *P;

static void *cowrace(void *arg)
{
	int n = (int)(intptr_t)arg;
	cowbuf = malloc(COW_PAGES * 4096);
	if (!cowbuf)
		sys_exit(21);
	struct thread *t = app_create(P, writer, 0);
	memset(cowbuf, 0, COW_PAGES * 4096);
	int shorts = 0;
	long worst = 0;
	for (int i = 1; i <= n; i++) {
		long pid = sys_fork();
		if (pid == 0)
			sys_exit(0);
		__atomic_store_n(&go_round, i, __ATOMIC_RELEASE);
		int st = -1;
		long r;
		while ((r = sys_waitpid((int)pid, &st, 1)) == 0)
			;
		if (r != pid || st != 0)
			sys_exit(22);
		while (sys_getinfo(INFO_TREE_HELD) > 1)
			;
		long a = avail();
		while (__atomic_load_n(&done_round, __ATOMIC_ACQUIRE) != i)
			thread_yield();
		long b = avail();
		if (a != b) {
			shorts++;
			worst = b - a > worst ? b - a : worst;
		}
	}
	__atomic_store_n(&go_round, -1, __ATOMIC_RELEASE);
	thread_join(t);
	struct result r;
	result_begin(&r, "cowrace");
	result_int(&r, "rounds", n);
	result_int(&r, "short", shorts);
	result_int(&r, "worst", worst);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "cowrace")) {
		P = app_args(argc - 1, argv + 1, 3, "settlewait cowrace PKG VPS [N]");
		P->run(app_vps(argv[3]), cowrace, (void *)(intptr_t)(argc > 4 ? atoi(argv[4]) : 200));
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "race"))
		return race(argc > 2 ? atoi(argv[2]) : 200);
	/* One child first, unaudited: a first fork's one-time setups (the
	   kernel heap's first blocks of a kind) are no loss (forkmany's
	   and kopflood's remedy; test_settled_alone[2] saw one once). */
	if (child() != 0)
		return 11;
	avail_settled(1);
	long before = avail_settled(1);
	int st = child();
	long after = avail_settled(1);
	struct result r;
	result_begin(&r, "settlewait");
	result_int(&r, "child", st);
	result_int(&r, "polls", avail_polls);
	result_int(&r, "held", sys_getinfo(INFO_SPACES_HELD));
	result_int(&r, "tree", sys_getinfo(INFO_TREE_HELD));
	result_int(&r, "avail_lost", before - after);
	result_end(&r);
	return 0;
}
