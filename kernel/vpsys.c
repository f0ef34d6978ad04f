/*
 * Syscalls of virtual processors and blocking operations: create/start
 * VPs, wait for events, signals and capabilities, user timers, and the
 * blocking calls (sleep, simulated I/O, futex) built on kop.c.
 */
#include "kernel.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED(...) (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5

static int user_code_ok(uint64_t rip, uint64_t rsp)
{
	return rip >= USER_BASE && rip < USER_TOP && rsp > USER_BASE && rsp <= USER_TOP;
}

static void vp_set_entry(struct vp *vp, uint64_t rip, uint64_t rsp, uint64_t arg)
{
	vp->tf->rip = rip;
	vp->tf->rsp = rsp;
	vp->tf->rdi = arg;
	vp->tf->rsi = VPPAGE_BASE + (uint64_t)vp->index * PGSIZE;
}

long sys_vp_create(ARGS)
{
	UNUSED();
	if (!user_code_ok(a0, a1))
		return -EINVAL;
	struct vp *vp = vp_create(myvp()->space, a0, a1);
	if (!vp)
		return -ENOMEM;
	vp_set_entry(vp, a0, a1, a2);
	vp->state = VP_RUNNABLE;
	sched_enqueue(vp);
	return vp->index;
}

long sys_vp_start(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	if (!user_code_ok(a1, a2))
		return -EINVAL;
	spin_lock(&sp->lock);
	struct vp *vp = vp_lookup(sp, a0);
	if (!vp || !vp->parked) {
		spin_unlock(&sp->lock);
		return vp ? -EBUSY : -ESRCH;
	}
	vp->parked = 0;
	spin_unlock(&sp->lock);
	vp_set_entry(vp, a1, a2, a3);
	vp->state = VP_RUNNABLE;
	sched_enqueue(vp);
	return 0;
}

/* Capabilities: unguessable 64-bit names for a VP, so other spaces that
   are handed one can signal it. */
#define MAXCAP 256
static struct {
	uint64_t token;
	struct vp *vp;
} caps[MAXCAP];
static struct spinlock cap_lock = SPINLOCK_INIT("caps");
static uint64_t cap_state;

static uint64_t cap_random(void)
{
	/* splitmix64 over the TSC: unpredictable enough for a research
	   kernel; never below 2^32, so a capability is never a VP index. */
	cap_state += 0x9e3779b97f4a7c15UL ^ rdtsc();
	uint64_t z = cap_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
	return (z ^ (z >> 31)) | (1UL << 63);
}

long sys_vp_cap(ARGS)
{
	UNUSED();
	struct space *sp = myvp()->space;
	spin_lock(&sp->lock);
	struct vp *vp = vp_lookup(sp, a0);
	spin_unlock(&sp->lock);
	if (!vp)
		return -ESRCH;
	spin_lock(&cap_lock);
	for (int i = 0; i < MAXCAP; i++)
		if (!caps[i].vp) {
			caps[i].vp = vp;
			caps[i].token = cap_random();
			long t = (long)caps[i].token;
			spin_unlock(&cap_lock);
			return t;
		}
	spin_unlock(&cap_lock);
	return -ENOMEM;
}

/* Forget every capability naming vp (it is exiting). */
void cap_vp_cleanup(struct vp *vp)
{
	spin_lock(&cap_lock);
	for (int i = 0; i < MAXCAP; i++)
		if (caps[i].vp == vp)
			caps[i].vp = 0;
	spin_unlock(&cap_lock);
}

/* Forget every capability naming a VP of sp (sp is finished). */
void cap_space_cleanup(struct space *sp)
{
	spin_lock(&cap_lock);
	for (int i = 0; i < MAXCAP; i++)
		if (caps[i].vp && caps[i].vp->space == sp)
			caps[i].vp = 0;
	spin_unlock(&cap_lock);
}

