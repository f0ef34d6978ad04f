/*
 * fork, vfork and pthread_atfork. SYS_fork (kernel/fork.c) makes a child
 * space with a copy-on-write copy of this one, in which only the calling
 * thread lives, on one fresh VP (index 0, no upcalls registered). Here
 * the child's thread package is started again on that VP with the caller
 * as its only thread (thread_ops.fork_child: the runtime's
 * rt_fork_child, or kthread's), so it is the same package, with one VP.
 * A native program (no package) needs nothing: it runs on its VP as it
 * did. vfork is fork (the child gets a copy, not the parent's memory).
 *
 * Around it, the handlers of pthread_atfork: prepare in the reverse
 * order of registration, then parent or child in the order. As in POSIX,
 * the child may find a lock another thread held at the fork still
 * taken: a program that forks while other threads run should call only
 * async-signal-safe functions in the child, or take its locks in a
 * prepare handler.
 */
#include <unistd.h>
#include <errno.h>
#include <pthread.h>
#include <animart/sys.h>
#include <animart/thread.h>
#include <animart/upcall.h>
#include <animart/spin.h>
#include <animart/fence.h>

#define ATFORK_MAX 64                /* as many as glibc programs register in practice */

static struct atfork {
	void (*prepare)(void), (*parent)(void), (*child)(void);
} fns[ATFORK_MAX];
static volatile int nfns;
static struct spin fns_lock;

int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	int r = ENOMEM;
	spin_lock_by(&fns_lock, 0);
	if (nfns < ATFORK_MAX) {
		fns[nfns] = (struct atfork){ prepare, parent, child };
		__atomic_store_n(&nfns, nfns + 1, __ATOMIC_RELEASE);
		r = 0;
	}
	spin_unlock_by(&fns_lock, 0);
	thread_turn();                   /* (det: a turn, as a lock's unlock: a loop on it lets a sleeper wake) */
	return r;
}

/* phase 0: prepare (last registered first); 1: parent; 2: child. */
static void run_handlers(int phase)
{
	int n = __atomic_load_n(&nfns, __ATOMIC_ACQUIRE);
	for (int k = 0; k < n; k++) {
		struct atfork *a = &fns[phase ? k : n - 1 - k];
		void (*f)(void) = phase == 0 ? a->prepare : phase == 1 ? a->parent : a->child;
		if (f)
			f();
	}
}

__attribute__((weak)) void __pipe_changed(void);   /* ulib/libc/pipe.c */
__attribute__((weak)) void __pipe_forked(void);
__attribute__((weak)) void __pt_fork_child(void);   /* pthread.c */
__attribute__((weak)) void __sig_fork(int phase);   /* ulib/libc/signal.c */
__attribute__((weak)) void __timer_forked(void);    /* ulib/libc/timer.c */
__attribute__((weak)) void __aio_forked(void);      /* ulib/libc/aio.c */
__attribute__((weak)) void __cpu_time_forked(void); /* ulib/libc/time.c */
__attribute__((weak)) void __psh_forked(void);      /* pshown.c */
__attribute__((weak)) void __sysvshm_forked(void); /* ulib/libc/sysvshm.c */
__attribute__((weak)) void __fd_fork(int phase);     /* ulib/libc/fd.c */
__attribute__((weak)) void __cwd_fork(int phase);    /* ulib/libc/cwd.c */
__attribute__((weak)) void __atexit_fork(int phase); /* ulib/libc/start.c */
__attribute__((weak)) void __stdio_forked(void);     /* ulib/libc/stdio.c */

__attribute__((weak)) void __malloc_fork(int phase); /* ulib/libc/malloc.c */
__attribute__((weak)) void __ff_forked(void);         /* ulib/libc/ffile.c */
__attribute__((weak)) void __futex_forked(void);      /* ulib/libc/futex.c */
__attribute__((weak)) void __bigatomic_fork(int phase, struct thread *t);  /* ulib/libc/atomic.c */
__attribute__((weak)) void rt_desc_fork(int phase);   /* ulib/rt/desc.c */

/* The library's spin locks that fork holds across the copy, in this
   order (the reverse to let go), so that the child finds none of them
   taken by a thread it has not got (glibc's child can use malloc,
   stdio, the environment; real programs rely on it):
     1. the atfork handlers' prepare (they may use all of the below);
     2. the locks under which malloc or the signal locks are taken:
        main's (pthread.c __main_lk: a timer's post holds it across
        __sig_post_timer), the environment's (setenv), popen's list
        (its spawn's file actions);
     3. the signal code's, the fetch's then the table's (__sig_fork);
     4. the leaf locks, under which nothing else is taken: the
        descriptor table's, the working directory's, the exit list's
        (their own functions), then tmpfile's names, rand's, rand48's,
        syslog's, pthread keys', the thread CPU clocks' table
        (cpuclock.c), and last the big atomics' 64 (atomic.c: a
        program's __atomic_* calls on objects of other sizes than 1,
        2, 4, 8, 16; only a memcpy under them);
     5. malloc's class locks (__malloc_fork; software interrupts off
        from here to the parent or child), last: their holders run
        with software interrupts off, so none is ever switched out
        holding one. The locks before are threads' (crit), and a
        holder may be off its VP (blocked in the kernel by a fault):
        taken with software interrupts off, the forking thread would
        spin on one with no way to let a holder queued on its own VP
        run (one forklock boot of some 240, fifo-2, hung with a VP
        spinning there, software interrupts off; likely this);
     6. with software interrupts off (as its users, rt_create, take
        it), just around the kernel's copy: the runtime's descriptor
        slab (ulib/rt/desc.c), let go in the child before its package
        starts again.
   Not held but reset in the child with what they guard (the state is
   the parent's other threads', which the child has not got): stdout's
   line lock, the stream list and every stream's flockfile lock
   (stdio.c, ffile.c), the atfork table's, the pipes' kernel pollers'
   (pipe.c), the timers' and interval timers' (timer.c, itimer.c), the
   futex buckets' (futex.c), pthread_once's (pthread.c: also its fork
   generation, so a routine running at the copy runs again), the det
   waiters' list (ulib/rt/ownwait.c, through pshown.c), and the
   packages' own (thread_ops.fork_child: the runtime's VP list and
   pool, each policy's queues, kthread's pool). Not the locks inside a
   program's own mutexes, conditions and the like: as on Linux, a
   program that forks while threads use them must take them in a
   prepare handler. Each lock is weak: a program without the file has
   none. */
