/*
 * lazycharge MODE: the page tables a system call builds to reach an
 * untouched MAP_LAZY word are charged to the caller before they are
 * built, and a call refused for memory leaves none behind (kernel/vm.c,
 * space_pte_room; kernel/lazy.c, fill_take).
 *
 * The parent spawns an attacker and waits for it. The attacker (run
 * with memquota= small) maps a 100 TiB MAP_LAZY region and has the
 * kernel touch one untouched word per GiB, each touch needing a page
 * directory, a page table and a page:
 *   - MODE futex: SYS_futex_wake on the word (futex_key, lazy_fill);
 *   - MODE copy: SYS_spawn with the word as the program name (copyin_str
 *     faults, uaccess_fixup fills).
 * Past its quota each call must fail with nothing built. Before, every
 * call built its tables first, unchecked, and only then refused the
 * page: the free memory fell to nothing and other spaces could not grow.
 * Then the attacker spawns a bystander, which maps and touches 2 MiB and
 * 256 KiB of stack, and reports. The parent checks INFO_MEM_AVAIL comes
 * back exactly.
 * @result {"name": "lazycharge", "mode", "filled", "refused", "other",
 * "fell_kib", "bystander", "avail_lost"}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include "avail.h"

#define GIB (1UL << 30)
#define REGION (100UL << 40)

static int bystander(void)
{
	char *p = sys_map(0, 2 << 20, PROT_READ | PROT_WRITE);
	if (sys_failed((long)p))
		return 3;
	for (long i = 0; i < (2 << 20); i += 4096)
		p[i] = 1;
	volatile char stack[256 * 1024];          /* grows the lazy stack */
	for (long i = 0; i < (long)sizeof stack; i += 4096)
		stack[i] = 1;
	return stack[4096] == 1 ? 0 : 4;
}

static long poke(int copy, uint64_t va)
{
	if (copy)
		return syscall6(SYS_spawn, (long)va, 0, 0, 0, 0, 0);
	return syscall2(SYS_futex_wake, (long)va, 1);
}

static int attack(const char *mode, long *out)
{
	int copy = !strcmp(mode, "copy");
	long free0 = sys_getinfo(INFO_MEM_FREE), low = free0;
	long a = syscall4(SYS_map, 0, REGION, PROT_READ | PROT_WRITE | MAP_LAZY, 0);
	if (sys_failed(a))
		return 2;
	long filled = 0, refused = 0, other = 0;
	for (uint64_t off = 0; off < REGION; off += GIB) {
		long r = poke(copy, a + off);
		if (r == (copy ? -ENOENT : 0))
			filled++;
		else if (r == -EFAULT)
			refused++;
		else
			other++;
		if (off / GIB % 64 == 0) {
			long f = sys_getinfo(INFO_MEM_FREE);
			low = f < low ? f : low;
		}
	}
	const char *args[] = { "lazycharge", "bystander" };
	long id = sys_spawn("lazycharge", 2, args);
	int st = -100;
	if (id < 0)
		st = (int)id;
	else if (sys_wait((int)id, &st) != id)
		st = -101;
	out[0] = filled, out[1] = refused, out[2] = other;
	out[3] = (free0 - low) / 1024, out[4] = st;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "bystander"))
		return bystander();
	if (argc > 2 && !strcmp(argv[1], "attack")) {
		long o[5];
		int r = attack(argv[2], o);
		if (r)
			return r;
		struct result res;
		result_begin(&res, "lazycharge");
		result_str(&res, "mode", argv[2]);
		result_int(&res, "filled", o[0]);
		result_int(&res, "refused", o[1]);
		result_int(&res, "other", o[2]);
		result_int(&res, "fell_kib", o[3]);
		result_int(&res, "bystander", o[4]);
		result_end(&res);
		return 0;
	}
	const char *mode = argc > 1 ? argv[1] : "futex";
	long before = avail_wait(AVAIL_STEADY, 1);
	const char *args[] = { "lazycharge", "attack", mode };
	long id = sys_spawn("lazycharge", 3, args);
	int st = -1;
	if (id < 0 || sys_wait((int)id, &st) != id)
		return 5;
	avail_settled(1);
	long lost = before - avail_wait(before, 5);
	struct result res;
	result_begin(&res, "lazycharge_audit");
	result_int(&res, "attack_status", st);
	result_int(&res, "avail_lost", lost);
	result_end(&res);
	return 0;
}
