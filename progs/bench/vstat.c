/*
 * vstat: print the kernel's counts of view and TLB work since boot
 * (<anima/vstat.h>) as one @result line, "vstat". Run before and after a
 * program in one benchseq boot, the differences are that program's:
 * view faults, commits and pages committed, CR3 loads, shootdowns and
 * their IPIs, single-page flushes, dispatches and the CPUs' idle time.
 */
#include <stdio.h>
#include <time.h>
#include <animart/sys.h>
#include <anima/vstat.h>

static const char *names[VS_NSTAT] = {
	"vfault_hold", "vfault_priv", "vfault_sync", "vfault_tsc", "commits", "commit_pages",
	"dropped", "commit_tsc", "cr3_view", "cr3_space", "cr3_flush", "shootdowns", "ipis",
	"invlpg", "dispatch", "dispatch_view", "idle_ns",
};

int main(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	printf("@result {\"name\": \"vstat\", \"now_ns\": %lld, \"tsc_hz\": %ld",
	       (long long)t.tv_sec * 1000000000LL + t.tv_nsec, sys_getinfo(INFO_TSC_HZ));
	for (int i = 0; i < VS_NSTAT; i++)
		printf(", \"%s\": %ld", names[i], syscall2(SYS_getinfo, INFO_VSTAT, i));
	printf("}\n");
	return 0;
}
