/*
 * Thread CPU-time clocks: CLOCK_THREAD_CPUTIME_ID for the caller, and a
 * clock id for any live thread of the program (pthread_getcpuclockid).
 * The package keeps the time (thread_ops.cputime: rt_switch.c, kthread);
 * this file names threads by clock ids.
 *
 * A clock id must not be a pointer: a stale or forged id would make us
 * read whatever lies there. It carries the thread's id, unique and never
 * reused (thread_init), as Linux carries a tid: -(8 * id + 2), negative
 * like Linux's, and unlike any fixed clock. A table maps ids handed out
 * to descriptors; it only ever holds descriptors, which packages never
 * give back to malloc (docs/thread-interface.md), so reading a stale one
 * is safe, and the id is checked on the descriptor itself before and
 * after the read: a thread that has exited (JOIN_DONE), or whose
 * descriptor now holds another thread, gives EINVAL.
 */
#include <time.h>
#include <errno.h>
#include <animart/spin.h>
#include <animart/thread.h>
#include <animart/clock.h>

#define NCLK    1024                 /* threads with a clock id at once */
#define MAXID   ((1UL << 28) - 1)    /* the ids a 32-bit clockid_t can carry */

/* id and seen share 16 aligned bytes, changed together (settle). */
static struct {
	volatile uint64_t id;            /* 0: never used */
	volatile uint64_t seen;          /* the largest reading handed out for id */
	struct thread *volatile t;
} __attribute__((aligned(16))) clk[NCLK];

typedef unsigned __int128 u128;
struct spin __clk_lk;             /* (fork holds it: ulib/pthread/pfork.c) */

/* t still is the thread `id`, and has not exited. */
static int alive(struct thread *t, uint64_t id)
{
	return __atomic_load_n(&t->id, __ATOMIC_ACQUIRE) == id && !thread_ended(t);
}

/* The descriptor handed out for id, or 0. Open addressing from id %
   NCLK; entries are replaced, never emptied, so an empty one ends it. */
static struct thread *lookup(uint64_t id, unsigned *at)
{
	for (unsigned k = 0; k < NCLK; k++) {
		unsigned i = (unsigned)((id + k) % NCLK);
		uint64_t e = __atomic_load_n(&clk[i].id, __ATOMIC_ACQUIRE);
		*at = i;
		if (e == id)
			return __atomic_load_n(&clk[i].t, __ATOMIC_ACQUIRE);
		if (!e)
			return 0;
	}
	return 0;
}

/* Record t (alive) under its id: its own entry, or an empty one or one
   of an exited thread. 0, or EAGAIN with NCLK live threads in it. */
static int enter(struct thread *t, uint64_t id)
{
	int r = EAGAIN;
	spin_lock(&__clk_lk);
	int free_i = -1;
	for (unsigned k = 0; k < NCLK; k++) {
		unsigned i = (unsigned)((id + k) % NCLK);
		uint64_t e = clk[i].id;
		if (e == id) {
			r = 0;
			goto out;
		}
		if (free_i < 0 && (!e || !alive(clk[i].t, e)))
			free_i = (int)i;
		if (!e)
			break;
	}
	if (free_i >= 0) {
		/* the descriptor first: a reader that sees the id sees it;
		   then id with seen 0, in one store (settle) */
		__atomic_store_n(&clk[free_i].t, t, __ATOMIC_RELEASE);
		__atomic_store_n((u128 *)&clk[free_i], (u128)id, __ATOMIC_RELEASE);
		r = 0;
	}
out:
	spin_unlock(&__clk_lk);
	return r;
}

/* The calling thread's CPU time (a program without a thread package:
   its VP's, that being its thread). */
int64_t __thread_cpu_self_ns(void);
int64_t __thread_cpu_self_ns(void)
{
	struct thread *self = thread_self();
	if (!self)
		return (int64_t)vp_cpu_self_ns();
	return self->ops->cputime ? self->ops->cputime(self) : -1;
}

/* Is clock a thread's clock id (valid or not)? */
int __thread_cpuclock(clockid_t clock);
int __thread_cpuclock(clockid_t clock)
{
	return clock < 0 && (-(int64_t)clock) % 8 == 2;
}

/* Readings of another thread's clock never go back. They can come out a
   moment short: the kernel clears a VP's oncpu before it adds the turn
   to run_ns, and a reading in between misses the turn. So each entry
   keeps the largest reading handed out for its id, and a shorter one is
   raised to it. The id is in the same 16 bytes, compared in the same
   exchange, so a reader of an id whose entry went to another thread
   cannot raise the new one's. */
static int64_t settle(unsigned i, uint64_t id, int64_t ns)
{
	u128 *p = (u128 *)&clk[i], old = __atomic_load_n(p, __ATOMIC_ACQUIRE);
	for (;;) {
		if ((uint64_t)old != id)
			return ns;               /* the entry moved on (the caller says EINVAL) */
		uint64_t seen = (uint64_t)(old >> 64);
		if ((uint64_t)ns <= seen)
			return (int64_t)seen;
		if (__atomic_compare_exchange_n(p, &old, (u128)(uint64_t)ns << 64 | id, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return ns;
	}
}

/* The time of thread clock id `clock`, or -1 (EINVAL: stale, forged). */
int64_t __thread_cpuclock_ns(clockid_t clock);
int64_t __thread_cpuclock_ns(clockid_t clock)
{
	if (!__thread_cpuclock(clock))
		return -1;
	uint64_t id = (uint64_t)((-(int64_t)clock) - 2) / 8;
	unsigned at = 0;
	struct thread *t = id ? lookup(id, &at) : 0;
	if (!t || !alive(t, id))
		return -1;
	if (t == thread_self())
		return t->ops->cputime(t);
	int64_t ns = t->ops->cputime(t);
	if (ns < 0 || !alive(t, id))
		return -1;               /* read from another thread's: then not */
	return settle(at, id, ns);
}

int __thread_getcpuclockid(struct thread *t, clockid_t *clock);
int __thread_getcpuclockid(struct thread *t, clockid_t *clock)
{
	if (!t || !clock)
		return EINVAL;
	uint64_t id = t->id;
	if (!t->ops->cputime || id > MAXID)
		return ENOENT;               /* no clock for it */
	if (!alive(t, id))
		return ESRCH;
	int e = enter(t, id);
	if (e)
		return e;
	t->ops->cputime(t);              /* the package starts keeping it */
	*clock = (clockid_t)(-(int64_t)(8 * id + 2));
	return 0;
}
