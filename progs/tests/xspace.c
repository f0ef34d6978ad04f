/*
 * xspace CASE [ARGS]: shared segments and cross-space synchronization
 * (issue 15; harness/tests/test_segments.py). The parent creates a
 * segment, places <animart/xsync.h> objects in it and spawns a child of this same
 * program that gets the segment's handle (CAP_BASE) and maps it at the
 * same address. Each case prints one `@result {"name": "xspace", "case":
 * CASE, ...}`; the test decides. Cases (parent side):
 *
 *   pc PKGA PKGB N      producer/consumer: 2 producer threads of PKGA here,
 *                       2 consumer threads of PKGB in the child, N items
 *                       each through a 4-slot ring under an xmutex and
 *                       two xconds
 *   pingpong PKGA PKGB N   an xmutex+xcond turn ping-pong, N rounds each
 *                       side, then N rounds of a 4-party xbarrier (2
 *                       threads on each side)
 *   ownerdead PKGA PKGB the child takes an xmutex and is killed while the
 *                       parent waits for it: EOWNERDEAD, then the mutex works
 *   revoke PKG          the child waits on an xsem; the parent revokes
 *   unmapwait PKG       a thread waits on an xsem; another thread unmaps
 *   bad                 every bad create, map, grant, unmap and robust call
 *   memfree             the kernel's available memory is back exactly once
 *                       the last handle and mapping of a segment are gone
 *   hostile PKG K       a thread of PKG waits on an xsem, parked at user
 *                       level (PKG with upcalls: else exit 2); a hostile child floods SYS_seg_wake at us
 *                       with forged and stale tokens (the real one too),
 *                       plants forged wait records, tries the bad calls,
 *                       then posts K times: the waiter takes exactly K,
 *                       nothing of ours breaks
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/xsync.h>
#include <errno.h>
#include <animart/xwait.h>
#include <animart/upcall.h>
#include <animalib/rng.h>
#include <animart/pkg.h>
#include <animalib/result.h>
#include "apppkg.h"
#include "avail.h"

#define MS 1000000UL
#define RING 4

struct shared {
	struct xmutex m;
	struct xcond notempty, notfull, turnc;
	uint32_t head, tail, count, taken, total;
	uint64_t buf[RING];
	uint64_t psum, csum;
	int turn;
	uint64_t rounds;
	struct xbarrier bar;
	volatile uint32_t serial;       /* barrier rounds that saw exactly one 1 */
	struct xsem sem;
	volatile int ready, held, childres, childerr;
	volatile long h[4];             /* handles the grantback child gave us */
	volatile uint64_t handoffs[2][2];   /* [producer space side][consumer]: counts */
	volatile long hres[8];          /* the hostile child's results */
	volatile uint32_t taken_k;      /* posts the waiter took */
};

static struct shared *S;
static long N;
static const struct pkg *P;

static void spawn_child(const char *cs, const char *pkg, long n, long handle, long *id)
{
	char nb[24];
	snprintf(nb, sizeof nb, "%ld", n);
	const char *argv[] = { "xspace", cs, pkg ? pkg : "-", nb };
	*id = sys_spawn_caps("xspace", 4, argv, &handle, handle ? 1 : 0);
	if (*id < 0) {
		printf("xspace: spawn %s: %s\n", cs, errname((int)*id));
		exit(3);
	}
}

static int wait_child(long id)
{
	int st = -2;
	sys_wait((int)id, &st);
	return st;
}

static struct shared *map_shared(long h, int prot)
{
	long a = seg_map(h, prot);
	if (sys_failed(a)) {
		printf("xspace: seg_map: %s\n", errname((int)a));
		exit(4);
	}
	return (struct shared *)a;
}

/* ---- producer/consumer ---- */

static void *producer(void *arg)
{
	long k = (long)arg;
	for (long i = 1; i <= N; i++) {
		uint64_t v = (uint64_t)k * 1000000 + i;
		xmutex_lock(&S->m);
		while (S->count == RING)
			xcond_wait(&S->notfull, &S->m);
		S->buf[S->tail++ % RING] = v;
		S->count++;
		S->psum += v;
		xcond_signal(&S->notempty);
		xmutex_unlock(&S->m);
	}
	return 0;
}

