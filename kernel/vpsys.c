/*
 * Syscalls of virtual processors and blocking operations: create/start
 * VPs, wait for events, signal a VP through its capability (the tables:
 * cap.c), user timers, and the blocking calls (sleep, simulated I/O,
 * futex) built on kop.c.
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
	/* The index before the VP is queued: once queued it may run on
	   another CPU, exit and be freed before this returns (a VP that
	   ended at once made vp_create return freed memory's 0x6b6b6b6b;
	   test_views.py::test_syscalls_see_the_callers_view). */
	long index = vp->index;
	vp->state = VP_RUNNABLE;
	sched_enqueue(vp);
	return index;
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
	sp->nparked--;
	spin_unlock(&sp->lock);
	shake();                         /* started, not yet queued: space_exit may run */
	vp_set_entry(vp, a1, a2, a3);
	vp->state = VP_RUNNABLE;
	sched_enqueue(vp);
	return 0;
}

/* Post ev to the VP the capability c names, if it still lives. */
static long cap_signal(const struct capent *c, struct event *ev, struct vp **to)
{
	long r = -ESRCH;
	spin_lock(&table_lock);
	struct space *sp = space_lookup(c->space_id);
	if (sp) {
		spin_lock(&sp->lock);
		struct vp *vp = sp->state == SP_ALIVE ? vp_lookup(sp, c->vp_index) : 0;
		if (vp && vp->id == c->vp_id) {
			r = event_post(vp, ev, EVP_ADMIT);
			if (!r)
				__atomic_fetch_add(&vp->pp->signals, 1, __ATOMIC_RELAXED);
			*to = vp;
		}
		spin_unlock(&sp->lock);
	}
	spin_unlock(&table_lock);
	return r;
}

long sys_vp_signal(ARGS)
{
	UNUSED();
	struct vp *me = myvp(), *to = 0;
	struct event ev;             /* no context: event_copy leaves it alone */
	ev.type = EV_SIGNAL;
	ev.token = ev.thread = 0;
	ev.arg = a1;
	ev.result = (uint32_t)me->id;   /* the sender, as its pseudo page names it */
	long r = -ESRCH;
	/* Post while holding the lock that found the target: a VP leaves
	   sp->slot before it can be freed. */
	if (a0 == (uint64_t)me->index) {
		to = me;                 /* ourselves: we cannot be freed meanwhile */
		r = event_post(me, &ev, EVP_ADMIT);
	} else if (a0 < MAXVP) {
		spin_lock(&me->space->lock);
		if ((to = vp_lookup(me->space, a0)))
			r = event_post(to, &ev, EVP_ADMIT);
		if (!r)
			__atomic_fetch_add(&to->pp->signals, 1, __ATOMIC_RELAXED);
		spin_unlock(&me->space->lock);
		return r;
	} else if (a0 >= CAP_BASE) {
		struct capent c;
		if ((r = cap_get(me->space, a0, &c)) < 0)
			return r;        /* not a handle of ours: -EBADF */
		if (c.kind != CAP_VP) {
			cap_release(&c);
			return -EBADF;   /* a handle, but not a VP's */
		}
		return cap_signal(&c, &ev, &to);
	}
	if (!r)
		__atomic_fetch_add(&to->pp->signals, 1, __ATOMIC_RELAXED);
	return r;
}

