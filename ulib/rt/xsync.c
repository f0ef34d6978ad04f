/*
 * Cross-space synchronization on futexes in shared segments (<animart/xsync.h>).
 *
 * The mutex is robust. Its word holds the owner's space id; the space's
 * robust list (registered once with SYS_seg_robust) names every xmutex
 * the space holds or is about to take, so that when the space ends the
 * kernel can find the words it still owns, mark them XM_DEAD and wake
 * their waiters. The list entry is written before the word is taken and
 * cleared after it is released, so at any moment of death every word the
 * space owns is in the list (the kernel checks the owner field, so a
 * stale entry is harmless).
 */
#include <animart/xsync.h>
#include <animart/sys.h>
#include <animart/intr.h>
#include <animart/thread.h>
#include <animart/clock.h>
#include <animart/xwait.h>

static uint64_t robust[MAXROBUST] __attribute__((aligned(8)));
static volatile int robust_on;          /* 0 no, 1 being registered, 2 yes */
static volatile int my_id;

int xspace_id(void)
{
	int id = my_id;
	if (!id)
		my_id = id = (int)sys_getinfo(INFO_SPACE);
	return id;
}

/* A package that keeps its own time (det, det=par: thread_ops.own_time)
   never waits in the kernel: its thread asleep there keeps det's token,
   so the thread that would post never runs (an xsem waiter never woke).
   It waits as pshown.c's waits do: a node on this process's list
   (ownwait.c), which this process's wakers (wake_n) unblock at once,
   and a nap of XNAP_NS on the package's clock (det: 20 token moves a
   ms), after which the caller looks again for another process's wake.
   0, or -EAGAIN if *w is not v, or -EIDRM once the word left this space
   (a futex wake of no one asks before we read it). Out of line: inlined,
   its node made xfutex_wait save a register more on every package's
   kernel wait (xbench's same.kthread.signal_wait 1750 -> 1745). */
#define XNAP_NS 1000000ULL
static __attribute__((noinline, cold)) long own_wait(struct thread *self, volatile uint32_t *w,
						     uint32_t v)
{
	if (syscall2(SYS_futex_wake, w, 0) < 0)
		return -EIDRM;
	struct ownw n = { w, self, 0, 0 };
	long r = -EAGAIN;
	ownw_add(&n);
	if (__atomic_load_n(w, __ATOMIC_SEQ_CST) == v) {
		xw_stats.naps++;
		thread_block_until(now_ns() + XNAP_NS);
		r = 0;
	}
	ownw_del(&n);
	/* a signal from outside interrupted the VP meanwhile: fetch it, as
	   a kernel wait's intr_waited would */
	if (__atomic_load_n(&thread_kern_sigs, __ATOMIC_ACQUIRE))
		intr_cut();
	return r;
}

/* <animart/xsync.h> (refused for MAXKOP_SPACE: yield before the caller
   looks again) */
long xfutex_wait(volatile uint32_t *w, uint32_t v)
{
	struct thread *self = thread_self();
	if (self && self->ops->own_time)
		return own_wait(self, w, v);
	long r = intr_waited(syscall3(SYS_futex_wait, w, v, 0));
	thread_wait_refused(w, v, r);
	return r;
}

/* A robust-list slot naming m (0 if the list is full: then m is not
   robust while held, the only cost of holding more than MAXROBUST). */