static void *consumer(void *arg)
{
	long got = 0;
	(void)arg;
	for (;;) {
		xmutex_lock(&S->m);
		while (S->count == 0 && S->taken < S->total)
			xcond_wait(&S->notempty, &S->m);
		if (S->taken == S->total) {
			xmutex_unlock(&S->m);
			break;
		}
		uint64_t v = S->buf[S->head++ % RING];
		S->count--;
		S->taken++;
		S->csum += v;
		got++;
		if (S->taken == S->total)
			xcond_broadcast(&S->notempty);   /* the other consumer may wait */
		xcond_signal(&S->notfull);
		xmutex_unlock(&S->m);
	}
	return (void *)got;
}

static const char *pkga, *pkgb;

static void *pc_main(void *arg)
{
	long child = (long)arg;
	struct thread *t[2];
	for (long k = 0; k < 2; k++)
		t[k] = P->create(producer, (void *)(k + 1), 0);
	for (int k = 0; k < 2; k++)
		thread_join(t[k]);
	int st = wait_child(child);
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "pc");
	result_str(&r, "producer", pkga);
	result_str(&r, "consumer", pkgb);
	result_int(&r, "items", S->taken);
	result_int(&r, "total", S->total);
	result_bool(&r, "sums_equal", S->psum == S->csum);
	result_int(&r, "child_status", st);
	result_int(&r, "child_got", S->childres);
	result_end(&r);
	return 0;
}

static void *pc_child_main(void *arg)
{
	(void)arg;
	struct thread *t[2];
	for (long k = 0; k < 2; k++)
		t[k] = P->create(consumer, 0, 0);
	long got = 0;
	for (int k = 0; k < 2; k++)
		got += (long)thread_join(t[k]);
	S->childres = (int)got;
	return 0;
}

/* ---- ping-pong and barrier ---- */

static void pingpong_side(int me)
{
	for (long i = 0; i < N; i++) {
		xmutex_lock(&S->m);
		while (S->turn != me)
			xcond_wait(&S->turnc, &S->m);
		S->turn = !me;
		S->rounds++;
		xcond_broadcast(&S->turnc);
		xmutex_unlock(&S->m);
	}
}

static void *barrier_thread(void *arg)
{
	(void)arg;
	for (long i = 0; i < N; i++)
		if (xbarrier_wait(&S->bar) == 1)
			__atomic_add_fetch(&S->serial, 1, __ATOMIC_RELAXED);
	return 0;
}

static void barrier_pair(void)
{
	struct thread *t[2];
	for (int k = 0; k < 2; k++)
		t[k] = P->create(barrier_thread, 0, 0);
	for (int k = 0; k < 2; k++)
		thread_join(t[k]);
}

static void *pp_main(void *arg)
{
	long child = (long)arg;
	pingpong_side(0);
	barrier_pair();
	int st = wait_child(child);
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "pingpong");
	result_str(&r, "a", pkga);
	result_str(&r, "b", pkgb);
	result_int(&r, "rounds", (int64_t)S->rounds);
	result_int(&r, "n", N);
	result_int(&r, "serial", S->serial);
	result_int(&r, "child_status", st);
	result_end(&r);
	return 0;
}

static void *pp_child_main(void *arg)
{
	(void)arg;
	pingpong_side(1);
	barrier_pair();
	return 0;
}

/* ---- a space killed while holding a shared mutex ---- */

