/*
 * Turns at the deadlines of timed waits, on packages without time slices.
 *
 * A timed wait on a classic VP (naive) waits at user level, yielding,
 * while other threads can run on its VP (rt_block_until); and on an
 * upcall VP (tutor, prio) its thread waits in the VP's timer queue and
 * is queued at the timer's upcall (rt_tq.c). Either way it runs again
 * only when the thread on the VP stops by itself: behind one that only
 * computes, a sleeper never woke, and alarm's timer thread
 * (ulib/libc/timer.c) never sent its signal (with one VP, never at all). So a deadline is a turn:
 *   - classic VPs: the waiter sets its VP's one-shot user timer (SYS_timer)
 *     for its deadline (once, unless the VP's is set for earlier and has
 *     not passed) and the space's earliest in rt_wait_due; the timer's
 *     event is an interrupt of the VP (kernel/intr.c), and intr_run
 *     (intr.c) has the interrupted thread yield once rt_due_passed;
 *   - upcall VPs: drain (rt_sched.c) switches the running thread out
 *     (RQ_RESCHED) when its VP's timer queue (rt_tq.c) ends a timed
 *     wait, or a thread whose kernel wait ended with its park word still
 *     PARK_TIMED (a pipe's or a lock's, pipe.c, flock.c) comes back, on
 *     packages without time slices of their own (no `event` hook:
 *     fifo's slices already give it a turn).
 * A thread inside a spin lock is not switched out: at its spin_unlock, as
 * for any reschedule. det's timed waits run on its logical time
 * (det_block_until) and take no part.
 */
#include <animart/vprt.h>
#include <animart/clock.h>
#include <animart/sys.h>

#define DUE_TOKEN 0x6475657475726eUL     /* "dueturn" */

static volatile uint64_t rt_wait_due;   /* the earliest armed deadline (0: none) */

/* Set v's timer for at (now: the time read just before), unless it is
   set for no later and has not passed; learn what setting it cost
   (arm_ns, for slice_timer). */
static void due_set(struct rtvp *v, uint64_t at, uint64_t now)
{
	if (!(v->wait_due > now && v->wait_due <= at)) {
		v->wait_due = at;
		syscall2(SYS_timer, at, DUE_TOKEN);
		uint64_t took = now_ns() - now, fade = v->arm_ns - v->arm_ns / 4;
		v->arm_ns = took > fade ? took : fade;
	}
}

/* The calling thread waits at user level on a classic VP until deadline. */
void rt_due_arm(uint64_t deadline)
{
	uint64_t d = __atomic_load_n(&rt_wait_due, __ATOMIC_RELAXED);
	while ((!d || deadline < d) &&
	       !__atomic_compare_exchange_n(&rt_wait_due, &d, deadline, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	int was;
	struct rtvp *v = vp_pkg(vp_disable_save_self(&was));
	due_set(v, deadline, now_ns());
	if (!was)
		vp_enable_self();
}

/* An interrupt (intr_run): 1 if a user-level timed wait's deadline has
   passed, which the interrupted thread then answers with a yield. */
int rt_due_passed(void)
{
	uint64_t d = __atomic_load_n(&rt_wait_due, __ATOMIC_RELAXED);
	if (!d || now_ns() < d)
		return 0;
	__atomic_compare_exchange_n(&rt_wait_due, &d, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return 1;
}

/*
 * Time slices on classic VPs (naive, rtpkg.slice_ns): set by
 * rt_slice_start (rt_tq.c) when a thread is made runnable here, on the
 * VP's one-shot timer, which the timed waits above share: the timer is
 * set for the earlier of the two, and whichever interrupt comes looks at
 * both (a wait's waiter also sets its deadline again at each of its
 * turns). The interrupt has the thread it cut yield (intr_run), as a
 * deadline does. On v, software interrupts off.
 *
 * A slice is the VP's CPU time (vp_cpu_self_ns), not wall time, as
 * Linux's are: a classic VP blocked in the kernel (a thread's sys_sleep,
 * its I/O) is blocked whole, and that wait is no one's turn. With wall
 * time the slice ran out in the sleep and its interrupt, taken at the
 * sleep's return, had the sleeper yield at once: another thread of the
 * VP ran in what the program sees as the block (blockdiff's counter, one
 * step per naive block). The timer is set for when the slice could end
 * at the earliest; an interrupt before the VP has used it up sets the
 * timer again for the rest.
 *
 * Neither is set closer than twice what setting the timer has cost of
 * late (arm_ns, the longest of late, fading by a quarter a setting).
 * Setting it is a system call, which a VP may spend longer in than a
 * slice: under -icount at -smp 2, QEMU takes the CPU whose timer moves
 * earlier off for a share of the time to its next deadline, and
 * SYS_timer took 10 to 60 ms of the boot clock while the other CPU
 * computed. Set for a slice from now, the timer had fired by the
 * call's return, and its interrupt cut the thread just switched in
 * before it ran one instruction of its own; the switch queued the other
 * thread, which set a slice again, fired again: the two threads of the
 * VP took turns for good, neither running (dueyield: a worker that
 * yields stopped, and a 30 ms CLOCK_MONOTONIC timer's thread never sent
 * its signal). Twice the cost leaves the thread at least about the cost
 * itself. A timed wait's deadline is not moved: its interrupt comes once.
 */
volatile int rt_slice_classic;   /* some classic VP has set a slice */

/* How far ahead to set a slice's timer that should end in `rest`. */
static uint64_t slice_lead(const struct rtvp *v, uint64_t rest)
{
	return rest > 2 * v->arm_ns ? rest : 2 * v->arm_ns;
}

void rt_due_slice(struct rtvp *v)
{
	uint64_t now = now_ns();
	rt_slice_classic = 1;
	v->slice_cpu = vp_cpu_self_ns() + v->pkg->slice_ns;
	v->slice_at = now + slice_lead(v, v->pkg->slice_ns);
	due_set(v, v->slice_at, now);
}

/* An interrupt (intr_run): 1 if this VP's slice is over, which the
   thread it cut (if one runs) then answers with a yield. Whatever ran,
   an ended slice is cleared, so the next enqueue sets a new one. */
int rt_slice_passed(void)
{
	if (!rt_slice_classic)
		return 0;
	int was, r = 0;
	struct vp_page *vpp = vp_disable_save_self(&was);
	struct rtvp *v = vp_pkg(vpp);
	if (v && v->vpp == vpp && v->pkg->classic && v->slice_at) {
		uint64_t cpu = vp_cpu_self_ns();
		if (cpu >= v->slice_cpu) {
			struct uthread *cur = (struct uthread *)vpp->current_thread;
			v->slice_at = 0;
			/* (the band's SCHED_FIFO threads run on: rt_band.c) */
			r = !cur || !v->pkg->sliced || v->pkg->sliced(cur);
		} else {         /* a wait's deadline, or time off the CPU: the rest later */
			uint64_t now = now_ns();
			v->slice_at = now + slice_lead(v, v->slice_cpu - cpu);
			due_set(v, v->slice_at, now);
		}
	}
	if (!was)
		vp_enable_self();
	return r;
}
