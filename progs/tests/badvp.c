/*
 * badvp KIND: corrupts one field of its own VP page (or writes its own
 * pseudo-register page), then makes the kernel deliver an event, to show
 * the kernel never trusts user-writable memory.
 *
 * Killing kinds (the kernel must end this space, naming the field, and
 * nothing else): if the program gets past the trigger it prints
 * `@result {"name": "badvp", "survived": 1, ...}` and exits 1.
 *   entry-kernel entry-noncanon entry-low     upcall_entry out of user space
 *   stack-low stack-kernel stack-noncanon     upcall_stack out of user space
 *   entry-unmapped stack-unmapped             in user space but not mapped:
 *                                             an ordinary user page fault
 *   head-ahead head-behind head-max           ring_head out of range
 *   pseudo-write                              write the pseudo-register page
 *
 * Surviving kinds (the field is the user's business; the program reports
 * what it saw in `@result {"name": "badvp", ...}` and exits 0):
 *   resume-empty resume-inverted resume-kernel resume-noncanon
 *                       garbage window that holds no user code
 *   resume-all          window [0, ~0): every rip is "resuming", so the
 *                       kernel must leave `save` untouched
 *   warn-huge warn-big warn-quantum warn-over
 *                       warn_ns = ~0, 2^40, quantum - 1 us, 10 quanta: the
 *                       warning comes, no earlier than quantum_end - warn_cap_ns
 *   current-garbage     current_thread round-trips unchanged in events
 *   tail-garbage        the user scribbles ring_tail; the kernel rewrites it
 *   enable-pending      (protocol, not validation) an event that came while
 *                       disabled is delivered by vp_enable
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define KERNEL_ADDR   0xffffffff80100000UL
#define NONCANON      0x0000800000000000UL   /* first address past user space */
#define NONCANON2     0xdead0000beef0000UL
#define UNMAPPED      0x00007f0000000000UL   /* user space, never mapped */
#define GARBAGE       0xdeadbeefcafef00dUL
#define SIG_PAYLOAD   0x5157
#define STACK         65536
#define MAXLOG        64

static const char *kind = "";

/* What the handler saw. */
static struct {
	uint32_t type, vp;
	uint64_t token, result, thread, arg, seq;
	uint64_t t_ns;                /* sys_time() when the handler took it */
} evlog[MAXLOG];
static volatile int nlog, nupcalls;
static volatile uint64_t save_rip_at_upcall;   /* vpp->save.rip as the handler found it */

static long self_signal(void)
{
	return syscall2(SYS_vp_signal, vp_index(), SIG_PAYLOAD);
}

static void survived(const char *what)
{
	struct vp_page *vpp = vp_self();
	struct result r;
	result_begin(&r, "badvp");
	result_str(&r, "kind", kind);
	result_int(&r, "survived", 1);
	result_str(&r, "after", what);
	result_uint(&r, "ring_head", vpp->ring_head);
	result_uint(&r, "ring_tail", vpp->ring_tail);
	result_end(&r);
	exit(1);
}

/*
 * Log every event; resume the interrupted context, or, when the thread
 * blocked (sys_io), wait in the handler until its EV_UNBLOCKED comes and
 * resume the context that carries. resume-all ends the program here.
 */
static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	nupcalls++;
	save_rip_at_upcall = vpp->save.rip;
	int blocked = 0, have_ctx = 0;
	struct uctx ctx;
	for (;;) {
		vpp->pending = 0;
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
			if (nlog < MAXLOG)
				evlog[nlog++] = (typeof(evlog[0])){ e->type, e->vp, e->token, e->result,
								    e->thread, e->arg, e->seq, sys_time() };
			if (e->type == EV_BLOCKED)
				blocked++;
			else if (e->type == EV_UNBLOCKED) {
				blocked--;
				ctx = e->ctx;
				have_ctx = 1;
			}
		}
		if (!strcmp(kind, "resume-all")) {
			/* The kernel was told every rip is in the resume window,
			   so it must not have overwritten save (main's sentinel). */
			struct result r;
			result_begin(&r, "badvp");
			result_str(&r, "kind", kind);
			result_int(&r, "upcalls", nupcalls);
			result_uint(&r, "save_rip", save_rip_at_upcall);
			result_int(&r, "events", nlog);
			result_uint(&r, "ev_type", nlog ? evlog[0].type : 0);
			result_uint(&r, "ev_arg", nlog ? evlog[0].arg : 0);
			result_end(&r);
			exit(0);
		}
		if (blocked <= 0)
			break;
		syscall0(SYS_vp_idle);   /* disabled: events land in the ring */
	}
	if (have_ctx)
		vp_switch(vpp, &ctx, 0);  /* the blocked thread's FPU is in vpp->fpu */
	vp_resume(vpp);
}