static void *od_main(void *arg)
{
	long child = (long)arg;
	while (!S->held)
		sys_sleep(MS);
	int e1 = xmutex_lock(&S->m);     /* blocks until the kernel marks it dead */
	int owner = (int)(S->m.word & XM_OWNER);
	xmutex_consistent(&S->m);
	int u1 = xmutex_unlock(&S->m);
	int e2 = xmutex_lock(&S->m);
	xmutex_unlock(&S->m);
	int st = wait_child(child);
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "ownerdead");
	result_str(&r, "a", pkga);
	result_str(&r, "b", pkgb);
	result_str(&r, "first", errname(e1));
	result_int(&r, "first_errno", e1);
	result_bool(&r, "owner_is_me", owner == xspace_id());
	result_int(&r, "unlock", u1);
	result_int(&r, "second", e2);
	result_int(&r, "child_status", st);
	result_end(&r);
	return 0;
}

static void *od_child_main(void *arg)
{
	(void)arg;
	xmutex_lock(&S->m);
	S->held = 1;
	/* Wait until the parent sleeps on the mutex, then die holding it. */
	while (!(S->m.word & XM_WAITERS))
		sys_sleep(MS);
	sys_sleep(5 * MS);
	volatile int *bad = (volatile int *)(uintptr_t)N;   /* N is 0: a page fault ends this space */
	*bad = 1;
	return 0;
}

/* ---- revoke and unmap while blocked ---- */

static void *rv_main(void *arg)
{
	long h = (long)arg, child;
	spawn_child("revokechild", P->name, 0, h, &child);
	while (__atomic_load_n(&S->sem.nwait, __ATOMIC_ACQUIRE) == 0)
		sys_sleep(MS);
	sys_sleep(5 * MS);               /* well inside its futex wait */
	long rv = seg_revoke(h);
	long again = seg_revoke(h);
	long remap = seg_map(h, PROT_READ);
	int st = wait_child(child);
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "revoke");
	result_str(&r, "pkg", P->name);
	result_int(&r, "revoke", rv);
	result_int(&r, "revoke_again", again);
	result_int(&r, "remap", remap);
	result_int(&r, "child_status", st);   /* the child exits with its wait's errno */
	result_end(&r);
	return 0;
}

static void *rv_child_main(void *arg)
{
	(void)arg;
	int e = xsem_wait(&S->sem);
	long remap = seg_map(CAP_BASE, PROT_READ);
	/* (S is gone: report through the exit status and one line) */
	printf("xspace revokechild: xsem_wait %s, remap %s\n", errname(e), errname((int)remap));
	exit(e == EIDRM && remap == -EIDRM ? EIDRM : 1);
}

static volatile int uw_err = -1;

static void *uw_waiter(void *arg)
{
	(void)arg;
	uw_err = xsem_wait(&S->sem);
	return 0;
}

static void *uw_main(void *arg)
{
	(void)arg;
	struct thread *t = P->create(uw_waiter, 0, 0);
	while (__atomic_load_n(&S->sem.nwait, __ATOMIC_ACQUIRE) == 0)
		sys_sleep(MS);
	sys_sleep(5 * MS);
	long u = seg_unmap(S);
	thread_join(t);
	long again = seg_unmap(S);
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "unmapwait");
	result_str(&r, "pkg", P->name);
	result_int(&r, "unmap", u);
	result_int(&r, "unmap_again", again);
	result_str(&r, "waiter", errname(uw_err));
	result_int(&r, "waiter_errno", uw_err);
	result_end(&r);
	return 0;
}

/* ---- a hostile waker ---- */

#define FLOOD 3000

static void *ho_waiter(void *arg)
{
	for (long i = 0; i < (long)arg; i++) {
		if (xsem_wait(&S->sem) == 0)
			__atomic_add_fetch(&S->taken_k, 1, __ATOMIC_SEQ_CST);
	}
	return 0;
}