long sys_timer(ARGS)
{
	UNUSED();
	return utimer_set(a0, a1, a2);
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
		return -EAGAIN;          /* MAXKOP_SPACE outstanding */
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

/* A private word is keyed by its address, and a wake reaches only its
   own space's waiters (kop.c's reaches), as Linux keys a private futex
   by (mm, address). Not by its frame: a fork's copy-on-write break gives
   a space a new frame for the page while its waiters sleep, and a waker
   that read the new frame before the waiters were moved missed them (a
   lost wake-up: progs/posix/forkwake.c's kthread-2 parent hung with
   all four threads parked). A word in a segment is keyed by (segment, offset), in a
   shared file page by its one frame, tagged (fkey.c), so threads of
   different spaces that share memory meet on the same key. */
long futex_key(uint64_t uaddr, uint64_t *key)
{
	if (uaddr % 4)
		return -EINVAL;
	if (!user_range_ok(uaddr, 4))
		return -EFAULT;
	struct space *sp = myvp()->space;
	if (in_seg_window(uaddr, 4))     /* (segment id, offset): the same key in every space */
		return seg_futex_key(sp, uaddr, key);
	/* (Without the lock: a table another VP's unmap frees goes only
	   after its shootdown, which waits for this CPU, running sp with
	   interrupts off, to flush: not before this call returns, there
	   being no tlb_check between a walk and its reads below.) */
	uint64_t *pte = vm_walk(sp->pml4, uaddr, 0);
	if ((!pte || !(*pte & PTE_P)) && lazy_fill(sp, uaddr, 0) > 0)
		pte = vm_walk(sp->pml4, uaddr, 0);      /* an untouched demand-zero word */
	if (!pte || !(*pte & PTE_P))
		return -EFAULT;
	*key = uaddr;                    /* (below 2^47: no tag bit) */
	if (__atomic_load_n(&sp->fshared, __ATOMIC_ACQUIRE) && fshare_is(*pte & PTE_ADDR))
		*key = fkey_of(*pte & PTE_ADDR, uaddr % PGSIZE);   /* a shared file page's (fkey.c) */
	return 0;
}

/* A futex wait on the word at a0 while it holds a1, for at most a2 ns
   (0: no limit), or with rt until CLOCK_REALTIME reads a2; with a cut
   word (cut != 0), -EINTR at once if it does not hold cutval, read under
   kop_lock after the word (kop_cut's comment). Inline in every call: the
   plain one keeps no test of cut or rt. */
static inline __attribute__((always_inline)) long futex_wait(uint64_t a0, uint64_t a1, uint64_t a2,
							    uint64_t cut, uint64_t cutval, int rt)
{
	uint64_t key;
	long r = futex_key(a0, &key);
	if (r < 0)
		return r;
	struct kop *op = kop_alloc(BLK_FUTEX);
	if (!op)
		return -EAGAIN;          /* MAXKOP_SPACE outstanding */
	uint32_t val;
	spin_lock(&kop_lock);
	if ((r = copyin(&val, a0, 4)) < 0 || val != (uint32_t)a1) {
		spin_unlock(&kop_lock);
		kop_free(op);
		/* A segment word that faults now was unmapped since futex_key
		   (the unmapper clears PTEs and shoots down before it cancels
		   the waiters, under this lock): the same -EIDRM as theirs. */
		if (r < 0 && (key & SEGKEY_TAG))
			r = -EIDRM;
		return r < 0 ? r : -EAGAIN;
	}
	if (cut) {                       /* (else 0 from kop_init) */
		if ((r = copyin(&val, cut, 4)) < 0 || val != (uint32_t)cutval) {
			spin_unlock(&kop_lock);
			kop_free(op);
			return r < 0 ? -EFAULT : -EINTR;    /* -EINTR: cut before it waited */
		}
		op->cut = cut;
	}
	op->fkey = key;
	if ((key & FSHKEY_TAG) && (r = fkey_pin(myvp()->space, a0, op)) < 0) {
		op->fkey = 0;            /* (not queued yet) */
		spin_unlock(&kop_lock);
		kop_free(op);
		return r;
	}
	op->prio = rt >> 8;              /* (0 but from futex_wait_cut) */
	if (rt & 1) {                    /* (under kop_lock, as a clock set's wake-up) */
		op->wake_ns = rt_boot_ns(a2, now_ns());
		rt_wait_add(op);
	} else if (a2)
		op->wake_ns = now_ns() + MIN(a2, 1UL << 62);
	return kop_wait(op, myvp()->tf);
}

long sys_futex_wait(ARGS)
{
	UNUSED();
	return futex_wait(a0, a1, a2, 0, 0, 0);
}

long sys_futex_wait_rt(ARGS)
{
	UNUSED();
	return futex_wait(a0, a1, a2, 0, 0, 1);
}

/* A user word a thread's waits may be cut by (SYS_futex_wait_cut,
   SYS_wait_cut): 4-aligned, in the user half. */
static long cut_ok(uint64_t cut)
{
	if (cut % 4)
		return -EINVAL;
	return user_range_ok(cut, 4) ? 0 : -EFAULT;
}

long sys_futex_wait_cut(ARGS)
{
	UNUSED();
	long r = a5 & ~(1 | FUTEX_PRIO(0xff)) ? -EINVAL : cut_ok(a3);
	return r ? r : futex_wait(a0, a1, a2, a3, a4, (int)a5);
}

long sys_wait_cut(ARGS)
{
	UNUSED();
	long r = cut_ok(a0);
	return r ? r : kop_cut(myvp()->space, a0);
}

long sys_futex_wake(ARGS)
{
	UNUSED();
	uint64_t key;
	long r = futex_key(a0, &key);
	if (r < 0)
		return r;
	return futex_wake_key(key, (int)MIN(a1, 0x7fffffffUL), myvp()->space);
}
