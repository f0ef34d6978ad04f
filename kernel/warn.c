/*
 * The two-minute warning: its policy, and its posting (warn_due,
 * warn_deliver); sched.c decides when one falls due and keeps the
 * deadline.
 *
 * Warn only when the preemption is real. A warning costs the VP that
 * heeds it: it gives up the rest of its quantum, and its package moves
 * threads away. So when a warning falls due the kernel gives it only if
 * another VP, of any space, is ready for this CPU: queued on it, or on
 * another CPU's queue, from which this one pulls at the quantum's end
 * (sched.c, rotate). If nobody is, no warning: the quantum runs to its
 * end, and if still nobody waits a new one begins, with no warning and
 * no preemption. A VP that becomes ready after the warning time has
 * passed is handled at the quantum's end: the warning is given then,
 * with its full period (the deadline moves, as for any late warning).
 *
 * What ignoring a warning costs. A warned VP still running at its
 * deadline, with someone still waiting, is preempted there (sched.c)
 * and put on probation for its next warn_probation quanta (2; the
 * command-line word warnprobation=K sets it, 0 for none, to measure it):
 *   - it gets no warnings in them: it is preempted without one, wherever
 *     it is (inside a critical section too);
 *   - each ends a period early (quantum - p, p the period of the warning
 *     it ignored, not what it asks for now): no more than a VP that
 *     honors every warning keeps;
 *   - the first also loses the debt d: the time it ran after that
 *     warning was posted (at least p; capped at warn_cap_ns).
 * Beside a VP that honors (quantum - p + r each time, r its reaction
 * time), one that ignores every warning it gets has (quantum - p + d),
 * (quantum - p - d), then quantum - p: over the probation, no more CPU.
 * Without the probation it would keep whole quanta, and more (a late
 * warning moves the deadline); across spaces the vruntime fairness of
 * sched.c evens shares anyway, but not between the VPs of one space.
 * A VP that sets warn_ns to 0 on probation still serves it out.
 *
 * One miss is forgiven after WARN_FORGIVE warnings honored in a row (and
 * a VP's first, as it starts in good standing): the
 * VP is preempted at the deadline all the same, but not put on probation.
 * The kernel cannot tell a VP that ignored its warning from one whose
 * emulated CPU the host stalled through the period (a TCG vCPU is a host
 * thread on a shared machine), and a probation then costs an honest
 * package preemptions inside its critical sections, unwarned. A VP that
 * honors WARN_FORGIVE and ignores the next gains at most one period in
 * WARN_FORGIVE + 1 quanta.
 */
#include "kernel.h"

uint64_t warn_probation = 2;

/* Another VP is ready for c's CPU: on its queue, or on one it pulls from
   at a rotation (any non-empty queue, when its own is empty). */
int warn_contended(struct cpu *c)
{
	if (READ_ONCE(c->rq_len))
		return 1;
	for (int i = 0; i < ncpu; i++)
		if (READ_ONCE(cpus[i].rq_len))
			return 1;
	return 0;
}

/* A quantum of vp begins on c (c->quantum_end is set, c->warn_at 0):
   set when its warning falls due, or serve a quantum of probation. */
void warn_arm(struct cpu *c, struct vp *vp)
{
	if (vp->probation) {
		vp->probation--;
		uint64_t cut = MIN(vp->penalty_ns + vp->debt_ns, quantum_ns * 3 / 4);
		vp->debt_ns = 0;
		c->quantum_end -= cut;
		vp->pp->probation_quanta++;
		return;
	}
	uint64_t w = READ_ONCE(vp->vpp->warn_ns);      /* user-written: clamp */
	if (w)
		c->warn_at = c->quantum_end - MIN(w, warn_cap_ns());
}

/* vp was warned and is preempted at the deadline (now >= quantum_end),
   a competitor still waiting. The period was quantum_end - warn_at; the
   warning was posted at least that long before quantum_end. */
void warn_ignored(struct cpu *c, struct vp *vp, uint64_t now)
{
	vp->pp->warnings_ignored++;
	if (vp->honor_streak >= WARN_FORGIVE) {
		vp->honor_streak = 0;
		vp->pp->warnings_forgiven++;
		return;
	}
	vp->honor_streak = 0;
	uint64_t period = c->quantum_end - c->warn_at;
	vp->penalty_ns = period;
	vp->debt_ns = MIN(period + (now - c->quantum_end), warn_cap_ns());
	vp->probation = (int)warn_probation;
}

/* vp yields with a warning pending, before the deadline. */
void warn_honored(struct vp *vp)
{
	vp->pp->warnings_honored++;
	if (vp->honor_streak < WARN_FORGIVE)
		vp->honor_streak++;
}

/*
 * The warning goes out in two steps. When it falls due (timer interrupt,
 * or a quantum end that finds it never given) it is only marked DUE; it
 * is posted on the VP's next way out to user mode (warn_deliver), with a
 * deadline at least the full period away. So the period the VP asked for
 * always runs in user mode, where it can act on the warning: not while
 * the VP sits in a long system call, nor while its emulated CPU is
 * starved by the host. Otherwise one return to user mode could both warn
 * and preempt, and a VP honoring every warning would still be preempted
 * with its warning unread.
 */
void warn_due(struct cpu *c)
{
	if (!warn_contended(c)) {    /* no preemption in sight: no warning (warn.c) */
		c->warned = WARN_MOOT;
		return;
	}
	c->warned = WARN_DUE;
	c->need_resched = 0;         /* no preemption before the warning is out */
}

/* Post a due warning; called on every way out to user mode. */
void warn_deliver(struct vp *vp)
{
	struct cpu *c = mycpu();
	if (c->warned != WARN_DUE || c->vp != vp)
		return;
	uint64_t now = now_ns(), period = c->quantum_end - c->warn_at;
	c->warned = WARN_GIVEN;
	if (c->quantum_end < now + period) {
		c->quantum_end = now + period;
		c->warn_at = now;        /* the period stays quantum_end - warn_at (warn.c) */
		vp->pp->late_warnings++;
		sched_arm_timer();
	}
	vp->pp->quantum_end = vp->pp->preempt_deadline = c->quantum_end;
	vp->pp->warnings++;
	trace(TR_WARN, vp, (uint32_t)((c->quantum_end - now) / 1000));
	struct event ev = { .type = EV_WARNING, .arg = c->quantum_end,
			    .thread = READ_ONCE(vp->vpp->current_thread) };
	event_post(vp, &ev, EVP_ADVISORY);    /* advisory: dropped (counted) if no room */
}
