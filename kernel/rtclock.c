/*
 * The realtime clock's offset (SYS_clockset): CLOCK_REALTIME is the
 * wall time at boot (rtc.c) plus the boot clock plus rt_off, one
 * kernel-wide count of ns. A root process may set it (effective uid 0,
 * as Linux's CAP_SYS_TIME; cred.c); the kernel's own timing is the boot clock, so a
 * set clock changes no deadline the kernel keeps but those below.
 * User code reads it from its pseudo page (pseudo_page.rt_off): one
 * aligned 64-bit word, so a reader sees the old value or the new one,
 * never a mix. quantum_begin copies it there (every dispatch and every
 * new quantum), and the call copies it into the caller's own VPs at once.
 *
 * The one wait that reads it: SYS_futex_wait_rt, a futex wait until the
 * realtime clock reads a time, which every realtime deadline of user code
 * comes to (ulib's thread_park_timed). It is converted to the boot clock
 * when the wait starts, and the wait is put on rt_waits (its pipe-list
 * link, which a futex wait has no other use for); a clock set ends every
 * wait there with 0, under kop_lock, so each waits again converted at the
 * new offset: one set forward past its time then ends it, one set back
 * makes it longer (POSIX). Waking them all keeps the timer heaps as they
 * are; a set is rare, and the waits are the spaces' bounded kops.
 */
#include "kernel.h"
#include <anima/syscall.h>
#include <anima/errno.h>

int64_t rt_off;
static struct kop *rt_waits;     /* kop_lock */

/* When, on the boot clock, CLOCK_REALTIME reads rt_ns at the present
   offset: now if it has already (now_ns()'s value; never 0, so still a
   deadline), at most 2^62 ns ahead. rt_ns is signed, as a time_t is: one
   before 1970 has passed (read unsigned, it was 146 years ahead, and the
   fuzzer's waiter never came back). */
uint64_t rt_boot_ns(uint64_t rt_ns, uint64_t now)
{
	__int128 base = (__int128)boot_epoch * 1000000000 + __atomic_load_n(&rt_off, __ATOMIC_RELAXED);
	__int128 at = (__int128)(int64_t)rt_ns - base;
	if (at <= (__int128)now)
		return now;
	return at - now > (__int128)(1UL << 62) ? now + (1UL << 62) : (uint64_t)at;
}

/* op, a futex wait being filled in (kop_lock held), ends at a clock set. */
void rt_wait_add(struct kop *op)
{
	op->pnext = rt_waits;
	if (rt_waits)
		rt_waits->pprev = &op->pnext;
	op->pprev = &rt_waits;
	rt_waits = op;
}

long sys_clockset(uint64_t sec, uint64_t nsec, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if (sec > RT_SEC_MAX || nsec >= 1000000000UL)
		return -EINVAL;
	if (cred_info(1) != 0)
		return -EPERM;               /* root only, as Linux's CAP_SYS_TIME (cred.c) */
	int64_t want = (int64_t)(sec * 1000000000UL + nsec);
	int64_t now = (int64_t)(boot_epoch * 1000000000UL + now_ns());
	int64_t off = want - now;
	__atomic_store_n(&rt_off, off, __ATOMIC_RELAXED);
	kop_wake_list(&rt_waits);        /* (after the store: a wait begun since converts anew) */
	struct space *sp = myvp()->space;
	spin_lock(&sp->lock);
	for (uint64_t i = 0; i < MAXVP; i++) {
		struct vp *vp = vp_lookup(sp, i);
		if (vp)
			__atomic_store_n(&vp->pp->rt_off, off, __ATOMIC_RELEASE);
	}
	spin_unlock(&sp->lock);
	return 0;
}
