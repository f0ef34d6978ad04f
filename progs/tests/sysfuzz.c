/*
 * sysfuzz [COUNT [SEED [NVP [FLAGS]]]]: COUNT (default 100000) syscalls,
 * issued by NVP (default 1, at most 16) VPs at once, each with its own
 * random stream derived from SEED (default: the time). The kernel must
 * answer every call with a result or an error and keep running; a call
 * that had to fail and did not is counted as "unexpected".
 *
 * What is fuzzed (one "kind" per line of KINDS below): random numbers
 * (outside [0, NSYSCALL) they must fail with ENOSYS; holes are skipped),
 * the plain calls with random arguments, cputs, map, unmap, protect, discard and mapped (random and
 * adversarial ranges, overlaps, MAP_LAZY with huge lengths, addr 0
 * placement, kernel and non-canonical addresses), vp_create and vp_start
 * with real entries (the new VP runs a short fuzz loop of its own, then
 * SYS_vp_exit) and with bad ones, vp_signal, vp_cap, cap_grant and
 * cap_drop with real and random handles, timers (arm, re-arm, cancel),
 * vp_idle behind a timer, spawn of `sysfuzz child` with random handles,
 * wait, futex_wait/wake on random, lazy and real addresses (and
 * futex_wait_cut with cut words, and wait_cut of them), sleep and io,
 * segments (create, map, unmap, revoke, info, wake, robust lists, the
 * protection of a mapping's pages, named segments: open and unlink),
 * and (lazysys) futex keys, copyins and copyouts at untouched words of
 * two large MAP_LAZY arenas, one read-only, that user code never touches;
 * exec (always with a bad part, but really in a child), setpgid, getpgid,
 * setsid, fmap, msync, lstat, readlink and statfs (with a disk: /fz, see
 * "processes and files" below).
 * (psig) signal dispositions with good and bad numbers, takes of pending
 * signals into our buffer and at kernel and non-canonical addresses, and
 * sigqueue to ourselves (-EPERM) and to nobody.
 * pipes (kernel/pipe.c): SYS_pipe into good and bad memory, reads (into
 * the pool or bad addresses only) and writes of random lengths on their
 * ends and on random descriptors, SYS_pipe_wait with random ends, park
 * words and flags (our pipes are the space's own, so it never waits),
 * dup, fstat, lseek (-ESPIPE), close, SYS_file_special.
 * (lock) file locks: SYS_lock with every command (OFD ones too) and random requests on
 * /fz's descriptors and random ones (at bad addresses: -EFAULT), and
 * SYS_lock_wait that never blocks.
 * (plain) the console's settings, SYS_tty: bad ops, gets into bad
 * memory and our read-only text, sets from bad memory and of random
 * input settings (the output ones kept; main restores what it found).
 *
 * It must never legitimately end or wedge itself, so:
 *   - exit and vp_exit are only issued to end a child or a short VP;
 *   - sleep, io, futex_wait and lazy-page latencies are short (<= 1 ms);
 *   - vp_idle only right after arming a timer 50 us out;
 *   - unmap and fixed-address map never touch our image, heap, map(0)
 *     area, stack or VP pages: all of [PROTECT_LO, PROTECT_HI) and
 *     [TOP_LO, USER_TOP). Whatever map gives us, we unmap again. Only
 *     memory map(0) placed inside the protected area is ever touched by
 *     user code (nobody else unmaps there);
 *   - cputs prints only pool dots up to one of its newlines (nothing may
 *     glue onto the kernel's @start/@exit lines); other user memory is
 *     named only with length 0;
 *   - it waits only for children that end (`sysfuzz child` runs a short
 *     loop), and reaps every one it spawned;
 *   - exec succeeds only in a child, its count halved each time.
 * Two attack groups depend on the kernel (FLAGS, default "auto": probe):
 *   r  the kernel-owned VP range [VP_RESERVED_LO, VP_RESERVED_HI): map
 *      and unmap in or across it must fail (-EPERM). On a kernel without
 *      the reservation this unmaps our own VP pages: the probe is an
 *      unmap of VP slot 255's page (unused), which such a kernel allows.
 *      Without r, map(0) stops once placement leaves the protected area
 *      (old kernels place it over the VP pages eventually).
 *   w  lifecycle: several VPs wait for the same child and on random ids,
 *      and VP index 1 is never started (a boot with run=sysfuzz:2 leaves
 *      it parked: the space must still end). On a kernel with a single
 *      waiter per child this wedges. Probe: SYS_cap_drop exists.
 * FLAGS may also be "none" or any of the letters ("rw"), and m (never
 * probed): every call is of the fmap kind (fmap, msync), to reach its
 * touches often (test_sysfuzz_fmap).
 *
 * `sysfuzz child SEED COUNT FLAGS` is what it spawns: one VP, COUNT calls,
 * no spawning; exits with the number of unexpected results (0). The
 * parent exits 1 if any call was unexpected or any child failed, else 0.
 *
 * Prints "sysfuzz: seed S nvp N flags F" first and ends with
 * @result {"name": "sysfuzz", "calls": N, "seed": S, "nvp": .., "flags": "..",
 *          "ok": .., "enosys": .., "efault": .., "einval": .., "eperm": ..,
 *          "other": .., "skipped": .., "unexpected": .., "extra": ..,
 *          "kids": .., "kids_bad": .., "forged": .., "kinds": {"map": .., ...}, "kinds_ok": {..},
 *          "why": ".."}
 * where calls counts the NVP fuzzing loops' calls (exactly COUNT), extra
 * those of the short VPs, kinds all of them by kind (kinds_ok those that
 * succeeded), kids the children
 * spawned and kids_bad those that were killed or reported unexpected results,
 * forged the hostile-table calls: SYS_sigdie with SIGDIE_FAULT naming
 * faults that never happened, INFO_FILES at words past the table.
 * Every failure prints a line "sysfuzz: ..." naming it (the call, its
 * arguments, result and what was expected; a child's status and, if it
 * was killed, the signal); why is the first ("" if none). Under
 * fuzzaudit it also goes into its named segment (tell_audit), so
 * fuzzaudit's @result names it.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <animalib/rng.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <anima/vp.h>
#include <anima/seg.h>
#include <anima/view.h>
#include <anima/file.h>
#include <anima/psig.h>
#include <anima/flock.h>
#include <anima/tty.h>

#define PROTECT_LO  USER_BASE                        /* image, heap, map(0): */
#define PROTECT_HI  (USER_MAP_BASE + (1UL << 40))    /*   below this */
#define TOP_LO      PSEUDO_BASE                      /* VP pages, stack */
#define LZ_RW       0x500000000000UL   /* lazysys's arenas: 1 TiB read-write, */
#define LZ_RO       0x600000000000UL   /*   64 GiB read-only (ours: touches_us) */
#define LZ_GIB      (1UL << 30)

#define MAXWORKERS  16        /* long-lived fuzzing VPs */
#define NSHORT      24        /* stacks for short-lived VPs */
#define STACK       16384
#define NMAPS       8         /* live mappings per fuzzing VP */
#define NKIDS       2         /* children per worker not yet reaped */
#define SHORT_CALLS 16        /* at most, per short VP */
#define CHILD_CALLS 150       /* at most, per spawned child */
#define MAPCAP      (1UL << 20)   /* non-lazy maps: at most this long */

/* fuzzaudit's named segment: FZWHY_SLOTS slots of {seed + 1, why} */
#define FZWHY_NAME  "fuzzaudit.why"
#define FZWHY_SLOTS 16
#define FZWHY_SLOT  256

#define F_RESERVED  1
#define F_WAIT      2
#define F_FMAP      4         /* 'm': every call of the fmap kind (test_sysfuzz_fmap) */

/* Call kinds and their weights (per 1000 picks). */
#define KINDS(X) \
	X(raw, 90) X(plain, 50) X(cputs, 25) X(map, 120) X(unmap, 80) \
	X(reserved, 40) X(vp_create, 35) X(vp_start, 25) X(vp_signal, 60) \
	X(vp_cap, 35) X(cap_grant, 30) X(cap_drop, 30) X(timer, 50) X(vp_idle, 10) \
	X(spawn, 8) X(wait, 27) X(futex_wait, 60) X(futex_wake, 50) X(sleep, 30) X(io, 30) \
	X(seg, 40) X(protect, 40) X(discard, 25) X(lazysys, 40) X(view, 30) \
	X(exec, 10) X(pgrp, 20) X(fmap, 50) X(link, 30) X(psig, 20) X(pipe, 20) X(lock, 10) \
	X(mapped, 20)
#define ENUM(k, w) K_##k,
enum { KINDS(ENUM) NKIND };
#define NAME(k, w) #k,
static const char *kind_name[NKIND] = { KINDS(NAME) };
#define WEIGHT(k, w) w,
static const int kind_weight[NKIND] = { KINDS(WEIGHT) };

/* One fuzzing VP's own state: nothing here is shared. */
struct fz {
	uint64_t st;              /* its random stream */
	int worker;               /* long-lived: may spawn (and reaps its children) */
	struct { uint64_t addr, len; int touch; } maps[NMAPS];
	long kids[NKIDS];
	long calls;               /* issued by this VP */
};

/* Shared by every VP of the space (updated atomically). */
static int flags, child_mode, myspace;
static uint64_t seed;
static char flagstr[8];
static long kind_count[NKIND], kind_ok[NKIND];
static long n_ok, n_enosys, n_efault, n_einval, n_eperm, n_other;
static long n_skipped, n_unexpected, n_extra, n_kids, n_kids_bad, n_forged;
static volatile int placement_done;      /* map(0) left the protected area */
static volatile long handles[16];        /* handles seen (vp_cap, cap_grant) */
static volatile long shared_kids[16];    /* children any VP may wait for (w) */
static volatile uint32_t futex_words[16];
static volatile int workers_done;
static char pool[8192];                  /* valid memory to point arguments at */
static char worker_stack[MAXWORKERS][STACK] __attribute__((aligned(16)));
static char short_stack[NSHORT][STACK] __attribute__((aligned(16)));
static volatile uint32_t short_busy[NSHORT];
static struct fz worker_fz[MAXWORKERS];
static long worker_calls[MAXWORKERS];

static void add(long *c, long n) { __atomic_fetch_add(c, n, __ATOMIC_RELAXED); }

/* Every failure prints one line naming its cause (call, arguments,
   result, what was expected), and the first is kept for the @result's
   "why" (and fuzzaudit's, tell_audit): a log cut short after its head
   still says why the run failed. */
#define WHY_MAX 200
static char why[WHY_MAX];
static int why_taken;

