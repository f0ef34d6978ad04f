/*
 * futexstale: a private futex must never be reached by another space.
 * Private futexes are keyed by the word's physical address. A VP of
 * this space waits on a word (classic VP: it blocks whole); another
 * unmaps the page, whose frame then goes back to the allocator with the
 * waiter still queued under its address. A child then maps memory until
 * -ENOMEM (boot with memquota above RAM: it gets that frame again) and
 * calls futex_wake on the same offset of every page it mapped; it exits
 * with how many it woke. The child shares no memory with us: it must
 * wake nobody, and our waiter must time out (before the fix the child
 * woke it, and the waiter's futex_wait returned 0).
 *   futexstale        the parent (prints the @result)
 *   futexstale child  the child
 */
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>

#define OFF 0x40
#define MAXCHUNK 1024

static volatile long wait_result = 1;    /* 1: still waiting */
static volatile uint32_t *word;
static char stack[8192] __attribute__((aligned(16)));

static void waiter(long arg) __attribute__((noreturn));
static void waiter(long arg)
{
	(void)arg;
	wait_result = syscall3(SYS_futex_wait, (long)word, 0, 20000000000L);   /* 20 s */
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static int child(void)
{
	static long chunk[MAXCHUNK];
	int n = 0;
	while (n < MAXCHUNK) {
		long a = syscall3(SYS_map, 0, 1UL << 20, PROT_READ | PROT_WRITE);
		if (sys_failed(a))
			break;
		chunk[n++] = a;
	}
	long woken = 0;
	for (int i = 0; i < n; i++)
		for (long p = 0; p < (1L << 20); p += 4096) {
			long r = syscall2(SYS_futex_wake, chunk[i] + p + OFF, 1);
			if (r > 0)
				woken += r;
		}
	printf("futexstale child: %d MiB mapped, woke %ld\n", n, woken);
	return (int)(woken > 60 ? 60 : woken);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	long page = syscall3(SYS_map, 0, 4096, PROT_READ | PROT_WRITE);
	if (sys_failed(page))
		return 2;
	word = (volatile uint32_t *)(page + OFF);
	*word = 0;
	long vp = syscall3(SYS_vp_create, (long)waiter, (long)(stack + sizeof stack), 0);
	syscall1(SYS_sleep, 50000000);            /* the waiter blocks */
	/* 16 MiB more, taken after the page, freed with it: the child's maps
	   stop at the kernel's reserve, which keeps the frames the allocator
	   reaches last, the highest ones freed here; our page's frame sits
	   below them, so the child gets it. */
	long pad = syscall3(SYS_map, 0, 16UL << 20, PROT_READ | PROT_WRITE);
	long unmapped = syscall2(SYS_unmap, page, 4096);
	if (!sys_failed(pad))
		syscall2(SYS_unmap, pad, 16UL << 20);
	const char *args[] = { "futexstale", "child" };
	long id = sys_spawn("futexstale", 2, args);
	int status = -100;
	if (!sys_failed(id))
		sys_wait((int)id, &status);
	syscall1(SYS_sleep, 100000000);           /* a woken waiter reports */
	struct result r;
	result_begin(&r, "futexstale");
	result_int(&r, "vp", vp);
	result_int(&r, "unmap", unmapped);
	result_int(&r, "child_woke", status);
	result_int(&r, "wait_result", wait_result);
	result_end(&r);
	return 0;
}
