/*
 * vpreserve: the kernel's memory reserve against VP creation. User pages
 * (maps, lazy faults, a spawn's image and stack) leave the kernel a
 * reserve of max(2 MiB, RAM/64) free; a VP's kernel stack and event ring
 * (12 pages with its two shared pages) must leave it too. Booted with a
 * quota above RAM (memquota=100000), this program maps 1 MiB chunks until
 * -ENOMEM (free memory is then at the reserve), then creates idle VPs
 * until vp_create fails, and reports free memory before and after: the
 * VPs must not eat the reserve (before the fix, 255 VPs took 12 MiB of
 * it and left the kernel no free page at all).
 */
#include <stdio.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <anima/vp.h>

#define VSTACK 2048
static char stacks[MAXVP][VSTACK] __attribute__((aligned(16)));

static void idler(long arg) __attribute__((noreturn));
static void idler(long arg)
{
	(void)arg;
	for (;;)
		syscall0(SYS_vp_idle);
}

int main(void)
{
	long chunks = 0, err = 0;
	for (;;) {
		long a = syscall3(SYS_map, 0, 1UL << 20, PROT_READ | PROT_WRITE);
		if (sys_failed(a)) {
			err = a;
			break;
		}
		chunks++;
	}
	long free0 = syscall1(SYS_getinfo, INFO_MEM_FREE);
	long nvp = 0, vperr = 0;
	for (int i = 1; i < MAXVP; i++) {
		long r = syscall3(SYS_vp_create, (long)idler, (long)(stacks[i] + VSTACK), 0);
		if (sys_failed(r)) {
			vperr = r;
			break;
		}
		nvp++;
	}
	long free1 = syscall1(SYS_getinfo, INFO_MEM_FREE);
	long slept = syscall1(SYS_sleep, 1000000);
	struct result r;
	result_begin(&r, "vpreserve");
	result_int(&r, "map_mib", chunks);
	result_int(&r, "map_err", err);
	result_int(&r, "free_after_maps", free0);
	result_int(&r, "vps", nvp);
	result_int(&r, "vp_err", vperr);
	result_int(&r, "free_after_vps", free1);
	result_int(&r, "sleep", slept);
	result_end(&r);
	return 0;
}
