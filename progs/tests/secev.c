/*
 * secev CASE [ARGS]: regression cases for issue 13's events, capabilities
 * and lifecycle classes (harness/tests/test_security_ev.py). Each case
 * prints one `@result {"name": "secev", "case": CASE, ...}` line with
 * what it saw; the test decides. Cases:
 *
 *   iostorm N       an upcall handler that never drains its ring calls
 *                   SYS_io N times (each call re-enters the handler)
 *   timerstorm N    a VP without a handler re-arms its timer N times
 *   sigflood N      with all free memory mapped, N signals to a VP that
 *                   never drains: -EAGAIN after the bound, nothing else
 *   caps            capability forging, grants, slot reuse, table full,
 *                   spawn with bad handles (children: forge, granted, sib)
 *   children N      spawn up to N sleeping children without waiting
 *   waiters N       N VPs wait on the same child at once
 *   parked          run as secev:4,parked: VP 0 exits with SYS_vp_exit
 *                   without starting the others; the space must end
 *   sleep MS [ST]   (a child) sleep MS ms, exit with status ST
 *   held            (a child) live until its parent's grant is in its
 *                   table (handle CAP_BASE), then exit 0; 1 after 60 s
 *
 * Memory is measured with INFO_MEM_AVAIL (free memory plus what the
 * kernel heap keeps for reuse); a kernel without it (-EINVAL) is
 * measured with INFO_MEM_FREE, and the result says which ("mem_info").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/rng.h>
#include <animalib/result.h>
#include <animart/upcall.h>
#include "child.h"

#define MS 1000000UL

static long mem_now(const char **how)
{
	long m = sys_getinfo(INFO_MEM_AVAIL);
	*how = "avail";
	if (m < 0) {
		m = sys_getinfo(INFO_MEM_FREE);
		*how = "free";
	}
	return m;
}

static void report_mem(struct result *r, long before, long after, const char *how)
{
	result_int(r, "mem_before", before);
	result_int(r, "mem_after", after);
	result_int(r, "mem_lost", before - after);
	result_str(r, "mem_info", how);
}

/* Stacks for extra VPs: static, so no allocator is shared between VPs. */
#define VSTACK 16384
static char vstacks[16][VSTACK] __attribute__((aligned(16)));

static long vp_new(void (*fn)(long), int i, long arg)
{
	return syscall3(SYS_vp_create, (long)fn, (long)(vstacks[i] + VSTACK - 8), arg);
}

static __attribute__((noreturn)) void vp_end(void)
{
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* --- iostorm ------------------------------------------------------------ */

static volatile long io_target, io_calls, io_direct;
static long io_mem0;
static const char *io_how;
static char io_stack[16384] __attribute__((aligned(16)));

/*
 * The upcall entry itself (no ulib stub): every SYS_io in thread mode
 * comes back here as an upcall (EV_BLOCKED), and so does every call that
 * blocked the VP classically, since events wait undelivered. Never
 * touching ring_head, it never drains the ring. A call that returned its
 * value (classic block) left it in save.rax.
 */
static __attribute__((noreturn)) void io_entry(struct vp_page *p, struct pseudo_page *pp)
{
	if (io_calls && p->save.rax == (uint64_t)io_calls)
		io_direct++;
	if (io_calls >= io_target) {
		p->upcall_entry = 0;             /* classic again, to report */
		p->disabled = 0;
		const char *how;
		long m = mem_now(&how);
		struct result r;
		result_begin(&r, "secev");
		result_str(&r, "case", "iostorm");
		result_int(&r, "calls", io_calls);
		result_int(&r, "direct", io_direct);
		result_uint(&r, "blocks", pp->blocks);
		result_uint(&r, "upcalls", pp->upcalls);
		report_mem(&r, io_mem0, m, how);
		result_end(&r);
		sys_exit(0);
	}
	for (;;) {
		io_calls++;
		p->disabled = 0;
		/* back here only if the kernel returned without an upcall */
		if (syscall2(SYS_io, 1000, io_calls) == io_calls)
			io_direct++;
		if (io_calls >= io_target)
			io_entry(p, pp);
	}
}

static __attribute__((noreturn)) int iostorm(long n)
{
	struct vp_page *p = vp_self();
	io_target = n;
	io_mem0 = mem_now(&io_how);
	p->upcall_stack = (uint64_t)(io_stack + sizeof io_stack);
	p->disabled = 1;
	p->upcall_entry = (uint64_t)io_entry;
	p->disabled = 0;
	syscall0(SYS_vp_poll);                   /* nothing queued yet: just go on */
	io_calls = 1;
	syscall2(SYS_io, 1000, 1);                /* the first upcall starts the loop */
	for (;;)
		syscall2(SYS_io, 1000, 1);
}

/* --- timerstorm ---------------------------------------------------------- */

static int timerstorm(long n)
{
	const char *how;
	long m0 = mem_now(&how);
	long ok = 0, eagain = 0, other = 0, last_other = 0;
	for (long i = 0; i < n; i++) {
		uint64_t dl = i % 3 == 0 ? 1 : sys_time() + (i % 2 ? 1000 : 10 * MS);
		long r = syscall2(SYS_timer, dl, i);
		if (r == 0)
			ok++;
		else if (r == -EAGAIN)
			eagain++;
		else {
			other++;
			last_other = r;
		}
		if (i % 100 == 0) {              /* let a past deadline fire */
			syscall2(SYS_timer, 1, i);
			sys_sleep(2000);
		}
	}
	syscall2(SYS_timer, 0, 0);
	long m1 = mem_now(&how);
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "timerstorm");
	result_int(&r, "arms", n);
	result_int(&r, "ok", ok);
	result_int(&r, "eagain", eagain);
	result_int(&r, "other", other);
	result_int(&r, "last_other", last_other);
	result_uint(&r, "events", vp_pseudo()->events);
	report_mem(&r, m0, m1, how);
	result_end(&r);
	return 0;
}