static void tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tell(const char *fmt, ...)
{
	char line[WHY_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	printf("\nsysfuzz: %s\n", line);
	if (!__atomic_exchange_n(&why_taken, 1, __ATOMIC_ACQ_REL))
		memcpy(why, line, sizeof why);
}

static int overlaps(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
	return a < hi && lo < b;
}

/* Could [addr, addr+len) -- generously rounded -- hit our own memory? */
static int touches_us(uint64_t addr, uint64_t len)
{
	uint64_t a = addr & ~(PAGE_SIZE - 1), b = addr + len + PAGE_SIZE;
	if (b < addr)
		return 1;         /* wraps around: too risky if mishandled */
	return overlaps(a, b, PROTECT_LO, PROTECT_HI) || overlaps(a, b, TOP_LO, USER_TOP) ||
	       overlaps(a, b, LZ_RW, LZ_RW + 1024 * LZ_GIB) || overlaps(a, b, LZ_RO, LZ_RO + 64 * LZ_GIB);
}

/* What the kernel accepts as a VP entry point (see vp_create). */
static int user_entry(long rip, long rsp)
{
	return (uint64_t)rip >= USER_BASE && (uint64_t)rip < USER_TOP &&
	       (uint64_t)rsp > USER_BASE && (uint64_t)rsp <= USER_TOP;
}

static long rand_arg(struct fz *f)
{
	uint64_t *st = &f->st;
	switch (rand_below(st, 8)) {
	case 0:         /* small numbers */
		return (long)rand_below(st, 4101) - 4;
	case 1:
		return (long)rand64(st);
	case 2:
		return 0;
	case 3:         /* kernel half, mostly its image */
		return (long)(rand_below(st, 2) ? 0xffffffff80000000UL + rand_below(st, 1 << 24)
						: 0xffff800000000000UL + rand64(st) % (1UL << 40));
	case 4:         /* non-canonical */
		return (long)(USER_TOP + rand_below(st, 0xffff000000000000UL - USER_TOP));
	case 5:         /* into our own buffer (not its last 128 bytes: wait's
			   status, seg_info's two words and a kstat written there
			   would spill into workers_done) */
		return (long)(pool + rand_below(st, sizeof pool - 128));
	case 6:         /* a page somewhere in user space */
		return (long)(USER_BASE + (rand_below(st, (USER_TOP - USER_BASE) / PAGE_SIZE) * PAGE_SIZE));
	default:        /* powers of two, give or take one */
		return (long)((1UL << rand_below(st, 64)) + rand_below(st, 3) - 1);
	}
}

/* An address that must not be mappable: kernel, non-canonical or low. */
static uint64_t bad_addr(struct fz *f)
{
	switch (rand_below(&f->st, 5)) {
	case 0:
		return 0xffffffff80000000UL + rand_below(&f->st, 1 << 19) * PAGE_SIZE;
	case 1:
		return 0xffff800000000000UL + rand_below(&f->st, 1UL << 28) * PAGE_SIZE;
	case 2:
		return USER_TOP + rand_below(&f->st, 1UL << 30) * PAGE_SIZE;
	default:
		return PAGE_SIZE * (1 + rand_below(&f->st, USER_BASE / PAGE_SIZE - 1));
	}
}

static long short_ns(struct fz *f)
{
	/* Mostly a few microseconds, now and then up to 1 ms. */
	return (long)(rand_below(&f->st, 16) ? rand_below(&f->st, 20000) : rand_below(&f->st, 1000000));
}

static long some_handle(struct fz *f)
{
	switch (rand_below(&f->st, 5)) {
	case 0:
		return handles[rand_below(&f->st, 16)];
	case 1:
		return CAP_BASE + (long)rand_below(&f->st, MAXCAP_SPACE + 4) - 2;
	case 2:
		return (long)rand_below(&f->st, MAXVP + 8);
	default:
		return rand_arg(f);
	}
}

/* File the result r of call n; `must_fail` says the kernel had to refuse
   it (with `want` if that is nonzero). Returns r. */
static long filed(struct fz *f, int kind, long n, long r, long a0, long a1, long a2, long a3,
		  int must_fail, long want)
{
	f->calls++;
	add(&kind_count[kind], 1);
	if (!sys_failed(r))
		add(&n_ok, 1), add(&kind_ok[kind], 1);
	else if (r == -ENOSYS)
		add(&n_enosys, 1);
	else if (r == -EFAULT)
		add(&n_efault, 1);
	else if (r == -EINVAL)
		add(&n_einval, 1);
	else if (r == -EPERM)
		add(&n_eperm, 1);
	else
		add(&n_other, 1);
	int bad = must_fail && (want ? r != want : !sys_failed(r));
	if (bad && __atomic_fetch_add(&n_unexpected, 1, __ATOMIC_RELAXED) < 10)
		tell("%s: syscall %ld(%#lx, %#lx, %#lx, %#lx) returned %ld, should fail%s%s", kind_name[kind],
		     n, a0, a1, a2, a3, r, want ? " with " : "", want ? strerror((int)-want) : "");
	return r;
}

/* Issue one call (a5 zero) and file its result. */
static long issue(struct fz *f, int kind, long n, long a0, long a1, long a2, long a3, long a4,
		  int must_fail, long want)
{
	return filed(f, kind, n, syscall6(n, a0, a1, a2, a3, a4, 0), a0, a1, a2, a3, must_fail, want);
}

/* ---- memory ---------------------------------------------------------- */

static int free_map_slot(struct fz *f)
{
	for (int i = 0; i < NMAPS; i++)
		if (!f->maps[i].len)
			return i;
	return -1;
}

static void forget_map(struct fz *f, int i)
{
	issue(f, K_unmap, SYS_unmap, (long)f->maps[i].addr, (long)f->maps[i].len, 0, 0, 0, 0, 0);
	f->maps[i].len = 0;
}

/* A length: a few pages, or (lazy only) anything up to huge. */
static uint64_t map_len(struct fz *f, int lazy)
{
	switch (rand_below(&f->st, lazy ? 4 : 3)) {
	case 0:
		return PAGE_SIZE * (1 + rand_below(&f->st, 4));
	case 1:
		return 1 + rand_below(&f->st, 64 * PAGE_SIZE);      /* not page-aligned */
	case 2:
		return PAGE_SIZE * (1 + rand_below(&f->st, MAPCAP / PAGE_SIZE));
	default:
		return 1UL << (20 + rand_below(&f->st, 28));          /* 1 MB .. 128 TB */
	}
}

/* The length of a map(0): non-lazy ones short; without the reserved
   range (an old kernel) not so long that one call could carry placement
   from the protected area to the VP pages before placement_done is seen. */
static uint64_t map_cap(uint64_t len, long lazy)
{
	if (!lazy && len > MAPCAP)
		len = MAPCAP;
	if (!(flags & F_RESERVED) && len > (1UL << 40))
		len = 1UL << 40;
	return len;
}

/* Is what map(0, len) returned ours to unmap? Not if the kernel put it
   over the VP pages, the stack or below the map area (image, heap). */
static int placed_ok(long r, uint64_t len)
{
	uint64_t a = (uint64_t)r, end = a + ((len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
	if (end > PROTECT_HI || end < a)
		placement_done = 1;
	if (end < a || overlaps(a, end, TOP_LO, USER_TOP) || a < USER_MAP_BASE) {
		if (__atomic_fetch_add(&n_unexpected, 1, __ATOMIC_RELAXED) < 10)
			tell("map(0, %#lx) placed it at %#lx, over our own memory", len, a);
		return 0;
	}
	return 1;
}

/* Touch pages of a mapping we own and that nobody else may unmap. */
static void touch(struct fz *f, int i)
{
	volatile char *p = (volatile char *)f->maps[i].addr;
	uint64_t pages = f->maps[i].len / PAGE_SIZE;
	for (int k = 0; k < 3 && pages; k++) {
		uint64_t off = rand_below(&f->st, pages < 64 ? pages : 64) * PAGE_SIZE;
		if (f->maps[i].touch == 2)
			p[off] = 1;
		else
			(void)p[off];
	}
}

static void do_map(struct fz *f)
{
	int lazy = rand_below(&f->st, 3) == 0;
	long prot = (long)rand_below(&f->st, 8) | (lazy ? MAP_LAZY : 0);
	long lat = (long)rand_below(&f->st, 50000);
	uint64_t len = map_len(f, lazy);
	int slot = free_map_slot(f);
	if (slot < 0) {
		forget_map(f, (int)rand_below(&f->st, NMAPS));
		return;
	}
	switch (rand_below(&f->st, 6)) {
	case 0: {    /* a kernel, non-canonical or too-low address */
		issue(f, K_map, SYS_map, (long)bad_addr(f), (long)len, prot, lat, 0, 1, 0);
		return;
	}
	case 1: {    /* over memory of ours that is surely mapped */
		uint64_t pg = ((uint64_t)pool & ~(PAGE_SIZE - 1)) - PAGE_SIZE * rand_below(&f->st, 2);
		issue(f, K_map, SYS_map, (long)pg, PAGE_SIZE * (1 + rand_below(&f->st, 3)), prot, lat, 0, 1, 0);
		return;
	}
	case 2: {    /* bad arguments: no length, or a random prot */
		long p2 = rand_below(&f->st, 2) ? rand_arg(f) : prot;
		uint64_t l2 = rand_below(&f->st, 2) ? 0 : map_cap(len, p2 & MAP_LAZY);
		if (l2 && placement_done && !(flags & F_RESERVED)) {
			add(&n_skipped, 1);
			return;
		}
		long r = issue(f, K_map, SYS_map, 0, (long)l2, p2, lat, 0, 0, 0);
		if (!sys_failed(r) && placed_ok(r, l2))   /* a valid call after all */
			issue(f, K_unmap, SYS_unmap, r, (long)l2, 0, 0, 0, 0, 0);
		return;
	}
	case 3: {    /* a fixed address outside everything of ours */
		uint64_t a = USER_BASE + rand_below(&f->st, (USER_TOP - USER_BASE) / PAGE_SIZE) * PAGE_SIZE;
		if (touches_us(a, len))
			a = PROTECT_HI + rand_below(&f->st, 1UL << 24) * PAGE_SIZE;
		if (touches_us(a, len)) {
			add(&n_skipped, 1);
			return;
		}
		long r = issue(f, K_map, SYS_map, (long)a, (long)len, prot, lat, 0, 0, 0);
		if (!sys_failed(r))
			f->maps[slot].addr = (uint64_t)r, f->maps[slot].len = len, f->maps[slot].touch = 0;
		return;
	}
	default: {   /* placed by the kernel: addr 0 */
		if (placement_done && !(flags & F_RESERVED)) {
			add(&n_skipped, 1);
			return;
		}
		len = map_cap(len, lazy);
		long r = issue(f, K_map, SYS_map, 0, (long)len, prot, lat, 0, 0, 0);
		if (sys_failed(r) || !placed_ok(r, len))
			return;
		uint64_t a = (uint64_t)r, end = a + ((len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
		f->maps[slot].addr = a;
		f->maps[slot].len = len;
		f->maps[slot].touch = end <= PROTECT_HI && (prot & (PROT_READ | PROT_WRITE))
				      ? (prot & PROT_WRITE ? 2 : 1) : 0;
		if (f->maps[slot].touch)
			touch(f, slot);
		return;
	}
	}
}

/* A kernel, non-canonical, low or unaligned address, or no length: a
   call on it must fail (low ranges never reach our image). */
static void bad_range(struct fz *f, uint64_t *a, uint64_t *len)
{
	*a = bad_addr(f) + (rand_below(&f->st, 4) ? 0 : 1 + rand_below(&f->st, PAGE_SIZE - 1));
	*len = rand_below(&f->st, 4) ? map_len(f, 1) : 0;
	if (*a < USER_BASE && *len > USER_BASE - *a)
		*len = USER_BASE - *a;
}

/* A range anywhere that is not ours (maybe a sibling VP's mapping), never
   the area our own code touches; 0 (counted as skipped) if none was found. */
static int foreign_range(struct fz *f, uint64_t *a, uint64_t *len)
{
	*a = USER_BASE + rand_below(&f->st, (USER_TOP - USER_BASE) / PAGE_SIZE) * PAGE_SIZE;
	*len = map_len(f, 1);
	if (touches_us(*a, *len)) {
		*a = PROTECT_HI + rand_below(&f->st, 1UL << 24) * PAGE_SIZE;
		if (touches_us(*a, *len)) {
			add(&n_skipped, 1);
			return 0;
		}
	}
	return 1;
}

static void do_unmap(struct fz *f)
{
	int i = (int)rand_below(&f->st, NMAPS);
	uint64_t a, len;
	switch (rand_below(&f->st, 5)) {
	case 0:      /* one of ours, whole */
		if (f->maps[i].len) {
			forget_map(f, i);
			return;
		}
		/* fall through */
	case 1:      /* kernel, non-canonical, low, unaligned, zero length: must fail */
		bad_range(f, &a, &len);
		issue(f, K_unmap, SYS_unmap, (long)a, (long)len, 0, 0, 0, 1, 0);
		return;
	default:     /* anywhere that is not ours: maybe someone else's mapping */
		if (!foreign_range(f, &a, &len))
			return;
		issue(f, K_unmap, SYS_unmap, (long)a, (long)len, 0, 0, 0, 0, 0);
		return;
	}
}

/* protect: ours (then touched as the new access allows), bad ranges
   (must fail), or anywhere that is not ours (as do_unmap: never the
   area our own code touches) */
static void do_protect(struct fz *f)
{
	int i = (int)rand_below(&f->st, NMAPS);
	long prot = rand_below(&f->st, 8) ? (long)rand_below(&f->st, 8) : rand_arg(f);
	int bad_prot = (prot & ~7L) != 0;
	uint64_t a, len;
	switch (rand_below(&f->st, 5)) {
	case 0:      /* one of ours, whole */
		if (f->maps[i].len) {
			long r = issue(f, K_protect, SYS_protect, (long)f->maps[i].addr, (long)f->maps[i].len,
				       prot, 0, 0, bad_prot, bad_prot ? -EINVAL : 0);
			if (!sys_failed(r) && f->maps[i].touch) {
				f->maps[i].touch = prot & PROT_WRITE ? 2 : prot ? 1 : 0;
				if (f->maps[i].touch)
					touch(f, i);
			}
			return;
		}
		/* fall through */
	case 1:      /* kernel, non-canonical, low, unaligned, zero length: must fail */
		bad_range(f, &a, &len);
		issue(f, K_protect, SYS_protect, (long)a, (long)len, prot, 0, 0, 1, 0);
		return;
	default:     /* anywhere that is not ours */
		if (!foreign_range(f, &a, &len))
			return;
		issue(f, K_protect, SYS_protect, (long)a, (long)len, prot, 0, 0, bad_prot, bad_prot ? -EINVAL : 0);
		return;
	}
}

/* discard (madvise DONTNEED): ours (then touched as its access allows:
   zeros, refilled on demand), bad ranges (must fail), or anywhere that is
   not ours (as do_protect) */
static void do_discard(struct fz *f)
{
	int i = (int)rand_below(&f->st, NMAPS);
	uint64_t a, len;
	switch (rand_below(&f->st, 5)) {
	case 0:
		if (f->maps[i].len) {
			long r = issue(f, K_discard, SYS_discard, (long)f->maps[i].addr, (long)f->maps[i].len,
				       0, 0, 0, 0, 0);
			if (!sys_failed(r) && f->maps[i].touch)
				touch(f, i);
			return;
		}
		/* fall through */
	case 1:
		bad_range(f, &a, &len);
		issue(f, K_discard, SYS_discard, (long)a, (long)len, 0, 0, 0, 1, 0);
		return;
	default:
		if (foreign_range(f, &a, &len))
			issue(f, K_discard, SYS_discard, (long)a, (long)len, 0, 0, 0, 0, 0);
	}
}

/* mapped (SYS_mapped: mlock's question, and with MAPPED_BYTES how much
   of a range is mapped, RLIMIT_AS's count): it only reads the page
   tables, so any range may be asked. Ours, our pool's page and the page
   of our stack we stand on must answer 0 (or, counted, their whole
   length); bad ranges (kernel, non-canonical, low, unaligned, no length)
   and lengths past USER_TOP or wrapping must fail; the VP range and the
   segment window -EPERM; unknown flags -EINVAL; anywhere else may
   answer either way. */
static long ask_mapped(struct fz *f, uint64_t a, uint64_t len, long fl, const char *what)
{
	long r = issue(f, K_mapped, SYS_mapped, (long)a, (long)len, fl, 0, 0, 0, 0);
	long want = fl ? (long)((len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1)) : 0;
	if (r != want && __atomic_fetch_add(&n_unexpected, 1, __ATOMIC_RELAXED) < 10)
		tell("mapped(%#lx, %#lx, %ld), %s, returned %ld, not %ld", a, len, fl, what, r, want);
	return r;
}

static void do_mapped(struct fz *f)
{
	int i = (int)rand_below(&f->st, NMAPS);
	long fl = rand_below(&f->st, 2) ? MAPPED_BYTES : 0;
	uint64_t a, len;
	switch (rand_below(&f->st, 6)) {
	case 0:      /* one of ours that only our own code touches: all mapped */
		if (f->maps[i].len && f->maps[i].touch) {
			ask_mapped(f, f->maps[i].addr, f->maps[i].len, fl, "one of ours");
			return;
		}
		/* fall through */
	case 1: {    /* memory that is surely ours: the pool, our own stack */
		char here;
		a = rand_below(&f->st, 2) ? (uint64_t)pool : (uint64_t)&here;
		ask_mapped(f, a & ~(PAGE_SIZE - 1), 1 + rand_below(&f->st, PAGE_SIZE), fl, "our own memory");
		return;
	}
	case 2:      /* kernel, non-canonical, low, unaligned, zero length: must fail */
		bad_range(f, &a, &len);
		issue(f, K_mapped, SYS_mapped, (long)a, (long)len, fl, 0, 0, 1, 0);
		return;
	case 3:      /* huge: past USER_TOP from our pool, or wrapping (-ENOMEM) */
		a = (uint64_t)pool & ~(PAGE_SIZE - 1);
		len = rand_below(&f->st, 2) ? USER_TOP + 1 + rand_below(&f->st, 1UL << 40)
					    : -(uint64_t)PAGE_SIZE * (1 + rand_below(&f->st, 4)) - rand_below(&f->st, 2);
		issue(f, K_mapped, SYS_mapped, (long)a, (long)len, fl, 0, 0, 1, -ENOMEM);
		return;
	case 4:      /* the VP range or the segment window, from inside: -EPERM */
		a = rand_below(&f->st, 2) ? VP_RESERVED_LO + PAGE_SIZE * rand_below(&f->st, (VP_RESERVED_HI - VP_RESERVED_LO) / PAGE_SIZE)
					  : SEG_BASE + PAGE_SIZE * rand_below(&f->st, (SEG_TOP - SEG_BASE) / PAGE_SIZE);
		len = PAGE_SIZE * (1 + rand_below(&f->st, 16));
		issue(f, K_mapped, SYS_mapped, (long)a, (long)len, fl, 0, 0, 1, -EPERM);
		return;
	default: {   /* anything: a random address, length and flags */
		long fx = rand_below(&f->st, 4) ? fl : rand_arg(f);
		int bad = (fx & ~(long)MAPPED_BYTES) != 0;
		issue(f, K_mapped, SYS_mapped, rand_arg(f), rand_arg(f), fx, 0, 0, bad, bad ? -EINVAL : 0);
		return;
	}
	}
}

/* Isolated views (kernel/view.c): bad ranges (must fail), 2 MiB-aligned
   ranges anywhere that is not ours (never our own code's memory: this VP's
   stores there would be its own until a commit), commit, discard, leave
   (with or without a view); the VP may end in its view. */
static void do_view(struct fz *f)
{
	uint64_t a, len;
	switch (rand_below(&f->st, 6)) {
	case 0:
		bad_range(f, &a, &len);
		if (rand_below(&f->st, 2))
			a &= ~(VIEW_ALIGN - 1), len = (len + VIEW_ALIGN - 1) & ~(VIEW_ALIGN - 1);
		issue(f, K_view, SYS_view_enter, (long)a, (long)len, 0, 0, 0, 1, 0);
		return;
	case 1:
	case 2:
		if (!foreign_range(f, &a, &len))
			return;
		a &= ~(VIEW_ALIGN - 1);
		len = VIEW_ALIGN * (1 + rand_below(&f->st, 4));
		if (touches_us(a, len)) {
			add(&n_skipped, 1);
			return;
		}
		issue(f, K_view, SYS_view_enter, (long)a, (long)len, 0, 0, 0, 0, 0);
		return;
	case 3:
		issue(f, K_view, SYS_view_commit, 0, 0, 0, 0, 0, 0, 0);
		return;
	case 4:
		issue(f, K_view, SYS_view_discard, 0, 0, 0, 0, 0, 0, 0);
		return;
	default:
		issue(f, K_view, SYS_view_leave, 0, 0, 0, 0, 0, 0, 0);
	}
}

/* map/unmap in or across the kernel-owned VP range: must fail, with
   EPERM when the range starts inside it (across it, an overlap with a
   sibling's mapping below may answer first). */
static void do_reserved(struct fz *f)
{
	if (!(flags & F_RESERVED)) {
		add(&n_skipped, 1);
		return;
	}
	uint64_t span = (VP_RESERVED_HI - VP_RESERVED_LO) / PAGE_SIZE;
	uint64_t a, len;
	long want = -EPERM;
	switch (rand_below(&f->st, 5)) {
	case 0:      /* a page of a slot: a live VP's, or an unused one */
		a = (rand_below(&f->st, 2) ? PSEUDO_BASE : VPPAGE_BASE) +
		    PAGE_SIZE * (rand_below(&f->st, 2) ? rand_below(&f->st, 8) : rand_below(&f->st, MAXVP));
		len = PAGE_SIZE * (1 + rand_below(&f->st, 4));
		break;
	case 1:      /* anywhere inside */
		a = VP_RESERVED_LO + PAGE_SIZE * rand_below(&f->st, span);
		len = 1 + rand_below(&f->st, 16 * PAGE_SIZE);
		break;
	case 2:      /* starting below it, reaching in */
		len = PAGE_SIZE * (1 + rand_below(&f->st, 64));
		a = VP_RESERVED_LO - len + PAGE_SIZE * (1 + rand_below(&f->st, 4));
		len += PAGE_SIZE * rand_below(&f->st, 4);
		want = 0;
		break;
	default:     /* covering all of it, from below */
		a = VP_RESERVED_LO - PAGE_SIZE * (1 + rand_below(&f->st, 16));
		len = VP_RESERVED_HI - a + PAGE_SIZE * rand_below(&f->st, 16);
		want = 0;
		break;
	}
	if (a + len > USER_STACK_TOP - USER_STACK_SIZE - PAGE_SIZE) {
		add(&n_skipped, 1);     /* would reach our stack */
		return;
	}
	long pick = (long)rand_below(&f->st, 4);
	if (pick == 3)
		issue(f, K_reserved, SYS_discard, (long)a, (long)len, 0, 0, 0, 1, want);
	else if (pick == 0) {
		long prot = (long)rand_below(&f->st, 8) | (rand_below(&f->st, 2) ? MAP_LAZY : 0);
		issue(f, K_reserved, SYS_map, (long)a, (long)len, prot, 1000, 0, 1, want);
	} else if (pick == 1)
		issue(f, K_reserved, SYS_protect, (long)a, (long)len, (long)rand_below(&f->st, 8), 0, 0, 1, want);
	else
		issue(f, K_reserved, SYS_unmap, (long)a, (long)len, 0, 0, 0, 1, want);
}

/* ---- VPs ------------------------------------------------------------- */

static void fuzz_vp(long slot) __attribute__((noreturn));
static void fuzz_loop(struct fz *f, long count);

static int take_stack(void)
{
	for (int i = 0; i < NSHORT; i++)
		if (!short_busy[i] && !__atomic_exchange_n(&short_busy[i], 1, __ATOMIC_ACQUIRE))
			return i;
	return -1;
}

static uint64_t stack_top(int i) { return (uint64_t)short_stack[i] + STACK - 8; }

/* A short-lived VP: a few calls, then it ends. It frees its stack and
   leaves in one asm block, so nothing runs on the stack once it is free. */
static void fuzz_vp(long slot)
{
	struct fz f;
	memset(&f, 0, sizeof f);
	f.st = seed ^ (0x5851f42d4c957f2dUL * (uint64_t)(slot + 101)) ^ (uint64_t)sys_time();
	fuzz_loop(&f, 1 + (long)rand_below(&f.st, SHORT_CALLS));
	for (int i = 0; i < NMAPS; i++)
		if (f.maps[i].len)
			forget_map(&f, i);
	add(&n_extra, f.calls);
	volatile uint32_t *busy = &short_busy[slot];
	__asm__ volatile("movl $0, (%1)\n\tsyscall" : : "a"((long)SYS_vp_exit), "r"(busy)
			 : "rcx", "r11", "memory");
	for (;;)
		;
}

static void do_vp_create(struct fz *f)
{
	if (rand_below(&f->st, 3) == 0) {   /* an entry the kernel must refuse */
		long rip = rand_arg(f), rsp = rand_arg(f);
		if (user_entry(rip, rsp)) {
			add(&n_skipped, 1);
			return;
		}
		issue(f, K_vp_create, SYS_vp_create, rip, rsp, rand_arg(f), 0, 0, 1, 0);
		return;
	}
	int s = take_stack();
	if (s < 0) {
		add(&n_skipped, 1);
		return;
	}
	long r = issue(f, K_vp_create, SYS_vp_create, (long)fuzz_vp, (long)stack_top(s), s, 0, 0, 0, 0);
	if (sys_failed(r))
		__atomic_store_n(&short_busy[s], 0, __ATOMIC_RELEASE);
}

static void do_vp_start(struct fz *f)
{
	long idx = rand_below(&f->st, 2) ? (long)rand_below(&f->st, MAXVP + 4) : rand_arg(f);
	if (idx == 1 && (flags & F_WAIT)) {
		add(&n_skipped, 1);      /* VP 1 of run=sysfuzz:2 stays parked */
		return;
	}
	if (rand_below(&f->st, 3) == 0) {
		long rip = rand_arg(f), rsp = rand_arg(f);
		if (user_entry(rip, rsp)) {
			add(&n_skipped, 1);
			return;
		}
		issue(f, K_vp_start, SYS_vp_start, idx, rip, rsp, rand_arg(f), 0, 1, 0);
		return;
	}
	int s = take_stack();
	if (s < 0) {
		add(&n_skipped, 1);
		return;
	}
	long r = issue(f, K_vp_start, SYS_vp_start, idx, (long)fuzz_vp, (long)stack_top(s), s, 0, 0, 0);
	if (sys_failed(r))
		__atomic_store_n(&short_busy[s], 0, __ATOMIC_RELEASE);
}

static void remember_handle(struct fz *f, long h)
{
	if (!sys_failed(h))
		handles[rand_below(&f->st, 16)] = h;
}

static void do_vp_signal(struct fz *f)
{
	long dest = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 40) : some_handle(f);
	issue(f, K_vp_signal, SYS_vp_signal, dest, rand_arg(f), rand_arg(f), 0, 0, 0, 0);
}

static void do_vp_cap(struct fz *f)
{
	long idx = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 40) : rand_arg(f);
	remember_handle(f, issue(f, K_vp_cap, SYS_vp_cap, idx, rand_arg(f), 0, 0, 0, 0, 0));
}

/* A handle outside the table can never be valid (and the old kernel has
   no such call: ENOSYS is a failure too). */
static int bad_handle(long h)
{
	return h < CAP_BASE || h >= CAP_BASE + MAXCAP_SPACE;
}

static void do_cap_grant(struct fz *f)
{
	long h = some_handle(f);
	long to;
	switch (rand_below(&f->st, 5)) {
	case 0:
		to = myspace;
		break;
	case 1:
		to = shared_kids[rand_below(&f->st, 16)];
		break;
	case 2:
		to = (long)rand_below(&f->st, 300);
		break;
	default:
		to = rand_arg(f);
	}
	long r = issue(f, K_cap_grant, SYS_cap_grant, h, to, rand_arg(f), 0, 0, bad_handle(h), 0);
	if (to == myspace)
		remember_handle(f, r);
}

static void do_cap_drop(struct fz *f)
{
	long h = some_handle(f);
	issue(f, K_cap_drop, SYS_cap_drop, h, rand_arg(f), 0, 0, 0, bad_handle(h), 0);
}

/* Shared segments: create (remembered as a handle, so grants, drops,
   maps and spawns use it too), map, unmap, revoke, info, robust lists.
   Nothing touches a segment's memory: another VP may revoke it. A robust
   list registered here points at random memory of ours, which the kernel
   reads when the space ends (and must survive). */
static uint64_t seg_addr(struct fz *f)
{
	return SEG_BASE + rand_below(&f->st, 1UL << 16) * PAGE_SIZE;
}

/* A name for SYS_seg_open/unlink: one of ours (unlinked at the end),
   empty, too long, or a random pointer. */
static char seg_names[4][8] = { "fz.0", "fz.1", "fz.2", "fz.3" };
static char long_name[SEGNAME_MAX + 8];
static long seg_name(struct fz *f, int *bad)
{
	uint32_t k = rand_below(&f->st, 8);
	*bad = k >= 4 && k < 7;       /* (a random pointer may name a string) */
	if (k < 4)
		return (long)seg_names[k];
	if (k == 4)
		return (long)"";
	if (k == 5) {
		memset(long_name, 'x', sizeof long_name - 1);
		return (long)long_name;
	}
	return k == 6 ? (long)bad_addr(f) : rand_arg(f);
}

static void do_seg(struct fz *f)
{
	long h = some_handle(f);
	switch (rand_below(&f->st, 12)) {
	case 0:
	case 1: {
		long len = rand_below(&f->st, 4) ? (long)(1 + rand_below(&f->st, 4 * PAGE_SIZE)) : rand_arg(f);
		long r = issue(f, K_seg, SYS_seg_create, len, rand_arg(f), 0, 0, 0,
			       len <= 0 || (uint64_t)len > SEG_MAXLEN, 0);
		remember_handle(f, r);
		break;
	}
	case 2:
	case 3: {
		long prot = rand_below(&f->st, 2) ? PROT_READ | (long)(rand_below(&f->st, 2) * PROT_WRITE)
						  : rand_arg(f);
		long addr = rand_below(&f->st, 4) ? 0 : rand_below(&f->st, 2) ? (long)seg_addr(f) : rand_arg(f);
		issue(f, K_seg, SYS_seg_map, h, addr, prot, 0, 0, bad_handle(h), 0);
		break;
	}
	case 4: {
		long a = rand_below(&f->st, 2) ? syscall2(SYS_seg_info, h, 0) : (long)seg_addr(f);
		issue(f, K_seg, SYS_seg_unmap, a, 0, 0, 0, 0, 0, 0);
		break;
	}
	case 5:
		if (rand_below(&f->st, 8) == 0)  /* rarely: it ends the segment for everyone */
			issue(f, K_seg, SYS_seg_revoke, h, 0, 0, 0, 0, bad_handle(h), 0);
		else
			issue(f, K_seg, SYS_seg_info, h, rand_below(&f->st, 2) ? (long)pool : rand_arg(f),
			      0, 0, 0, bad_handle(h), 0);
		break;
	case 6: {
		/* a cross-space wake: to a small space id (ours, a relative,
		   or one sharing nothing with us), an odd VP, any token; token
		   0 is the kernel's own and must fail; no flags, the directed
		   yield (SEGWAKE_YIELD), or any bits (unknown ones must fail) */
		long a = rand_below(&f->st, 2) ? (long)seg_addr(f) : rand_arg(f);
		long sid = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 12) : rand_arg(f);
		long tok = rand_below(&f->st, 8) ? rand_arg(f) : 0;
		uint32_t k = rand_below(&f->st, 4);
		long fl = k < 2 ? 0 : k == 2 ? SEGWAKE_YIELD : rand_arg(f);
		issue(f, K_seg, SYS_seg_wake, a, sid, rand_arg(f), tok, fl,
		      tok == 0 || (fl & ~(long)SEGWAKE_YIELD) != 0, 0);
		break;
	}
	case 9: {
		/* this space's PTEs in a segment: real or random addresses,
		   lengths and protections (unaligned or unknown: must fail) */
		long a = rand_below(&f->st, 2) ? syscall2(SYS_seg_info, h, 0) : (long)seg_addr(f);
		if (rand_below(&f->st, 8) == 0)
			a = rand_below(&f->st, 2) ? a + 1 : rand_arg(f);
		long len = rand_below(&f->st, 2) ? (long)(rand_below(&f->st, 5) * PAGE_SIZE) : rand_arg(f);
		long prot = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 4) : rand_arg(f);
		issue(f, K_seg, SYS_seg_protect, a, len, prot, 0, 0,
		      a % PAGE_SIZE || (prot & ~3L) || prot == PROT_WRITE, 0);
		break;
	}
	case 10: {
		int bad;
		long name = seg_name(f, &bad);
		long len = rand_below(&f->st, 4) ? (long)(1 + rand_below(&f->st, 2 * PAGE_SIZE)) : rand_arg(f);
		long fl = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 4) : rand_arg(f);
		/* a short VP may still run when the end unlinks our names:
		   only the fuzzing loops make one (else it could outlive us);
		   and only one of our four names: a random pointer that
		   happens to name a string (in the pool, say) would make a
		   segment nobody unlinks, which outlives us by design (a
		   name holds it) and the memory audit counts as lost */
		int ours = 0;
		for (int i = 0; i < 4; i++)
			ours |= name == (long)seg_names[i];
		long fl_made = f->worker && ours ? fl : fl & ~(long)SEGN_CREAT;
		long r = issue(f, K_seg, SYS_seg_open, name, len, fl_made, 0, 0, bad || (fl & ~7L), 0);
		remember_handle(f, r);
		break;
	}
	case 11: {
		int bad;
		long name = seg_name(f, &bad);
		issue(f, K_seg, SYS_seg_unlink, name, 0, 0, 0, 0, bad, 0);
		break;
	}
	default: {
		long n = rand_below(&f->st, 4) ? (long)rand_below(&f->st, MAXROBUST + 2) : rand_arg(f);
		long list = rand_below(&f->st, 2) ? (long)pool + 8 * (long)rand_below(&f->st, 64) : rand_arg(f);
		issue(f, K_seg, SYS_seg_robust, list, n, 0, 0, 0, (uint64_t)n > MAXROBUST, 0);
	}
	}
}

