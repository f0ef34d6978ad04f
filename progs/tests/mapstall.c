/*
 * mapstall root MIB ROUNDS: can one large map or segment hold a CPU?
 * (harness/tests/test_security_mem.py::test_large_map_does_not_hold_the_cpu)
 * The kernel is not preemptible and runs with interrupts off; a map
 * zeroes every page it maps, and a segment every frame it creates. The
 * root shares a segment with two children on the same CPUs:
 *   hog    maps MIB MiB and unmaps it, ROUNDS times, then creates and
 *          drops a 64 MiB segment (SEG_MAXLEN) ROUNDS times; it reports
 *          the longest map, unmap and create (ms)
 *   probe  meanwhile sleeps 1 ms at a time and reports how late its
 *          wake-ups were: the longest, and how many came 30 ms or more
 *          late (three quanta: another space held the CPU)
 * The root prints @result {"name": "mapstall", "case": "root", ...} with
 * both children's figures and statuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <errno.h>
#include <animalib/result.h>
#include "child.h"

#define MS 1000000UL
#define PROT_RW (PROT_READ | PROT_WRITE)

struct share {
	volatile int hog_done, probe_ready;
	volatile long map_ms, unmap_ms, seg_ms, map_err, seg_err;
	volatile long late_max_us, late_30ms, wakeups;
};
static struct share *sh;

static void map_share(void)
{
	sh = (struct share *)seg_map(CAP_BASE, PROT_RW);
	if (sys_failed((long)sh))
		sys_exit(3);
}

static int hog(long mib, int rounds)
{
	map_share();
	while (!sh->probe_ready)
		sys_sleep(MS);
	for (int i = 0; i < rounds; i++) {
		uint64_t t0 = sys_time();
		char *p = sys_map(0, mib << 20, PROT_RW);
		long ms = (long)((sys_time() - t0) / MS);
		if (sys_failed((long)p)) {
			sh->map_err = (long)p;
			break;
		}
		if (ms > sh->map_ms)
			sh->map_ms = ms;
		p[0] = p[(mib << 20) - 1] = 1;
		t0 = sys_time();
		sys_unmap(p, mib << 20);
		ms = (long)((sys_time() - t0) / MS);
		if (ms > sh->unmap_ms)
			sh->unmap_ms = ms;
	}
	for (int i = 0; i < rounds; i++) {
		uint64_t t0 = sys_time();
		long h = seg_create(SEG_MAXLEN);
		long ms = (long)((sys_time() - t0) / MS);
		if (h < 0) {
			sh->seg_err = h;
			break;
		}
		if (ms > sh->seg_ms)
			sh->seg_ms = ms;
		sys_cap_drop(h);
	}
	sh->hog_done = 1;
	return 0;
}

static int probe(void)
{
	map_share();
	sh->probe_ready = 1;
	while (!sh->hog_done) {
		uint64_t t0 = sys_time();
		sys_sleep(MS);
		long late = (long)(sys_time() - t0 - MS) / 1000;
		sh->wakeups++;
		if (late > sh->late_max_us)
			sh->late_max_us = late;
		if (late >= 30000)
			sh->late_30ms++;
	}
	return 0;
}

static int root(long mib, int rounds)
{
	long h = seg_create(sizeof(struct share));
	sh = (struct share *)seg_map(h, PROT_RW);
	if (h < 0 || sys_failed((long)sh))
		return 2;
	char ms[16], rs[16];
	snprintf(ms, sizeof ms, "%ld", mib);
	snprintf(rs, sizeof rs, "%d", rounds);
	const char *pa[] = { "mapstall", "probe" }, *ha[] = { "mapstall", "hog", ms, rs };
	long pid = sys_spawn_caps("mapstall", 2, pa, &h, 1);
	long hid = sys_spawn_caps("mapstall", 4, ha, &h, 1);
	int hst = child_status(hid);
	if (hst != 0)
		sh->hog_done = 1;        /* let the probe end anyway */
	int pst = child_status(pid);
	struct result r;
	result_begin(&r, "mapstall");
	result_str(&r, "case", "root");
	result_int(&r, "mib", mib);
	result_int(&r, "map_ms", sh->map_ms);
	result_int(&r, "map_err", sh->map_err);
	result_int(&r, "unmap_ms", sh->unmap_ms);
	result_int(&r, "seg_ms", sh->seg_ms);
	result_int(&r, "seg_err", sh->seg_err);
	result_int(&r, "late_max_us", sh->late_max_us);
	result_int(&r, "late_30ms", sh->late_30ms);
	result_int(&r, "wakeups", sh->wakeups);
	result_int(&r, "hog", hst);
	result_int(&r, "probe", pst);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "root";
	if (!strcmp(mode, "hog") && argc > 3)
		return hog(atol(argv[2]), atoi(argv[3]));
	if (!strcmp(mode, "probe"))
		return probe();
	return root(argc > 2 ? atol(argv[2]) : 256, argc > 3 ? atoi(argv[3]) : 4);
}
