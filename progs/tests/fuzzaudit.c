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
 * A child that fails prints why, and puts its first cause into our
 * named segment FZWHY_NAME (sysfuzz.c's tell_audit), which the @result's
 * "why" carries (one string per child, "" if it passed), as this
 * program's own failures: a CI log cut short after its head, where the
 * children's lines were lost, still names the cause in the @result.
 * The segment is made before the first memory figure and kept past
 * the last, so the audit does not see it.
 *
 * The last CPU to run a child may hold its page tables a little longer
 * (until it next switches), so a figure that is not back yet is read again
 * for up to a second ("settle_ms" says how long it took).
 *
 * @result {"name": "fuzzaudit", "children": K, "nvp": .., "count": ..,
 *          "seed": .., "counter": "INFO_MEM_AVAIL", "mem_avail_before": ..,
 *          "mem_avail_after": .., "leaked": bytes, "settle_ms": ..,
 *          "statuses": [..], "audit": "pass" | "leak", "why": [..]}
 * Exit status: 0 if the audit passed and every child exited 0; 1 on a
 * leak; 2 if a child failed (spawn error, non-zero status, killed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <anima/seg.h>

#define MAXKIDS 16
#define FZWHY_NAME  "fuzzaudit.why"    /* as sysfuzz.c's: FZWHY_SLOTS slots */
#define FZWHY_SLOTS 16                 /*   of {seed + 1, its why} */
#define FZWHY_SLOT  256

static int use_avail;

static long mem_figure(void)
{
	return sys_getinfo(use_avail ? INFO_MEM_AVAIL : INFO_MEM_FREE);
}

/* Why child i (seed sd, id, status) failed, into out ("" if it did not),
   and one line saying so: its own words from the segment, else what
   its status tells. */
static void child_why(char *out, const char *whys, uint64_t sd, long id, int status)
{
	out[0] = 0;
	if (id >= 0 && status == 0)
		return;
	for (int j = 0; whys && j < FZWHY_SLOTS; j++) {
		const uint64_t *tag = (const uint64_t *)(whys + j * FZWHY_SLOT);
		if (*tag == sd + 1) {
			snprintf(out, FZWHY_SLOT, "%.*s", FZWHY_SLOT - 9, (const char *)(tag + 1));
			break;
		}
	}
	if (out[0])
		;
	else if (id < 0)
		snprintf(out, FZWHY_SLOT, "spawn returned %d", status);
	else if (status == -1)
		snprintf(out, FZWHY_SLOT, "killed (the kernel's \"killed:\" line says why)");
	else
		snprintf(out, FZWHY_SLOT, "status %d, no cause told", status);
	printf("fuzzaudit: child seed %llu (space %ld) status %d: %s\n", (unsigned long long)sd, id,
	       status, out);
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

	/* (a name left by an earlier run: made anew, zeroed) */
	syscall1(SYS_seg_unlink, (long)FZWHY_NAME);
	long wh = syscall3(SYS_seg_open, (long)FZWHY_NAME, FZWHY_SLOTS * FZWHY_SLOT, SEGN_CREAT);
	long wa = sys_failed(wh) ? wh : syscall3(SYS_seg_map, wh, 0, PROT_READ | PROT_WRITE);
	char *whys = sys_failed(wa) ? 0 : (char *)wa;
	if (!sys_failed(wh))
		sys_cap_drop(wh);        /* (the map holds it: handles_dropped counts only the children's) */
	if (whys)
		memset(whys, 0, FZWHY_SLOTS * FZWHY_SLOT);      /* its pages now, not in the audit */
	else
		printf("fuzzaudit: no %s segment (%ld): a child's why is only in its own lines\n",
		       FZWHY_NAME, wa);

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
			printf("fuzzaudit: child %d: spawn returned %ld\n", i, ids[i]);
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
			printf("fuzzaudit: child %d: wait(%ld) returned %ld, not its id\n", i, ids[i], r);
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
	if (leak)
		printf("fuzzaudit: leak: %s %ld before, %ld after (%ld bytes)\n", counter, before, after,
		       before - after);
	char why[MAXKIDS][FZWHY_SLOT];
	for (int i = 0; i < k; i++)
		child_why(why[i], whys, seed + (uint64_t)i, ids[i], status[i]);
	if (whys)
		syscall1(SYS_seg_unmap, (long)whys);
	syscall1(SYS_seg_unlink, (long)FZWHY_NAME);

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
	result_array(&r, "why");
	for (int i = 0; i < k; i++)
		result_str(&r, 0, why[i]);
	result_close(&r);
	result_end(&r);
	return failed ? 2 : leak ? 1 : 0;
}
