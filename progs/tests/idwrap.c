/*
 * idwrap [ROUNDS]: a stale VP handle across the 2^32 boundary of VP ids
 * (harness/tests/test_security_ev.py::test_vp_ids_never_wrap, booted
 * with vpidbase=2^32-100 so that the boundary is a few VPs away). A
 * handle names its VP by (space id, slot, VP id); with 32-bit ids the
 * counter came back to a dead VP's id after 2^32 creations and the old
 * handle reached whichever VP sat in its slot then. Here VP slot 1 is
 * filled, handled, emptied, then filled again ROUNDS times: the old
 * handle must stay -ESRCH every time, and a fresh handle must work.
 * Prints @result {"name": "idwrap", ...}: the rounds, how often the
 * stale handle reached a VP, how often a fresh one worked, the first
 * and last VP id user code saw (its low 32 bits: they wrap), and how
 * many create+exit cycles a second this kernel does (how soon 2^32 come).
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <errno.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define VSTACK 4096
static char vstack[VSTACK] __attribute__((aligned(16)));
static volatile int release;

static __attribute__((noreturn)) void one(long arg)
{
	(void)arg;
	while (!release)
		sys_yield();
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* Let VP `i` go and wait until it is gone. */
static void empty(long i)
{
	release = 1;
	while (syscall2(SYS_vp_signal, i, 0) != -ESRCH)
		sys_yield();
}

/* Make a VP in slot 1, which waits for `release`. A VP that exited on
   another CPU may still hold its slot until it is off that CPU's stack:
   then the new one lands in slot 2, and we try again. 1 on success. */
static int fill(void)
{
	for (int tries = 0; tries < 1000; tries++) {
		release = 0;
		long i = syscall3(SYS_vp_create, (long)one, (long)(vstack + VSTACK), 0);
		if (i == 1)
			return 1;
		if (i < 0)
			return 0;
		empty(i);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	if (!fill())
		return 2;
	long stale = sys_vp_cap(1);
	uint32_t first = pseudo_page(1)->vp_id;
	long first_sig = syscall2(SYS_vp_signal, stale, 7);
	empty(1);
	int reached = 0, fresh_ok = 0;
	uint32_t last = first;
	uint64_t t0 = sys_time();
	for (int i = 0; i < rounds; i++) {
		if (!fill())
			return 3;
		last = pseudo_page(1)->vp_id;
		reached += syscall2(SYS_vp_signal, stale, 7) != -ESRCH;
		long h = sys_vp_cap(1);
		fresh_ok += syscall2(SYS_vp_signal, h, 7) == 0;
		sys_cap_drop(h);
		empty(1);
	}
	uint64_t ns = sys_time() - t0;
	struct result r;
	result_begin(&r, "idwrap");
	result_int(&r, "rounds", rounds);
	result_int(&r, "first_signal", first_sig);
	result_int(&r, "stale_reached", reached);
	result_int(&r, "fresh_ok", fresh_ok);
	result_uint(&r, "first_id", first);
	result_uint(&r, "last_id", last);
	result_uint(&r, "cycles_per_s", ns ? (uint64_t)rounds * 1000000000UL / ns : 0);
	result_end(&r);
	return 0;
}
