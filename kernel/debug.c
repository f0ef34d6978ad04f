/*
 * Post-mortem help for hangs: with `watchdog=S` on the command line, a
 * run still going after S seconds dumps every CPU and VP (scheduler
 * state, user rip, VP-page flags, queued events) and panics, so a hung
 * test ends with evidence instead of a silent timeout. Every other CPU
 * then prints where it was (its rip and kernel backtrace: panic.c).
 */
#include "kernel.h"

uint64_t watchdog_ns;

static const char *const vpstate[] = { "new", "runnable", "running", "blocked", "zombie" };

void debug_dump(void)
{
	kprintf("--- state dump at %lu ns ---\n", now_ns());
	for (int i = 0; i < ncpu; i++) {
		struct cpu *c = &cpus[i];
		kprintf("cpu %d: vp %ld, runq %d, idle %d, quantum_end %lu, next timer %lu\n", c->id,
			c->vp ? (long)c->vp->id : -1L, c->rq_len, c->idle, c->quantum_end, kop_next_deadline(c));
	}
	for (int i = 0; i < MAXSPACE; i++) {
		struct space *sp = space_at(i);
		if (!sp)
			continue;
		kprintf("space %d (%s): state %d, vps %d live, kops %s, stopped %d busy %d seq %lu "
			"stopq %d stopwait %d\n", sp->id, sp->name, sp->state, sp->live_vps,
			sp->kops ? "yes" : "none", sp->stopped, sp->stop_busy, sp->stopseq,
			sp->stopq ? sp->stopq->index : -1, sp->stopwait ? sp->stopwait->index : -1);
		for (struct vp *v = sp->vps; v; v = v->space_next) {
			struct vp_page *p = v->vpp;
			kprintf("  vp %d [%lu] %s cpu %d rip %#lx rsp %#lx | disabled %u pending %u ring %u/%u "
				"evq %d idle_wait %d parked %d cur %#lx upcalls %lu kick %d\n",
				v->index, v->id, vpstate[v->state], v->cpu ? v->cpu->id : -1, v->tf->rip,
				v->tf->rsp, p->disabled, p->pending, p->ring_head, v->ring_tail, v->evq_len,
				v->idle_wait, v->parked, p->current_thread, v->pp->upcalls, v->stopkick);
		}
		int n = 0;
		for (struct kop *op = sp->kops; op && n < 16; op = op->snext, n++)
			kprintf("  kop kind %d mode %d vp %d thread %#lx futex %#lx\n", op->kind, op->mode,
				op->vp ? op->vp->index : -1, op->thread, op->fkey);
	}
}

/* On any CPU's timer (the first to see it claims it): one spinning with
   interrupts off must not keep the others from reporting. The panic's
   NMI then has every other CPU print where it was (panic.c). */
void watchdog_check(uint64_t now)
{
	uint64_t w = __atomic_load_n(&watchdog_ns, __ATOMIC_RELAXED);
	if (w && now >= w && __atomic_compare_exchange_n(&watchdog_ns, &w, 0, 0, __ATOMIC_ACQ_REL,
							   __ATOMIC_RELAXED)) {
		debug_dump();
		panic("watchdog: the run did not end in time");
	}
}
