/*
 * execseg: an image that holds shared segments execs; the new image must
 * start with its own charges only. A segment's payer was named by space
 * id alone, and an exec keeps the id: when the old image ended and its
 * segments were freed, the refund went to the new image, whose segment
 * count and charged pages went below zero (kernel/segpay.c, seg_payer).
 *
 * `execseg` creates 16 segments of 256 KiB (maps half of them, touches
 * them) and execs `execseg after`, which reports
 *   @result {"name": "execseg", "segs": N, "max": MAXSEG_SPACE,
 *            "touched": pages, "want": pages}
 * segs: how many segments it can create (MAXSEG_SPACE, its own bound;
 * more when the count went negative); touched: pages of a fresh 256-page
 * map it could touch (all; before, it was killed "out of memory").
 */
#include <stdio.h>
#include <string.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <anima/seg.h>

#define SEGLEN (256 * 1024)
#define TOUCH  256

static int after(void)
{
	/* The old image's segments are let go when its tables are freed, once
	   no CPU has them loaded, which may come after we start: wait until
	   we are the only space whose memory is not all back (2 s at most). */
	for (int i = 0; i < 2000 && sys_getinfo(INFO_SPACES_HELD) > 1; i++)
		syscall1(SYS_sleep, 1000000);
	int n = 0;
	while (!sys_failed(syscall1(SYS_seg_create, 4096)) && n < 4 * MAXSEG_SPACE)
		n++;
	/* Touched one page at a time, the count printed first: a kill here
	   leaves the segment figure behind. */
	printf("execseg: %d segments\n", n);
	char *p = (char *)syscall3(SYS_map, 0, TOUCH * PAGE_SIZE, PROT_READ | PROT_WRITE | MAP_LAZY);
	int t = 0;
	for (; !sys_failed((long)p) && t < TOUCH; t++)
		p[t * PAGE_SIZE] = 1;
	struct result res;
	result_begin(&res, "execseg");
	result_int(&res, "segs", n);
	result_int(&res, "max", MAXSEG_SPACE);
	result_int(&res, "touched", t);
	result_int(&res, "want", TOUCH);
	result_end(&res);
	return n == MAXSEG_SPACE && t == TOUCH ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "after"))
		return after();
	for (int i = 0; i < MAXSEG_SPACE; i++) {
		long h = syscall1(SYS_seg_create, SEGLEN);
		if (sys_failed(h)) {
			printf("execseg: seg_create %d: %ld\n", i, h);
			return 2;
		}
		if (i % 2)
			continue;
		long a = syscall3(SYS_seg_map, h, 0, PROT_READ | PROT_WRITE);
		if (!sys_failed(a))
			memset((void *)a, 1, SEGLEN);
	}
	const char *av[] = { "execseg", "after" };
	long r = sys_exec("execseg", 2, av, 0, 0);
	printf("execseg: exec: %ld\n", r);
	return 3;
}
