/*
 * sysfuzz [COUNT] [SEED]: COUNT (default 100000) syscalls with random
 * numbers and arguments. The kernel must answer every one with a result
 * or an error and keep running. Numbers outside [0, NSYSCALL) must fail
 * with ENOSYS. Inside, only calls sysfuzz knows are issued, steered clear
 * of what would legitimately end or wedge it:
 *   - exit, spawn, wait, vp_idle, vp_exit: never issued;
 *   - sleep, io: duration clamped below 1 ms; futex_wait: timeout 1 ns..1 ms;
 *   - vp_create, vp_start: only with an entry the kernel must refuse
 *     (a VP started at a random address would kill the space);
 *   - unmap and fixed-address map: never over our image, heap, VP pages
 *     or stack; whatever map gives us is unmapped again;
 *   - cputs from our own buffer: at most a few dots; from other user
 *     memory (maybe our image): at most 3 bytes.
 * Any other number below NSYSCALL (a hole, or a syscall newer than this
 * file) is skipped: teach filter() about a new syscall to fuzz it.
 *
 * Prints "sysfuzz: seed S" first and ends with
 * @result {"name": "sysfuzz", "calls": N, "seed": S, "ok": .., "enosys": ..,
 *          "efault": .., "einval": .., "other": .., "skipped": ..,
 *          "unexpected": ..}
 * where unexpected counts calls that had to fail and did not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <rng.h>
#include <result.h>
#include <sys.h>
#include <anima/vp.h>

#define PROTECT_LO  USER_BASE                        /* image, heap: */
#define PROTECT_HI  (USER_MAP_BASE + (1UL << 40))    /*   below this */
#define TOP_LO      PSEUDO_BASE                      /* VP pages, stack */

static uint64_t st;
static char pool[8192];          /* valid memory to point arguments at */
static int printed;

static long rand_arg(void)
{
	switch (rand_below(&st, 8)) {
	case 0:         /* small numbers */
		return (long)rand_below(&st, 4101) - 4;
	case 1:
		return (long)rand64(&st);
	case 2:
		return 0;
	case 3:         /* kernel half, mostly its image */
		return (long)(rand_below(&st, 2) ? 0xffffffff80000000UL + rand_below(&st, 1 << 24)
						 : 0xffff800000000000UL + rand64(&st) % (1UL << 40));
	case 4:         /* non-canonical */
		return (long)(USER_TOP + rand_below(&st, 0xffff000000000000UL - USER_TOP));
	case 5:         /* into our own buffer */
		return (long)(pool + rand_below(&st, sizeof pool));
	case 6:         /* a page somewhere in user space */
		return (long)(USER_BASE + (rand_below(&st, (USER_TOP - USER_BASE) / PAGE_SIZE) * PAGE_SIZE));
	default:        /* powers of two, give or take one */
		return (long)((1UL << rand_below(&st, 64)) + rand_below(&st, 3) - 1);
	}
}

static long rand_number(void)
{
	switch (rand_below(&st, 64)) {
	case 0:
		return (long)rand64(&st);
	case 1:
		return (long)(1UL << rand_below(&st, 64));
	default:
		return (long)rand_below(&st, NSYSCALL + 16) - 8;
	}
}

static int overlaps(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	return a < hi && lo < b;
}

/* Could [addr, addr+len) -- generously rounded -- hit our own memory? */
static int touches_us(uint64_t addr, uint64_t len)
{
	uint64_t a = addr & ~(PAGE_SIZE - 1), b = addr + len + PAGE_SIZE;
	if (b < addr)
		return 1;         /* wraps around: too risky if mishandled */
	return overlaps(a, b, PROTECT_LO, PROTECT_HI) || overlaps(a, b, TOP_LO, USER_TOP);
}

/* What the kernel accepts as a VP entry point (see vp_create). */
static int user_entry(long rip, long rsp)
{
	return (uint64_t)rip >= USER_BASE && (uint64_t)rip < USER_TOP &&
	       (uint64_t)rsp > USER_BASE && (uint64_t)rsp <= USER_TOP;
}

enum { SKIP, ISSUE, MUST_FAIL };

