/*
 * User-level waiting on shared words (<animart/xwait.h>).
 *
 * Each space keeps a table of its own parked cross-space waiters. A
 * token is index | generation of a table slot; the slot's word holds
 * generation << 2 | state. A token comes back to us from anyone sharing
 * the segment (another space's waker, the record array it read, the
 * kernel), so it is only ever used as an index, bounds-masked, and acted
 * on only if its generation matches a slot that waits: a forged or stale
 * token wakes at worst one waiter spuriously, and waiters re-check their
 * condition. Never a pointer from another space.
 *
 * Waiter: take a slot (FREE -> BUSY, generation + 1; set the thread;
 * BUSY -> WAIT), publish a record in the object, re-check the word, park
 * (thread_block). Waker: take a record off the object (exchange), then
 * deliver its token: WAIT -> WOKEN, then thread_unblock. The waiter
 * withdraws its record if still there and frees the slot: WOKEN -> FREE,
 * or WAIT -> FREE if it woke for another reason, in which case a failed
 * swap means a delivery is on its way and its unblock must be consumed
 * (one more thread_block) before the slot may be reused.
 *
 * No lost wake-up: the waiter publishes before it re-checks, the waker
 * changes the word before it looks at the records (both sequentially
 * consistent): either the waker sees the record, or the waiter sees the
 * new word. An unblock before the park leaves a permit (thread_block
 * returns at once). The kernel never drops an EV_WAKE: a full queue
 * coalesces them into EV_WAKE(0), which wakes every waiter of the space;
 * EV_WAKE(0) also comes when the space loses a segment (unmap, revoke),
 * so each waiter it wakes asks the kernel whether its word is still
 * mapped before it returns (-EIDRM, as the futex path says).
 */
#include <animart/xwait.h>
#include <animart/xsync.h>
#include <animart/sys.h>
#include <animart/vprt.h>
#include <animart/intr.h>

#define XW_MAX   1024                  /* parked waiters per space */
#define GENBITS  22
#define GENMASK  ((1u << GENBITS) - 1)
#define ST_FREE  0
#define ST_WAIT  1
#define ST_WOKEN 2
#define ST_BUSY  3

struct xwslot {
	volatile uint32_t w;             /* gen << 2 | state */
	volatile uint32_t probe;         /* woken by EV_WAKE(0): check the mapping */
	struct thread *t;
};

static struct xwslot tab[XW_MAX];
static volatile uint32_t hint;
struct xw_stats xw_stats;

/* The kernel path: classic VPs, or no room at user level. */
static long fallback(volatile uint32_t *w, uint32_t expect, struct xwq *q)
{
	xw_stats.fallback++;
	__atomic_add_fetch(&q->nfutex, 1, __ATOMIC_SEQ_CST);
	long r = xfutex_wait(w, expect);
	if (r == -EIDRM || r == -EFAULT)
		return -EIDRM;           /* gone: do not touch q */
	__atomic_sub_fetch(&q->nfutex, 1, __ATOMIC_RELAXED);
	return 0;
}

/* Can the caller park at user level? Its thread must be a runtime
   package's on a VP with upcalls, whose drain handles EV_WAKE. */
static int parkable(void)
{
	struct vp_page *vpp = vp_self();
	struct thread *t = (struct thread *)vpp->current_thread;
	return vpp->upcall_entry && vpp->user_data[0] == (uint64_t)rt_upcall && t &&
	       t->ops->block == rt_block;
}

