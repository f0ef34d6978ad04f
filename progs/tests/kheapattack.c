/*
 * kheapattack root FANOUT DEPTH SECS: try to drain the kernel's memory
 * reserve with kernel heap objects a user causes, not with user pages
 * (harness/tests/test_security_mem.py::test_kernel_heap_objects_leave_
 * the_reserve). The root spawns a bystander, then a tree of `node`
 * spaces (FANOUT children each, DEPTH levels). Every node:
 *   - spawns its children, creates 15 small segments,
 *   - creates VPs until refused (each: a kernel stack, an event ring, a
 *     struct vp on the heap), and every VP blocks in futex waits from an
 *     upcall handler that never drains its ring: a kop on the heap per
 *     wait, 64 per VP in thread mode, then one more blocking the VP
 *     classically, until the space's MAXKOP_SPACE or memory says no;
 *   - when the bystander is done (or SECS after the root started) waits
 *     for its children and exits (every kop, VP, segment goes with it).
 * The counters everyone adds to live in a segment the root shares down
 * the tree. The bystander (a child of the root, spawned first, attacking
 * nothing) waits until the tree has stopped growing, then checks that
 * the kernel still serves it: 20 sleeps, a timed futex wait, a 256 KiB
 * map, a VP. After the tree is gone the root runs one more child
 * ("after") doing the same, and checks INFO_MEM_AVAIL is back exactly.
 * The root prints @result {"name": "kheapattack", "case": "root", ...},
 * the bystander and the after child {"case": "bystander"/"after", ...}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <errno.h>
#include <animalib/result.h>
#include <animart/upcall.h>
#include "avail.h"
#include "child.h"

#define MS 1000000UL
#define PROT_RW (PROT_READ | PROT_WRITE)
#define NODE_MAXKIDS 31

/* Shared by the whole tree (a segment): what the attack got. */
struct stats {
	volatile long spaces, built, spawn_err;
	volatile long vps, vp_err, last_vp_err;
	volatile long twaits, kop_enomem, kop_eagain, kop_other;
	volatile long segs, seg_err;
	volatile long min_free;
	volatile int stop;               /* the bystander is done: the tree ends */
};
static struct stats *st;