static void do_timer(struct fz *f)
{
	long t = (long)sys_time(), dl;
	switch (rand_below(&f->st, 5)) {
	case 0:
		dl = 0;                                  /* cancel */
		break;
	case 1:
		dl = t + short_ns(f);                    /* soon */
		break;
	case 2:
		dl = t - (long)rand_below(&f->st, 1000000);   /* past */
		break;
	case 3:
		dl = t + (long)rand_below(&f->st, 1000000000); /* later: re-armed or dropped */
		break;
	default:
		dl = rand_arg(f);
	}
	issue(f, K_timer, SYS_timer, dl, rand_arg(f), 0, 0, 0, 0, 0);
}

/* vp_idle only with a timer 50 us out: an event is sure to come. */
static void do_vp_idle(struct fz *f)
{
	if (sys_failed(syscall2(SYS_timer, sys_time() + 50000, 0x1d1e))) {
		add(&n_skipped, 1);
		return;
	}
	issue(f, K_vp_idle, SYS_vp_idle, 0, 0, 0, 0, 0, 0, 0);
}

/* ---- spawn and wait ---------------------------------------------------- */

static void publish_kid(struct fz *f, long id)
{
	if (flags & F_WAIT)
		shared_kids[rand_below(&f->st, 16)] = id;
}