/* --- sigflood ------------------------------------------------------------- */

static volatile int flood_stop, flood_ready;

static void flood_target(long arg)
{
	(void)arg;
	flood_ready = 1;
	while (!flood_stop)
		sys_sleep(100000);
	vp_end();
}

#define MAXGRAB 4096
static struct { void *a; size_t len; } grab[MAXGRAB];

/* Map every free page we can get (largest chunks first). */
static int grab_all(void)
{
	int n = 0;
	for (size_t len = 64UL << 20; len >= 4096 && n < MAXGRAB; ) {
		void *a = sys_map(0, len, PROT_READ | PROT_WRITE);
		if (sys_failed((long)a)) {
			len /= 2;
			continue;
		}
		grab[n].a = a;
		grab[n++].len = len;
	}
	return n;
}

static int sigflood(long n)
{
	const char *how;
	long m0 = mem_now(&how);
	if (vp_new(flood_target, 0, 0) < 0)
		return 3;
	while (!flood_ready)
		sys_yield();
	int ngrab = grab_all();
	long mfull = sys_getinfo(INFO_MEM_FREE);
	long ok = 0, eagain = 0, other = 0, first_eagain = -1, last_other = 0;
	for (long i = 0; i < n; i++) {
		long r = syscall2(SYS_vp_signal, 1, i);
		if (r == 0)
			ok++;
		else if (r == -EAGAIN) {
			if (first_eagain < 0)
				first_eagain = i;
			eagain++;
		} else {
			other++;
			last_other = r;
		}
	}
	for (int i = 0; i < ngrab; i++)
		sys_unmap(grab[i].a, grab[i].len);
	flood_stop = 1;
	while (syscall2(SYS_vp_signal, 1, 0) != -ESRCH)     /* until it has exited */
		sys_sleep(1 * MS);
	long m1 = mem_now(&how);
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "sigflood");
	result_int(&r, "signals", n);
	result_int(&r, "grabbed_chunks", ngrab);
	result_int(&r, "mem_free_when_full", mfull);
	result_int(&r, "ok", ok);
	result_int(&r, "eagain", eagain);
	result_int(&r, "first_eagain", first_eagain);
	result_int(&r, "other", other);
	result_int(&r, "last_other", last_other);
	report_mem(&r, m0, m1, how);
	result_end(&r);
	return 0;
}

/* --- caps ------------------------------------------------------------------ */