static void *ho_main(void *arg)
{
	long k = N, child;
	long h = (long)arg;
	struct thread *t = P->create(ho_waiter, (void *)k, 0);
	/* wait until it has parked (a record is up), then let the child loose;
	   a package without upcalls waits in the kernel instead (no record
	   would ever come up): this case is not for it */
	for (int up = 0; !up; sys_sleep(MS)) {
		for (int j = 0; j < XWQ_RECS; j++)
			up |= S->sem.q.rec[j] != 0;
		if (!up && __atomic_load_n(&S->sem.q.nfutex, __ATOMIC_SEQ_CST)) {
			printf("xspace: hostile: %s's threads wait in the kernel, not parked at "
			       "user level (use fifo, tutor or prio)\n", P->name);
			exit(2);
		}
	}
	spawn_child("hostilechild", "-", k, h, &child);
	int st = wait_child(child);
	thread_join(t);
	uint64_t dropped = 0;
	for (unsigned i = 0; i < vp_pseudo()->nvp; i++)
		dropped += pseudo_page(i)->events_dropped;
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "hostile");
	result_str(&r, "pkg", P->name);
	result_int(&r, "child_status", st);
	result_int(&r, "taken", S->taken_k);
	result_int(&r, "posts", k);
	result_int(&r, "count_left", S->sem.count);
	result_int(&r, "flood_ok", S->hres[0]);
	result_int(&r, "flood_failed", S->hres[1]);
	result_int(&r, "token0", S->hres[2]);
	result_int(&r, "outside", S->hres[3]);
	result_int(&r, "nospace", S->hres[4]);
	result_int(&r, "notshared", S->hres[5]);
	result_int(&r, "saw_record", S->hres[6]);
	result_int(&r, "badflags", S->hres[7]);
	result_int(&r, "parked", (long)xw_stats.parked);
	result_int(&r, "fallback", (long)xw_stats.fallback);
	result_int(&r, "remote", (long)xw_stats.remote);
	result_int(&r, "forged", (long)xw_stats.forged);
	result_int(&r, "wake_all", (long)xw_stats.all);
	result_int(&r, "events_dropped", (long)dropped);
	result_end(&r);
	return 0;
}