/* A slot for self, BUSY -> WAIT with self in it: its index, or -1. */
static int slot_take(struct thread *self, uint32_t *gen)
{
	uint32_t start = hint;
	for (uint32_t k = 0; k < XW_MAX; k++) {
		uint32_t i = (start + k) % XW_MAX, w = tab[i].w;
		if ((w & 3) != ST_FREE)
			continue;
		uint32_t g = ((w >> 2) + 1) & GENMASK;
		if (!g)
			g = 1;           /* a token is never 0 */
		if (!__atomic_compare_exchange_n(&tab[i].w, &w, g << 2 | ST_BUSY, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		tab[i].t = self;
		tab[i].probe = 0;
		__atomic_store_n(&tab[i].w, g << 2 | ST_WAIT, __ATOMIC_RELEASE);
		hint = i + 1;
		*gen = g;
		return (int)i;
	}
	return -1;
}

/* Leave slot i (generation g): 0 if no wake-up was delivered to it,
   1 if one was, 2 if it was EV_WAKE(0) (check the mapping). */
static int slot_leave(int i, uint32_t g)
{
	uint32_t w = g << 2 | ST_WAIT;
	if (__atomic_compare_exchange_n(&tab[i].w, &w, g << 2 | ST_FREE, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE))
		return 0;
	/* WOKEN: only we change it now (the deliverer read the thread
	   before its swap) */
	int probe = __atomic_load_n(&tab[i].probe, __ATOMIC_ACQUIRE);
	__atomic_store_n(&tab[i].w, g << 2 | ST_FREE, __ATOMIC_RELEASE);
	return probe ? 2 : 1;
}

/* Deliver token tok of our own table (from our waker, or an EV_WAKE). */
static void deliver(uint64_t tok)
{
	uint32_t i = (uint32_t)(tok >> GENBITS) % XW_MAX, g = (uint32_t)tok & GENMASK;
	uint32_t w = __atomic_load_n(&tab[i].w, __ATOMIC_ACQUIRE);
	struct thread *t = tab[i].t;
	if (w != (g << 2 | ST_WAIT) ||
	    !__atomic_compare_exchange_n(&tab[i].w, &w, g << 2 | ST_WOKEN, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED)) {
		xw_stats.forged++;       /* stale (the waiter left) or forged */
		return;
	}
	thread_unblock(t);
}

void xw_event(uint64_t token)
{
	xw_stats.remote++;
	if (token) {
		deliver(token & 0xffffffffu);
		return;
	}
	/* EV_WAKE(0): every waiter re-checks, and first asks about its word. */
	xw_stats.all++;
	for (uint32_t i = 0; i < XW_MAX; i++) {
		uint32_t w = __atomic_load_n(&tab[i].w, __ATOMIC_ACQUIRE);
		if ((w & 3) != ST_WAIT)
			continue;
		tab[i].probe = 1;
		struct thread *t = tab[i].t;
		if (__atomic_compare_exchange_n(&tab[i].w, &w, (w & ~3u) | ST_WOKEN, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			thread_unblock(t);
	}
}

/* Take our record off q if it is still there (a waker may have taken it). */
static void withdraw(struct xwq *q, int j, uint64_t rec)
{
	uint64_t r = rec;
	__atomic_compare_exchange_n(&q->rec[j], &r, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

long xwait(volatile uint32_t *w, uint32_t expect, struct xwq *q)
{
	int sid = xspace_id();
	if (sid >= (1 << 24) || !parkable())
		return fallback(w, expect, q);
	struct thread *self = thread_self();
	uint32_t g;
	int i = slot_take(self, &g);
	if (i < 0)
		return fallback(w, expect, q);
	uint64_t rec = (uint64_t)sid << 40 | (uint64_t)(vp_index() & 0xff) << 32 |
		       (uint64_t)i << GENBITS | g;
	int j = 0;
	for (; j < XWQ_RECS; j++) {
		uint64_t zero = 0;
		if (__atomic_compare_exchange_n(&q->rec[j], &zero, rec, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			break;
	}
	if (j == XWQ_RECS) {             /* no room: the kernel's way */
		slot_leave(i, g);        /* (nobody could wake a record never published) */
		return fallback(w, expect, q);
	}
	/* Published (a sequentially consistent swap), now re-check. */
	int parked = __atomic_load_n(w, __ATOMIC_SEQ_CST) == expect;
	if (parked) {
		xw_stats.parked++;
		thread_block();
	}
	int got = slot_leave(i, g);
	/* Not parked but delivered to: its unblock is on its way, take it
	   now rather than leave a permit behind (thread_block returns as soon
	   as it came). Parked, our block took it, or it ended on a stale
	   permit and this unblock becomes one: the interface allows stale
	   permits, every waiter loops on its condition. */
	if (got && !parked)
		thread_block();
	/* EV_WAKE(0): is the object still there? Ask before touching it (a
	   futex wake of no one: -EFAULT once the segment is unmapped). */
	if (got == 2 && syscall2(SYS_futex_wake, w, 0) < 0)
		return -EIDRM;           /* the segment left this space */
	withdraw(q, j, rec);
	return 0;
}

/* Deliver record r, of another space, through the kernel (which checks
   that space shares this segment). -EAGAIN: it is alive but no VP of it
   has upcalls just now, and the record is already off the object: send
   it again, yielding between tries, or the waiter parked there would
   wait for good. A space with no VP taking upcalls for XW_RETRIES of our
   yields cannot run the parked thread anyway: we stop then. -ESRCH: the
   space is gone, and its waiter with it. (The first try is inline, the
   retries out of line: xbench's figures stay as they were.) */
#define XW_RETRIES 1000
static long seg_wake(volatile uint32_t *w, uint64_t r, long flags)
{
	return syscall6(SYS_seg_wake, (long)w, (long)(r >> 40), (long)((r >> 32) & 0xff),
			(long)(r & 0xffffffffu), flags, 0);
}

static __attribute__((noinline)) void wake_retry(volatile uint32_t *w, uint64_t r, long flags)
{
	for (int i = 0; i < XW_RETRIES; i++) {
		xw_stats.retried++;
		syscall0(SYS_yield);
		if (seg_wake(w, r, flags) != -EAGAIN)
			return;
	}
}

/* Wake up to n waiters: records first, then the kernel's if any wait
   there. The caller made its change to *w sequentially consistent.
   flags: SYS_seg_wake's, for a waiter of another space. */
static inline __attribute__((always_inline)) void wake(volatile uint32_t *w, struct xwq *q, int n, long flags)
{
	int sid = xspace_id(), done = 0;
	for (int j = 0; j < XWQ_RECS && done < n; j++) {
		uint64_t r = __atomic_load_n(&q->rec[j], __ATOMIC_SEQ_CST);
		if (!r || !__atomic_compare_exchange_n(&q->rec[j], &r, 0, 0, __ATOMIC_ACQ_REL,
						      __ATOMIC_RELAXED))
			continue;
		done++;
		if ((int)(r >> 40) == sid) {
			xw_stats.local++;
			deliver(r & 0xffffffffu);
		} else if (__builtin_expect(seg_wake(w, r, flags) == -EAGAIN, 0))
			wake_retry(w, r, flags);
	}
	if (done < n && __atomic_load_n(&q->nfutex, __ATOMIC_SEQ_CST))
		xfutex_wake(w, n - done);
}

void xwake(volatile uint32_t *w, struct xwq *q, int n)
{
	wake(w, q, n, 0);
}

void xwake_handoff(volatile uint32_t *w, struct xwq *q)
{
	wake(w, q, 1, SEGWAKE_YIELD);
}
