/*
 * fuzzaudit K NVP COUNT SEED [FLAGS]: the memory audit around a fuzz run.
 *
 * Reads the kernel's free-memory figure, spawns K `sysfuzz COUNT SEED+i
 * NVP FLAGS` children at once (each fuzzes from NVP VPs and prints its own
 * @result), waits for all of them, and reads the figure again. Every
 * frame and kernel object a child caused must be back once it has ended:
 * the audit passes only if the figure is back exactly.
 *
 * The figure is SYS_getinfo(INFO_MEM_AVAIL): free frames plus the empty
 * pages the kernel heap keeps for reuse. A kernel without it answers
 * -EINVAL; then the audit falls back to INFO_MEM_FREE (free frames only),
 * says so ("counter": "INFO_MEM_FREE", fields mem_free_*), and is still
 * exact: on a kernel whose heap never returns pages it reports the leak.
 *
 * The last CPU to run a child may hold its page tables a little longer
 * (until it next switches), so a figure that is not back yet is read again
 * for up to a second ("settle_ms" says how long it took).
 *
 * @result {"name": "fuzzaudit", "children": K, "nvp": .., "count": ..,
 *          "seed": .., "counter": "INFO_MEM_AVAIL", "mem_avail_before": ..,
 *          "mem_avail_after": .., "leaked": bytes, "settle_ms": ..,
 *          "statuses": [..], "audit": "pass" | "leak"}
 * Exit status: 0 if the audit passed and every child exited 0; 1 on a
 * leak; 2 if a child failed (spawn error, non-zero status, killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animalib/result.h>
#include <animart/sys.h>

#define MAXKIDS 16

static int use_avail;

static long mem_figure(void)
{
	return sys_getinfo(use_avail ? INFO_MEM_AVAIL : INFO_MEM_FREE);
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 2;
	const char *nvp = argc > 2 ? argv[2] : "2";
	const char *count = argc > 3 ? argv[3] : "20000";
	uint64_t seed = argc > 4 ? strtoull(argv[4], 0, 0) : sys_time();
	const char *flags = argc > 5 ? argv[5] : "auto";
	if (k < 1 || k > MAXKIDS)
		k = k < 1 ? 1 : MAXKIDS;

	use_avail = sys_getinfo(INFO_MEM_AVAIL) >= 0;
	const char *counter = use_avail ? "INFO_MEM_AVAIL" : "INFO_MEM_FREE";
	printf("fuzzaudit: seed %llu, %d children x %s VPs x %s calls; counter %s%s\n",
	       (unsigned long long)seed, k, nvp, count, counter,
	       use_avail ? "" : " (INFO_MEM_AVAIL unsupported: heap pages kept for reuse count as leaked)");

	long before = mem_figure();
	long ids[MAXKIDS];
	int status[MAXKIDS], failed = 0;
	for (int i = 0; i < k; i++) {
		char sd[24];
		snprintf(sd, sizeof sd, "%llu", (unsigned long long)(seed + (uint64_t)i));
		const char *args[] = { "sysfuzz", count, sd, nvp, flags };
		ids[i] = sys_spawn("sysfuzz", 5, args);
		status[i] = 0;
		if (ids[i] < 0) {
			printf("fuzzaudit: spawn %d: %ld\n", i, ids[i]);
			failed = 1;
		}
	}
	for (int i = 0; i < k; i++) {
		if (ids[i] < 0) {
			status[i] = (int)ids[i];
			continue;
		}
		long r = sys_wait((int)ids[i], &status[i]);
		if (r != ids[i]) {
			printf("fuzzaudit: wait %ld: %ld\n", ids[i], r);
			status[i] = (int)(r < 0 ? r : -1);
		}
		failed |= status[i] != 0;
	}

	/* A fuzzer may grant a handle to its parent, us (a grant to the
	   parent is allowed, and ids are guessed): what it names, a segment
	   say, lives as long as our handle. Drop every handle we hold, so
	   only what the kernel failed to free is left to count. */
	int dropped = 0;
	for (long h = CAP_BASE; h < CAP_BASE + MAXCAP_SPACE; h++)
		dropped += sys_cap_drop(h) == 0;
	long after = mem_figure();
	uint64_t t0 = sys_time(), t = t0;
	while (after != before && t - t0 < 1000000000UL) {
		sys_sleep(10000000);
		after = mem_figure();
		t = sys_time();
	}
	int leak = after != before;

	struct result r;
	result_begin(&r, "fuzzaudit");
	result_int(&r, "children", k);
	result_int(&r, "nvp", atoi(nvp));
	result_int(&r, "count", atol(count));
	result_uint(&r, "seed", seed);
	result_str(&r, "counter", counter);
	result_int(&r, use_avail ? "mem_avail_before" : "mem_free_before", before);
	result_int(&r, use_avail ? "mem_avail_after" : "mem_free_after", after);
	result_int(&r, "leaked", before - after);
	result_int(&r, "handles_dropped", dropped);
	result_int(&r, "settle_ms", (long)((t - t0) / 1000000));
	result_array(&r, "statuses");
	for (int i = 0; i < k; i++)
		result_int(&r, 0, status[i]);
	result_close(&r);
	result_str(&r, "audit", leak ? "leak" : "pass");
	result_end(&r);
	return failed ? 2 : leak ? 1 : 0;
}