/* The hostile child: no package, raw system calls and plain stores. */
static void hostile(long k)
{
	S = map_shared(CAP_BASE, PROT_READ | PROT_WRITE);
	uint64_t rec = 0;
	for (int j = 0; j < XWQ_RECS && !rec; j++)
		rec = S->sem.q.rec[j];
	S->hres[6] = rec != 0;
	long sid = (long)(rec >> 40), ok = 0, bad = 0;
	uint64_t g = 1504;
	for (int i = 0; i < FLOOD; i++) {
		/* forged tokens, random VP indexes, and now and then the real one */
		uint64_t tok = i % 7 == 0 ? rec & 0xffffffffu : rand64(&g) | 1;
		long r = syscall4(SYS_seg_wake, &S->sem.count, sid, rand64(&g) % 300, tok);
		if (r == 0)
			ok++;
		else
			bad++;
	}
	S->hres[0] = ok;
	S->hres[1] = bad;
	S->hres[2] = syscall4(SYS_seg_wake, &S->sem.count, sid, 0, 0);
	S->hres[3] = syscall4(SYS_seg_wake, &g, sid, 0, 5);
	S->hres[4] = syscall4(SYS_seg_wake, &S->sem.count, 0x7ffffff0, 0, 5);
	S->hres[7] = syscall6(SYS_seg_wake, (long)&S->sem.count, sid, 0, 5, SEGWAKE_YIELD | 2, 0);
	long h2 = seg_create(4096);
	long a2 = h2 < 0 ? h2 : seg_map(h2, PROT_READ | PROT_WRITE);
	S->hres[5] = sys_failed(a2) ? a2 : syscall4(SYS_seg_wake, a2, sid, 0, 5);
	/* forged records in the free slots, naming the waiter's space with
	   garbage tokens: a post (ours) will deliver one of them */
	for (int j = 0; j < XWQ_RECS; j++) {
		uint64_t zero = 0;
		__atomic_compare_exchange_n(&S->sem.q.rec[j], &zero,
					    (uint64_t)sid << 40 | (rand64(&g) & 0xffffffffffUL) | 1, 0,
					    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	}
	/* Then behave: K posts. A forged record may absorb a post's wake-up
	   (the object is shared: its users can break it for each other), so
	   keep waking everything on it until the waiter took them all. */
	for (long i = 0; i < k; i++)
		xsem_post(&S->sem);
	while (__atomic_load_n(&S->taken_k, __ATOMIC_SEQ_CST) < (uint32_t)k) {
		xwake(&S->sem.count, &S->sem.q, 0x7fffffff);
		sys_sleep(MS);
	}
	exit(0);
}

/* ---- bad arguments ---- */

static void bad(void)
{
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "bad");
	result_int(&r, "create_0", seg_create(0));
	result_int(&r, "create_huge", seg_create(SEG_MAXLEN + 1));
	long h = seg_create(3 * 4096);
	result_bool(&r, "create_ok", h >= CAP_BASE);
	result_int(&r, "map_bad_handle", seg_map(CAP_BASE + 63, PROT_READ));
	result_int(&r, "map_not_handle", seg_map(12345, PROT_READ));
	long vh = sys_vp_cap(0);
	result_int(&r, "map_vp_handle", seg_map(vh, PROT_READ));
	result_int(&r, "signal_seg_handle", syscall2(SYS_vp_signal, h, 1));
	uint64_t len = 0;
	int rights = 0;
	long base = seg_info(h, &len, &rights);
	result_bool(&r, "info_ok", base >= (long)SEG_BASE && base < (long)SEG_TOP && len == 3 * 4096 &&
		    rights == SEG_ALL);
	result_int(&r, "map_wrong_addr", seg_map_at(h, (void *)(base + 4096), PROT_READ));
	result_int(&r, "map_write_only", seg_map(h, PROT_WRITE));
	result_int(&r, "map_exec", seg_map(h, PROT_READ | PROT_EXEC));
	long a = seg_map(h, PROT_READ | PROT_WRITE);
	result_bool(&r, "map_ok", a == base);
	result_int(&r, "map_twice", seg_map(h, PROT_READ));
	result_int(&r, "sysmap_in_window", (long)sys_map((void *)base, 4096, PROT_READ));
	result_int(&r, "sysmap_window_free", (long)sys_map((void *)(SEG_TOP - 4096 * 16), 4096, PROT_READ));
	result_int(&r, "sysunmap_window", sys_unmap((void *)base, 4096));
	result_int(&r, "segunmap_middle", seg_unmap((void *)(base + 4096)));
	result_int(&r, "segunmap_none", seg_unmap((void *)(SEG_TOP - 4096 * 16)));
	result_int(&r, "futex_unmapped_window",
		   syscall3(SYS_futex_wait, SEG_TOP - 4096 * 16, 0, 0));
	result_int(&r, "robust_too_many", syscall2(SYS_seg_robust, &r, MAXROBUST + 1));
	result_int(&r, "robust_misaligned", syscall2(SYS_seg_robust, (char *)&r + 1, 1));
	result_int(&r, "robust_bad_addr", syscall2(SYS_seg_robust, USER_TOP - 8, 2));
	/* narrowed handles, made by a child granting back to us */
	S = (struct shared *)a;
	long child;
	spawn_child("grantback", 0, xspace_id(), h, &child);
	int st = wait_child(child);
	long ro = S->h[0], rog = S->h[1], rwng = S->h[2];
	result_int(&r, "grantback_status", st);
	result_int(&r, "grant_widen", S->h[3]);
	int rr = 0;
	seg_info(ro, 0, &rr);
	result_int(&r, "ro_rights", rr);
	result_int(&r, "map_ro_write", seg_map(ro, PROT_READ | PROT_WRITE));
	result_int(&r, "grant_ro_widen", seg_grant(ro, 1, SEG_READ | SEG_WRITE));
	result_int(&r, "grant_nogrant", seg_grant(rwng, 1, 0));
	result_int(&r, "revoke_no_right", seg_revoke(ro));
	const char *argv[] = { "xspace", "rowrite", "-", "0" };
	result_int(&r, "spawn_nogrant", sys_spawn_caps("xspace", 4, argv, &rwng, 1));
	/* a child with a read-only handle writes: only it dies */
	long rc = sys_spawn_caps("xspace", 4, argv, &rog, 1);
	result_int(&r, "rowrite_status", rc > 0 ? wait_child(rc) : rc);
	result_int(&r, "rowrite_saw", S->childres);
	result_int(&r, "drop", sys_cap_drop(ro));
	result_int(&r, "map_dropped", seg_map(ro, PROT_READ));
	/* MAXSEG_SPACE live segments per creator (h is one) */
	long hs[MAXSEG_SPACE + 1];
	int made = 1, last = 0;
	for (int i = 0; i < MAXSEG_SPACE; i++) {
		hs[i] = seg_create(4096);
		if (hs[i] < 0) {
			last = (int)hs[i];
			break;
		}
		made++;
	}
	result_int(&r, "created_max", made);
	result_int(&r, "create_past_max", last);
	for (int i = 0; i < made - 1; i++)
		sys_cap_drop(hs[i]);
	result_int(&r, "create_after_drop", seg_create(4096) >= CAP_BASE);
	result_end(&r);
}

