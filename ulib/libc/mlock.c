/*
 * Memory locking (<sys/mman.h>: mlock, munlock, mlockall, munlockall).
 * No page ever leaves memory here, so a locked page is resident as POSIX
 * asks without anything done to it (_POSIX_MEMLOCK, _POSIX_MEMLOCK_RANGE).
 * What is kept is what a program can see of locking on Linux:
 *   - which ranges are locked: a sorted list of page ranges (mlock, and
 *     each mapping made after mlockall(MCL_FUTURE)), munlock and munmap
 *     take them out; mlockall(MCL_CURRENT) locks every mapping there is
 *     (`all`: this library cannot list them), until munlockall. A locked
 *     page is msync(MS_INVALIDATE)'s EBUSY (fmap.c), as on Linux.
 *   - how many bytes are locked, against RLIMIT_MEMLOCK for a process
 *     that is not root (Linux: without CAP_IPC_LOCK): mlock's ENOMEM,
 *     mlockall(MCL_CURRENT)'s ENOMEM when the whole process (RLIMIT_AS's
 *     count, Linux's total_vm) is past it, mmap's EAGAIN after MCL_FUTURE.
 * All of it is the process's own: a fork's child and an exec's image
 * start with nothing locked, as on Linux (the state names its pid). The
 * list is bounded (NLOCK ranges, the process's own memory): a call that
 * would need more fails as Linux does when it cannot lock (mlock's
 * EAGAIN, mmap's EAGAIN), and an munmap that would split a range when it
 * is full unlocks the range's smaller part too.
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <animart/spin.h>
#include <animart/aspace.h>
#include <animart/sys.h>
#include <anima/layout.h>

#define NLOCK 128

struct range {
	uintptr_t lo, hi;                /* pages [lo, hi) */
};

static struct range lk[NLOCK];       /* sorted, disjoint, not touching */
static int nlk;
static int all;                      /* MCL_CURRENT | MCL_FUTURE in effect */
static pid_t owner;                  /* whose state this is: another pid's is none */
static struct spin lklk;

static int fail(int e)
{
	errno = e;
	return -1;
}

/* Take the lock; a fork's child (or an exec's image) finds its parent's
   state and drops it. */
static void lock(void)
{
	spin_lock(&lklk);
	pid_t me = getpid();
	if (owner != me) {
		owner = me;
		nlk = 0;
		all = 0;
	}
}

static void unlock(void)
{
	spin_unlock(&lklk);
}

/* The pages a call's (addr, len) names, as Linux rounds them. */
static void pages(const void *addr, size_t len, uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)addr & ~(uintptr_t)(PAGE_SIZE - 1);
	*hi = (*lo + len + ((uintptr_t)addr - *lo) + PAGE_SIZE - 1) & ~(uintptr_t)(PAGE_SIZE - 1);
}

/* Bytes of [lo, hi) the list holds. */
static uint64_t held(uintptr_t lo, uintptr_t hi)
{
	uint64_t n = 0;
	for (int i = 0; i < nlk; i++) {
		uintptr_t a = lk[i].lo > lo ? lk[i].lo : lo, b = lk[i].hi < hi ? lk[i].hi : hi;
		n += a < b ? b - a : 0;
	}
	return n;
}

/* Bytes locked now (Linux's locked_vm). */
static uint64_t locked(void)
{
	return all & MCL_CURRENT ? as_used() : held(0, UINTPTR_MAX);
}

/* Take [lo, hi) out of the list: 0, or -1 if a split found it full (then
   the smaller side goes too). */
static int take(uintptr_t lo, uintptr_t hi)
{
	int r = 0;
	for (int i = 0; i < nlk; i++) {
		struct range e = lk[i];
		if (e.hi <= lo || e.lo >= hi)
			continue;
		if (e.lo < lo && e.hi > hi) {            /* a hole in its middle */
			if (nlk == NLOCK) {
				r = -1;
				lk[i] = lo - e.lo >= e.hi - hi ? (struct range){ e.lo, lo } : (struct range){ hi, e.hi };
				continue;
			}
			for (int j = nlk++; j > i + 1; j--)
				lk[j] = lk[j - 1];
			lk[i] = (struct range){ e.lo, lo };
			lk[i + 1] = (struct range){ hi, e.hi };
			return 0;
		}
		if (e.lo < lo)
			lk[i].hi = lo;
		else if (e.hi > hi)
			lk[i].lo = hi;
		else {                                   /* all of it */
			for (int j = i; j + 1 < nlk; j++)
				lk[j] = lk[j + 1];
			nlk--;
			i--;
		}
	}
	return r;
}

/* Put [lo, hi) in the list, merged with what it touches: 0, or -1 if
   the list is full. */