/* splitmix64's finalizer and its inverse: the old kernel's cap_random
   was finalizer(state) | 1<<63 with state += 0x9e37.. ^ rdtsc per call. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return z ^ (z >> 31);
}

static uint64_t inv_mul(uint64_t a)
{
	uint64_t x = a;                  /* Newton: correct to 3, 6, 12, 24, 48, 96 bits */
	for (int i = 0; i < 5; i++)
		x *= 2 - a * x;
	return x;
}

static uint64_t unxorshift(uint64_t y, int s)
{
	uint64_t x = y;
	for (int i = 0; i < 64 / s + 1; i++)
		x = y ^ (x >> s);
	return x;
}

static uint64_t unmix(uint64_t z)
{
	z = unxorshift(z, 31);
	z *= inv_mul(0x94d049bb133111ebUL);
	z = unxorshift(z, 27);
	z *= inv_mul(0xbf58476d1ce4e5b9UL);
	return unxorshift(z, 30);
}

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#define SIG_FORGED 0xf0f0

/* Child, granted nothing: try to signal the parent's VP. */
static int forge(long tries)
{
	long hits = 0, small_hits = 0, rand_hits = 0, inv_hits = 0, errs_other = 0;
	/* every small handle, before we hold any of our own */
	for (uint64_t h = CAP_BASE; h < CAP_BASE + 4096; h++) {
		long r = syscall2(SYS_vp_signal, h, SIG_FORGED);
		small_hits += r == 0;
		errs_other += r != 0 && r != -EBADF && r != -ESRCH;
	}
	uint64_t s = rdtsc() | 1;
	for (long i = 0; i < tries; i++) {
		uint64_t v = rand64(&s);
		if (v < MAXVP)
			continue;
		rand_hits += syscall2(SYS_vp_signal, v, SIG_FORGED) == 0;
	}
	/* The published attack: invert our own capability to the generator
	   state and step back over the rdtsc values it could have mixed in. */
	long own = sys_vp_cap(0);
	uint64_t t = rdtsc();
	for (int top = 0; top < 2; top++) {
		uint64_t s2 = unmix(((uint64_t)own & ~(1UL << 63)) | (uint64_t)top << 63);
		for (long d = 0; d < tries; d++) {
			uint64_t s1 = s2 - (0x9e3779b97f4a7c15UL ^ (t - (uint64_t)d));
			uint64_t v = mix(s1) | 1UL << 63;
			if (v == (uint64_t)own)
				continue;
			inv_hits += syscall2(SYS_vp_signal, v, SIG_FORGED) == 0;
		}
	}
	hits = small_hits + rand_hits + inv_hits;
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "forge");
	result_int(&r, "own", own);
	result_int(&r, "small_hits", small_hits);
	result_int(&r, "rand_hits", rand_hits);
	result_int(&r, "inv_hits", inv_hits);
	result_int(&r, "errs_other", errs_other);
	result_end(&r);
	return hits ? 1 : 0;
}

/* Child, granted one handle (CAP_BASE) through spawn. */
static int granted(void)
{
	long r1 = syscall2(SYS_vp_signal, CAP_BASE, 0x6a);
	long r2 = syscall2(SYS_vp_signal, CAP_BASE + 1, 0x6a);     /* not granted */
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "granted");
	result_int(&r, "signal", r1);
	result_int(&r, "ungranted", r2);
	result_end(&r);
	return 0;
}

/* Child holding a handle: grant it to a sibling (not allowed) and back to
   the parent (allowed). */
static int sib(int sibling, int parent)
{
	long to_sib = sys_cap_grant(CAP_BASE, sibling);
	long to_parent = sys_cap_grant(CAP_BASE, parent);
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "sib");
	result_int(&r, "to_sibling", to_sib);
	result_int(&r, "to_parent", to_parent);
	result_end(&r);
	return 0;
}

static volatile int v1_go;

static void short_vp(long arg)
{
	(void)arg;
	while (!v1_go)
		sys_yield();
	vp_end();
}

/* Stays (idle) only in slot `want`. */
static void reuse_vp(long want)
{
	if (vp_pseudo()->vp_index != want)
		vp_end();
	for (;;)
		sys_sleep(50 * MS);
}

