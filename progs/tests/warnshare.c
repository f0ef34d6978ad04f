/*
 * warnshare WARN_US MS: does ignoring preemption warnings buy CPU?
 * Run as run=warnshare:2,WARN_US,MS on one CPU. Two VPs of one space
 * (so the kernel's fairness among spaces does not even them out: VPs of
 * a space take turns in FIFO order) run the same busy loop, both asking
 * for a warning WARN_US before their quantum ends:
 *   VP 0 honors: on EV_WARNING it yields (at its next check, every 1000
 *        loop turns);
 *   VP 1 ignores: it takes the event and goes on, so it is preempted at
 *        each deadline, and put on probation (kernel/warn.c).
 * After MS ms of guest time VP 0 stops both. One @result: each VP's CPU
 * time in the window (pseudo-page run_ns), its warnings, honored and
 * ignored ones, preemptions, quanta on probation, and ratio = CPU time of
 * the ignoring VP over the honoring one's. Exit status 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK 65536

static volatile int go, stop, started[2], done[2], yield_req[2];
static uint64_t end_ns, warn_ns;
static uint64_t run0[2], run1[2];
static struct pseudo_page s0[2], s1[2];          /* counters at start and end */

static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	unsigned me = pp->vp_index;
	for (;;) {
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++)
			if (e->type == EV_WARNING && me == 0)
				yield_req[0] = 1;
		if (!vpp->pending)
			break;
		vpp->pending = 0;
		syscall0(SYS_vp_poll);
	}
	vp_resume(vpp);
}

static void snapshot(struct pseudo_page *s, uint64_t *run)
{
	for (unsigned i = 0; i < 2; i++) {
		s[i] = *pseudo_page(i);
		run[i] = s[i].run_ns;
	}
}

static void loop(unsigned me)
{
	struct vp_page *vpp = upcall_register(me, handler, STACK);
	if (!vpp)
		exit(2);
	vpp->warn_ns = warn_ns;
	vp_enable(vpp);
	started[me] = 1;
	while (!go)
		sys_yield();
	uint64_t x = 1;
	while (!stop) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1;
		if (me == 0 && now_ns() >= end_ns) {
			snapshot(s1, run1);
			stop = 1;
		}
		if (yield_req[me]) {
			yield_req[me] = 0;
			sys_yield();
		}
	}
	vpp->warn_ns = 0;
	done[me] = 1 + (x == 0);
}

static void vp1_main(uint64_t arg)
{
	(void)arg;
	loop(1);
	for (;;)
		syscall0(SYS_vp_idle);
}

int main(int argc, char **argv)
{
	if (argc < 3 || vp_pseudo()->nvp < 2) {
		printf("usage: run=warnshare:2,WARN_US,MS\n");
		return 2;
	}
	warn_ns = strtoull(argv[1], 0, 10) * 1000;
	uint64_t ms = strtoull(argv[2], 0, 10);
	char *stack = malloc(STACK);
	if (syscall6(SYS_vp_start, 1, (long)vp1_main, (long)(stack + STACK - 8), 1, 0, 0) < 0) {
		printf("warnshare: cannot start VP 1\n");
		return 1;
	}
	while (!started[1])
		sys_yield();
	snapshot(s0, run0);
	end_ns = now_ns() + ms * 1000000;
	go = 1;
	loop(0);
	while (!done[1])
		sys_yield();

	struct result r;
	result_begin(&r, "warnshare");
	result_uint(&r, "warn_ns", warn_ns);
	result_uint(&r, "quantum_ns", s0[0].quantum_ns);
	result_uint(&r, "warn_probation", s0[0].warn_probation);
	result_uint(&r, "ms", ms);
	static const char *key[] = { "honor", "ignore" };
	for (unsigned i = 0; i < 2; i++) {
		result_object(&r, key[i]);
		result_uint(&r, "run_ns", run1[i] - run0[i]);
		result_uint(&r, "warnings", s1[i].warnings - s0[i].warnings);
		result_uint(&r, "honored", s1[i].warnings_honored - s0[i].warnings_honored);
		result_uint(&r, "ignored", s1[i].warnings_ignored - s0[i].warnings_ignored);
		result_uint(&r, "forgiven", s1[i].warnings_forgiven - s0[i].warnings_forgiven);
		result_uint(&r, "preemptions", s1[i].preemptions - s0[i].preemptions);
		result_uint(&r, "probation_quanta", s1[i].probation_quanta - s0[i].probation_quanta);
		result_uint(&r, "dispatches", s1[i].dispatches - s0[i].dispatches);
		result_close(&r);
	}
	result_double(&r, "ratio", (double)(run1[1] - run0[1]) / (double)(run1[0] - run0[0]));
	result_end(&r);
	return 0;
}