static struct vp_page *setup(void)
{
	struct vp_page *vpp = upcall_register(vp_index(), handler, STACK);
	if (!vpp) {
		printf("badvp: cannot register upcalls\n");
		exit(2);
	}
	vp_enable(vpp);
	return vpp;
}

/* One self-signal through the handler, which must see it. */
static void roundtrip(void)
{
	int before = nupcalls;
	long r = self_signal();
	if (r != 0 || nupcalls != before + 1) {
		printf("badvp: self-signal: r=%ld, upcalls %d -> %d\n", r, before, nupcalls);
		exit(3);
	}
}

static int killing(const char *k)
{
	static const char *const kill[] = {
		"entry-kernel", "entry-noncanon", "entry-low", "entry-unmapped",
		"stack-low", "stack-kernel", "stack-noncanon", "stack-unmapped",
		"head-ahead", "head-behind", "head-max", "pseudo-write",
	};
	for (size_t i = 0; i < sizeof kill / sizeof kill[0]; i++)
		if (!strcmp(k, kill[i]))
			return 1;
	return 0;
}

static void do_kill(struct vp_page *vpp, const char *k)
{
	if (!strcmp(k, "pseudo-write")) {
		volatile uint64_t *self = (volatile uint64_t *)vp_pseudo();
		*self = GARBAGE;          /* read-only to user code */
		survived("pseudo write");
	}
	roundtrip();                  /* the machinery works before we break it */
	if (!strcmp(k, "entry-kernel"))
		vpp->upcall_entry = KERNEL_ADDR;
	else if (!strcmp(k, "entry-noncanon"))
		vpp->upcall_entry = NONCANON;
	else if (!strcmp(k, "entry-low"))
		vpp->upcall_entry = 0x1;
	else if (!strcmp(k, "entry-unmapped"))
		vpp->upcall_entry = UNMAPPED;
	else if (!strcmp(k, "stack-low"))
		vpp->upcall_stack = 0x10;
	else if (!strcmp(k, "stack-kernel"))
		vpp->upcall_stack = KERNEL_ADDR;
	else if (!strcmp(k, "stack-noncanon"))
		vpp->upcall_stack = NONCANON2;
	else if (!strcmp(k, "stack-unmapped"))
		vpp->upcall_stack = UNMAPPED;
	else if (!strcmp(k, "head-ahead"))
		vpp->ring_head = vpp->ring_tail + 100;     /* consumed events never written */
	else if (!strcmp(k, "head-behind"))
		vpp->ring_head = vpp->ring_tail - RING_SIZE - 1;   /* more unread than the ring holds */
	else if (!strcmp(k, "head-max")) {
		/* 0xffffffff is out of range only once the kernel's tail is
		   past RING_SIZE (modulo 2^32 it is just "tail + 1 behind"). */
		while (vpp->ring_tail < 2 * RING_SIZE)
			roundtrip();
		vpp->ring_head = 0xffffffff;
	}
	self_signal();
	survived("trigger");
}

/* Three self-signals and a blocking sys_io, all of which must work. */
static void exercise(void)
{
	for (int i = 0; i < 3; i++)
		roundtrip();
	long v = syscall2(SYS_io, 0, 4242);
	if (v != 4242) {
		printf("badvp: sys_io returned %ld\n", v);
		exit(4);
	}
}

static void report(const char *k, struct vp_page *vpp)
{
	struct pseudo_page *pp = vp_pseudo();
	struct result r;
	result_begin(&r, "badvp");
	result_str(&r, "kind", k);
	result_int(&r, "upcalls", nupcalls);
	result_uint(&r, "pp_upcalls", pp->upcalls);
	result_uint(&r, "ring_head", vpp->ring_head);
	result_uint(&r, "ring_tail", vpp->ring_tail);
	result_array(&r, "events");
	for (int i = 0; i < nlog; i++) {
		result_object(&r, 0);
		result_uint(&r, "type", evlog[i].type);
		result_uint(&r, "seq", evlog[i].seq);
		result_uint(&r, "thread", evlog[i].thread);
		result_uint(&r, "arg", evlog[i].arg);
		result_uint(&r, "result", evlog[i].result);
		result_close(&r);
	}
	result_close(&r);
	result_end(&r);
}

static void do_resume(struct vp_page *vpp, const char *k)
{
	uint64_t lo, hi;
	if (!strcmp(k, "resume-empty"))
		lo = hi = 0x123456789UL;
	else if (!strcmp(k, "resume-inverted"))
		lo = ~0UL, hi = 0;
	else if (!strcmp(k, "resume-kernel"))
		lo = KERNEL_ADDR, hi = ~0UL;
	else if (!strcmp(k, "resume-noncanon"))
		lo = NONCANON2, hi = NONCANON2 + 0x1000000;
	else {                        /* resume-all */
		lo = 0, hi = ~0UL;
		vpp->save.rip = GARBAGE;  /* sentinel: must survive the upcall */
	}
	vpp->resume_lo = lo;
	vpp->resume_hi = hi;
	if (!strcmp(k, "resume-all")) {
		self_signal();            /* the handler reports and exits */
		survived("resume-all signal");
	}
	exercise();
	report(k, vpp);
	exit(0);
}