static int caps(void)
{
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "caps");
	int me = (int)sys_getinfo(INFO_SPACE);
	long victim = sys_vp_cap(0);
	result_int(&r, "victim", victim);
	uint64_t sig0 = vp_pseudo()->signals;

	/* 1. A child granted nothing cannot signal us. */
	const char *fa[] = { "secev", "forge", "100000" };
	long id = sys_spawn("secev", 3, fa);
	result_int(&r, "forge_status", child_status(id));
	result_int(&r, "signals_after_forge", (long)(vp_pseudo()->signals - sig0));

	/* 2. A child granted the handle can. */
	const char *ga[] = { "secev", "granted" };
	id = sys_spawn_caps("secev", 2, ga, &victim, 1);
	result_int(&r, "granted_status", child_status(id));
	result_int(&r, "signals_after_granted", (long)(vp_pseudo()->signals - sig0));

	/* 3. After its VP exits and the slot is reused: -ESRCH. */
	long v = vp_new(short_vp, 0, 0);
	long h1 = sys_vp_cap((int)v);
	long before_exit = syscall2(SYS_vp_signal, h1, 1);
	v1_go = 1;
	while (syscall2(SYS_vp_signal, (long)v, 0) != -ESRCH)
		sys_yield();
	/* -ESRCH comes as soon as the VP is a zombie, but its slot is free
	   only once its CPU has switched away from it (vp_free, sched.c): at
	   -smp 2, with that vCPU stalled by the host, a new VP went to the
	   next slot. So try again a little later; a VP that did not land in
	   slot v exits at once. */
	long v2 = -1, tries = 0;
	while (v2 != v && tries < 14) {
		tries++;
		if ((v2 = vp_new(reuse_vp, (int)tries, v)) != v)
			sys_sleep((1UL << tries) * MS / 8);
	}
	result_int(&r, "slot", v);
	result_int(&r, "slot_reused", v2);
	result_int(&r, "reuse_tries", tries);
	result_int(&r, "before_exit", before_exit);
	result_int(&r, "after_reuse", syscall2(SYS_vp_signal, h1, 1));

	/* 4. Grants: to ourselves, to no space, to a sibling: -EPERM; to a
	   child and from a child to its parent: a handle. */
	result_int(&r, "grant_self", sys_cap_grant(victim, me));
	result_int(&r, "grant_nospace", sys_cap_grant(victim, 100000));
	result_int(&r, "grant_bad_handle", sys_cap_grant(CAP_BASE + 63, me));
	/* The child we grant to lives until the grant is in: with a timed
	   sleep, a host that stalled the spawn of `sib` past it made the
	   grant find a dead child (-ESRCH). */
	const char *sa[] = { "secev", "held" };
	long sleeper = sys_spawn("secev", 2, sa);
	char sibstr[16], mestr[16];
	snprintf(sibstr, sizeof sibstr, "%ld", sleeper);
	snprintf(mestr, sizeof mestr, "%d", me);
	const char *ba[] = { "secev", "sib", sibstr, mestr };
	long sibling = sys_spawn_caps("secev", 4, ba, &victim, 1);
	result_int(&r, "grant_child", sys_cap_grant(victim, (int)sleeper));
	result_int(&r, "sib_status", child_status(sibling));
	result_int(&r, "sleeper_status", child_status(sleeper));

	/* 5. Spawn with a bad handle, or too many: an error, no child. */
	long bad[2] = { victim, CAP_BASE + 63 };
	result_int(&r, "spawn_bad_handle", sys_spawn_caps("secev", 2, ga, bad, 2));
	long junk = 0x123456789abcdefL;
	result_int(&r, "spawn_junk_handle", sys_spawn_caps("secev", 2, ga, &junk, 1));
	result_int(&r, "spawn_too_many", sys_spawn_caps("secev", 2, ga, bad, MAXCAP_SPACE + 1));

	/* 6. Fill our table: an error at MAXCAP_SPACE entries. */
	long made = 0, full = 0;
	for (int i = 0; i < 2 * MAXCAP_SPACE; i++) {
		long h = sys_vp_cap(0);
		if (h < 0) {
			full = h;
			break;
		}
		made++;
	}
	long held = 0;
	for (long h = CAP_BASE; h < CAP_BASE + MAXCAP_SPACE; h++)
		held += sys_cap_drop(h) == 0;
	result_int(&r, "table_made", made);
	result_int(&r, "table_full", full);
	result_int(&r, "table_held", held);
	result_int(&r, "drop_again", sys_cap_drop(CAP_BASE));
	result_int(&r, "after_drop", syscall2(SYS_vp_signal, victim, 1));
	result_end(&r);
	return 0;
}