/* SYS_wait's status of a killed child is -1; a peek at it first (not
   filed, never waits) says by what signal (a fault's is SIGSEGV or
   SIGBUS: the kernel's "killed:" line says which). *ws: its status. */
static long peek_kid(long id, int *ws)
{
	*ws = 0;
	return id > 0 ? syscall3(SYS_waitpid, id, (long)ws, 1 | KWNOWAIT) : 0;
}

/* Child id ended with status (peek, ws: peek_kid's before the wait). */
static void kid_bad(long id, int status, long peek, int ws, const char *by)
{
	add(&n_kids_bad, 1);
	if (status == -1 && peek == id && (ws & 0x7f))
		tell("child %ld ended with status -1: killed by signal %d%s", id, ws & 0x7f, by);
	else
		tell("child %ld ended with status %d%s%s", id, status,
		     status == -1 ? ": killed (the kernel's \"killed:\" line says why)" : "", by);
}

/* Wait for child id with a good status pointer; count a bad status. */
static long wait_kid(struct fz *f, long id)
{
	int status = 0, ws;
	long peek = peek_kid(id, &ws);
	long r = issue(f, K_wait, SYS_wait, id, (long)&status, 0, 0, 0, 0, 0);
	if (r == id && status != 0)
		kid_bad(id, status, peek, ws, "");
	return r;
}

/* Reap kid slot k: wait until it is collected (by us or, with w, by a
   sibling VP, after which we get ECHILD). */
static void reap(struct fz *f, int k)
{
	long r;
	do
		r = wait_kid(f, f->kids[k]);
	while (r != f->kids[k] && r != -ECHILD);
	f->kids[k] = 0;
}

static void do_spawn(struct fz *f)
{
	if (!f->worker || child_mode) {
		add(&n_skipped, 1);
		return;
	}
	int k = f->kids[0] ? f->kids[1] ? -1 : 1 : 0;
	if (k < 0) {
		reap(f, (int)rand_below(&f->st, NKIDS));
		return;
	}
	long hs[8];
	for (int i = 0; i < 8; i++)
		hs[i] = some_handle(f);
	long nh = (long)rand_below(&f->st, 9);
	char sd[24], cn[12];
	snprintf(sd, sizeof sd, "%lu", (unsigned long)rand64(&f->st));
	snprintf(cn, sizeof cn, "%lu", (unsigned long)(1 + rand_below(&f->st, CHILD_CALLS)));
	const char *argv[] = { "sysfuzz", "child", sd, cn, flagstr };
	switch (rand_below(&f->st, 8)) {
	case 0:      /* no such program, bad name pointer, too many arguments */
		issue(f, K_spawn, SYS_spawn, (long)"no-such-program", 5, (long)argv, 0, 0, 1, 0);
		return;
	case 1:
		issue(f, K_spawn, SYS_spawn, rand_arg(f), 5, (long)argv, 0, 0, 0, 0);
		return;
	case 2:
		issue(f, K_spawn, SYS_spawn, (long)"sysfuzz", MAX_ARGS + 1 + (long)rand_below(&f->st, 100),
		      (long)argv, 0, 0, 1, 0);
		return;
	case 3:      /* the handle array itself somewhere odd */
		nh = rand_arg(f);
		hs[0] = 0;
		break;
	case 5:      /* the environment (the sixth word) somewhere odd, or a
			word of it: -EFAULT (kernel/args.c) */
		if (rand_below(&f->st, 2)) {
			filed(f, K_spawn, SYS_spawn, syscall6(SYS_spawn, (long)"sysfuzz", 5, (long)argv, 0, 0,
							     (long)bad_addr(f)),
			      (long)"sysfuzz", 5, (long)argv, 0, 1, 0);
		} else {
			const char *ev[] = { "A=1", (const char *)bad_addr(f), 0 };
			filed(f, K_spawn, SYS_spawn, syscall6(SYS_spawn, (long)"sysfuzz", 5, (long)argv, 0, 0,
							     (long)ev),
			      (long)"sysfuzz", 5, (long)argv, 0, 1, 0);
		}
		return;
	case 4:      /* no handles: a child for certain (some_handle's are
			often stale, and a run with no child tests no wait) */
		nh = 0;
		break;
	}
	long hp = nh == 0 || rand_below(&f->st, 4) ? (long)hs : rand_arg(f);
	long r = issue(f, K_spawn, SYS_spawn, (long)"sysfuzz", 5, (long)argv, hp, nh, 0, 0);
	if (!sys_failed(r)) {
		f->kids[k] = r;
		add(&n_kids, 1);
		publish_kid(f, r);
	}
}

static void do_wait(struct fz *f)
{
	int k = (int)rand_below(&f->st, NKIDS);
	if (f->kids[k] && rand_below(&f->st, 2)) {
		reap(f, k);
		return;
	}
	int st = 0;
	long id, ptr = (long)rand_below(&f->st, 2) ? rand_arg(f) : (long)(pool + 64);
	switch (rand_below(&f->st, 5)) {
	case 0:      /* not children: ids below ours were given out before us */
		id = 1 + (long)rand_below(&f->st, myspace);
		break;
	case 1:      /* no such id at all */
		id = rand_below(&f->st, 2) ? -(long)rand_below(&f->st, 100) : (long)(1UL << 31) + (long)rand_below(&f->st, 1000);
		break;
	default:
		if (!(flags & F_WAIT)) {  /* a single-waiter kernel: nothing a sibling may wait on */
			id = 1 + (long)rand_below(&f->st, myspace);
			break;
		}
		/* a child of a sibling (several VPs wait for it), or any id */
		id = rand_below(&f->st, 2) ? shared_kids[rand_below(&f->st, 16)] : (long)rand_below(&f->st, myspace + 400);
		ptr = (long)&st;         /* a child's status must be 0: checked */
		break;
	}
	int ws;
	long peek = ptr == (long)&st ? peek_kid(id, &ws) : 0;
	long r = issue(f, K_wait, SYS_wait, id, ptr, 0, 0, 0, 0, 0);
	/* A sibling's child collected here is not its owner's to check
	   (reap: -ECHILD): before, a killed child collected so went unseen. */
	if (ptr == (long)&st && r == id && r > 0 && st != 0)
		kid_bad(id, st, peek, ws, " (collected by another VP's wait)");
}

/* ---- blocking calls ------------------------------------------------------ */

/* A futex address: random, one of our mappings (maybe lazy and untouched),
   or a real word several VPs use. */
static long futex_addr(struct fz *f)
{
	int i = (int)rand_below(&f->st, NMAPS);
	switch (rand_below(&f->st, 5)) {
	case 0:
		return rand_arg(f);
	case 1:
		if (f->maps[i].len)
			return (long)(f->maps[i].addr + (rand_below(&f->st, f->maps[i].len) & ~3UL));
		/* fall through */
	default:
		return (long)&futex_words[rand_below(&f->st, 16)];
	}
}

/* A CLOCK_REALTIME time (ns since 1970) near now: mostly just ahead (a
   wait that ends soon, or early at another VP's clock set), else passed
   or before 1970. Never far ahead: nothing would end the wait. */
static long rt_soon(struct fz *f)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	long now = t.tv_sec * 1000000000L + t.tv_nsec;
	switch (rand_below(&f->st, 4)) {
	case 0:
		return now - short_ns(f);
	case 1:
		return -(long)rand_below(&f->st, 1000);
	default:
		return now + 1 + short_ns(f);
	}
}

static void do_futex_wait(struct fz *f)
{
	long a = futex_addr(f);
	long v = (uint64_t)a >= (uint64_t)futex_words && (uint64_t)a < (uint64_t)(futex_words + 16) &&
		 rand_below(&f->st, 2) ? (long)*(volatile uint32_t *)a : (long)rand_below(&f->st, 3);
	if (!rand_below(&f->st, 4)) {    /* to a CLOCK_REALTIME deadline (61) */
		issue(f, K_futex_wait, SYS_futex_wait_rt, a, v, rt_soon(f), 0, 0, 0, 0);
		return;
	}
	if (rand_below(&f->st, 3)) {
		issue(f, K_futex_wait, SYS_futex_wait, a, v, 1 + short_ns(f), 0, 0, 0, 0);
		return;
	}
	/* With a cut word (any address: an unaligned one must be -EINVAL) that
	   another VP's SYS_wait_cut may name (do_futex_wake); the time relative
	   (rt bit 0 clear), a CLOCK_REALTIME one (bit 0 set), a waiter's priority in bits
	   8-15 (FUTEX_PRIO), any other bit -EINVAL */
	long cut = rand_below(&f->st, 4) ? futex_addr(f) + (long)rand_below(&f->st, 2) * 2 : rand_arg(f);
	long cv = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 3) : rand_arg(f);
	long rt = rand_below(&f->st, 8) ? (long)rand_below(&f->st, 2) : rand_arg(f);
	if (rand_below(&f->st, 4) == 0)           /* a waiter's priority, bits 8-15 */
		rt |= (long)FUTEX_PRIO(rand_below(&f->st, 256));
	long when = (rt & 1) ? rt_soon(f) : 1 + short_ns(f);
	int bad = cut % 4 != 0 || ((uint64_t)rt & ~(uint64_t)(1 | FUTEX_PRIO(0xff)));
	filed(f, K_futex_wait, SYS_futex_wait_cut, syscall6(SYS_futex_wait_cut, a, v, when, cut, cv, rt),
	      a, v, when, cut, bad, -EINVAL);
}

static void do_futex_wake(struct fz *f)
{
	long a = futex_addr(f);
	if ((uint64_t)a >= (uint64_t)futex_words && (uint64_t)a < (uint64_t)(futex_words + 16))
		__atomic_fetch_add((volatile uint32_t *)a, 1, __ATOMIC_RELAXED);
	long n = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 4) : rand_arg(f);
	if (rand_below(&f->st, 3))
		issue(f, K_futex_wake, SYS_futex_wake, a, n, 0, 0, 0, 0, 0);
	else {                           /* cut the waits on a cut word (only our space's) */
		long c = a + (long)rand_below(&f->st, 2) * 2;
		issue(f, K_futex_wake, SYS_wait_cut, c, 0, 0, 0, 0, c % 4 != 0, -EINVAL);
	}
}

