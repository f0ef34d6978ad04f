/*
 * segexhaust [ROUNDS [KIDS]]: a space runs into every limit on shared
 * segments (kernel/seg.c), ROUNDS times over, in KIDS child spaces at
 * once; the kernel's available memory must then be back exactly
 * (harness/tests/test_segments.py::test_segment_exhaustion). Each round:
 *   count   create segments of varied sizes until refused: MAXSEG_SPACE
 *           of them, then -EAGAIN; bad lengths stay -EINVAL at the limit;
 *           map half of them, touch their pages, unmap, drop every handle
 *   table   fill the handle table (SYS_vp_cap) but for 3 entries: three
 *           creates succeed, the fourth is -ENOMEM (its frames were taken,
 *           and must be given back)
 *   quota   (booted with a small memquota) create 4 MiB segments until
 *           refused: -ENOMEM from the quota before MAXSEG_SPACE
 * A child prints @result {"name": "segexhaust", "case": "child", ...} with
 * the counts of rounds that did not go as above (0 when all did) and how
 * much of the never-reused segment window it used; the parent prints
 * {"case": "parent", "lost": bytes, "statuses": [..]}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <errno.h>
#include <animalib/result.h>
#include "avail.h"
#include "child.h"

#define MS 1000000UL
#define PROT_RW (PROT_READ | PROT_WRITE)
#define MAXKIDS 4

static long h[MAXSEG_SPACE + 1];
static uint64_t first_base, last_end;

static void note(long hd)
{
	uint64_t len;
	long base = seg_info(hd, &len, 0);
	if (base <= 0)
		return;
	if (!first_base || (uint64_t)base < first_base)
		first_base = base;
	if ((uint64_t)base + len > last_end)
		last_end = base + len;
}

/* 0 if the round went as it must. */
static int count_round(int round)
{
	int n = 0, bad = 0;
	long err = 0;
	for (; n <= MAXSEG_SPACE; n++) {
		long r = seg_create(4096UL * (1 + (n * 7 + round) % 64));
		if (r < 0) {
			err = r;
			break;
		}
		h[n] = r;
		note(r);
	}
	bad |= n != MAXSEG_SPACE || err != -EAGAIN;
	bad |= seg_create(0) != -EINVAL || seg_create(SEG_MAXLEN + 1) != -EINVAL;
	for (int i = 0; i < n; i += 2) {
		uint64_t len;
		char *p = (char *)seg_map(h[i], PROT_RW);
		if (sys_failed((long)p) || seg_info(h[i], &len, 0) < 0) {
			bad = 1;
			continue;
		}
		for (uint64_t o = 0; o < len; o += 4096)
			p[o] = (char)o;
		bad |= seg_unmap(p) != 0;
	}
	for (int i = 0; i < n; i++)
		bad |= sys_cap_drop(h[i]) != 0;
	return bad;
}

static int table_round(void)
{
	long vh[MAXCAP_SPACE];
	int nv = 0, bad = 0;
	while (nv < MAXCAP_SPACE - 3) {
		long r = sys_vp_cap(0);
		if (r < 0)
			break;
		vh[nv++] = r;
	}
	int n = 0;
	long err = 0;
	for (; n < 4; n++) {
		long r = seg_create(64 * 1024);
		if (r < 0) {
			err = r;
			break;
		}
		h[n] = r;
	}
	bad |= nv != MAXCAP_SPACE - 3 || n != 3 || err != -ENOMEM;
	for (int i = 0; i < n; i++)
		bad |= sys_cap_drop(h[i]) != 0;
	for (int i = 0; i < nv; i++)
		bad |= sys_cap_drop(vh[i]) != 0;
	return bad;
}

static long quota_made;

static int quota_round(void)
{
	int n = 0;
	long err = 0;
	for (; n <= MAXSEG_SPACE; n++) {
		long r = seg_create(4UL << 20);
		if (r < 0) {
			err = r;
			break;
		}
		h[n] = r;
	}
	int bad = err != -ENOMEM || n < 1 || n >= MAXSEG_SPACE ||
		  (quota_made && n != quota_made);
	quota_made = n;
	for (int i = 0; i < n; i++)
		bad |= sys_cap_drop(h[i]) != 0;
	return bad;
}

static int child(long rounds)
{
	long bad_count = 0, bad_table = 0, bad_quota = 0;
	for (long i = 0; i < rounds; i++) {
		bad_count += count_round((int)i);
		bad_table += table_round();
		bad_quota += quota_round();
	}
	struct result r;
	result_begin(&r, "segexhaust");
	result_str(&r, "case", "child");
	result_int(&r, "rounds", rounds);
	result_int(&r, "bad_count", bad_count);
	result_int(&r, "bad_table", bad_table);
	result_int(&r, "bad_quota", bad_quota);
	result_int(&r, "quota_made", quota_made);
	result_uint(&r, "window_used", last_end - first_base);
	result_uint(&r, "window_left", SEG_TOP - last_end);
	result_end(&r);
	return bad_count || bad_table || bad_quota;
}

/* KIDS children at once, each doing ROUNDS rounds; their statuses. */
static void spawn_kids(long rounds, int kids, int *st)
{
	char rs[24];
	snprintf(rs, sizeof rs, "%ld", rounds);
	const char *a[] = { "segexhaust", "child", rs };
	long id[MAXKIDS];
	for (int k = 0; k < kids; k++)
		id[k] = sys_spawn("segexhaust", 3, a);
	for (int k = 0; k < kids; k++)
		st[k] = child_status(id[k]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child(argc > 2 ? atol(argv[2]) : 10);
	long rounds = argc > 1 ? atol(argv[1]) : 50;
	int kids = argc > 2 ? atoi(argv[2]) : 1;
	if (kids < 1 || kids > MAXKIDS)
		kids = 1;
	int st[MAXKIDS], warm[MAXKIDS];
	spawn_kids(1, 1, warm);          /* warms up the parent's own heap and tables */
	long m0 = avail_settled(1);      /* we alone: the warm-up child let go */
	spawn_kids(rounds, kids, st);
	struct result r;
	result_begin(&r, "segexhaust");
	result_str(&r, "case", "parent");
	result_int(&r, "warm", warm[0]);
	avail_settled(1);
	result_int(&r, "lost", m0 - avail_wait(m0, 1));
	result_array(&r, "statuses");
	for (int k = 0; k < kids; k++)
		result_int(&r, NULL, st[k]);
	result_close(&r);
	result_end(&r);
	return 0;
}