/* --- children --------------------------------------------------------------- */

static int children(long n)
{
	const char *sa[] = { "secev", "sleep", "300" };
	long ids[300], made = 0, err = 0;
	for (long i = 0; i < n && i < 300; i++) {
		long id = sys_spawn("secev", 3, sa);
		if (id < 0) {
			err = id;
			break;
		}
		ids[made++] = id;
	}
	int bad = 0;
	for (long i = 0; i < made; i++)
		bad += child_status(ids[i]) != 0;
	/* collected: there is room again */
	long again = sys_spawn("secev", 3, sa);
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "children");
	result_int(&r, "made", made);
	result_int(&r, "error", err);
	result_int(&r, "bad_status", bad);
	result_int(&r, "again_status", child_status(again));
	result_end(&r);
	return 0;
}

/* --- waiters ------------------------------------------------------------------ */

#define MAXW 8
static volatile long w_ret[MAXW];
static volatile int w_status[MAXW], w_done;
static long w_child;

static void waiter(long i)
{
	int st = -100;
	w_ret[i] = sys_wait((int)w_child, &st);
	w_status[i] = st;
	__atomic_fetch_add(&w_done, 1, __ATOMIC_SEQ_CST);
	vp_end();
}

static int waiters(long n)
{
	if (n < 1 || n > MAXW)
		return 2;
	const char *sa[] = { "secev", "sleep", "300", "7" };
	w_child = sys_spawn("secev", 4, sa);
	for (long i = 1; i < n; i++)
		if (vp_new(waiter, (int)i, i) < 0)
			return 3;
	int st = -100;
	w_ret[0] = sys_wait((int)w_child, &st);
	w_status[0] = st;
	__atomic_fetch_add(&w_done, 1, __ATOMIC_SEQ_CST);
	while (w_done < n)
		sys_sleep(1 * MS);
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "waiters");
	result_int(&r, "child", w_child);
	result_int(&r, "returned", w_done);
	result_array(&r, "ret");
	for (long i = 0; i < n; i++)
		result_int(&r, 0, w_ret[i]);
	result_close(&r);
	result_array(&r, "status");
	for (long i = 0; i < n; i++)
		result_int(&r, 0, w_status[i]);
	result_close(&r);
	result_int(&r, "wait_again", sys_wait((int)w_child, &st));
	result_end(&r);
	return 0;
}

/* --- parked ------------------------------------------------------------------- */

static int parked(void)
{
	struct result r;
	result_begin(&r, "secev");
	result_str(&r, "case", "parked");
	result_int(&r, "nvp", vp_pseudo()->nvp);
	result_end(&r);
	vp_end();                 /* the others were never started */
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	long n = argc > 2 ? atol(argv[2]) : 0;
	if (!strcmp(c, "iostorm"))
		return iostorm(n ? n : 100000);
	if (!strcmp(c, "timerstorm"))
		return timerstorm(n ? n : 1000000);
	if (!strcmp(c, "sigflood"))
		return sigflood(n ? n : 100000);
	if (!strcmp(c, "caps"))
		return caps();
	if (!strcmp(c, "forge"))
		return forge(n);
	if (!strcmp(c, "granted"))
		return granted();
	if (!strcmp(c, "sib"))
		return sib((int)n, argc > 3 ? atoi(argv[3]) : 0);
	if (!strcmp(c, "children"))
		return children(n ? n : 40);
	if (!strcmp(c, "waiters"))
		return waiters(n ? n : 2);
	if (!strcmp(c, "parked"))
		return parked();
	if (!strcmp(c, "held")) {
		/* Probe without side effects: a grant to space 0 is -EBADF for
		   a free entry, -EPERM for one we hold. */
		for (int i = 0; i < 6000; i++) {
			if (sys_cap_grant(CAP_BASE, 0) != -EBADF)
				return 0;
			sys_sleep(10 * MS);
		}
		return 1;
	}
	if (!strcmp(c, "sleep")) {
		sys_sleep((uint64_t)n * MS);
		return argc > 3 ? atoi(argv[3]) : 0;
	}
	printf("secev: unknown case '%s'\n", c);
	return 2;
}