static void do_io(struct fz *f, int kind)
{
	long v = rand_arg(f);
	long r = issue(f, kind, kind == K_io ? SYS_io : SYS_sleep, short_ns(f), v, 0, 0, 0, 0, 0);
	if (kind == K_io && r != v && !sys_failed(r) &&
	    __atomic_fetch_add(&n_unexpected, 1, __ATOMIC_RELAXED) < 10)
		tell("io returned %ld, not its value %ld", r, v);
}

/* ---- pipes (kernel/pipe.c) ---------------------------------------------- */

static volatile long pipe_fd[8];         /* kernel descriptors + 1 (0: none) */

/* One of our pipes' descriptors, or now and then any number. */
static long pipe_some_fd(struct fz *f)
{
	long k = pipe_fd[rand_below(&f->st, 8)];
	return k && rand_below(&f->st, 8) ? k - 1 : rand_arg(f);
}

/* Memory a read may fill: the pool, or an address that must fault. */
static long read_buf(struct fz *f)
{
	return rand_below(&f->st, 4) ? (long)(pool + rand_below(&f->st, sizeof pool / 2)) : (long)bad_addr(f);
}

static void do_pipe(struct fz *f)
{
	int slot = (int)rand_below(&f->st, 8);
	long n = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 4097) : rand_arg(f);
	switch (rand_below(&f->st, 10)) {
	case 0: {                            /* a new pipe: two descriptors into the pool */
		int *fd = (int *)(pool + sizeof pool - 8 * (1 + (uint64_t)slot));
		if (issue(f, K_pipe, SYS_pipe, (long)fd, 0, 0, 0, 0, 0, 0) == 0) {
			long old = __atomic_exchange_n(&pipe_fd[slot], fd[0] + 1L, __ATOMIC_RELAXED);
			if (old)
				issue(f, K_pipe, SYS_file_close, old - 1, 0, 0, 0, 0, 0, 0);
			issue(f, K_pipe, SYS_file_close, rand_below(&f->st, 2) ? fd[1] : fd[0], 0, 0, 0, 0, 0, 0);
		}
		break;
	}
	case 1:                              /* into memory that must fault */
		issue(f, K_pipe, SYS_pipe, (long)bad_addr(f), 0, 0, 0, 0, 1, 0);
		break;
	case 2:                              /* (write_where: its position's address any) */
		if (rand_below(&f->st, 2))
			issue(f, K_pipe, SYS_file_write, pipe_some_fd(f), rand_arg(f), n, 0, 0, 0, 0);
		else
			issue(f, K_pipe, SYS_file_write_where, pipe_some_fd(f), rand_arg(f), n, rand_arg(f), 0, 0, 0);
		break;
	case 3:
		issue(f, K_pipe, SYS_file_read, pipe_some_fd(f), read_buf(f), n % (long)(sizeof pool / 2), 0, 0, 0, 0);
		break;
	case 4: {                            /* never waits: no other space names our pipes */
		long park = rand_below(&f->st, 2) ? (long)(pool + 4 * rand_below(&f->st, 64)) : rand_arg(f);
		issue(f, K_pipe, SYS_pipe_wait, pipe_some_fd(f), n, park, rand_arg(f), rand_arg(f), 0, 0);
		break;
	}
	case 5: {
		long d = issue(f, K_pipe, SYS_file_dup, pipe_some_fd(f), 0, 0, 0, 0, 0, 0);
		if (d >= 0)
			issue(f, K_pipe, SYS_file_close, d, 0, 0, 0, 0, 0, 0);
		break;
	}
	case 6: {                            /* a pipe has no offset (-ESPIPE) */
		long k = pipe_fd[slot];
		if (k)
			issue(f, K_pipe, SYS_file_lseek, k - 1, rand_arg(f), rand_below(&f->st, 3), 0, 0, 0, 0);
		else
			issue(f, K_pipe, SYS_file_fstat, pipe_some_fd(f), read_buf(f), 0, 0, 0, 0, 0);
		break;
	}
	case 7: {
		long k = __atomic_exchange_n(&pipe_fd[slot], 0, __ATOMIC_RELAXED);
		issue(f, K_pipe, SYS_file_close, k ? k - 1 : rand_arg(f), 0, 0, 0, 0, 0, 0);
		break;
	}
	case 8: {                            /* O_APPEND on the open file: any other bit -EINVAL */
		long fl = rand_below(&f->st, 2) ? (long)(rand_below(&f->st, 2) * FO_APPEND) : rand_arg(f);
		issue(f, K_pipe, SYS_file_setfl, pipe_some_fd(f), fl, 0, 0, 0,
		      (fl & ~(long)FO_APPEND) != 0, -EINVAL);
		break;
	}
	default: {
		long d = issue(f, K_pipe, SYS_file_special, (long)rand_below(&f->st, 7), rand_arg(f), 0, 0, 0, 0, 0);
		if (d >= 0)
			issue(f, K_pipe, SYS_file_close, d, 0, 0, 0, 0, 0, 0);
	}
	}
}

/* ---- system calls at untouched lazy memory ---------------------------- */

/* Two MAP_LAZY arenas of the space, made by the first call that needs
   them (a racing VP's -EEXIST is fine), never touched by user code nor
   by the other kinds' fixed maps, unmaps and protects (touches_us: a
   protect once made the read-only one writable under a copyout): the
   kernel fills their pages for system calls (lazy_fill, uaccess_fixup),
   page tables included, each charged before it is built. A word is
   picked in one of 1,024 GiB at one of 4 pages, so a space fills at
   most 4,096 pages and 2,048 tables here, and the RW arena is now and
   then unmapped and made again (its pages freed, its tables kept). */
static volatile int lz_made;

static void lz_make(void)
{
	syscall4(SYS_map, (long)LZ_RW, (long)(1024 * LZ_GIB), PROT_READ | PROT_WRITE | MAP_LAZY, 0);
	syscall4(SYS_map, (long)LZ_RO, (long)(64 * LZ_GIB), PROT_READ | MAP_LAZY, 0);
	lz_made = 1;
}

static uint64_t lz_word(struct fz *f, uint64_t base, uint64_t gibs)
{
	return base + rand_below(&f->st, gibs) * LZ_GIB + rand_below(&f->st, 4) * PAGE_SIZE +
	       rand_below(&f->st, PAGE_SIZE / 4) * 4;
}

static void do_lazysys(struct fz *f)
{
	if (!lz_made || !rand_below(&f->st, 256)) {
		if (lz_made)
			syscall2(SYS_unmap, (long)LZ_RW, (long)(1024 * LZ_GIB));
		lz_make();
	}
	uint64_t a = lz_word(f, LZ_RW, 1024), ro = lz_word(f, LZ_RO, 64);
	switch (rand_below(&f->st, 6)) {
	case 0:      /* a futex key: filled, or -EFAULT past the quota */
		issue(f, K_lazysys, SYS_futex_wake, (long)a, 1, 0, 0, 0, 0, 0);
		break;
	case 1:      /* a futex wait on a (mostly) zero word, expecting 1: 1 us at most */
		issue(f, K_lazysys, SYS_futex_wait, (long)(rand_below(&f->st, 2) ? a : ro), 1, 1000, 0, 0,
		      0, 0);
		break;
	case 2:      /* a copyin: spawn's program name ("": -ENOENT, or -EFAULT) */
		issue(f, K_lazysys, SYS_spawn, (long)(rand_below(&f->st, 2) ? a : ro), 0, 0, 0, 0, 1, 0);
		break;
	case 3:      /* a copyout into lazy memory (a segment's info) */
		issue(f, K_lazysys, SYS_seg_info, some_handle(f), (long)a, 0, 0, 0, 0, 0);
		break;
	case 4:      /* a copyout into a read-only region must never succeed */
		issue(f, K_lazysys, SYS_seg_info, some_handle(f), (long)ro, 0, 0, 0, 1, 0);
		break;
	default:     /* a name in the arena's last page */
		issue(f, K_lazysys, SYS_spawn, (long)(LZ_RO + 64 * LZ_GIB - 1 - rand_below(&f->st, 8)),
		      0, 0, 0, 0, 1, 0);
		break;
	}
}

/* ---- processes and files: exec, groups, fmap/msync, lstat/readlink/statfs ---- */

/* With a disk made by test_syscall.py's files tests, /fz holds: f (FZ_FSIZE
   bytes), elf (an ELF header then garbage), dir/, the links fast -> f,
   slow (a 75-byte target through dir/..), cyc -> cyc and dang -> nowhere.
   Without a disk every path is -ENODEV or -ENOENT and every fd -EBADF. */
#define FZ_FSIZE   (5 * PAGE_SIZE + 100)
#define PGROUNDUP_U(x) (((x) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1))
#define NFZFD      5           /* f read-only, read-write, write-only; dir; elf */
#define FZ_NOFD    63          /* a descriptor never open in a fuzzing space */
static long fz_fd[NFZFD];
static long fz_size;          /* /fz/f's size when opened (0: no disk) */
static long child_count;      /* a child's COUNT: its exec halves it */
static char scratch[8192];    /* lstat/readlink output (the pool stays dots) */
static char long_path[FPATH_MAX + 64];

static const char *const fz_paths[] = {
	"/fz/f", "/fz/fast", "/fz/slow", "/fz/cyc", "/fz/dang", "/fz/dir", "/fz/elf", "/fz/f/x",
	"/fz/fast/x", "/fz/dir/..", "/fz", "/", "", "/nonexistent", "fz/f", long_path,
};
#define NFZPATH (sizeof fz_paths / sizeof fz_paths[0])

static void files_open(void)
{
	static const struct { const char *p; long fl; } o[NFZFD] = {
		{ "/fz/f", FO_RDONLY }, { "/fz/f", 2 }, { "/fz/f", 1 }, { "/fz/dir", FO_DIRECTORY },
		{ "/fz/elf", FO_RDONLY },
	};
	for (int i = 0; i < NFZFD; i++)
		fz_fd[i] = syscall3(SYS_file_open, (long)o[i].p, o[i].fl, 0);
	long sz = fz_fd[0] >= 0 ? syscall3(SYS_file_lseek, fz_fd[0], 0, 2) : 0;
	fz_size = sz > 0 ? sz : 0;
	memset(long_path, '/', sizeof long_path - 1);
}

static long some_fd(struct fz *f)
{
	switch (rand_below(&f->st, 6)) {
	case 0:
		return (long)rand_below(&f->st, MAXFILE_SPACE + 8) - 4;
	case 1:
		return rand_arg(f);
	default:
		return fz_fd[rand_below(&f->st, NFZFD)];
	}
}

/* A path: one of /fz's, a garbage or kernel pointer, the pool (dots with
   no NUL for 8 KiB: too long), or an untouched lazy word. */
static long some_path(struct fz *f)
{
	switch (rand_below(&f->st, 8)) {
	case 0:
		return rand_arg(f);
	case 1:
		return (long)bad_addr(f);
	case 2:
		return lz_made ? (long)lz_word(f, rand_below(&f->st, 2) ? LZ_RW : LZ_RO, 64) : (long)pool;
	default:
		return (long)fz_paths[rand_below(&f->st, NFZPATH)];
	}
}

/* exec. A fuzzing space must not become another program, so in it every
   exec has a bad part: a keep entry below -1 (-EBADF before anything) or
   naming FZ_NOFD (-EBADF once the new image is built: it is discarded),
   too many keeps, a path that is no program, or an argv that cannot be
   read. A child (`sysfuzz child`) with COUNT >= 8 may also really exec
   itself with COUNT halved, keeping some of its descriptors: the old
   image's VPs end and its parent's wait gets the new image's status. */
static void do_exec(struct fz *f)
{
	char sd[24], cn[12];
	snprintf(sd, sizeof sd, "%lu", (unsigned long)rand64(&f->st));
	snprintf(cn, sizeof cn, "%ld", child_count / 2);
	const char *argv[] = { "sysfuzz", "child", sd, cn, flagstr };
	int16_t keep[MAXFILE_SPACE + 8];
	long nkeep = (long)rand_below(&f->st, 5);
	for (int i = 0; i < (int)(sizeof keep / sizeof keep[0]); i++)
		keep[i] = rand_below(&f->st, 2) ? -1 : (int16_t)fz_fd[rand_below(&f->st, NFZFD)];
	if (child_mode && child_count >= 8 && !rand_below(&f->st, 3)) {
		for (int i = 0; i < nkeep; i++)
			keep[i] = keep[i] < 0 ? -1 : keep[i];
		issue(f, K_exec, SYS_exec, (long)"sysfuzz", 5, (long)argv, (long)keep, nkeep, 0, 0);
		return;          /* (only if it failed: -ENOMEM, say) */
	}
	long path = (long)"sysfuzz", argc = 5, av = (long)argv, kp = (long)keep;
	int bad_keep = 1;
	switch (rand_below(&f->st, 6)) {
	case 0:      /* a path that is not a program (a file, a link, a directory, none) */
		path = (long)fz_paths[rand_below(&f->st, NFZPATH - 1)];
		bad_keep = rand_below(&f->st, 2);
		break;
	case 1:      /* no such module, or the symbol table's */
		path = (long)(rand_below(&f->st, 2) ? "no-such-program" : "ksyms");
		bad_keep = rand_below(&f->st, 2);
		break;
	case 2:      /* too many keeps, or a keep array somewhere odd */
		nkeep = rand_below(&f->st, 2) ? MAXFILE_SPACE + 1 + (long)rand_below(&f->st, 8) : 1 + (long)rand_below(&f->st, 64);
		kp = rand_below(&f->st, 2) ? (long)bad_addr(f) : rand_arg(f);
		path = (long)"/fz/f";
		bad_keep = 0;
		break;
	case 3:      /* argv too long or unreadable */
		argc = rand_below(&f->st, 2) ? MAX_ARGS + 1 + (long)rand_below(&f->st, 100) : 5;
		av = argc == 5 ? (long)bad_addr(f) : av;
		break;
	}
	if (bad_keep) {
		int k = (int)rand_below(&f->st, nkeep + 1);
		keep[k] = rand_below(&f->st, 4) ? FZ_NOFD : (signed char)(-2 - (int)rand_below(&f->st, 126));
		nkeep = nkeep > k ? nkeep : k + 1;
	}
	issue(f, K_exec, SYS_exec, path, argc, av, kp, nkeep, 1, 0);
}

