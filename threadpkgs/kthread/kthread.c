/*
 * kthread: the kernel-level baseline package. Every thread is its own VP
 * (a classic one: no upcalls), scheduled, preempted and blocked by the
 * kernel. It implements the standard interface (<animart/thread.h>), so the same
 * programs, the same sync objects and the conformance suite run on it
 * unchanged, and threads of other packages can block and wake its threads.
 *
 *  - block: publish PARK_PARKED, then futex-wait on the park word (keyed
 *    by physical address) until an unblock moves it back to PARK_RUN.
 *    The kernel blocks the whole VP, i.e. exactly this thread.
 *  - unblock: the generic layer already moved PARKED -> RUN; wake the VP.
 *  - yield: SYS_yield.
 *  - exit: SYS_vp_exit. The VP's slot, kernel stack and shared pages are
 *    reclaimed by the kernel; its user stack and descriptor by free().
 *
 * Exit/free handshake: the exiting VP runs on the user stack that free()
 * will release, so the last thing it does in user mode is, in a few
 * instructions of inline asm, store `gone` = 1 and enter SYS_vp_exit,
 * touching neither its stack nor the descriptor after the store. free()
 * waits for `gone` and only then recycles both. (The VP may still be in
 * the kernel at that point; the kernel never touches the user stack.)
 *
 * Descriptors are type-stable: free() puts them (with their stacks) on
 * the package's own free list, never back to malloc. A waker may still
 * call thread_unblock() on a thread that has exited and been joined:
 * sync.c's grant() publishes `granted` before calling thread_unblock(),
 * and a waiter that sees `granted` without blocking can return, exit and
 * be freed in between. On a recycled kthread descriptor that is only a
 * spurious permit or wake-up, which every waiter tolerates (it waits in a
 * loop on its condition); on memory handed back to malloc it would be a
 * write into someone else's data.
 */
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animart/pkg.h>
#include <animart/tls.h>
#include <animart/clock.h>
#include <animart/intr.h>

/* A small-class block (<= malloc's SMALL_MAX with its header), so stacks
   are recycled through malloc's free list instead of a map/unmap pair
   per thread. */
#define STACK_SIZE   (64 * 1024 - 16)
#define CREATE_TRIES 200     /* vp_create retries while exiting VPs drain */
#define POOL_STACKS  256     /* free descriptors that keep their stacks */

struct kthread {
	struct thread t;             /* first: the standard descriptor */
	void *(*fn)(void *);
	void *arg;
	char *stack;                 /* 0 for the thread that called run() */
	uint64_t size;               /* of the stack */
	uint64_t fsbase;             /* its TLS block's TCB, at the stack's top (0: none) */
	int user_stack;              /* stack is the program's (pthread_attr_setstack) */
	volatile uint32_t gone;      /* 1 once the VP has left user mode for good */
	uint64_t cpu_base;           /* its VP slot's CPU time as it started (kt_cputime) */
	struct kthread *next;        /* on the free list */
};

static const struct thread_ops kt_ops;

/* Free descriptors (see the top): never returned to malloc. */
static struct spin pool_lock;
static struct kthread *pool;
static int pool_stacks;              /* how many on the list have a stack */

static struct kthread *pool_get(void)
{
	spin_lock(&pool_lock);
	struct kthread *k = pool;
	if (k) {
		pool = k->next;
		pool_stacks -= k->stack != 0;
	}
	spin_unlock(&pool_lock);
	return k;
}

static void pool_put(struct kthread *k)
{
	if (k->user_stack) {             /* the program's: it may free it now */
		k->stack = 0;
		k->size = 0;
		k->user_stack = 0;
	}
	spin_lock(&pool_lock);
	if (k->stack && pool_stacks >= POOL_STACKS) {
		spin_unlock(&pool_lock);
		stack_free(k->stack, k->size);   /* stacks may go; the descriptor may not */
		k->stack = 0;
		spin_lock(&pool_lock);
	}
	pool_stacks += k->stack != 0;
	k->next = pool;
	pool = k;
	spin_unlock(&pool_lock);
}

/* The new VP starts here: rdi = descriptor, rsi = its VP page, rsp = the
   stack top. Realign (a C function expects rsp+8 to be 16-aligned at
   entry) and call kthread_start; a zero frame pointer ends backtraces. */
void kthread_entry(void);
__attribute__((noreturn)) void kthread_start(struct kthread *k, struct vp_page *vpp);
__asm__(".text\n"
	".globl kthread_entry\n"
	"kthread_entry:\n"
	"	xor %ebp, %ebp\n"
	"	and $-16, %rsp\n"
	"	call kthread_start\n"
	"	ud2\n");