static void grantback(int parent)
{
	struct shared *s = map_shared(CAP_BASE, PROT_READ | PROT_WRITE);
	s->h[0] = seg_grant(CAP_BASE, parent, SEG_READ);
	s->h[1] = seg_grant(CAP_BASE, parent, SEG_READ | SEG_GRANT);
	s->h[2] = seg_grant(CAP_BASE, parent, SEG_READ | SEG_WRITE);
	s->h[3] = seg_grant(CAP_BASE, parent, 0x10);     /* not a right at all */
	exit(0);
}

static void rowrite(void)
{
	long w = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
	struct shared *s = map_shared(CAP_BASE, PROT_READ);
	printf("xspace rowrite: map rw %s; reads %d; now writing\n", errname((int)w), s->ready);
	s->childres = 1;                 /* the kernel ends this space here */
	printf("xspace rowrite: the write went through\n");
	exit(0);
}

/* ---- memory comes back ---- */

/* Available memory once it stops moving: the frames of a space that
   just ended come back only once every CPU has switched away from it, so
   at -smp 2 a sibling's teardown could land inside a measurement below
   (CI saw kept_by_handle 651,264 and after_drop -405,504). */
static void quiet(void)
{
	avail_wait(AVAIL_STEADY, 2);
}

/* In a child (memwork): the three ways a segment ends. */
static void memwork(void)
{
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "memwork");
	quiet();
	long m0 = avail();
	/* create, map, write, unmap (the handle keeps it), drop */
	long h = seg_create(1 << 20);
	char *p = (char *)seg_map(h, PROT_READ | PROT_WRITE);
	memset(p, 1, 1 << 20);
	result_int(&r, "charged", m0 - avail());
	seg_unmap(p);
	result_int(&r, "kept_by_handle", m0 - avail());
	sys_cap_drop(h);
	result_int(&r, "after_drop", m0 - avail());
	/* a child holds the last handle and mapping */
	h = seg_create(1 << 20);
	S = (struct shared *)seg_map(h, PROT_READ | PROT_WRITE);
	long child;
	spawn_child("holder", 0, 0, h, &child);
	while (!S->ready)
		sys_sleep(MS);
	seg_unmap(S);
	sys_cap_drop(h);
	result_int(&r, "kept_by_child", m0 - avail());
	wait_child(child);
	quiet();                /* the holder's own frames, before the revoke's count */
	/* revoked while mapped here and in a child */
	h = seg_create(1 << 20);
	S = (struct shared *)seg_map(h, PROT_READ | PROT_WRITE);
	spawn_child("holder", 0, 0, h, &child);
	while (!S->ready)
		sys_sleep(MS);
	long before = avail();
	seg_revoke(h);
	result_int(&r, "freed_by_revoke", avail() - before);
	wait_child(child);
	sys_cap_drop(h);
	result_end(&r);
	exit(0);
}

/* Everything a segment's life caused, in children, comes back exactly
   (the parent's own page tables and heap stay as they were: a first
   round warms them up). */
