/*
 * The VP runtime (<animart/vprt.h>), part 3: VPs joining a package, the package's
 * start, and thread creation from the descriptor and stack pool.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/vprt.h>
#include <animart/tls.h>
#include <animart/intr.h>

/* Creating and joining are measured in instructions (make bench): no
   frame pointer, as in rt_switch.c. */
#pragma GCC optimize("omit-frame-pointer")


#define BOOT_STACK (16 * 1024)          /* a new VP's first few calls */

/* n zeroed bytes: from malloc, or (in a fork's child, where malloc's
   locks stay held until the child's atfork handlers run) mapped. */
static void *take(size_t n, int mapped)
{
	if (!mapped)
		return calloc(1, n);
	void *m = sys_map(0, n, PROT_READ | PROT_WRITE);
	return sys_failed((long)m) ? 0 : m;
}

/* The calling VP joins package p (software interrupts off). */
static struct rtvp *adopt_vp(struct rtpkg *p, int mapped)
{
	int idx = vp_index();
	struct rtvp *v = take(p->vp_size ? p->vp_size : sizeof *v, mapped);
	if (!v) {
		printf("%s: out of memory for VP %d\n", p->ops.name, idx);
		exit(70);
	}
	v->pkg = p;
	v->index = idx;
	if (p->classic) {
		/* No upcalls: the kernel blocks the whole VP on a blocking call
		   and sends it no events. (A fresh VP page is all zero already;
		   this says so, and undoes any earlier owner.) */
		v->vpp = vp_self();
		v->vpp->upcall_entry = 0;
		v->vpp->warn_ns = 0;
		v->vpp->want_preempted = 0;
		v->vpp->current_thread = 0;
		intr_on();           /* but signals interrupt it (ulib/rt/intr.c) */
		if (!(v->sched_stack = mapped ? take(RT_SCHED_STACK, 1) : malloc(RT_SCHED_STACK))) {
			printf("%s: out of memory for VP %d\n", p->ops.name, idx);
			exit(70);
		}
	} else {
		v->vpp = upcall_register(idx, rt_upcall, RT_SCHED_STACK);
		if (!v->vpp) {
			printf("%s: cannot register upcalls on VP %d\n", p->ops.name, idx);
			exit(70);
		}
		v->sched_stack = (char *)v->vpp->upcall_stack - RT_SCHED_STACK;
	}
	p->ncpu = (int)sys_getinfo(INFO_NCPU);
	if (p->init_vp)
		p->init_vp(v);
	v->vpp->user_data[VPP_PKG] = (uint64_t)v;
	spin_lock_by(&p->vps_lock, 0);
	p->vps[p->nvps] = v;         /* published before it is counted */
	__atomic_store_n(&p->nvps, p->nvps + 1, __ATOMIC_RELEASE);
	spin_unlock_by(&p->vps_lock, 0);
	return v;
}

/* A fork's child (thread_ops.fork_child): self runs on VP 0 with a fresh
   VP page, and is the package's only thread. The runtime forgets the
   parent's VPs (their pages are not mapped here) and its idle count,
   unlocks what another thread may have held at the fork, lets the policy
   empty its queues, joins VP 0 as at start, and makes self its running
   thread, its CPU time 0. Software interrupts stay off (the caller
   enables them). The pool of finished descriptors is kept: it is this
   space's memory. No malloc here: the fork holds its locks until the
   child's handlers. */
void rt_fork_child(struct thread *st)
{
	struct uthread *self = (struct uthread *)st;
	struct rtpkg *p = (struct rtpkg *)st->ops;    /* (ops is first in it) */
	memset(p->vps, 0, sizeof p->vps);
	p->nvps = 0;
	p->vps_lock.locked = p->pool_lock.locked = 0;
	p->nidle = 0;
	p->wake_seq = 0;
	p->started = 1;
	if (p->fork_reset)
		p->fork_reset();
	rt_band_fork(p);
	struct rtvp *v = adopt_vp(p, 1);
	self->lc.busy = 0;
	/* Its CPU time from 0 (POSIX: a child's times are zero). The stint
	   it was in began on the parent's VP clock, far past this fresh
	   VP's: a reading came out negative, and clock_gettime of its
	   thread clock failed with EINVAL in every child (forklock). */
	self->cpu_ns = self->cpu_in = 0;
	self->t.vpp = v->vpp;
	v->vpp->current_thread = (uint64_t)&self->t;
}