/* setpgid, getpgid, setsid on ourselves, our children and anyone. */
static long some_pid(struct fz *f)
{
	switch (rand_below(&f->st, 5)) {
	case 0:
		return 0;
	case 1:
		return f->kids[rand_below(&f->st, NKIDS)];
	case 2:
		return shared_kids[rand_below(&f->st, 16)];
	case 3:
		return rand_arg(f);
	default:
		return (long)rand_below(&f->st, 512);      /* (the kernel has 256 spaces) */
	}
}

static void do_pgrp(struct fz *f)
{
	long pid = some_pid(f), what = rand_below(&f->st, 8) ? (long)rand_below(&f->st, 2) : rand_arg(f);
	switch (rand_below(&f->st, 5)) {
	case 0:
		issue(f, K_pgrp, SYS_setsid, 0, 0, 0, 0, 0, 0, 0);
		break;
	case 1:
		issue(f, K_pgrp, SYS_getpgid, pid, what, 0, 0, 0, (uint64_t)what > 1, -EINVAL);
		break;
	default: {
		long g = rand_below(&f->st, 3) ? some_pid(f) : syscall2(SYS_getpgid, 0, 0);
		issue(f, K_pgrp, SYS_setpgid, pid, g, 0, 0, 0, pid < 0 || g < 0, -EINVAL);
	}
	}
}

/* fmap: a real descriptor mapped whole or past its end, private or shared,
   touched (only over the file's bytes: a page past its end kills); or bad
   descriptors, offsets, lengths, flags and addresses, which must fail. */
static void do_fmap(struct fz *f)
{
	int slot = free_map_slot(f);
	if (slot < 0) {
		forget_map(f, (int)rand_below(&f->st, NMAPS));
		return;
	}
	int k = (int)rand_below(&f->st, NFZFD);
	long fd = fz_fd[k], prot = (long)rand_below(&f->st, 8), fl = (long)rand_below(&f->st, 2);
	uint64_t len = rand_below(&f->st, 4) ? PAGE_SIZE * (1 + rand_below(&f->st, 8)) : 1 + rand_below(&f->st, 8 * PAGE_SIZE);
	uint64_t off = PAGE_SIZE * rand_below(&f->st, 8), a = 0;
	int must_fail = 0;
	switch (rand_below(&f->st, 8)) {
	case 0:      /* a descriptor that is no file of ours, or garbage */
		fd = some_fd(f);
		must_fail = fd < 0 || fd >= MAXFILE_SPACE;
		break;
	case 1:      /* an unaligned or negative offset, no length, unknown bits */
		switch (rand_below(&f->st, 5)) {
		case 0: off += 1 + rand_below(&f->st, PAGE_SIZE - 1); break;
		case 1: off = (uint64_t)-(long)PAGE_SIZE * (1 + rand_below(&f->st, 4)); break;
		case 2: len = 0; break;
		default:
			if (rand_below(&f->st, 2))
				fl |= 2L << rand_below(&f->st, 30);
			else
				prot |= 8L << rand_below(&f->st, 30);
		}
		must_fail = 1;
		break;
	case 2:      /* a kernel, non-canonical, low or unaligned address */
		a = bad_addr(f) + (rand_below(&f->st, 2) ? 0 : 1 + rand_below(&f->st, PAGE_SIZE - 1));
		must_fail = 1;
		break;
	case 3:      /* a fixed address outside everything of ours */
		if (!foreign_range(f, &a, &len))
			return;
		break;
	}
	if (must_fail) {
		filed(f, K_fmap, SYS_fmap, syscall6(SYS_fmap, (long)a, (long)len, prot, fl, fd, (long)off),
		      (long)a, (long)len, prot, fl, 1, 0);
		return;
	}
	if (!a && placement_done && !(flags & F_RESERVED)) {
		add(&n_skipped, 1);
		return;
	}
	long r = filed(f, K_fmap, SYS_fmap, syscall6(SYS_fmap, (long)a, (long)len, prot, fl, fd, (long)off),
		       (long)a, (long)len, prot, fl, 0, 0);
	if (sys_failed(r) || (!a && !placed_ok(r, len)))
		return;
	f->maps[slot].addr = (uint64_t)r;
	f->maps[slot].len = len;
	f->maps[slot].touch = 0;
	/* Touched pages are whole pages of the map (touch()): all in the file;
	   and only in the protected area (placed past it, siblings may unmap it).
	   The file must be /fz/f by the descriptor actually mapped, not by k:
	   case 0 swaps in some_fd's, often /fz/elf (2 pages and 16 bytes),
	   whose pages past its end once killed us. */
	int is_f = fd >= 0 && (fd == fz_fd[0] || fd == fz_fd[1]);
	if (!a && is_f && off + (len & ~(PAGE_SIZE - 1)) <= (uint64_t)fz_size &&
	    (uint64_t)r + PGROUNDUP_U(len) <= PROTECT_HI && (prot & (PROT_READ | PROT_WRITE)))
		f->maps[slot].touch = prot & PROT_WRITE ? 2 : 1;
	if (f->maps[slot].touch)
		touch(f, slot);
}

/* msync: ours (whole, a part, waiting for the disk or not), bad ranges and
   flags (must fail), anywhere that is not ours. */
static void do_msync(struct fz *f)
{
	int i = (int)rand_below(&f->st, NMAPS);
	long fl = rand_below(&f->st, 8) ? (long)rand_below(&f->st, 2) : rand_arg(f);
	int bad = (fl & ~1L) != 0;
	uint64_t a, len;
	switch (rand_below(&f->st, 5)) {
	case 0:
		if (f->maps[i].len) {
			a = f->maps[i].addr, len = f->maps[i].len;
			if (rand_below(&f->st, 2)) {
				uint64_t pg = (len + PAGE_SIZE - 1) / PAGE_SIZE, skip = rand_below(&f->st, pg);
				a += skip * PAGE_SIZE;
				len = (pg - skip) * PAGE_SIZE - rand_below(&f->st, PAGE_SIZE);
			}
			issue(f, K_fmap, SYS_msync, (long)a, (long)len, fl, 0, 0, bad, bad ? -EINVAL : 0);
			return;
		}
		/* fall through */
	case 1:
		bad_range(f, &a, &len);
		issue(f, K_fmap, SYS_msync, (long)a, (long)len, fl, 0, 0, a % PAGE_SIZE || a >= USER_TOP || bad, 0);
		return;
	default:
		if (foreign_range(f, &a, &len))
			issue(f, K_fmap, SYS_msync, (long)a, (long)len, fl, 0, 0, bad, bad ? -EINVAL : 0);
	}
}

/* Modes, times, owners and hard links (calls 115-118, 76, 77): setattr
   on /fz's paths (or a link itself) and fsetattr on its descriptors, with
   a sane mode, FA_KEEP or any bits (past 07777 it must fail), times any
   seconds with sane nanoseconds, KT_NOW/KT_OMIT or any (past 999999999
   and no marker: must fail) or a pointer that is no memory; chown of a
   path or a descriptor with sane or any owners (past 32 bits: must
   fail); link from a path or a descriptor to /fz/ln (taken away again)
   or to a bad pointer (must fail); umaskexec with any figure (past 0777:
   -EINVAL). */
static int ns_bad(int64_t ns)
{
	return (ns < 0 || ns > 999999999) && ns != KT_NOW && ns != KT_OMIT;
}

static void do_fmode(struct fz *f)
{
	static const int64_t sane[] = { 0, 999999999, KT_NOW, KT_OMIT, 500 };
	long mode = rand_below(&f->st, 3) ? (long)rand_below(&f->st, 010000) :
		    rand_below(&f->st, 2) ? (long)FA_KEEP : rand_arg(f);
	struct ktimes kt = { rand_arg(f), rand_arg(f), sane[rand_below(&f->st, 5)], sane[rand_below(&f->st, 5)] };
	if (!rand_below(&f->st, 4))
		kt.mtime_ns = rand_arg(f);
	long t = rand_below(&f->st, 3) ? (long)&kt : rand_below(&f->st, 2) ? 0 : (long)bad_addr(f);
	long fl = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 2) : rand_arg(f);
	int bad = (mode != (long)FA_KEEP && (mode & ~07777L)) || (t == (long)&kt && ns_bad(kt.mtime_ns));
	long u = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 3) : rand_arg(f), g = -1L & 0xffffffff;
	switch (rand_below(&f->st, 6)) {
	case 0:
		issue(f, K_link, SYS_file_setattr, some_path(f), mode, t, fl, 0, bad || (fl & ~1L), 0);
		break;
	case 1:
		issue(f, K_link, SYS_file_fsetattr, some_fd(f), mode, t, 0, 0, bad, 0);
		break;
	case 2: {
		int ok = rand_below(&f->st, 4);
		long to = ok ? (long)"/fz/ln" : (long)bad_addr(f);
		if (issue(f, K_link, SYS_file_link, some_path(f), to, rand_arg(f), 0, 0, !ok, 0) == 0)
			issue(f, K_link, SYS_file_unlink, (long)"/fz/ln", 0, 0, 0, 0, 0, 0);
		break;
	}
	case 3:
		issue(f, K_link, SYS_file_chown, rand_below(&f->st, 2) ? some_path(f) : 0, some_fd(f), u, g,
		      fl, (u >> 32 || (fl & ~1L)) ? 1 : 0, 0);
		break;
	case 4: {
		int ok = rand_below(&f->st, 4);
		long to = ok ? (long)"/fz/ln" : (long)bad_addr(f);
		if (issue(f, K_link, SYS_file_flink, some_fd(f), to, 0, 0, 0, !ok, 0) == 0)
			issue(f, K_link, SYS_file_unlink, (long)"/fz/ln", 0, 0, 0, 0, 0, 0);
		break;
	}
	default: {
		long m = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 01000) : rand_arg(f);
		issue(f, K_link, SYS_umaskexec, m, 0, 0, 0, 0, (m & ~0777L) != 0, -EINVAL);
	}
	}
}

/* lstat, readlink and statfs: paths as some_path, output to our scratch buffer,
   untouched lazy words, a read-only arena (must fail), garbage; readlink
   lengths small, zero or negative (must fail), huge. */
/* File locks (kernel/flock.c): SYS_lock with every command and random
   requests (types, whences, ranges, some past the end or negative) on
   /fz's descriptors and random ones, or at a bad address (-EFAULT), and
   SYS_lock_wait without LKW_BLOCK (our flock and OFD locks on /fz/f's
   three open files can be in each other's way: a wait could last for
   ever). POSIX record locks are all this space's, so they only merge,
   split and reach ENOLCK. */
static struct kflock lkreq[4];

static long some_lock(struct fz *f)
{
	struct kflock *k = &lkreq[rand_below(&f->st, 4)];
	if (!rand_below(&f->st, 6))
		return (long)bad_addr(f);
	k->type = (int16_t)(rand_below(&f->st, 8) ? (long)rand_below(&f->st, 3) : rand_arg(f));
	k->whence = (int16_t)(rand_below(&f->st, 8) ? (long)rand_below(&f->st, 3) : rand_arg(f));
	k->start = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 512) - 16 : rand_arg(f);
	k->len = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 64) - 8 : rand_arg(f);
	return (long)k;
}

static void do_lock(struct fz *f)
{
	long fd = some_fd(f), req = some_lock(f), bad = req != (long)&lkreq[0] && req != (long)&lkreq[1] &&
		  req != (long)&lkreq[2] && req != (long)&lkreq[3];
	if (rand_below(&f->st, 4)) {
		long cmd = rand_below(&f->st, 8) ? (long)rand_below(&f->st, LK_OFD_SETLK + 1) : rand_arg(f);
		issue(f, K_lock, SYS_lock, fd, cmd, req, 0, 0, bad && cmd != LK_CLOSE, 0);
		return;
	}
	long park = rand_below(&f->st, 2) ? (long)(pool + 4 * rand_below(&f->st, 64)) : 0;
	static const long waits[] = { LK_SETLK, LK_FLOCK, LK_OFD_SETLK };
	long cmd = rand_below(&f->st, 8) ? waits[rand_below(&f->st, 3)] : rand_arg(f);
	long flags = rand_arg(f) & ~(long)LKW_BLOCK;
	filed(f, K_lock, SYS_lock_wait, syscall6(SYS_lock_wait, fd, req, park, rand_arg(f), flags, cmd),
	      fd, req, park, flags, bad, 0);
}

static void do_link(struct fz *f)
{
	long path = some_path(f), out, n = (long)rand_below(&f->st, 200);
	int ro = 0;
	if (!rand_below(&f->st, 3)) {
		do_fmode(f);
		return;
	}
	switch (rand_below(&f->st, 6)) {
	case 0:      /* garbage, but never the pool: a kstat at its end spilled
		        into workers_done (the report came before the workers ended) */
		out = rand_arg(f);
		if ((uint64_t)out - (uint64_t)pool < sizeof pool)
			out = (long)scratch;
		break;
	case 1:
		out = (long)bad_addr(f);
		ro = 1;
		break;
	case 2:
		if (lz_made) {
			ro = rand_below(&f->st, 2);
			out = (long)lz_word(f, ro ? LZ_RO : LZ_RW, ro ? 64 : 1024);
			break;
		}
		/* fall through */
	default:
		out = (long)(scratch + rand_below(&f->st, 4096));
	}
	switch (rand_below(&f->st, 5)) {
	case 0:
		n = -(long)rand_below(&f->st, 3);
		break;
	case 1:
		n = rand_arg(f);
		break;
	}
	if (!rand_below(&f->st, 6))          /* the file system's figures, into out */
		issue(f, K_link, SYS_file_statfs, out, 0, 0, 0, 0, ro, 0);
	else if (rand_below(&f->st, 2))
		issue(f, K_link, SYS_file_lstat, path, out, 0, 0, 0, ro, 0);
	else
		issue(f, K_link, SYS_file_readlink, path, out, n, 0, 0, ro || n <= 0, 0);
}

/* ---- the rest ---------------------------------------------------------- */