static void memfree(void)
{
	long child;
	spawn_child("memwork", 0, 0, 0, &child);
	wait_child(child);
	/* The first child warmed our heap and tables. Its own frames come
	   back when the last CPU that ran it switches away, which on a loaded
	   host took longer than a 5 ms sleep (lost +408 KiB: a low m0). */
	long m0 = avail_settled(1);
	for (int i = 0; i < 3; i++) {
		spawn_child("memwork", 0, 0, 0, &child);
		wait_child(child);
		quiet();
	}
	struct result r;
	result_begin(&r, "xspace");
	result_str(&r, "case", "memfree");
	avail_settled(1);
	result_int(&r, "lost", avail_wait(m0, 1) - m0);
	result_end(&r);
}

static void holder(void)
{
	struct shared *s = map_shared(CAP_BASE, PROT_READ | PROT_WRITE);
	s->ready = 1;
	sys_sleep(20 * MS);
	exit(0);
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: xspace CASE [ARGS]\n");
		return 2;
	}
	const char *c = argv[1];
	if (!strcmp(c, "bad")) {
		bad();
		return 0;
	}
	if (!strcmp(c, "memfree")) {
		memfree();
		return 0;
	}
	if (!strcmp(c, "grantback") && argc > 3)
		grantback(atoi(argv[3]));
	if (!strcmp(c, "rowrite"))
		rowrite();
	if (!strcmp(c, "holder"))
		holder();
	if (!strcmp(c, "memwork"))
		memwork();
	if (!strcmp(c, "hostilechild") && argc > 3)
		hostile(atol(argv[3]));
	int child = !strcmp(c, "pcchild") || !strcmp(c, "ppchild") || !strcmp(c, "odchild") ||
		    !strcmp(c, "revokechild");
	if (argc < 3) {
		printf("usage: xspace %s PKG...\n", c);
		return 2;
	}
	if (child) {
		P = app_pkg(argv[2]);
		N = argc > 3 ? atol(argv[3]) : 0;
		S = map_shared(CAP_BASE, PROT_READ | PROT_WRITE);
		void *(*fn)(void *) = !strcmp(c, "pcchild") ? pc_child_main :
				      !strcmp(c, "ppchild") ? pp_child_main :
				      !strcmp(c, "odchild") ? od_child_main : rv_child_main;
		P->run(2, fn, 0);
	}
	long h = seg_create(sizeof(struct shared));
	if (h < 0) {
		printf("xspace: seg_create: %s\n", errname((int)h));
		return 3;
	}
	S = map_shared(h, PROT_READ | PROT_WRITE);
	if (!strcmp(c, "hostile")) {
		P = app_pkg(argv[2]);
		N = argc > 3 ? atol(argv[3]) : 5;
		xsem_init(&S->sem, 0);
		P->run(2, ho_main, (void *)h);   /* (sys_wait blocks a whole VP) */
	}
	if (!strcmp(c, "revoke") || !strcmp(c, "unmapwait")) {
		P = app_pkg(argv[2]);
		xsem_init(&S->sem, 0);
		P->run(2, !strcmp(c, "revoke") ? rv_main : uw_main, (void *)h);
	}
	if (argc < 4) {
		printf("usage: xspace %s PKGA PKGB [N]\n", c);
		return 2;
	}
	pkga = argv[2];
	pkgb = argv[3];
	P = app_pkg(pkga);
	app_pkg(pkgb);
	N = argc > 4 ? atol(argv[4]) : 1000;
	long id;
	if (!strcmp(c, "pc")) {
		S->total = 2 * N;
		spawn_child("pcchild", pkgb, N, h, &id);
		P->run(2, pc_main, (void *)id);
	}
	if (!strcmp(c, "pingpong")) {
		xbarrier_init(&S->bar, 4);
		spawn_child("ppchild", pkgb, N, h, &id);
		P->run(2, pp_main, (void *)id);
	}
	if (!strcmp(c, "ownerdead")) {
		spawn_child("odchild", pkgb, 0, h, &id);
		P->run(2, od_main, (void *)id);
	}
	printf("xspace: unknown case %s\n", c);
	return 2;
}