static void do_warn(struct vp_page *vpp, const char *k)
{
	struct pseudo_page *pp = vp_pseudo();
	/* Uncapped, ~0 and 2^40 would wrap (no warning at all), and a whole
	   quantum or ten would bring the warning at once: all must be capped. */
	if (!strcmp(k, "warn-huge"))
		vpp->warn_ns = ~0UL;
	else if (!strcmp(k, "warn-big"))
		vpp->warn_ns = 1UL << 40;
	else if (!strcmp(k, "warn-quantum"))
		vpp->warn_ns = pp->quantum_ns - 1000;
	else
		vpp->warn_ns = 10 * pp->quantum_ns;   /* warn-over */
	/* The warn time is taken when a quantum starts: start a fresh one. */
	sys_yield();
	uint64_t t0 = sys_time(), limit = t0 + 4 * pp->quantum_ns + 1500000000;
	int before = nlog;
	while (nlog == before && sys_time() < limit)
		;
	vpp->warn_ns = 0;
	struct result r;
	result_begin(&r, "badvp");
	result_str(&r, "kind", k);
	result_uint(&r, "warn_cap_ns", pp->warn_cap_ns);
	result_uint(&r, "quantum_ns", pp->quantum_ns);
	result_uint(&r, "t0", t0);
	result_int(&r, "warned", nlog > before);
	if (nlog > before) {
		result_uint(&r, "type", evlog[before].type);
		result_uint(&r, "deadline", evlog[before].arg);   /* the quantum's end */
		result_uint(&r, "arrived", evlog[before].t_ns);
	}
	result_end(&r);
	exit(0);
}

static void do_current(struct vp_page *vpp, const char *k)
{
	(void)k;
	static const uint64_t vals[] = { GARBAGE, KERNEL_ADDR, 0, ~0UL, NONCANON };
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		vpp->current_thread = vals[i];
		long v = syscall2(SYS_io, 0, 1000 + i);     /* EV_BLOCKED + EV_UNBLOCKED */
		if (v != (long)(1000 + i)) {
			printf("badvp: sys_io returned %ld\n", v);
			exit(4);
		}
		if (vpp->current_thread != vals[i])
			survived("current_thread changed");
	}
	report(k, vpp);
	exit(0);
}

static void do_tail(struct vp_page *vpp, const char *k)
{
	roundtrip();
	uint32_t tail = vpp->ring_tail;
	vpp->ring_tail = 0xffffffff;   /* the kernel keeps its own copy */
	roundtrip();
	if (vpp->ring_tail != tail + 1 || vpp->ring_head != tail + 1)
		survived("ring_tail not restored");
	vpp->ring_tail = tail + 7;
	exercise();
	report(k, vpp);
	exit(0);
}

/*
 * An event that reached the ring while software interrupts were disabled
 * (so the kernel only set `pending`) must be delivered when they are
 * enabled again with vp_enable (<animart/upcall.h>), not left in the ring until
 * some later event happens to come.
 */
static void do_enable_pending(void)
{
	struct vp_page *vpp = upcall_register(vp_index(), handler, STACK);
	if (!vpp)
		exit(2);
	long sig = self_signal();     /* disabled: into the ring, pending = 1 */
	uint32_t pending = vpp->pending, tail = vpp->ring_tail;
	vp_enable(vpp);
	int after_enable = nupcalls;
	syscall0(SYS_vp_poll);
	int after_poll = nupcalls;
	self_signal();                /* a second event carries the first along */
	struct result r;
	result_begin(&r, "badvp");
	result_str(&r, "kind", kind);
	result_int(&r, "signal", sig);
	result_uint(&r, "pending_before", pending);
	result_uint(&r, "ring_tail_before", tail);
	result_int(&r, "upcalls_after_enable", after_enable);
	result_int(&r, "upcalls_after_poll", after_poll);
	result_int(&r, "upcalls_after_second", nupcalls);
	result_int(&r, "events", nlog);
	result_end(&r);
	exit(after_enable == 1 ? 0 : 1);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: badvp KIND\n");
		return 2;
	}
	kind = argv[1];
	if (!strcmp(kind, "enable-pending"))
		do_enable_pending();
	struct vp_page *vpp = setup();
	if (killing(kind))
		do_kill(vpp, kind);
	else if (!strncmp(kind, "resume-", 7))
		do_resume(vpp, kind);
	else if (!strncmp(kind, "warn-", 5))
		do_warn(vpp, kind);
	else if (!strcmp(kind, "current-garbage"))
		do_current(vpp, kind);
	else if (!strcmp(kind, "tail-garbage"))
		do_tail(vpp, kind);
	printf("badvp: unknown kind %s\n", kind);
	return 2;
}
