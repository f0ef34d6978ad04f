/*
 * The realtime clock's offset (SYS_clockset): CLOCK_REALTIME is the
 * wall time at boot (rtc.c) plus the boot clock plus rt_off, one
 * kernel-wide count of ns. Any space may set it (as root may on Linux:
 * Anima has no users); nothing in the kernel reads it, its own timing is
 * the boot clock, so a set clock changes no deadline the kernel keeps.
 * User code reads it from its pseudo page (pseudo_page.rt_off): one
 * aligned 64-bit word, so a reader sees the old value or the new one,
 * never a mix. quantum_begin copies it there (every dispatch and every
 * new quantum), and the call copies it into the caller's own VPs at once.
 */
#include "kernel.h"
#include <anima/syscall.h>
#include <anima/errno.h>

int64_t rt_off;

long sys_clockset(uint64_t sec, uint64_t nsec, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if (sec > RT_SEC_MAX || nsec >= 1000000000UL)
		return -EINVAL;
	int64_t want = (int64_t)(sec * 1000000000UL + nsec);
	int64_t now = (int64_t)(boot_epoch * 1000000000UL + now_ns());
	int64_t off = want - now;
	__atomic_store_n(&rt_off, off, __ATOMIC_RELAXED);
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