/* Output must never glue onto a kernel line (@start, @exit of children):
   what we print from the pool is dots up to and with one of its
   newlines, and other user memory is only named with length 0. */
static void do_cputs(struct fz *f)
{
	long a = rand_arg(f), n = rand_arg(f);
	if (a >= (long)pool && a < (long)(pool + sizeof pool)) {
		n = 0;
		if (!rand_below(&f->st, 64))
			while (pool[a - (long)pool + n++] != '\n')
				;
	} else if ((uint64_t)a >= USER_BASE && (uint64_t)a < USER_TOP)
		n = 0;
	issue(f, K_cputs, SYS_cputs, a, n, 0, 0, 0, 0, 0);
}

static void fill_pool(void)
{
	for (unsigned i = 0; i < sizeof pool; i++)
		pool[i] = i % 16 == 15 ? '\n' : '.';
}

/* SYS_clockset with any numbers: out of range must be EINVAL; one in
   range sets the clock to the second it reads now (the rest of the boot
   keeps a sane wall time), with the random ns. */
static void do_clockset(struct fz *f)
{
	long sec = rand_arg(f), ns = rand_below(&f->st, 2) ? (long)rand_below(&f->st, 1000000000) : rand_arg(f);
	int bad = (uint64_t)sec > RT_SEC_MAX || (uint64_t)ns >= 1000000000UL;
	if (!bad)
		sec = sys_getinfo(INFO_BOOT_EPOCH) + (long)((sys_time() + sys_getinfo(INFO_RT_OFF)) / 1000000000);
	issue(f, K_plain, SYS_clockset, sec, ns, rand_arg(f), 0, 0, bad, -EINVAL);
}

/* Credentials (kernel/cred.c, perm.c): reads into our scratch buffer or
   at addresses that are no user memory (-EFAULT); setgroups past the
   bound (-EINVAL) or of ids from scratch; setids with bad selectors
   (-EINVAL) or ids 0 and "keep" only, so the fuzzer stays root (its other
   calls assume it may do anything); access of some path. */
static void do_cred(struct fz *f)
{
	int bad = rand_below(&f->st, 3) == 0;
	long out = bad ? (long)bad_addr(f) : (long)(scratch + rand_below(&f->st, 4096));
	long n = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 40) : rand_arg(f);
	switch (rand_below(&f->st, 5)) {
	case 0:
		issue(f, K_plain, SYS_getids, out, 0, 0, 0, 0, bad, -EFAULT);
		break;
	case 1:                  /* (none to copy unless it set some: n any) */
		issue(f, K_plain, SYS_getgroups, n, out, 0, 0, 0, 0, 0);
		break;
	case 2:
		issue(f, K_plain, SYS_setgroups, n, out, 0, 0, 0, (uint64_t)n > CRED_NGROUPS || (bad && n),
		      (uint64_t)n > CRED_NGROUPS ? -EINVAL : -EFAULT);
		break;
	case 3: {
		long which = rand_below(&f->st, 4), how = rand_below(&f->st, 4);
		long id[3];
		for (int i = 0; i < 3; i++)
			id[i] = rand_below(&f->st, 2) ? 0 : rand_below(&f->st, 8) ? (long)ID_KEEP : rand_arg(f) | (1L << 40);
		int wrong = which > ID_GID || how > ID_RES || (id[0] >> 32) || (id[1] >> 32) || (id[2] >> 32);
		issue(f, K_plain, SYS_setids, which, how, wrong ? id[0] : 0, wrong ? id[1] : ID_KEEP,
		      wrong ? id[2] : ID_KEEP, wrong, -EINVAL);
		break;
	}
	default:
		issue(f, K_plain, SYS_file_access, some_path(f), rand_arg(f) & 7, rand_arg(f) & 1, 0, 0, 0, 0);
	}
}

/* The console's settings (SYS_tty, kernel/tty.c): an op that is neither
   get nor set (-EINVAL, whatever the pointer), a get into our scratch,
   at addresses that are no user memory or into our read-only text
   (-EFAULT), a set from such addresses (-EFAULT) or of random input and
   line settings with the output ones as they are, so our output stays
   as it was (main puts back what it found: tty_saved). */
static struct ktermios tty_saved;

static void do_tty(struct fz *f)
{
	struct ktermios *t = (struct ktermios *)(scratch + 4096 + 64 * rand_below(&f->st, 32));
	long op = rand_below(&f->st, 4) ? (long)rand_below(&f->st, 2) : rand_arg(f);
	int m = (int)rand_below(&f->st, 4);          /* 0 bad, 1 text, else scratch */
	if (m == 1 && op == TTY_SET)
		m = 0;                   /* (from text it would set random output flags) */
	long where = m == 0 ? (long)bad_addr(f) : m == 1 ? (long)(void *)do_tty + (long)rand_below(&f->st, 64)
							 : (long)t;
	int bad_op = op != TTY_GET && op != TTY_SET;
	if (op == TTY_SET && m > 1) {
		if (syscall2(SYS_tty, TTY_GET, (long)t))
			return;
		uint32_t o = t->oflag;
		for (unsigned i = 0; i < sizeof *t; i++)
			((uint8_t *)t)[i] = (uint8_t)rand_below(&f->st, 256);
		t->oflag = o;
	}
	issue(f, K_plain, SYS_tty, op, where, rand_arg(f), rand_arg(f), rand_arg(f),
	      bad_op || m < 2, bad_op ? -EINVAL : -EFAULT);
}

/* INFO_FILES with words at and past both ends of the table: -1 (the
   count of words), the last one, the first past it, negative and huge
   ones (that would index far outside it were they not refused). */
static void do_info_files(struct fz *f)
{
	static const long w[] = { -1, 0, MAXFILE_SPACE / 64 - 1, MAXFILE_SPACE / 64, -2,
				  -(long)(MAXFILE_SPACE / 64), 1L << 32, 1L << 58, LONG_MAX, LONG_MIN };
	long i = (long)rand_below(&f->st, sizeof w / sizeof w[0] + 1);
	long b = i < (long)(sizeof w / sizeof w[0]) ? w[i] : rand_arg(f);
	int bad = b != -1 && (b < 0 || b >= MAXFILE_SPACE / 64);
	add(&n_forged, 1);
	issue(f, K_plain, SYS_getinfo, INFO_FILES, b, 0, 0, 0, bad, -EINVAL);
}

static void do_plain(struct fz *f)
{
	if (!rand_below(&f->st, 8)) {
		do_clockset(f);
		return;
	}
	if (!rand_below(&f->st, 8)) {
		do_tty(f);
		return;
	}
	if (!rand_below(&f->st, 8)) {
		do_cred(f);
		return;
	}
	static const long nums[] = { SYS_null, SYS_time, SYS_yield, SYS_getinfo, SYS_vp_poll };
	long n = nums[rand_below(&f->st, 5)];
	long a = n == SYS_getinfo && rand_below(&f->st, 2) ? (long)rand_below(&f->st, 8) : rand_arg(f);
	long b = rand_arg(f);
	if (n == SYS_getinfo && !rand_below(&f->st, 8))
		a = INFO_FSHARED, b = futex_addr(f);   /* one of our maps (file ones too), a word, anything */
	if (n == SYS_getinfo && !rand_below(&f->st, 8)) {
		do_info_files(f);
		return;
	}
	issue(f, K_plain, n, a, b, rand_arg(f), rand_arg(f), rand_arg(f), 0, 0);
}

static void do_kind(struct fz *f, int kind);

/* Signals between processes (kernel/psig.c); SYS_sigdie only with the
   numbers it refuses (stop signals, those ignored by default, out of
   range), or with SIGDIE_FAULT and forged VP indexes and event seqs
   (this space never faults: the kernel has no fault on record, so each
   must be -EINVAL, and none may end us); SYS_sigexec with any bits and records, from our buffer or
   addresses that are no user memory (they matter to an exec only).
   SIGCHLD is only caught or defaulted, never ignored: ignoring it would
   reap our children at their end, and our waits for them would fail. A take writes only to our own
   buffer (a caught SIGCHLD may be pending) or at addresses that are no
   user memory. */
static void do_psig(struct fz *f)
{
	static struct ksiginfo buf[PSIG_TAKE_MAX];
	long sig = (long)rand_below(&f->st, 72) - 4, how = (long)rand_below(&f->st, 32);
	switch (rand_below(&f->st, 7)) {
	case 5:                          /* what an exec keeps of ITIMER_REAL and the CPU-time
					    itimers: any figures, then none (not in a child,
					    whose other VPs exec) */
		if (!child_mode) {
			issue(f, K_psig, SYS_alarmexec, rand_arg(f), rand_arg(f), rand_arg(f), 0, 0, 0, 0);
			issue(f, K_psig, SYS_itimerexec, rand_arg(f), rand_arg(f), rand_arg(f),
			      rand_arg(f), 0, 0, 0);
		}
		issue(f, K_psig, SYS_alarmexec, 0, 0, 0, 0, 0, 0, 0);
		issue(f, K_psig, SYS_itimerexec, 0, 0, 0, 0, 0, 0, 0);
		issue(f, K_psig, SYS_subreaper, rand_below(&f->st, 4), 0, 0, 0, 0, 0, 0);
		issue(f, K_psig, SYS_subreaper, 0, 0, 0, 0, 0, 0, 0);
		break;
	case 0: {
		if (sig == 17)
			how = rand_below(&f->st, 2) ? SIGD_CATCH : SIGD_DFL;
		const long chld = SIGD_NOCLDWAIT | SIGD_NOCLDSTOP | SIGD_CLDIGN;
		int bad = sig <= 0 || sig >= PSIG_MAX || sig == 9 || sig == 19 || (how & 3) == 3 ||
			  ((how & chld) && sig != 17);
		issue(f, K_psig, SYS_sigdisp, sig, how, 0, 0, 0, bad, -EINVAL);
		break;
	}
	case 1: {
		static const uint64_t at[] = { 0xffff800000000000UL, 0x0000800000000000UL, 0 };
		long n = (long)rand_below(&f->st, 12);
		long a = rand_below(&f->st, 2) ? (long)buf : (long)(at[rand_below(&f->st, 3)] + (rand64(&f->st) & 0xfff0));
		issue(f, K_psig, SYS_sigtake, a, n, 0, 0, 0, n == 0, -EINVAL);
		break;
	}
	case 4: {                        /* what an exec keeps: any bits and records (an exec's only) */
		static const uint64_t at[] = { 0xffff800000000000UL, 0x0000800000000000UL, 0 };
		long n = (long)rand_below(&f->st, 40);
		long q = rand_below(&f->st, 2) ? (long)buf : (long)(at[rand_below(&f->st, 3)] + (rand64(&f->st) & 0xfff0));
		long pend = rand_arg(f), mask = rand_arg(f);   /* (the order the call once drew them in) */
		/* ulib's SIG_IGN set: any bits but SIGCHLD's, whose SIG_IGN
		   would reap our children (see above). */
		long ign = rand_arg(f) & ~(1L << 17);
		struct ksiginfo mine[PSIG_RTQ_MAX];
		if (child_mode) {
			/* A child's exec may be real (do_exec): what it keeps
			   must not end or stop the new image. POSIX keeps the
			   pending signals, so one the new image neither holds
			   nor ignores gets its default action at once (psig_exec):
			   a pending bit 3 of a random word was a SIGQUIT that
			   killed the exec'd child, and its parent exited 1. So
			   the kept mask holds every kept signal: the bits, the
			   records (our own copy: short VPs take into buf; past
			   its PSIG_TAKE_MAX records, zeros: -EINVAL), and what
			   our own exec kept pending for us, which the mask it
			   kept holds (INFO_SIGEXEC 1, as ulib's __sig_exec_init
			   reads it; child() tells it first). */
			long held = syscall2(SYS_getinfo, INFO_SIGEXEC, 1);
			mask |= pend | (sys_failed(held) ? 0 : held);
			if (q == (long)buf && n <= PSIG_RTQ_MAX) {
				memset(mine, 0, sizeof mine);
				memcpy(mine, buf, sizeof buf);
				q = (long)mine;
				for (long i = 0; i < n; i++)
					if (mine[i].signo > 0 && mine[i].signo < PSIG_MAX)
						mask |= 1L << mine[i].signo;
			}
		}
		issue(f, K_psig, SYS_sigexec, mask, pend, q, n, ign, n > PSIG_RTQ_MAX, -EINVAL);
		break;
	}
	case 6: {                        /* a fault's end, forged: no fault ever happened here */
		static const long sigs[] = { 11, 8, 7, 4, 5, 9, 15 };
		static const long vps[] = { 0, 1, 2, MAXVP - 1, MAXVP, -1, 1L << 32 };
		static const long seqs[] = { 0, 1, 2, 0xffffffffL, 1L << 32, -1 };
		long s = sigs[rand_below(&f->st, sizeof sigs / sizeof sigs[0])];
		long v = rand_below(&f->st, 4) ? vps[rand_below(&f->st, sizeof vps / sizeof vps[0])] : rand_arg(f);
		long q = rand_below(&f->st, 2) ? seqs[rand_below(&f->st, sizeof seqs / sizeof seqs[0])] :
			 rand_below(&f->st, 2) ? (long)rand_below(&f->st, 1 << 16) : rand_arg(f);
		add(&n_forged, 1);
		issue(f, K_psig, SYS_sigdie, s, SIGDIE_FAULT, v, q, 0, 1, -EINVAL);
		break;
	}
	case 3: {                        /* only numbers it must refuse: a valid one ends us */
		static const long no[] = { 0, 64, 65, -1, 17, 18, 23, 28 };   /* (19-22 stop us) */
		long n = no[rand_below(&f->st, sizeof no / sizeof no[0])];
		if (n == 65)
			n = (long)rand64(&f->st) | (1L << 40);
		issue(f, K_psig, SYS_sigdie, n, rand_arg(f), 0, 0, 0, 1, -EINVAL);
		break;
	}
	default: {
		long me = sys_getinfo(INFO_SPACE), nr = rand_below(&f->st, 2) ? SYS_sigqueue : SYS_sigmesgq;
		int ok = sig > 0 && sig < PSIG_MAX;
		if (rand_below(&f->st, 2))
			issue(f, K_psig, nr, me, sig, rand_arg(f), 0, 0, 1, ok ? -EPERM : -EINVAL);
		else
			issue(f, K_psig, nr, 0x7fff0000 + (long)rand_below(&f->st, 0x10000), sig,
			      0, 0, 0, 1, ok ? -ESRCH : -EINVAL);
	}
	}
}

