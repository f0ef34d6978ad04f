/*
 * Interrupts of classic VPs (kernel/intr.c, ulib/rt/intr.S): how kthread's
 * threads and naive's VPs, which take no upcalls, are interrupted where
 * they compute, so that a POSIX signal for them runs its handler there
 * (docs/posix.md). intr_on makes the calling VP take them; a package's
 * thread_ops.interrupt then sends its VP an event (SYS_vp_signal).
 */
#include <animart/sys.h>
#include <animart/thread.h>
#include <animart/upcall.h>
#include <animart/intr.h>
#include <animart/spin.h>
#include <animart/vprt.h>
#include <animart/fault.h>

void intr_entry(void);

volatile int thread_proc_sigs;
volatile int thread_kern_sigs;
volatile unsigned thread_outside_sigs;
volatile uint64_t intr_taken;

void intr_on(void)
{
	vp_self()->intr_entry = (uint64_t)intr_entry;
}

/* Interrupt the VP whose page is vpp (of this space). */
void intr_vp(struct vp_page *vpp)
{
	uint64_t i = ((uint64_t)vpp - VPPAGE_BASE) / 4096;
	if ((uint64_t)vpp >= VPPAGE_BASE && i < MAXVP)
		syscall2(SYS_vp_signal, i, 0);
}

/* Interrupt every other VP of the space, of every package: upcall VPs
   take an upcall (the runtime then looks at thread_proc_sigs), classic
   ones that asked for interrupts enter intr_entry, the rest ignore it.
   VP indices stay below the pseudo page's nvp (the highest made, plus
   one); a free index answers -ESRCH. */
void intr_all(void)
{
	const struct pseudo_page *pp = vp_pseudo();
	uint32_t me = pp->vp_index, n = pp->nvp;
	for (uint32_t i = 0; i < n && i < MAXVP; i++)
		if (i != me)
			syscall2(SYS_vp_signal, i, 0);
}

/*
 * The calling thread's kernel wait (a futex, or a pipe's) ended with
 * -EINTR: the kernel cut it short for a signal from another process
 * (kernel/kop.c) and spent on it this VP's sigwake, its one wake-up per
 * announcement; the kernel tells no more until a take. The VP's
 * interrupt for that signal may have come before the thread parked,
 * where intr_run fetches nothing (a spin lock held, a POSIX wait's
 * async_hold, the park word still RUN), so nobody may have fetched it:
 * fetch it here, whatever the state, as intr_run does for a parked
 * thread, and hand it to a thread that takes it, woken (this one too:
 * its wait then sees a handler due). That closes the window for good:
 * the wait that spends the sigwake is the one that fetches. (The other
 * way, the kernel keeping sigwake until a take, would make every wait
 * of the VP end at once until then: a spin, and still no fetch.)
 * Not after a wait of a VP's own loop (rt_sched.c, no thread), which
 * looks again itself. A fetch under way elsewhere or the signal lock
 * held: try again, letting the holder run (a thread that waits holds
 * none of the library's locks, and a holder, inside a spin lock, is not
 * switched out: it runs on another VP). A wait that ended so without
 * cause (nothing to take) costs one SYS_sigtake.
 */
void intr_cut(void)
{
	__atomic_store_n(&thread_kern_sigs, 1, __ATOMIC_SEQ_CST);
	if (thread_signal_dispatch)
		while (thread_signal_dispatch() < 0)
			sys_yield();
}

/* On the interrupted thread's stack, enabled (intr_entry). A signal
   handler waits for the thread, or the program has a signal pending that
   some thread must take (thread_proc_sigs): run what is due, as the
   runtime does when it resumes an interrupted thread (thread_signal_hook).
   Not inside a spin lock, a wait of the POSIX layer (async_hold) or a
   block (park word not RUN): the thread takes it at its next wait, yield
   or unblocking, as before. (A permit is no block: the post's unblock
   leaves one on a running thread.) A blocked thread, or none, hands
   signals from other processes to threads that take them, woken
   (thread_signal_dispatch): the kernel cut its wait short for them. */
void intr_run(struct uctx *ctx);
void intr_run(struct uctx *ctx)
{
	fault_intr(ctx);                 /* a fault of ctx first: the handler runs here */
	intr_taken++;
	thread_kern_sigs = 1;            /* (it may be the kernel's EV_PSIG: look) */
	thread_proc_sigs = 1;
	int slice = rt_slice_passed();   /* (cleared even if no thread runs: rt_due.c) */
	struct thread *t = thread_self();
	int park = t ? __atomic_load_n(&t->park, __ATOMIC_ACQUIRE) : PARK_PARKED;
	/* No thread here, or it is blocked (the kernel cut its wait short
	   for a signal from another process, kernel/kop.c): give what came
	   to threads that take it, woken from their waits (this one too).
	   With a blocked thread, the lock dispatch wants is held by a thread
	   that runs (a classic VP blocked in the kernel is blocked whole):
	   wait for it. With none, the holder may be the code interrupted
	   here, this VP's own loop (rt_sched.c) inside its dispatch: waiting
	   would never end (naive's idle VP spun here for good, the signal
	   never taken). That loop looks again (thread_kern_sigs) before it
	   idles, so one try is enough. */
	if ((!t || (!t->crit && park != PARK_RUN && park != PARK_PERMIT)) && thread_signal_dispatch)
		while (thread_signal_dispatch() < 0 && t)
			__builtin_ia32_pause();
	if (!t)
		return;
	if (park != PARK_RUN && park != PARK_PERMIT)
		return;
	/* A user-level timed wait's deadline passed, or a time slice is
	   over (rt_due.c): a turn for the others,
	   now or at the spin_unlock that ends this thread's spin locks */
	int turn = rt_due_passed() | slice;
	if (__builtin_expect(rt_band_intr != 0, 0) && rt_band_intr(t))
		turn = 1;                /* a higher level waits (rt_band.c) */
	if (turn) {
		if (!t->crit)
			thread_yield();
		else if (!t->yield_due)
			t->yield_due = YIELD_DUE_THREAD;
	}
	if (t->crit) {                   /* (a cancel or handler due: at spin_unlock) */
		spin_defer_intr(t);
		return;
	}
	/* An asynchronous cancel due (pthread_cancel interrupted us): end
	   here, as an upcall package's thread is redirected (rt_sched.c);
	   the hook holds it back while a wait's node is queued (async_hold) */
	void (*end)(void) = thread_async_hook ? (void (*)(void))thread_async_hook(t) : 0;
	if (end)
		end();                   /* noreturn: the interrupted frame is left */
	if (!thread_signal_hook || t->async_hold)
		return;
	if ((t->sigpend & SIGPEND_WAITING) || thread_proc_sigs)
		thread_signal_hook(t);
}