static void add(volatile long *c, long n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void note_free(void)
{
	long f = sys_getinfo(INFO_MEM_FREE), m = st->min_free;
	while (f < m && !__atomic_compare_exchange_n(&st->min_free, &m, f, 0,
						     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* --- a node's worker VPs ---------------------------------------------------- */

#define WSTACK 1024
static char wstack[MAXVP][WSTACK] __attribute__((aligned(16)));
static char ustack[MAXVP][WSTACK] __attribute__((aligned(16)));
static uint32_t words[MAXVP];    /* futex words, always 0: waits never end */

static __attribute__((noreturn)) void idle_forever(void)
{
	for (;;)
		syscall0(SYS_vp_idle);
}

/* The upcall entry (no ulib stub): every futex wait in thread mode comes
   back here (EV_BLOCKED); the ring is never drained, so after 64 the VP
   blocks classically. A call that returns was refused. */
static int entries[MAXVP];

static __attribute__((noreturn)) void refused(struct vp_page *p, long r)
{
	add(r == -ENOMEM ? &st->kop_enomem : r == -EAGAIN ? &st->kop_eagain : &st->kop_other, 1);
	note_free();
	p->upcall_entry = 0;
	idle_forever();
}

/* A refused wait returns into an upcall too (the undrained ring keeps
   events pending): more entries than thread-mode waits fit in the queue
   mean the last wait was refused, with its error in save.rax. */
static __attribute__((noreturn)) void wentry(struct vp_page *p, struct pseudo_page *pp)
{
	unsigned i = pp->vp_index;
	if (++entries[i] > 2 * 128)      /* twice the kernel queue (EVQ_SIZE) */
		refused(p, (long)p->save.rax);
	add(&st->twaits, 1);
	p->disabled = 0;
	refused(p, syscall3(SYS_futex_wait, &words[i], 0, 0));
}

static __attribute__((noreturn)) void worker(long i)
{
	struct vp_page *p = vp_self();
	p->upcall_stack = (uint64_t)(ustack[i] + WSTACK);
	p->disabled = 1;
	p->upcall_entry = (uint64_t)wentry;
	p->disabled = 0;
	/* the first upcall starts it */
	refused(p, syscall3(SYS_futex_wait, &words[i], 0, 0));
}

/* --- a node ------------------------------------------------------------------- */

static long spawn_node(long h, int level, int fanout, uint64_t deadline)
{
	char lv[16], fo[16], dl[32];
	snprintf(lv, sizeof lv, "%d", level);
	snprintf(fo, sizeof fo, "%d", fanout);
	snprintf(dl, sizeof dl, "%lu", deadline);
	const char *argv[] = { "kheapattack", "node", lv, fo, dl };
	long id = sys_spawn_caps("kheapattack", 5, argv, &h, 1);
	if (id < 0)
		add(&st->spawn_err, 1);
	return id;
}

/* A node spawned once the tree has taken the memory may find none left
   for the page tables of the shared counters: it cannot join the attack,
   and says so (NO_ROOM), which is the attack working, not a failure. */
#define NO_ROOM 4

static void map_stats(void)
{
	st = (struct stats *)seg_map(CAP_BASE, PROT_RW);
	if (sys_failed((long)st))
		sys_exit((long)st == -ENOMEM ? NO_ROOM : 3);
}

static int node(int level, int fanout, uint64_t deadline)
{
	map_stats();
	add(&st->spaces, 1);
	long kids[NODE_MAXKIDS];
	int nk = 0;
	for (int i = 0; level > 0 && i < fanout && i < NODE_MAXKIDS; i++)
		if ((kids[nk] = spawn_node(CAP_BASE, level - 1, fanout, deadline)) > 0)
			nk++;
	for (int i = 0; i < 15; i++)
		add(seg_create(4096) > 0 ? &st->segs : &st->seg_err, 1);
	for (long i = 1; i < MAXVP && !st->stop; i++) {
		long r = syscall3(SYS_vp_create, (long)worker, (long)(wstack[i] + WSTACK), i);
		if (sys_failed(r)) {
			add(&st->vp_err, 1);
			st->last_vp_err = r;
			break;
		}
		add(&st->vps, 1);
	}
	note_free();
	add(&st->built, 1);
	/* (A sleep refused for memory returns at once: then yield.) */
	while (!st->stop && sys_time() < deadline)
		if (sys_sleep(50 * MS) < 0)
			sys_yield();
	for (int i = 0; i < nk; i++)
		child_status(kids[i]);
	return 0;
}

/* --- the bystander and the after child: does the kernel still serve? ------- */

static uint32_t fword;

static void check(const char *name)
{
	int sleeps = 0;
	long sleep_err = 0;
	for (int i = 0; i < 20; i++) {
		long r = sys_sleep(MS);
		if (r == 0)
			sleeps++;
		else
			sleep_err = r;
	}
	long fw = syscall3(SYS_futex_wait, &fword, 0, MS);
	/* The count before arming: a preemption of over 1 ms between the
	   arming and this read (a loaded host, 7,500 VPs of the tree) made
	   the expiry part of ev0, and the loop below spun for ever (the
	   root then waited for ever for the bystander: most likely the one
	   CI hang of test_kernel_heap_objects_leave_the_reserve). */
	long ev0 = vp_pseudo()->events;
	long tm = syscall2(SYS_timer, sys_time() + MS, 7);
	while (tm == 0 && vp_pseudo()->events == (uint64_t)ev0)
		syscall0(SYS_vp_idle);
	char *m = sys_map(0, 256 << 10, PROT_RW);
	long mr = (long)m;
	if (!sys_failed(mr)) {
		for (int o = 0; o < 256 << 10; o += 4096)
			m[o] = 1;
		sys_unmap(m, 256 << 10);
		mr = 0;
	}
	long vp = syscall3(SYS_vp_create, (long)idle_forever, (long)(wstack[1] + WSTACK), 0);
	struct result r;
	result_begin(&r, "kheapattack");
	result_str(&r, "case", name);
	result_int(&r, "sleeps", sleeps);
	result_int(&r, "sleep_err", sleep_err);
	result_int(&r, "futex", fw);
	result_int(&r, "timer", tm);
	result_int(&r, "map", mr);
	result_int(&r, "vp", vp > 0 ? 0 : vp);
	result_int(&r, "free", sys_getinfo(INFO_MEM_FREE));
	result_end(&r);
}

/* Wait until the tree stopped growing: every node built, and no VP
   made or thread blocked in the last second; at most a minute. (A sleep
   refused for memory, before the fix, returns at once: then yield.) */
static int bystander(void)
{
	map_stats();
	uint64_t t0 = sys_time(), next = t0 + 1000 * MS;
	long last = -1;
	while (sys_time() < t0 + 60000 * MS) {
		if (sys_sleep(100 * MS) < 0)
			sys_yield();
		if (sys_time() < next)
			continue;
		next += 1000 * MS;
		long tw = st->twaits + st->kop_enomem + st->kop_eagain + st->vps;
		if (st->built > 0 && st->built == st->spaces && tw == last)
			break;
		last = tw;
	}
	note_free();
	check("bystander");
	st->stop = 1;
	return 0;
}

/* --- the root ------------------------------------------------------------------- */

static int root(int fanout, int depth, long secs)
{
	const char *by[] = { "kheapattack", "bystander" };
	const char *af[] = { "kheapattack", "after" };
	long h = seg_create(sizeof(struct stats));
	st = (struct stats *)seg_map(h, PROT_RW);
	if (h < 0 || sys_failed((long)st))
		return 2;
	sys_sleep(5 * MS);
	long m0 = avail();              /* with the stats segment and its tables */
	st->min_free = sys_getinfo(INFO_MEM_FREE);
	uint64_t t0 = sys_time(), deadline = t0 + secs * 1000 * MS;
	long bid = sys_spawn_caps("kheapattack", 2, by, &h, 1);
	long kids[NODE_MAXKIDS];
	int nk = 0;
	for (int i = 0; i < fanout && i < NODE_MAXKIDS; i++)
		if ((kids[nk] = spawn_node(h, depth - 1, fanout, deadline)) > 0)
			nk++;
	int bst = child_status(bid), bad = 0, no_room = 0;
	for (int i = 0; i < nk; i++) {
		int s = child_status(kids[i]);
		no_room += s == NO_ROOM;
		bad += s != 0 && s != NO_ROOM;
	}
	uint64_t t1 = sys_time();
	int ast = child_run(2, af);
	long m1 = avail_wait(m0, 10);
	struct stats s = *st;
	struct result r;
	result_begin(&r, "kheapattack");
	result_str(&r, "case", "root");
	result_int(&r, "spaces", s.spaces);
	result_int(&r, "spawn_err", s.spawn_err);
	result_int(&r, "vps", s.vps);
	result_int(&r, "vp_err", s.vp_err);
	result_int(&r, "last_vp_err", s.last_vp_err);
	result_int(&r, "twaits", s.twaits);
	result_int(&r, "kop_enomem", s.kop_enomem);
	result_int(&r, "kop_eagain", s.kop_eagain);
	result_int(&r, "kop_other", s.kop_other);
	result_int(&r, "segs", s.segs);
	result_int(&r, "seg_err", s.seg_err);
	result_int(&r, "min_free", s.min_free);
	result_int(&r, "bystander", bst);
	result_int(&r, "nodes_bad", bad);
	result_int(&r, "nodes_no_room", no_room);
	result_int(&r, "after", ast);
	result_int(&r, "lost", m0 - m1);
	result_int(&r, "ms", (long)((t1 - t0) / MS));
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "root";
	if (!strcmp(mode, "node") && argc > 4)
		return node(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], 0, 10));
	if (!strcmp(mode, "bystander"))
		return bystander();
	if (!strcmp(mode, "after")) {
		st = &(struct stats){ .min_free = 0 };
		check("after");
		return 0;
	}
	return root(argc > 2 ? atoi(argv[2]) : 8, argc > 3 ? atoi(argv[3]) : 2,
		    argc > 4 ? atol(argv[4]) : 30);
}