void kthread_start(struct kthread *k, struct vp_page *vpp)
{
	/* A slot keeps its CPU time across its VPs (<anima/vp.h>): the
	   thread's starts here. Before vpp, which tells readers it is set. */
	k->cpu_base = vp_cpu_self_ns();
	__atomic_store_n(&k->t.vpp, vpp, __ATOMIC_RELEASE);
	vpp->current_thread = (uint64_t)&k->t;
	intr_on();                       /* a signal interrupts it (kt_interrupt) */
	if (k->fsbase)
		tls_set_fsbase(k->fsbase);   /* the kernel keeps it with the VP */
	thread_exit(k->fn(k->arg));
}

static struct thread *kt_create(void *(*fn)(void *), void *arg, const struct thread_attr *attr)
{
	uint64_t size = (attr && attr->stack_size ? (attr->stack_size + 15) & ~15UL :
			 thread_stack_default ? (thread_stack_default + 15) & ~15UL : STACK_SIZE) +
			tls_area();         /* its TLS block on top */
	char *user = attr ? attr->stack_addr : 0;   /* the program's own stack */
	if (user && attr->stack_size < tls_area() + 4096)
		return 0;
	if (user)
		size = attr->stack_size;     /* the TLS block goes inside it */
	struct kthread *k = pool_get();
	if (!k && !(k = calloc(1, sizeof *k)))
		return 0;
	if (user && k->stack) {
		stack_free(k->stack, k->size);   /* this one runs on the program's */
		k->stack = 0;
	} else if (k->stack && k->size != size) {
		stack_free(k->stack, k->size);   /* another size */
		k->stack = 0;
	}
	char *stack = user ? user : k->stack ? k->stack : stack_alloc(size);
	k->user_stack = user != 0;
	if (!stack) {
		pool_put(k);
		return 0;
	}
	thread_init(&k->t, &kt_ops);
	k->t.pkg = k;
	k->fn = fn;
	k->arg = arg;
	k->stack = stack;
	k->size = size;
	k->gone = 0;
	uint64_t below;
	k->fsbase = tls_place(stack, STACK_BYTES(size), &below);
	k->t.tcb = (void *)k->fsbase;
	uint64_t top = ((uint64_t)stack + below) & ~15UL;
	/* A VP whose thread has exited holds its slot until the kernel has
	   switched off it, just after its `gone` store: when every slot is
	   taken, give those a moment before reporting failure. */
	for (int i = 0; i < CREATE_TRIES; i++) {
		long r = syscall3(SYS_vp_create, (uint64_t)kthread_entry, top, (uint64_t)k);
		if (r >= 0)
			return &k->t;
		if (r != -ENOMEM)
			break;
		sys_yield();
	}
	pool_put(k);
	return 0;
}

static void kt_block(struct thread *self)
{
	if (!thread_park_commit(self))
		return;                  /* a permit was waiting */
	while (__atomic_load_n(&self->park, __ATOMIC_ACQUIRE) == PARK_PARKED)
		intr_waited(syscall3(SYS_futex_wait, &self->park, PARK_PARKED, 0));
	thread_async_back(self);
}

/* t is out of PARKED already (thread_unblock did it). If t saw that and
   went on before this wake, the wake is spurious for whatever waits on
   the word then; every futex waiter rechecks its condition, and
   descriptors live in malloc memory, which stays mapped. */
static void kt_unblock(struct thread *t)
{
	syscall3(SYS_futex_wake, &t->park, 1, 0);
}

static void kt_yield(struct thread *self)
{
	(void)self;
	sys_yield();
}

/* A kthread cannot tell the joiner after leaving its stack (it leaves it
   by leaving user mode), so it does so just before; free() then waits for
   `gone`, and the kernel, which schedules every kthread, makes sure the
   exiting VP gets a processor to reach it: no livelock either way. */
__attribute__((noreturn)) static void kt_exit(struct thread *self)
{
	struct kthread *k = (struct kthread *)self;
	thread_exited(self);
	/* From the store on, nothing may touch the stack or *k. */
	__asm__ volatile("movl $1, (%1)\n\t"
			 "syscall\n\t"
			 "ud2"
			 :
			 : "a"((long)SYS_vp_exit), "r"(&k->gone)
			 : "rcx", "r11", "memory");
	__builtin_unreachable();
}

