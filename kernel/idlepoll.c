/*
 * Idle polling: before an idle CPU halts, it watches the run queues for
 * a while (idlepoll=US on the command line; default 0, halt at once).
 * Work queued meanwhile is picked up at once, without an IPI.
 *
 * Why: waking a halted CPU is cheap on hardware (an IPI, a microsecond
 * or two) but not on an emulated or virtual one. Under QEMU's
 * multi-threaded TCG a halted vCPU sleeps in the host; the IPI wakes its
 * thread, which must then win QEMU's global lock from the sender, whose
 * every LAPIC access takes it too, and get a host core. On a loaded
 * host that took milliseconds: in a kthread Gaussian elimination at 2
 * CPUs, CPU 1 sat halted 43 of 55 ms while CPU 0 sent it 1,681 IPIs and
 * then, blocking its own VP, ran the woken VP itself. Guest halt polling
 * (Linux's cpuidle-haltpoll) answers the same problem under KVM.
 *
 * The poll touches no device (no LAPIC access, no pause: under
 * multi-threaded TCG both take the global lock) and lets interrupts in
 * at every turn, so a timer that wakes a VP ends it too. On one CPU
 * nothing can queue work but this CPU's own interrupts: it halts at once.
 *
 * Off by default: a polling vCPU burns a host core that, with more vCPUs
 * than host cores (-smp 4 on this 2-core host) or other guests beside,
 * a working vCPU needed, and under -icount its polling is guest time.
 * Side by side on a host at load 10 (wakelat kthread, speedup kthread
 * and fifo at 2 CPUs, idlepoll=0 against 100, 3 boots each) the medians
 * did not separate from the noise, so it stays a knob until a quiet
 * host says otherwise.
 */
#include "kernel.h"

uint64_t idlepoll_ns;              /* off by default: see the end of this comment */

static int any_work(void)
{
	for (int i = 0; i < ncpu; i++)
		if (READ_ONCE(cpus[i].rq_len) > 0)
			return 1;
	return 0;
}

/* c->idle is set. Returns 1 if work showed up within the poll window. */
int idle_poll(struct cpu *c)
{
	(void)c;
	if (any_work())
		return 1;
	if (ncpu < 2 || !idlepoll_ns)
		return 0;
	uint64_t until = now_ns() + idlepoll_ns;
	do {
		__asm__ volatile("sti; nop; cli" ::: "memory");   /* a pending interrupt runs here */
		if (any_work())
			return 1;
	} while (now_ns() < until);
	return 0;
}
