/* Linux's futex for syscall(SYS_futex, ...) (ulib/gettid.c): code that
   builds its own locks on it (Drepper's "Futexes are tricky" mutex,
   lock-free queues that park) works on every package. It is done at
   user level on the POSIX layer's waiter queues (pwait.h), not with the
   kernel's futex: a kernel wait would put a classic VP (naive) to sleep
   with every thread queued behind it. Waiters hash by address into
   buckets, each a lock and a queue; a wait checks the word under its
   bucket's lock, so a wake that follows a change of the word can never
   miss a waiter that saw the old value. One process: private and shared
   futexes are the same. */
#include <errno.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <linux/futex.h>
#include <animart/clock.h>
#include "../pthread/pwait.h"

#define NBUCKET 64

struct fwaiter {
	struct waiter pw;                /* first: the queue holds struct waiter */
	const volatile int *addr;
	unsigned bits;
};

static struct bucket {
	volatile int lk;
	struct __pq q;
} buckets[NBUCKET];

static struct bucket *bucket_of(const volatile int *addr)
{
	uintptr_t a = (uintptr_t)addr;
	return &buckets[(a >> 2 ^ a >> 8) % NBUCKET];
}

static long futex_wait(const volatile int *addr, int val, uint64_t deadline, unsigned bits)
{
	struct thread *self = thread_self();
	struct bucket *b = bucket_of(addr);
	plock(&b->lk, self);
	if (*addr != val) {
		punlock(&b->lk, self);
		return -EAGAIN;
	}
	struct fwaiter w = { .pw = { .t = self }, .addr = addr, .bits = bits };
	pq_push(&b->q, &w.pw);
	punlock(&b->lk, self);
	/* Not a cancellation point (Linux's isn't); a signal handler that
	   runs in it ends it with EINTR unless it has SA_RESTART. */
	int r = pw_wait(&w.pw, deadline, PW_INTR, &b->lk, &b->q);
	if (r) {
		punlock(&b->lk, self);
		return -r;
	}
	return 0;
}

/* A fork's child (ulib/pthread/pfork.c): every bucket free and empty.
   Its waiters are copies of threads the child has not got (a wake here
   would grant one), and one that held a bucket's lock at the copy kept
   it taken for good: the child's next futex call on it spun. */
void __futex_forked(void);
void __futex_forked(void)
{
	memset(buckets, 0, sizeof buckets);
}

/* Take up to n waiters on addr whose bits meet `bits` off the bucket's
   queue, in the order they came, and grant them. */
static long futex_wake(const volatile int *addr, int n, unsigned bits)
{
	struct thread *self = thread_self();
	struct bucket *b = bucket_of(addr);
	struct waiter *woken = 0, **tail = &woken, *prev = 0;
	long count = 0;
	plock(&b->lk, self);
	for (struct waiter *x = b->q.__head, *next; x && count < n; x = next) {
		next = x->next;
		struct fwaiter *f = (struct fwaiter *)x;
		if (f->addr != addr || !(f->bits & bits)) {
			prev = x;
			continue;
		}
		if (prev)
			prev->next = next;
		else
			b->q.__head = next;
		if (b->q.__tail == x)
			b->q.__tail = prev;
		x->next = 0;
		*tail = x;
		tail = &x->next;
		count++;
	}
	punlock_grant_all(&b->lk, woken, self);
	return count;
}

/* A relative timeout (FUTEX_WAIT) or an absolute one on the clock the op
   names (the _BITSET forms): a deadline in ns since boot, 0 for none. */
static int64_t futex_deadline(const struct timespec *ts, int absolute, int realtime)
{
	if (!ts)
		return 0;
	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L || (!absolute && ts->tv_sec < 0))
		return -EINVAL;
	if (absolute)
		return pdeadline(realtime ? CLOCK_REALTIME : CLOCK_MONOTONIC, ts);
	uint64_t d = now_ns() + (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
	return (int64_t)d;
}

/* syscall(SYS_futex, uaddr, op, val, timeout, uaddr2, val3): Linux's
   return value, or -errno. */
long __futex(volatile int *uaddr, int op, int val, const struct timespec *timeout, unsigned val3)
{
	int cmd = op & FUTEX_CMD_MASK, realtime = op & FUTEX_CLOCK_REALTIME;
	if ((uintptr_t)uaddr % 4)
		return -EINVAL;
	if (!thread_self())
		return -ENOSYS;          /* no package: nothing to wait with */
	switch (cmd) {
	case FUTEX_WAIT:
	case FUTEX_WAIT_BITSET: {
		unsigned bits = cmd == FUTEX_WAIT ? FUTEX_BITSET_MATCH_ANY : val3;
		if (!bits)
			return -EINVAL;
		int64_t d = futex_deadline(timeout, cmd == FUTEX_WAIT_BITSET, realtime);
		if (d < 0)
			return d;
		return futex_wait(uaddr, val, (uint64_t)d, bits);
	}
	case FUTEX_WAKE:
	case FUTEX_WAKE_BITSET: {
		unsigned bits = cmd == FUTEX_WAKE ? FUTEX_BITSET_MATCH_ANY : val3;
		if (!bits)
			return -EINVAL;
		return val <= 0 ? 0 : futex_wake(uaddr, val, bits);
	}
	default:
		return -ENOSYS;
	}
}