static void vp_entry(void *arg)
{
	rt_sched_enter(adopt_vp(arg, 0), 0);
}

int rt_add_vps(struct rtpkg *p, int n)
{
	for (int i = 0; i < n; i++) {
		char *stack = malloc(BOOT_STACK);
		uint64_t rsp = (((uint64_t)stack + BOOT_STACK) & ~15UL) - 8;   /* as if called */
		if (!stack || syscall3(SYS_vp_create, (uint64_t)vp_entry, rsp, (uint64_t)p) < 0) {
			free(stack);
			return i;
		}
	}
	return n;
}

/* First code of every thread. */
static void trampoline(void *arg)
{
	struct uthread *t = arg;
	vp_enable_self();                /* (its switch is finished already) */
	thread_exit(t->fn(t->arg));
}

/* A finished descriptor from the pool, or 0. (Inline: on every create,
   counted in instructions, make bench.) */
static inline __attribute__((always_inline)) struct uthread *pool_pop(struct rtpkg *p)
{
	struct uthread *t = 0;
	if (p->pool) {               /* software interrupts are off */
		spin_lock_by(&p->pool_lock, 0);
		t = __atomic_load_n(&p->pool, __ATOMIC_ACQUIRE);
		while (t && !__atomic_compare_exchange_n(&p->pool, &t, t->next, 0,
							 __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
			;
		spin_unlock_by(&p->pool_lock, 0);
	}
	return t;
}

/* A descriptor to run on the program's own stack (thread_attr.stack_addr):
   stackless (one from the pool gives up the stack it had), so nothing
   of the program's is kept when it goes back to the pool. */
static __attribute__((noinline)) struct uthread *pool_get_user(struct rtpkg *p)
{
	struct uthread *t = pool_pop(p);
	if (t)
		stack_free(t->stack, t->stack_size);
	else if (!(t = rt_desc_new()))
		return 0;
	t->stack = 0;
	t->stack_size = 0;
	return t;
}

/* A descriptor with a stack of `size` bytes: from the pool, else new. */
static struct uthread *pool_get(struct rtpkg *p, uint64_t size)
{
	struct uthread *t = pool_pop(p);
	if (t && t->stack_size == size)
		return t;
	int reused = t != 0;
	if (t)
		stack_free(t->stack, t->stack_size);   /* another size (the descriptor stays type-stable) */
	else if (!(t = rt_desc_new()))          /* (zero CPU-time fields: rt_cputime) */
		return 0;
	if (!(t->stack = stack_alloc(size))) {
		if (reused) {
			t->stack_size = 0;
			rt_free(&t->t);  /* back to the pool, stackless */
		} else
			rt_desc_drop(t); /* never published: the next create may have it */
		return 0;
	}
	t->stack_size = size;
	return t;
}

/* The create after the descriptor: t runs fn(arg) on stack (0: its own),
   size bytes with the TLS block on top. vpp and was: from
   vp_disable_save_self. */
static inline __attribute__((always_inline)) struct thread *
create_on(struct rtpkg *p, struct uthread *t, char *stack, void *(*fn)(void *), void *arg,
	  const struct thread_attr *attr, uint64_t size, struct vp_page *vpp, int was)
{
	if (!t) {
		vp_restore(vpp, was);
		return 0;
	}
	thread_init(&t->t, &p->ops);     /* a new id first: a reader of the old one's clock fails */
	t->t.pkg = t;
	if (attr) {                      /* kept even where ignored: <animart/sync.h>'s ceilings */
		int pr = attr->prio;
		t->t.prio = pr < THREAD_PRIO_MIN ? THREAD_PRIO_MIN : pr > THREAD_PRIO_MAX ? THREAD_PRIO_MAX : pr;
		if (t->t.prio > THREAD_PRIO_MIN)
			rt_band_need(p);     /* before t is queued */
	}
	t->fn = fn;
	t->arg = arg;
	t->next = 0;
	t->tw_due = 0;
	if (!stack)
		stack = t->stack;        /* (a constant test where inlined) */
	uint64_t below;
	uint64_t fs = tls_place(stack, size, &below);
	lctx_make(&t->lc, stack, below, trampoline, t);
	t->lc.fsbase = fs;
	t->t.tcb = (void *)fs;
	struct rtvp *v = vp_pkg(vpp);
	rt_make_runnable(p, v && v->pkg == p ? v : 0, t, RQ_NEW);
	if (!was)
		vp_enable_self();        /* (disabled: still on vpp) */
	return &t->t;
}

/* A thread on the program's own stack (thread_attr.stack_addr): the TLS
   block goes inside it, at its top; its descriptor keeps no stack. */
static __attribute__((noinline)) struct thread *
create_user(struct rtpkg *p, void *(*fn)(void *), void *arg, const struct thread_attr *attr)
{
	uint64_t size = attr->stack_size;
	if (size < tls_area() + 4096)
		return 0;                /* no room for the TLS block and a frame */
	int was;
	struct vp_page *vpp = vp_disable_save_self(&was);
	return create_on(p, pool_get_user(p), attr->stack_addr, fn, arg, attr, size, vpp, was);
}

struct thread *rt_create(struct rtpkg *p, void *(*fn)(void *), void *arg,
			 const struct thread_attr *attr)
{
	/* Created from another package before this one runs: bring a VP,
	   or the thread would never run. */
	if (!p->started && !__atomic_exchange_n(&p->started, 1, __ATOMIC_ACQ_REL) &&
	    rt_add_vps(p, 1) != 1)
		return 0;
	if (__builtin_expect(attr && attr->stack_addr, 0))
		return create_user(p, fn, arg, attr);
	uint64_t size = attr && attr->stack_size ? attr->stack_size :
			p->stack_size ? *p->stack_size : RT_STACK;
	size = ((size + 15) & ~15UL) + tls_area();   /* its TLS block on top */
	int was;                         /* (a STACK_GUARD in size stays: the pool's key) */
	struct vp_page *vpp = vp_disable_save_self(&was);
	return create_on(p, pool_get(p, size), 0, fn, arg, attr, STACK_BYTES(size), vpp, was);
}

struct mainarg {
	void *(*fn)(void *);
	void *arg;
};

static void *main_thread(void *a)
{
	struct mainarg *m = a;
	exit((int)(intptr_t)m->fn(m->arg));
}

/* The calling VP becomes the package's first; main_fn runs as its first
   thread. */
void rt_run(struct rtpkg *p, int nvp, void *(*fn)(void *), void *arg)
{
	static struct mainarg m;
	m.fn = fn;
	m.arg = arg;
	/* A program-wide default stack (POSIX programs: thread_stack_default,
	   ulib/rt/stack.c) becomes the package's, main's included: read where
	   every create reads its size, so creates pay nothing for it. */
	if (thread_stack_default)
		p->stack_size = &thread_stack_default;
	p->started = 1;
	thread_pkgs_on = 1;              /* current_thread is a struct thread now (spin_owner) */
	vp_disable_self();
	struct rtvp *v = adopt_vp(p, 0);
	if (!rt_create(p, main_thread, &m, 0)) {
		printf("%s: cannot create the main thread\n", p->ops.name);
		exit(70);
	}
	if (nvp > 1 && rt_add_vps(p, nvp - 1) != nvp - 1)
		printf("%s: could not start all %d VPs\n", p->ops.name, nvp);
	rt_sched_enter(v, 0);
	abort();
}