long sys_vp_signal(ARGS)
{
	UNUSED();
	struct vp *me = myvp(), *to = 0;
	struct event ev;             /* no context: event_copy leaves it alone */
	ev.type = EV_SIGNAL;
	ev.token = ev.thread = 0;
	ev.arg = a1;
	ev.result = me->id;
	long r = -ESRCH;
	/* Post while holding the lock that found the target: a VP leaves
	   sp->slot and the capability table before it can be freed. */
	if (a0 == (uint64_t)me->index) {
		to = me;                 /* ourselves: we cannot be freed meanwhile */
		r = event_post(me, &ev, 0);
	} else if (a0 < MAXVP) {
		spin_lock(&me->space->lock);
		if ((to = vp_lookup(me->space, a0)))
			r = event_post(to, &ev, 0);
		spin_unlock(&me->space->lock);
	} else {
		spin_lock(&cap_lock);
		for (int i = 0; i < MAXCAP && !to; i++)
			if (caps[i].vp && caps[i].token == a0)
				to = caps[i].vp;
		if (to)
			r = to->space->state == SP_ALIVE ? event_post(to, &ev, 0) : -ESRCH;
		spin_unlock(&cap_lock);
	}
	if (!r)
		__atomic_fetch_add(&to->pp->signals, 1, __ATOMIC_RELAXED);
	return r;
}

long sys_timer(ARGS)
{
	UNUSED();
	return utimer_set(a0, a1);
}

long sys_vp_poll(ARGS)
{
	UNUSED();
	return 0;
}

/* Blocking operations. `tf` is the caller's frame: in thread mode the
   thread's context is taken from it. */
static long block_for(int kind, uint64_t ns, uint64_t result)
{
	struct kop *op = kop_alloc(kind);
	if (!op)
		return -ENOMEM;
	op->result = result;
	spin_lock(&kop_lock);
	op->wake_ns = now_ns() + MIN(ns, 1UL << 62);
	return kop_wait(op, myvp()->tf);
}

long sys_sleep(ARGS)
{
	UNUSED();
	return block_for(BLK_SLEEP, a0, 0);
}

long sys_io(ARGS)
{
	UNUSED();
	return block_for(BLK_IO, a0, a1);
}

/* Futexes are keyed by physical address, so threads of different spaces
   that share memory meet on the same key. */
static long futex_key(uint64_t uaddr, uint64_t *key)
{
	if (uaddr % 4)
		return -EINVAL;
	if (!user_range_ok(uaddr, 4))
		return -EFAULT;
	struct space *sp = myvp()->space;
	uint64_t *pte = vm_walk(sp->pml4, uaddr, 0);
	if ((!pte || !(*pte & PTE_P)) && lazy_fill(sp, uaddr, 0))
		pte = vm_walk(sp->pml4, uaddr, 0);      /* an untouched demand-zero word */
	if (!pte || !(*pte & PTE_P))
		return -EFAULT;
	*key = (*pte & PTE_ADDR) + uaddr % PGSIZE;
	return 0;
}

long sys_futex_wait(ARGS)
{
	UNUSED();
	uint64_t key;
	long r = futex_key(a0, &key);
	if (r < 0)
		return r;
	struct kop *op = kop_alloc(BLK_FUTEX);
	if (!op)
		return -ENOMEM;
	uint32_t val;
	spin_lock(&kop_lock);
	if ((r = copyin(&val, a0, 4)) < 0 || val != (uint32_t)a1) {
		spin_unlock(&kop_lock);
		kfree(op);
		return r < 0 ? r : -EAGAIN;
	}
	op->fkey = key;
	if (a2)
		op->wake_ns = now_ns() + MIN(a2, 1UL << 62);
	return kop_wait(op, myvp()->tf);
}

long sys_futex_wake(ARGS)
{
	UNUSED();
	uint64_t key;
	long r = futex_key(a0, &key);
	if (r < 0)
		return r;
	return futex_wake_key(key, (int)MIN(a1, 0x7fffffffUL));
}