static uint64_t *robust_claim(struct xmutex *m)
{
	if (robust_on != 2) {
		int expect = 0;
		if (__atomic_compare_exchange_n(&robust_on, &expect, 1, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			syscall2(SYS_seg_robust, robust, MAXROBUST);
			__atomic_store_n(&robust_on, 2, __ATOMIC_RELEASE);
		}
	}
	for (int i = 0; i < MAXROBUST; i++) {
		uint64_t zero = 0;
		if (!robust[i] && __atomic_compare_exchange_n(&robust[i], &zero, (uint64_t)&m->word, 0,
							      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return &robust[i];
	}
	return 0;
}

static void robust_free(uint64_t *slot)
{
	if (slot)
		__atomic_store_n(slot, 0, __ATOMIC_RELEASE);
}

/* The slot naming m (the caller holds m, so it is there unless the list
   was full). */
static uint64_t *robust_find(struct xmutex *m)
{
	for (int i = 0; i < MAXROBUST; i++)
		if (robust[i] == (uint64_t)&m->word)
			return &robust[i];
	return 0;
}

int xmutex_lock(struct xmutex *m)
{
	uint32_t id = (uint32_t)xspace_id();
	uint64_t *slot = robust_claim(m);
	/* Once we have slept, take it with XM_WAITERS set: others may still
	   sleep behind us, and our unlock must wake the next. */
	for (uint32_t w = 0;;) {
		uint32_t v = 0;
		if (__atomic_compare_exchange_n(&m->word, &v, id | w, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return 0;
		if (v == XM_NOTREC) {
			robust_free(slot);
			return ENOTRECOVERABLE;
		}
		if (v & XM_DEAD) {
			/* the owner's space died holding it: it is ours, with its waiters bit */
			if (__atomic_compare_exchange_n(&m->word, &v, id | (v & XM_WAITERS), 0,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				m->dirty = 1;
				return EOWNERDEAD;
			}
			continue;
		}
		if (!(v & XM_WAITERS) &&
		    !__atomic_compare_exchange_n(&m->word, &v, v | XM_WAITERS, 0, __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED)) {
			continue;
		}
		long r = xfutex_wait(&m->word, v | XM_WAITERS);
		if (r == -EIDRM || r == -EFAULT) {
			robust_free(slot);
			return EIDRM;
		}
		w = XM_WAITERS;
	}
}

int xmutex_trylock(struct xmutex *m)
{
	uint32_t id = (uint32_t)xspace_id();
	uint64_t *slot = robust_claim(m);
	uint32_t v = 0;
	if (__atomic_compare_exchange_n(&m->word, &v, id, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return 0;
	if (v != XM_NOTREC && (v & XM_DEAD) &&
	    __atomic_compare_exchange_n(&m->word, &v, id | (v & XM_WAITERS), 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		m->dirty = 1;
		return EOWNERDEAD;
	}
	robust_free(slot);
	return v == XM_NOTREC ? ENOTRECOVERABLE : EBUSY;
}

void xmutex_consistent(struct xmutex *m)
{
	m->dirty = 0;
}

int xmutex_unlock(struct xmutex *m)
{
	uint32_t id = (uint32_t)xspace_id(), v = __atomic_load_n(&m->word, __ATOMIC_RELAXED);
	if ((v & XM_OWNER) != id || (v & XM_DEAD))
		return EPERM;
	uint64_t *slot = robust_find(m);
	uint32_t to = 0;
	if (m->dirty) {                  /* taken from a dead owner, never repaired */
		m->dirty = 0;
		to = XM_NOTREC;
	}
	uint32_t old = __atomic_exchange_n(&m->word, to, __ATOMIC_RELEASE);
	robust_free(slot);
	if (to == XM_NOTREC)
		xfutex_wake(&m->word, 0x7fffffff);
	else if (old & XM_WAITERS)
		xfutex_wake(&m->word, 1);
	return 0;
}

/* A condition: wait sleeps on the sequence number it read before
   unlocking, so a signal after that read (which bumps it) is never
   missed: the wait then finds the word changed (xwait re-checks it after
   publishing its record; the futex compares it in the kernel). */
int xcond_wait(struct xcond *c, struct xmutex *m)
{
	__atomic_add_fetch(&c->nwait, 1, __ATOMIC_SEQ_CST);
	uint32_t s = __atomic_load_n(&c->seq, __ATOMIC_SEQ_CST);
	xmutex_unlock(m);
	if (xwait(&c->seq, s, &c->q) < 0)
		return EIDRM;                /* the segment is gone: touch nothing */
	__atomic_sub_fetch(&c->nwait, 1, __ATOMIC_RELAXED);
	return xmutex_lock(m);
}

/* Bump the sequence, then look for waiters: a waiter registers before
   it reads the sequence, so either we see it or it sees the bump. */
void xcond_signal(struct xcond *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->nwait, __ATOMIC_SEQ_CST))
		xwake(&c->seq, &c->q, 1);
}

void xcond_broadcast(struct xcond *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->nwait, __ATOMIC_SEQ_CST))
		xwake(&c->seq, &c->q, 0x7fffffff);
}

void xsem_init(struct xsem *s, uint32_t count)
{
	*s = (struct xsem){ .count = count };
}

int xsem_wait(struct xsem *s)
{
	for (;;) {
		uint32_t c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);
		while (c > 0)
			if (__atomic_compare_exchange_n(&s->count, &c, c - 1, 0, __ATOMIC_ACQUIRE,
							__ATOMIC_ACQUIRE))
				return 0;
		/* Register, then sleep only while the count is still 0 (xwait
		   re-checks it once its record is visible). */
		__atomic_add_fetch(&s->nwait, 1, __ATOMIC_SEQ_CST);
		if (xwait(&s->count, 0, &s->q) < 0)
			return EIDRM;
		__atomic_sub_fetch(&s->nwait, 1, __ATOMIC_RELAXED);
	}
}

void xsem_post(struct xsem *s)
{
	__atomic_add_fetch(&s->count, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->nwait, __ATOMIC_SEQ_CST))
		xwake_handoff(&s->count, &s->q);   /* a poster usually waits next */
}

void xbarrier_init(struct xbarrier *b, uint32_t n)
{
	*b = (struct xbarrier){ .n = n };
}

/* The last arrival resets the count before it opens the next round
   (gen), so arrivals of the next round cannot count into this one. */
int xbarrier_wait(struct xbarrier *b)
{
	uint32_t g = __atomic_load_n(&b->gen, __ATOMIC_ACQUIRE);
	if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_ACQ_REL) == b->n) {
		__atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&b->gen, 1, __ATOMIC_SEQ_CST);
		xwake(&b->gen, &b->q, 0x7fffffff);
		return 1;
	}
	while (__atomic_load_n(&b->gen, __ATOMIC_ACQUIRE) == g)
		if (xwait(&b->gen, g, &b->q) < 0)
			return -EIDRM;
	return 0;
}