/* A random number: outside the table it must fail with ENOSYS; a known
   one goes to its own kind; a hole is skipped. */
static void do_raw(struct fz *f)
{
	long n;
	switch (rand_below(&f->st, 64)) {
	case 0:
		n = (long)rand64(&f->st);
		break;
	case 1:
		n = (long)(1UL << rand_below(&f->st, 64));
		break;
	default:
		n = (long)rand_below(&f->st, NSYSCALL + 16) - 8;
	}
	if (n < 0 || n >= NSYSCALL) {
		issue(f, K_raw, n, rand_arg(f), rand_arg(f), rand_arg(f), rand_arg(f), rand_arg(f), 1, -ENOSYS);
		return;
	}
	static const struct { long n; int kind; } known[] = {
		{ SYS_null, K_plain }, { SYS_time, K_plain }, { SYS_yield, K_plain },
		{ SYS_getinfo, K_plain }, { SYS_vp_poll, K_plain }, { SYS_cputs, K_cputs },
		{ SYS_spawn, K_spawn }, { SYS_wait, K_wait }, { SYS_map, K_map }, { SYS_unmap, K_unmap },
		{ SYS_protect, K_protect }, { SYS_discard, K_discard }, { SYS_mapped, K_mapped },
		{ SYS_vp_create, K_vp_create }, { SYS_vp_start, K_vp_start },
		{ SYS_vp_idle, K_vp_idle }, { SYS_vp_signal, K_vp_signal }, { SYS_vp_cap, K_vp_cap },
		{ SYS_timer, K_timer }, { SYS_cap_grant, K_cap_grant }, { SYS_cap_drop, K_cap_drop },
		{ SYS_sleep, K_sleep }, { SYS_io, K_io }, { SYS_futex_wait, K_futex_wait },
		{ SYS_futex_wake, K_futex_wake }, { SYS_futex_wait_cut, K_futex_wait },
		{ SYS_futex_wait_rt, K_futex_wait },
		{ SYS_wait_cut, K_futex_wake }, { SYS_seg_create, K_seg }, { SYS_seg_map, K_seg },
		{ SYS_seg_unmap, K_seg }, { SYS_seg_revoke, K_seg }, { SYS_seg_robust, K_seg },
		{ SYS_seg_info, K_seg }, { SYS_seg_wake, K_seg }, { SYS_seg_protect, K_seg },
		{ SYS_seg_open, K_seg }, { SYS_seg_unlink, K_seg },
		{ SYS_view_enter, K_view }, { SYS_view_commit, K_view },
		{ SYS_view_discard, K_view }, { SYS_view_leave, K_view },
		{ SYS_exec, K_exec }, { SYS_setpgid, K_pgrp }, { SYS_getpgid, K_pgrp },
		{ SYS_setsid, K_pgrp }, { SYS_fmap, K_fmap }, { SYS_msync, K_fmap },
		{ SYS_file_lstat, K_link }, { SYS_file_readlink, K_link },
		{ SYS_file_statfs, K_link },
		{ SYS_file_setattr, K_link }, { SYS_file_fsetattr, K_link }, { SYS_file_link, K_link },
		{ SYS_umaskexec, K_link }, { SYS_file_chown, K_link }, { SYS_file_flink, K_link },
		{ SYS_sigdisp, K_psig },
		{ SYS_sigtake, K_psig }, { SYS_sigqueue, K_psig }, { SYS_sigmesgq, K_psig },
		{ SYS_sigdie, K_psig },
		{ SYS_sigexec, K_psig }, { SYS_clockset, K_plain },
		{ SYS_pipe, K_pipe },
		{ SYS_pipe_wait, K_pipe }, { SYS_file_special, K_pipe }, { SYS_file_setfl, K_pipe },
		{ SYS_file_write_where, K_pipe },
		{ SYS_tty, K_plain }, { SYS_alarmexec, K_psig }, { SYS_itimerexec, K_psig }, { SYS_subreaper, K_psig }, { SYS_lock, K_lock }, { SYS_lock_wait, K_lock },
	};
	for (unsigned i = 0; i < sizeof known / sizeof known[0]; i++)
		if (known[i].n == n) {
			do_kind(f, known[i].kind);
			return;
		}
	add(&n_skipped, 1);     /* exit, vp_exit, a hole, or newer than this file */
}

static void do_kind(struct fz *f, int kind)
{
	switch (kind) {
	case K_raw:        do_raw(f); break;
	case K_plain:      do_plain(f); break;
	case K_cputs:      do_cputs(f); break;
	case K_map:        do_map(f); break;
	case K_unmap:      do_unmap(f); break;
	case K_protect:    do_protect(f); break;
	case K_discard:    do_discard(f); break;
	case K_mapped:     do_mapped(f); break;
	case K_reserved:   do_reserved(f); break;
	case K_vp_create:  do_vp_create(f); break;
	case K_vp_start:   do_vp_start(f); break;
	case K_vp_signal:  do_vp_signal(f); break;
	case K_vp_cap:     do_vp_cap(f); break;
	case K_cap_grant:  do_cap_grant(f); break;
	case K_cap_drop:   do_cap_drop(f); break;
	case K_timer:      do_timer(f); break;
	case K_vp_idle:    do_vp_idle(f); break;
	case K_spawn:      do_spawn(f); break;
	case K_wait:       do_wait(f); break;
	case K_futex_wait: do_futex_wait(f); break;
	case K_futex_wake: do_futex_wake(f); break;
	case K_sleep:      do_io(f, K_sleep); break;
	case K_io:         do_io(f, K_io); break;
	case K_seg:        do_seg(f); break;
	case K_lazysys:    do_lazysys(f); break;
	case K_view:       do_view(f); break;
	case K_exec:       do_exec(f); break;
	case K_pgrp:       do_pgrp(f); break;
	case K_fmap:       rand_below(&f->st, 3) ? do_fmap(f) : do_msync(f); break;
	case K_link:       do_link(f); break;
	case K_lock:       do_lock(f); break;
	case K_psig:       do_psig(f); break;
	case K_pipe:       do_pipe(f); break;
	}
}

static int pick_kind(struct fz *f)
{
	static int total;
	if (!total)
		for (int k = 0; k < NKIND; k++)
			total += kind_weight[k];
	int x = (int)rand_below(&f->st, (uint64_t)total);
	for (int k = 0; k < NKIND; k++)
		if ((x -= kind_weight[k]) < 0)
			return k;
	return K_plain;
}

/* Fuzz until this VP has issued `count` calls (a kind that needs two
   calls may take it one past). */
static void fuzz_loop(struct fz *f, long count)
{
	while (f->calls < count)
		do_kind(f, flags & F_FMAP ? K_fmap : pick_kind(f));
}

/* ---- workers ------------------------------------------------------------- */

static void run_worker(int w, long count)
{
	struct fz *f = &worker_fz[w];
	fuzz_loop(f, count);
	worker_calls[w] = f->calls;
	for (int i = 0; i < NMAPS; i++)
		if (f->maps[i].len)
			forget_map(f, i);
	for (int k = 0; k < NKIDS; k++)
		if (f->kids[k])
			reap(f, k);
	add(&n_extra, f->calls - worker_calls[w]);   /* the cleanup */
}

static long per_worker;

static void worker_vp(long w) __attribute__((noreturn));
static void worker_vp(long w)
{
	run_worker((int)w, per_worker);
	__atomic_fetch_add(&workers_done, 1, __ATOMIC_RELEASE);
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static int parse_flags(const char *s)
{
	if (!strcmp(s, "auto")) {
		int fl = 0;
		/* VP slot 255's page: unused now. A kernel that reserves the
		   range refuses; one that does not unmaps nothing and says 0. */
		if (sys_unmap((void *)(VPPAGE_BASE + (MAXVP - 1) * PAGE_SIZE), PAGE_SIZE) == -EPERM)
			fl |= F_RESERVED;
		if (syscall1(SYS_cap_drop, 0) != -ENOSYS)
			fl |= F_WAIT;
		return fl;
	}
	int fl = 0;
	for (; *s; s++)
		fl |= *s == 'r' ? F_RESERVED : *s == 'w' ? F_WAIT : *s == 'm' ? F_FMAP : 0;
	return fl;
}

static void seed_worker(int w)
{
	uint64_t s = seed ^ (0x9e3779b97f4a7c15UL * (uint64_t)(w + 1));
	worker_fz[w].st = rand64(&s);
	if (w == 0)
		worker_fz[0].st = seed;        /* one VP: the same stream as ever */
	worker_fz[w].worker = 1;
}

/* `sysfuzz child SEED COUNT FLAGS`: a short run in a spawned space. */
static int child(int argc, char **argv)
{
	child_mode = 1;
	seed = argc > 2 ? strtoull(argv[2], 0, 0) : 1;
	long count = argc > 3 ? atol(argv[3]) : 50;
	flags = parse_flags(argc > 4 ? argv[4] : "none");
	snprintf(flagstr, sizeof flagstr, "%s", argc > 4 ? argv[4] : "none");
	child_count = count;
	fill_pool();
	files_open();
	/* An exec that made us may have kept signals pending, held by the
	   mask it kept (INFO_SIGEXEC 1). Our own exec is a raw one: tell the
	   kernel that mask first, as ulib's exec does, else the next image
	   would hold none and the pending ones would end it (seed 3422: a
	   child exec'd twice died of a SIGSTKFLT its first exec kept). */
	long held = syscall2(SYS_getinfo, INFO_SIGEXEC, 1);
	if (!sys_failed(held) && held)
		syscall4(SYS_sigexec, held, 0, 0, 0);
	seed_worker(0);
	run_worker(0, count);
	return n_unexpected > 100 ? 100 : (int)n_unexpected;
}

static void report(long calls, int nvp)
{
	struct result res;
	result_begin(&res, "sysfuzz");
	result_int(&res, "calls", calls);
	result_uint(&res, "seed", seed);
	result_int(&res, "nvp", nvp);
	result_str(&res, "flags", flagstr);
	result_int(&res, "ok", n_ok);
	result_int(&res, "enosys", n_enosys);
	result_int(&res, "efault", n_efault);
	result_int(&res, "einval", n_einval);
	result_int(&res, "eperm", n_eperm);
	result_int(&res, "other", n_other);
	result_int(&res, "skipped", n_skipped);
	result_int(&res, "unexpected", n_unexpected);
	result_int(&res, "extra", n_extra);
	result_int(&res, "kids", n_kids);
	result_int(&res, "kids_bad", n_kids_bad);
	result_int(&res, "forged", n_forged);
	result_object(&res, "kinds");
	for (int k = 0; k < NKIND; k++)
		result_int(&res, kind_name[k], kind_count[k]);
	result_close(&res);
	result_object(&res, "kinds_ok");
	for (int k = 0; k < NKIND; k++)
		result_int(&res, kind_name[k], kind_ok[k]);
	result_close(&res);
	result_str(&res, "why", why);
	result_end(&res);
}

/* Under fuzzaudit (progs/tests/fuzzaudit.c), our cause goes into its
   named segment too: our seed + 1 and `why` in a free FZWHY_SLOT-byte
   slot, for its @result. Alone (no such name) nothing happens. */
static void tell_audit(void)
{
	long h = syscall3(SYS_seg_open, (long)FZWHY_NAME, 0, 0);
	if (sys_failed(h))
		return;
	long a = syscall3(SYS_seg_map, h, 0, PROT_READ | PROT_WRITE);
	for (int i = 0; !sys_failed(a) && i < FZWHY_SLOTS; i++) {
		uint64_t *tag = (uint64_t *)(a + (long)i * FZWHY_SLOT), none = 0;
		if (__atomic_compare_exchange_n(tag, &none, seed + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			snprintf((char *)(tag + 1), FZWHY_SLOT - 8, "%s", why);
			break;
		}
	}
	if (!sys_failed(a))
		syscall1(SYS_seg_unmap, a);
	sys_cap_drop(h);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child(argc, argv);
	long count = argc > 1 ? atol(argv[1]) : 100000;
	seed = argc > 2 ? strtoull(argv[2], 0, 0) : sys_time();
	int nvp = argc > 3 ? atoi(argv[3]) : 1;
	if (nvp < 1 || nvp > MAXWORKERS)
		nvp = nvp < 1 ? 1 : MAXWORKERS;
	flags = parse_flags(argc > 4 ? argv[4] : "auto");
	snprintf(flagstr, sizeof flagstr, "%s%s%s", flags & F_RESERVED ? "r" : "",
		 flags & F_WAIT ? "w" : "", flags & F_FMAP ? "m" : "");
	if (!flags)
		strcpy(flagstr, "none");
	myspace = (int)sys_getinfo(INFO_SPACE);

	printf("sysfuzz: seed %llu nvp %d flags %s\n", (unsigned long long)seed, nvp, flagstr);
	fill_pool();
	files_open();
	syscall2(SYS_tty, TTY_GET, (long)&tty_saved);

	per_worker = count / nvp;
	for (int w = 0; w < nvp; w++)
		seed_worker(w);
	for (int w = 1; w < nvp; w++)
		if (sys_failed(syscall3(SYS_vp_create, (long)worker_vp,
					(long)worker_stack[w] + STACK - 8, w))) {
			tell("cannot start worker VP %d", w);
			tell_audit();
			return 1;
		}
	run_worker(0, count - per_worker * (nvp - 1));
	while (__atomic_load_n(&workers_done, __ATOMIC_ACQUIRE) < nvp - 1)
		sys_yield();
	long calls = 0;
	for (int w = 0; w < nvp; w++)
		calls += worker_calls[w];
	for (int i = 0; i < 4; i++)      /* names outlive us: give their memory back */
		syscall1(SYS_seg_unlink, (long)seg_names[i]);
	syscall2(SYS_tty, TTY_SET, (long)&tty_saved);
	report(calls, nvp);
	if (n_unexpected || n_kids_bad)
		tell_audit();
	return n_unexpected || n_kids_bad;
}
