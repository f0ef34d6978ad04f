/*
 * seggift N MB: a segment that outlives its creator is charged to a space
 * that still holds it (kernel/seg.c, seg_orphans).
 *
 * The parent spawns N children one after another; each creates a
 * segment of MB MiB, grants its handle to the parent (a grant to the
 * parent needs no consent) and ends: the odd ones exit, the even ones
 * die of a page fault. Run with memquota below N * MB, the parent then
 * holds more than its quota:
 *   - map_while_holding: its SYS_map of one page must fail (-ENOMEM):
 *     the segments are its to pay for now. Before, they were charged to
 *     nobody and the map worked, so a child could pin memory past every
 *     quota through its parent;
 *   - map_after_drop: once it drops the handles, the map works again;
 *   - avail_lost: and INFO_MEM_AVAIL is back to where it started.
 * @result {"name": "seggift", "granted", "map_while_holding",
 * "map_after_drop", "avail_lost"}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animalib/result.h>
#include "avail.h"

static int child(int parent, uint64_t mb, int die)
{
	long h = seg_create(mb << 20);
	if (h < 0)
		return 3;
	long g = sys_cap_grant(h, parent);
	if (g < 0)
		return 4;
	if (die) {
		volatile uintptr_t null = 8;
		*(volatile int *)null = 1;   /* killed: the same path as an exit */
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 4 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]), strtoull(argv[3], 0, 10), atoi(argv[4]));
	int n = argc > 1 ? atoi(argv[1]) : 8;
	uint64_t mb = argc > 2 ? strtoull(argv[2], 0, 10) : 16;
	void *w = sys_map(0, 4096, PROT_READ | PROT_WRITE);   /* our page tables for the maps below */
	if (!sys_failed((long)w))
		sys_unmap(w, 4096);
	long before = avail_wait(AVAIL_STEADY, 1);
	char me[16], size[16];
	snprintf(me, sizeof me, "%ld", sys_getinfo(INFO_SPACE));
	snprintf(size, sizeof size, "%lu", (unsigned long)mb);
	int granted = 0;
	for (int i = 0; i < n; i++) {
		const char *args[] = { "seggift", "child", me, size, i % 2 ? "0" : "1" };
		long id = sys_spawn("seggift", 5, args);
		int st = -2;
		if (id < 0 || sys_wait((int)id, &st) != id)
			continue;
		granted += st == 0 || st == -1;   /* exited, or killed after its grant */
	}
	long p = (long)sys_map(0, 4096, PROT_READ | PROT_WRITE);
	long while_holding = sys_failed(p) ? p : 0;
	if (!sys_failed(p))
		sys_unmap((void *)p, 4096);
	for (long h = CAP_BASE; h < CAP_BASE + MAXCAP_SPACE; h++)
		sys_cap_drop(h);
	p = (long)sys_map(0, 4096, PROT_READ | PROT_WRITE);
	long after_drop = sys_failed(p) ? p : 0;
	if (!sys_failed(p))
		sys_unmap((void *)p, 4096);
	long lost = before - avail_wait(before, 5);
	struct result r;
	result_begin(&r, "seggift");
	result_int(&r, "granted", granted);
	result_int(&r, "map_while_holding", while_holding);
	result_int(&r, "map_after_drop", after_drop);
	result_int(&r, "avail_lost", lost);
	result_end(&r);
	return 0;
}