extern struct spin __env_lk __attribute__((weak)), __popen_lk __attribute__((weak)),
	__tmpfile_lk __attribute__((weak)), __rand_lk __attribute__((weak)),
	__rand48_lk __attribute__((weak)), __syslog_lk __attribute__((weak)),
	__keys_lk __attribute__((weak)), __main_lk __attribute__((weak)),
	__clk_lk __attribute__((weak));

/* The holder of the spin locks below (spin_owner at phase 0). */
static struct thread *holder;

static void hold(struct spin *const *l, int n, int phase)
{
	for (int i = 0; i < n; i++) {
		struct spin *k = l[phase ? n - 1 - i : i];
		if (!k)
			continue;
		if (phase == 0)
			spin_lock_by(k, holder);
		else
			spin_unlock_by(k, holder);
	}
}

static void malloc_users(int phase)
{
	struct spin *const l[] = { &__main_lk, &__env_lk, &__popen_lk };
	hold(l, 3, phase);
}

static void leaf_locks(int phase)
{
	void (*f[])(int) = { __fd_fork, __cwd_fork, __atexit_fork };
	struct spin *const l[] = { &__tmpfile_lk, &__rand_lk, &__rand48_lk, &__syslog_lk, &__keys_lk,
				   &__clk_lk };
	if (phase) {
		if (__bigatomic_fork)
			__bigatomic_fork(phase, holder);
		hold(l, 6, phase);
	}
	for (int i = 0; i < 3; i++) {
		void (*g)(int) = f[phase ? 2 - i : i];
		if (g)
			g(phase);
	}
	if (!phase) {
		hold(l, 6, phase);
		if (__bigatomic_fork)
			__bigatomic_fork(phase, holder);
	}
}

pid_t fork(void)
{
	FENCED(fork());                  /* det=par: in the caller's turn (threadpkgs/det/par.c) */
	struct thread *self = thread_pkgs_on ? thread_self() : 0;
	if (self && !self->ops->fork_child) {
		errno = ENOSYS;                  /* a package that cannot start again */
		return -1;
	}
	run_handlers(0);
	holder = spin_owner();
	malloc_users(0);
	if (__sig_fork)
		__sig_fork(0);                   /* the signal locks held across the copy */
	leaf_locks(0);
	if (__malloc_fork)
		__malloc_fork(0);
	int was = 1;
	/* Software interrupts off across the call: the thread must not move
	   to another VP between the kernel's copy and the child's restart. */
	struct vp_page *vpp = self ? vp_disable_save_self(&was) : 0;
	if (self && rt_desc_fork)
		rt_desc_fork(0);
	long r = sys_fork();
	if (self && rt_desc_fork)
		rt_desc_fork(r == 0 ? 2 : 1);
	if (r == 0) {
		if (self) {
			thread_forked(self);             /* the others are copies here */
			self->ops->fork_child(self);     /* VP 0, registered anew: disabled */
			if (!was)
				vp_enable_self();
		}
		fns_lock.locked = 0;
		leaf_locks(2);
		if (__stdio_forked)
			__stdio_forked();        /* the standard streams' locks free */
		if (__ff_forked)
			__ff_forked();           /* the other streams' */
		if (__pt_fork_child)
			__pt_fork_child();       /* one thread lives here */
		if (__sig_fork)
			__sig_fork(2);           /* the locks free, the others' signal slots go */
		if (__pipe_forked)
			__pipe_forked();         /* our pipes are shared: no wait here trusts what it knew */
		if (__timer_forked)
			__timer_forked();        /* no timers of the parent's: POSIX */
		if (__aio_forked)
			__aio_forked();          /* nor its asynchronous I/O requests */
		if (__cpu_time_forked)
			__cpu_time_forked();     /* its processor time from 0 */
		if (__psh_forked)
			__psh_forked();          /* the others' process-shared waits are copies */
		if (__futex_forked)
			__futex_forked();        /* and their futex waits */
		if (__malloc_fork)
			__malloc_fork(2);
		malloc_users(2);
		if (__sysvshm_forked)
			__sysvshm_forked();      /* System V segments attached: one more each (it
						    opens and maps files: every lock free, as for a handler) */
		run_handlers(2);
		return 0;
	}
	if (self)
		vp_restore(vpp, was);
	leaf_locks(1);
	if (__sig_fork)
		__sig_fork(1);
	if (r > 0 && __pipe_changed)
		__pipe_changed();                /* our pipes' waiters: shared now, they wait in the kernel */
	if (__malloc_fork)
		__malloc_fork(1);
	malloc_users(1);
	run_handlers(1);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (pid_t)r;
}

pid_t vfork(void)
{
	return fork();
}