/* Make the call safe to issue, or say to skip it. */
static int filter(long n, long *a)
{
	if (n < 0 || n >= NSYSCALL)
		return MUST_FAIL;
	switch (n) {
	case SYS_null:
	case SYS_time:
	case SYS_yield:
	case SYS_getinfo:
	case SYS_vp_signal:      /* a classic VP just queues events (bounded) */
	case SYS_vp_cap:
	case SYS_timer:
	case SYS_vp_poll:
	case SYS_futex_wake:
		return ISSUE;
	case SYS_sleep:
	case SYS_io:
		a[0] = (long)((uint64_t)a[0] % 1000000);
		return ISSUE;
	case SYS_futex_wait:
		a[2] = (long)(1 + (uint64_t)a[2] % 1000000);   /* 0 would mean forever */
		return ISSUE;
	case SYS_vp_create:
		return user_entry(a[0], a[1]) ? SKIP : MUST_FAIL;
	case SYS_vp_start:
		return user_entry(a[1], a[2]) ? SKIP : MUST_FAIL;
	case SYS_unmap:
		return touches_us((uint64_t)a[0], (uint64_t)a[1]) ? SKIP : ISSUE;
	case SYS_map:
		return a[0] == 0 || !touches_us((uint64_t)a[0], (uint64_t)a[1]) ? ISSUE : SKIP;
	case SYS_cputs:
		if (a[0] >= (long)pool && a[0] < (long)(pool + sizeof pool)) {
			long room = (long)(pool + sizeof pool) - a[0];
			a[1] = rand_below(&st, 64) ? 0 : (long)rand_below(&st, 8);
			if (a[1] > room)
				a[1] = room;
			printed |= a[1] > 0;
		} else if ((uint64_t)a[0] >= USER_BASE && (uint64_t)a[0] < USER_TOP) {
			/* Maybe our own image: the kernel would rightly print it,
			   and binary junk would swallow the @result line. */
			a[1] = (long)rand_below(&st, 4);
			printed |= a[1] > 0;
		}
		return ISSUE;
	default:
		return SKIP;
	}
}

int main(int argc, char **argv)
{
	long count = argc > 1 ? atol(argv[1]) : 100000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], 0, 0) : sys_time();
	long calls = 0, skipped = 0, ok = 0, enosys = 0, efault = 0, einval = 0, other = 0;
	long unexpected = 0;

	printf("sysfuzz: seed %llu\n", (unsigned long long)seed);
	st = seed;
	for (unsigned i = 0; i < sizeof pool; i++)
		pool[i] = '.';

	while (calls < count) {
		long n = rand_number(), a[6];
		for (int i = 0; i < 6; i++)
			a[i] = rand_arg();
		int how = filter(n, a);
		if (how == SKIP) {
			skipped++;
			continue;
		}
		long r = syscall6(n, a[0], a[1], a[2], a[3], a[4], a[5]);
		calls++;
		if (n == SYS_map && !sys_failed(r))
			sys_unmap((void *)r, (size_t)a[1]);
		if (!sys_failed(r))
			ok++;
		else if (r == -ENOSYS)
			enosys++;
		else if (r == -EFAULT)
			efault++;
		else if (r == -EINVAL)
			einval++;
		else
			other++;
		int bad = how == MUST_FAIL && (n < 0 || n >= NSYSCALL ? r != -ENOSYS : !sys_failed(r));
		if (bad && unexpected++ < 10)
			printf("\nsysfuzz: syscall %ld(%#lx, %#lx, %#lx) returned %ld, should fail%s\n",
			       n, a[0], a[1], a[2], r, n < 0 || n >= NSYSCALL ? " with ENOSYS" : "");
	}
	if (printed)
		sys_cputs("\n", 1);     /* end the line of dots */

	struct result res;
	result_begin(&res, "sysfuzz");
	result_int(&res, "calls", calls);
	result_uint(&res, "seed", seed);
	result_int(&res, "ok", ok);
	result_int(&res, "enosys", enosys);
	result_int(&res, "efault", efault);
	result_int(&res, "einval", einval);
	result_int(&res, "other", other);
	result_int(&res, "skipped", skipped);
	result_int(&res, "unexpected", unexpected);
	result_end(&res);
	return 0;
}