static int put(uintptr_t lo, uintptr_t hi)
{
	int i = 0;
	while (i < nlk && lk[i].hi < lo)
		i++;
	int j = i;                               /* [i, j): the ranges it meets or touches */
	while (j < nlk && lk[j].lo <= hi)
		j++;
	if (i == j && nlk == NLOCK)
		return -1;
	if (i < j) {
		lo = lk[i].lo < lo ? lk[i].lo : lo;
		hi = lk[j - 1].hi > hi ? lk[j - 1].hi : hi;
	}
	int shift = 1 - (j - i);                 /* entries added (<= 1) */
	if (shift > 0)
		for (int k = nlk; k > i; k--)
			lk[k] = lk[k - 1];
	else if (shift < 0)
		for (int k = i + 1; k - shift < nlk; k++)
			lk[k] = lk[k - shift];
	nlk += shift;
	lk[i] = (struct range){ lo, hi };
	return 0;
}

/* Linux's RLIMIT_MEMLOCK rule for a caller without CAP_IPC_LOCK (here:
   not root) about to have `total` bytes locked: 0, EPERM with a soft
   limit of 0, else `over` past the limit (whole pages, as Linux). */
static int denied(uint64_t total, int over)
{
	struct rlimit rl;
	if (geteuid() == 0 || getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (rl.rlim_cur == 0)
		return EPERM;
	return total / PAGE_SIZE > rl.rlim_cur / PAGE_SIZE ? over : 0;
}

int __mlock_mapped_ok(const void *addr, size_t len);    /* mman.c: is the range all mapped? */

int mlock(const void *addr, size_t len)
{
	uintptr_t lo, hi;
	pages(addr, len, &lo, &hi);
	lock();
	/* what is locked already counts once (Linux since 4.9) */
	int e = denied(locked() + (all & MCL_CURRENT ? 0 : (hi - lo) - held(lo, hi)), ENOMEM);
	unlock();
	if (e)
		return fail(e);
	if (__mlock_mapped_ok(addr, len))
		return -1;
	if (hi <= lo)
		return 0;
	lock();
	e = put(lo, hi) ? EAGAIN : 0;
	unlock();
	return e ? fail(e) : 0;
}

int munlock(const void *addr, size_t len)
{
	uintptr_t lo, hi;
	if (__mlock_mapped_ok(addr, len))
		return -1;
	pages(addr, len, &lo, &hi);
	lock();
	take(lo, hi);
	unlock();
	return 0;
}

int mlockall(int flags)
{
	if (!flags || flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) || flags == MCL_ONFAULT)
		return fail(EINVAL);
	lock();
	/* Linux: MCL_CURRENT past the limit when the whole process is */
	int e = denied(flags & MCL_CURRENT ? as_used() : 0, ENOMEM);
	if (!e)                          /* (as Linux: MCL_CURRENT alone ends MCL_FUTURE; MCL_FUTURE alone keeps what is locked) */
		all = (flags & MCL_FUTURE) | ((flags | all) & MCL_CURRENT);
	unlock();
	return e ? fail(e) : 0;
}

int munlockall(void)
{
	lock();
	all = 0;
	nlk = 0;
	unlock();
	return 0;
}

/* mmap (mman.c, fmap.c's too), before mapping len bytes: EAGAIN past
   RLIMIT_MEMLOCK after mlockall(MCL_FUTURE) (the new mapping will be
   locked), else 0. */
int __mlock_map_denied(size_t len)
{
	if (!__atomic_load_n(&all, __ATOMIC_RELAXED))
		return 0;
	lock();
	int e = all & MCL_FUTURE ? denied(locked() + ((len + PAGE_SIZE - 1) & ~(size_t)(PAGE_SIZE - 1)), EAGAIN) : 0;
	unlock();
	return e;
}

/* ... and once mapped at p: after MCL_FUTURE it is locked (EAGAIN, and
   the caller unmaps it, if the list is full). */
int __mlock_map_done(void *p, size_t len)
{
	if (!__atomic_load_n(&all, __ATOMIC_RELAXED))
		return 0;
	uintptr_t lo, hi;
	pages(p, len, &lo, &hi);
	lock();
	int e = all & MCL_FUTURE && !(all & MCL_CURRENT) && put(lo, hi) ? EAGAIN : 0;
	unlock();
	return e;
}

/* munmap: the range is no longer locked. */
void __mlock_unmapped(const void *addr, size_t len)
{
	uintptr_t lo, hi;
	if (!__atomic_load_n(&nlk, __ATOMIC_RELAXED))
		return;
	pages(addr, len, &lo, &hi);
	lock();
	take(lo, hi);
	unlock();
}

/* msync(MS_INVALIDATE): is a page of the range locked? (Linux: EBUSY) */
int __mlock_busy(const void *addr, size_t len)
{
	uintptr_t lo, hi;
	if (!__atomic_load_n(&nlk, __ATOMIC_RELAXED) && !__atomic_load_n(&all, __ATOMIC_RELAXED))
		return 0;
	pages(addr, len, &lo, &hi);
	lock();
	int r = all & MCL_CURRENT || held(lo, hi) > 0;
	unlock();
	return r;
}