static void kt_free(struct thread *t)
{
	struct kthread *k = (struct kthread *)t;
	if (!k->stack)
		return;                  /* the run() thread: nothing was allocated */
	/* A copy in a fork's child of a thread that was exiting at the fork
	   (JOIN_DONE stored, `gone` not yet) has no VP here to store it:
	   nothing runs on its stack, so it is gone already (before, the
	   child's next pthread_create, reaping it, waited for good: 1 boot
	   in ~25 of forklock on kthread-2 hung in a child). */
	while (!__atomic_load_n(&k->gone, __ATOMIC_ACQUIRE) && thread_lives(t)) {
		if (thread_self())
			thread_yield();      /* the caller may be of any package */
		else
			sys_yield();
	}
	pool_put(k);
}

/* A thread is its VP: its CPU time is the VP's since the thread started
   there. Another thread's is read from its VP's pseudo-register page (a
   moment short as that VP leaves a CPU: docs/libc.md); the caller
   checks afterwards that t was still alive (ulib/rt/cpuclock.c), for the
   slot may hold another VP once t has exited. */
static int64_t kt_cputime(struct thread *t)
{
	struct kthread *k = (struct kthread *)t;
	if (t == thread_self())
		return (int64_t)(vp_cpu_self_ns() - k->cpu_base);
	struct vp_page *vpp = __atomic_load_n(&t->vpp, __ATOMIC_ACQUIRE);
	if (!vpp)
		return 0;                /* not started yet */
	uint64_t i = ((uint64_t)vpp - VPPAGE_BASE) / 4096;
	if ((uint64_t)vpp < VPPAGE_BASE || i >= MAXVP)
		return -1;
	const struct pseudo_page *pp = pseudo_page((unsigned)i);
	uint64_t d, c;
	do {                             /* one turn's figures, not two */
		d = __atomic_load_n(&pp->dispatches, __ATOMIC_ACQUIRE);
		c = vp_cpu_ns(pp, now_ns());
	} while (d != __atomic_load_n(&pp->dispatches, __ATOMIC_ACQUIRE));
	return c > k->cpu_base ? (int64_t)(c - k->cpu_base) : 0;
}

/* A signal waits for t (ulib/libc/signal.c): interrupt its VP, which runs
   the handler where t computes (ulib/rt/intr.c). */
static void kt_interrupt(struct thread *t)
{
	struct vp_page *vpp = __atomic_load_n(&t->vpp, __ATOMIC_ACQUIRE);
	if (vpp)
		intr_vp(vpp);
}

/* A fork's child: self is the only thread, on VP 0 (fresh VP page). The
   other threads' descriptors are this space's memory but their VPs are
   not here: they are never freed, as if still running (a join on one
   would wait forever, as POSIX leaves it). */
static void kt_fork_child(struct thread *self)
{
	struct kthread *k = (struct kthread *)self;
	struct vp_page *vpp = vp_self();
	pool_lock.locked = 0;            /* (another thread may have held it at the fork) */
	k->cpu_base = vp_cpu_self_ns();  /* the slot's CPU time starts again */
	k->t.vpp = vpp;
	vpp->current_thread = (uint64_t)&k->t;
	intr_on();                       /* the fresh VP page names no entry yet */
}

static const struct thread_ops kt_ops = {
	.name = PKG_NAME,
	.fork_child = kt_fork_child,
	.block = kt_block,
	.unblock = kt_unblock,
	.yield = kt_yield,
	.exit = kt_exit,
	.free = kt_free,
	.cputime = kt_cputime,
	.interrupt = kt_interrupt,
};

/* nvp is ignored: each thread brings its own VP. */
__attribute__((noreturn)) static void kt_run(int nvp, void *(*fn)(void *), void *arg)
{
	(void)nvp;
	static struct kthread first;
	thread_pkgs_on = 1;              /* current_thread is a struct thread now (spin_owner) */
	thread_init(&first.t, &kt_ops);
	first.t.pkg = &first;
	struct vp_page *vpp = vp_self();
	first.t.vpp = vpp;
	first.t.tcb = tls_tcb();             /* the VP's own block (tls_setup) */
	vpp->current_thread = (uint64_t)&first.t;
	intr_on();
	exit((int)(intptr_t)fn(arg));
}

/* Nothing to add: VPs come and go with threads. */
static int kt_add_vps(int n)
{
	(void)n;
	return 0;
}

const struct pkg PKG_SELF = {
	.name = PKG_NAME,
	.attrs = PKG_ATTR_STACK,             /* priorities: the kernel's business */
	.run = kt_run,
	.create = kt_create,
	.add_vps = kt_add_vps,
};
