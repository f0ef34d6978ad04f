/*
 * evtest: every event type of <anima/vp.h> arrives, with the right payload.
 *
 *   run=evtest:2          the test (VP 1 is the same-space signal sender)
 *   evtest child H        spawned by the test: signals handle H of its own table
 *                         (a copy of the parent's, given through SYS_spawn)
 *
 * VP 0 runs a tiny thread package: T0 (main) and T1 (made for one check),
 * with one upcall handler that logs every event and then runs a ready
 * thread, or waits in SYS_vp_idle when there is none. Each check prints
 *     @result {"name": "evtest", "check": NAME, "ok": 0|1, ...details}
 * and a last line {"name": "evtest", "check": "summary", "failed": [...]}.
 * The exit status is 0 iff every check passed.
 *
 * Checks: sleep, io (EV_BLOCKED + EV_UNBLOCKED: tokens pair up, thread
 * pointers round-trip, the context resumes right after the syscall with
 * the result in rax and other registers intact), overlap (two threads
 * blocked at once, finishing in the other order), timer (token, deadline,
 * cancel), signal_local, signal_cap (across spaces via SYS_vp_cap),
 * warning (deadline == quantum_end, arrives before it, at most warn_ns
 * before), preempted (ctx inside the busy loop; resuming that context
 * finishes the loop with the right values), counters (pseudo-page
 * statistics agree with the events seen) and seq (every event's seq is
 * the previous one + 1, and its vp is 0).
 *
 * For the warning and preemption checks VP 0 needs company on its CPU:
 * 2*ncpu-1 helper VPs (SYS_vp_create) spin until those checks are over.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/upcall.h>
#include "busy.h"

#define MS          1000000UL
#define STACK       65536
#define WATCHDOG    0x3a7c4d06UL     /* timer token: a busy phase has run too long */
#define TOK_TIMER   0x71e5UL
#define TOK_CANCEL  0xcc11UL
#define SIG_LOCAL   0x5a5a0001UL
#define SIG_REMOTE  0x5a5a0002UL
#define IO_VALUE    0x123456789abcdef0L
#define IO_VALUE2   0x0fedcba987654321L
#define M12         0x1212121212121212UL
#define M13         0x1313131313131313UL
#define WARN_NS     (2 * MS)
#define NWARN       3

/* --- the thread package --------------------------------------------- */

enum { T_FREE, T_READY, T_RUNNING, T_BLOCKED, T_DONE };
struct thr {
	struct uctx ctx;
	uint8_t fpu[512] __attribute__((aligned(16)));
	volatile int state;
	uint64_t ready_since;        /* the ready queue is FIFO by this stamp */
};
static uint64_t ready_stamp;
static struct thr thr[2];
static struct thr *cur;              /* the thread whose context is in vpp->save */

/* Every event VP 0 sees, as the handler found it. */
struct rec {
	uint32_t type, vp;
	uint64_t token, result, thread, arg, seq;
	uint64_t rip, rsp, rax;          /* ctx */
	uint64_t t;                      /* the time (ns since boot) the handler saw it */
	uint64_t qstart, qend, pdl;      /* pp->quantum_start, _end, preempt_deadline then */
	uint64_t loop_t, loop_qstart;    /* the busy loop's probe then (busy.h) */
};
#define MAXREC 512
static struct rec evlog[MAXREC];
static volatile int nrec;
static volatile uint64_t nev, last_seq, seq_errors, vp_errors, bad_thread;
static volatile uint64_t counts[EV_MAX + 1];

/* Busy phases: what stops them, what they saw. */
enum { PH_NONE, PH_WARN, PH_PREEMPT };
static volatile int phase, stop, watchdog_fired;
static volatile uint64_t phase_warnings, busy_preempted, other_preempted;
static struct busy_probe probe;
static struct uctx preempt_ctx;      /* the EV_PREEMPTED context to resume cur from */
static int resume_from_event;

/* A TSC value in ns since boot: the kernel's clock (sys_time). */
static uint64_t tsc_ns(struct pseudo_page *pp, uint64_t tsc)
{
	return (uint64_t)(((unsigned __int128)(tsc - pp->tsc_base) * pp->ns_mult) >> 32);
}

static uint64_t now(struct pseudo_page *pp)
{
	return tsc_ns(pp, rdtsc());
}

static void make_ready(struct thr *t)
{
	t->state = T_READY;
	t->ready_since = ++ready_stamp;
}

static int valid_thread(uint64_t t)
{
	return t == (uint64_t)&thr[0] || t == (uint64_t)&thr[1];
}

static void on_event(struct vp_page *vpp, struct pseudo_page *pp, const struct event *e)
{
	uint64_t t_seen = now(pp);
	nev++;
	if (e->seq != last_seq + 1)
		seq_errors++;
	last_seq = e->seq;
	if (e->vp != 0)
		vp_errors++;
	counts[e->type <= EV_MAX ? e->type : 0]++;
	if (nrec < MAXREC) {
		evlog[nrec] = (struct rec){ e->type, e->vp, e->token, e->result, e->thread, e->arg,
					  e->seq, e->ctx.rip, e->ctx.rsp, e->ctx.rax, t_seen,
					  pp->quantum_start, pp->quantum_end, pp->preempt_deadline,
					  tsc_ns(pp, probe.tsc), probe.quantum_start };
		nrec++;
	}
	struct thr *t = (struct thr *)e->thread;
	switch (e->type) {
	case EV_BLOCKED:         /* t went into the kernel: it cannot run */
		if (!valid_thread(e->thread)) {
			bad_thread++;
			break;
		}
		if (t == cur)    /* this upcall interrupted it: vpp->fpu is its FPU state */
			memcpy(t->fpu, vpp->fpu, sizeof t->fpu);
		t->state = T_BLOCKED;
		break;
	case EV_UNBLOCKED:       /* t may run on, from the context the kernel kept */
		if (!valid_thread(e->thread)) {
			bad_thread++;
			break;
		}
		t->ctx = e->ctx;
		make_ready(t);
		break;
	case EV_PREEMPTED:
		if (in_busy(e->ctx.rip) && t == cur && cur && cur->state == T_RUNNING) {
			busy_preempted++;
			preempt_ctx = e->ctx;        /* resume from here, not from save */
			resume_from_event = 1;
		} else
			other_preempted++;
		if (phase == PH_PREEMPT && busy_preempted >= 2)
			stop = 1;
		break;
	case EV_WARNING:
		phase_warnings++;
		if (phase == PH_WARN && phase_warnings >= NWARN)
			stop = 1;
		break;
	case EV_TIMER:
		if (e->token == WATCHDOG) {
			watchdog_fired = 1;
			stop = 1;
		}
		break;
	}
}

/* Take every event from the ring, and from the kernel queue behind it. */
static void drain(struct vp_page *vpp, struct pseudo_page *pp)
{
	for (;;) {
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++)
			on_event(vpp, pp, e);
		if (!vpp->pending)
			return;
		vpp->pending = 0;
		syscall0(SYS_vp_poll);       /* more queued: this brings them to the ring */
	}
}

static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	for (;;) {
		drain(vpp, pp);
		if (cur && cur->state == T_RUNNING) {   /* interrupted, not blocked or done */
			cur->ctx = resume_from_event ? preempt_ctx : vpp->save;
			memcpy(cur->fpu, vpp->fpu, sizeof cur->fpu);
			make_ready(cur);
		}
		resume_from_event = 0;
		cur = 0;
		for (int i = 0; i < 2; i++)      /* the thread ready longest */
			if (thr[i].state == T_READY && (!cur || thr[i].ready_since < cur->ready_since))
				cur = &thr[i];
		if (cur) {
			cur->state = T_RUNNING;
			vpp->current_thread = (uint64_t)cur;
			vp_switch(vpp, &cur->ctx, cur->fpu);
		}
		syscall0(SYS_vp_idle);       /* nothing to run until an event comes */
	}
}

/* The running thread ends: enter the handler directly (it never returns). */
__attribute__((noreturn)) static void thr_exit(void)
{
	struct vp_page *vpp = vp_self();
	vp_disable(vpp);
	cur->state = T_DONE;
	handler(vpp, vp_pseudo());
	__builtin_unreachable();
}

static void thr_init(struct thr *t, void (*fn)(void))
{
	char *stack = malloc(STACK);
	memset(&t->ctx, 0, sizeof t->ctx);
	t->ctx.rip = (uint64_t)fn;
	t->ctx.rsp = ((uint64_t)stack + STACK) - 8;   /* as if just called */
	t->ctx.rflags = 0x202;
	__asm__ volatile("fxsave64 %0" : "=m"(t->fpu));
	make_ready(t);
}

/* --- blocking calls whose resumption can be checked ----------------- */

struct bcall {
	long ret;
	uint64_t after;     /* address of the instruction after the syscall */
	uint64_t r12, r13;  /* must come back as M12, M13 */
};

/* One syscall; noinline so the instruction after it has one address. */
__attribute__((noinline)) static void bcall(long nr, long a, long b, struct bcall *bc)
{
	register uint64_t r12 __asm__("r12") = M12;
	register uint64_t r13 __asm__("r13") = M13;
	register long rdi __asm__("rdi") = a;
	register long rsi __asm__("rsi") = b;
	long rax = nr;
	uint64_t after;
	__asm__ volatile("lea 1f(%%rip), %[after]\n\tsyscall\n1:"
			 : "+a"(rax), [after] "=&r"(after), "+r"(r12), "+r"(r13), "+r"(rdi), "+r"(rsi)
			 :
			 : "rcx", "r11", "rdx", "r8", "r9", "r10", "memory");
	bc->ret = rax;
	bc->after = after;
	bc->r12 = r12;
	bc->r13 = r13;
}

/* The first record at or after `from` of `type` (and thread, if nonzero). */
static int find(int from, uint32_t type, uint64_t thread)
{
	for (int i = from; i < nrec; i++)
		if (evlog[i].type == type && (!thread || evlog[i].thread == thread))
			return i;
	return -1;
}

static int count_recs(int from, uint32_t type)
{
	int n = 0;
	for (int i = from; i < nrec; i++)
		n += evlog[i].type == type;
	return n;
}

/* --- reporting ------------------------------------------------------- */

static const char *failed[16];
static int nfailed;

static void report_begin(struct result *r, const char *check)
{
	result_begin(r, "evtest");
	result_str(r, "check", check);
}

static int report_end(struct result *r, const char *check, int ok)
{
	result_int(r, "ok", ok);
	result_end(r);
	if (!ok && nfailed < 16)
		failed[nfailed++] = check;
	return ok;
}

/* A BLOCKED/UNBLOCKED pair for thread t from record `from` on: fields. */
static int pair_ok(struct result *r, const char *key, int from, struct thr *t, int kind,
		   const struct bcall *bc, long expect)
{
	int b = find(from, EV_BLOCKED, (uint64_t)t), u = find(from, EV_UNBLOCKED, (uint64_t)t);
	result_object(r, key);
	result_int(r, "blocked_at", b);
	result_int(r, "unblocked_at", u);
	int ok = b >= 0 && u > b;
	if (ok) {
		struct rec *B = &evlog[b], *U = &evlog[u];
		result_uint(r, "token", B->token);
		result_uint(r, "unblocked_token", U->token);
		result_uint(r, "seq", B->seq);
		result_uint(r, "unblocked_seq", U->seq);
		result_int(r, "arg", (int64_t)B->arg);
		result_int(r, "unblocked_arg", (int64_t)U->arg);
		result_int(r, "result", (int64_t)U->result);
		result_int(r, "ctx_rax", (int64_t)U->rax);
		result_int(r, "rip_ok", U->rip == bc->after);
		ok = B->token == U->token && B->token != 0 && U->seq > B->seq &&
		     B->arg == (uint64_t)kind && U->arg == (uint64_t)kind &&
		     U->result == (uint64_t)expect && U->rax == (uint64_t)expect &&
		     U->rip == bc->after && B->thread == U->thread;
	}
	result_int(r, "ret", bc->ret);
	result_int(r, "regs_ok", bc->r12 == M12 && bc->r13 == M13);
	ok = ok && bc->ret == expect && bc->r12 == M12 && bc->r13 == M13;
	result_int(r, "ok", ok);
	result_close(r);
	return ok;
}

/* --- the checks ------------------------------------------------------ */

static void check_block(const char *name, long nr, uint64_t ns, long value, int kind, long expect)
{
	struct result r;
	struct bcall bc;
	int mark = nrec;
	uint64_t t0 = sys_time();
	bcall(nr, (long)ns, value, &bc);
	uint64_t t1 = sys_time();
	report_begin(&r, name);
	int ok = pair_ok(&r, "pair", mark, &thr[0], kind, &bc, expect);
	result_uint(&r, "elapsed_ns", t1 - t0);
	ok &= t1 - t0 >= ns;
	report_end(&r, name, ok);
}

static struct bcall t1_call;
static void t1_main(void)
{
	bcall(SYS_sleep, 2 * MS, 0, &t1_call);
	thr_exit();
}

/* T0 waits 8 ms for I/O while T1 sleeps 2 ms: two blocked threads at once,
   completing in the other order; each token must pair with its own. */
static void check_overlap(void)
{
	struct result r;
	struct bcall bc;
	int mark = nrec;
	thr_init(&thr[1], t1_main);
	bcall(SYS_io, 8 * MS, IO_VALUE2, &bc);
	report_begin(&r, "overlap");
	int ok = pair_ok(&r, "t0", mark, &thr[0], BLK_IO, &bc, IO_VALUE2);
	ok &= pair_ok(&r, "t1", mark, &thr[1], BLK_SLEEP, &t1_call, 0);
	int b0 = find(mark, EV_BLOCKED, (uint64_t)&thr[0]), b1 = find(mark, EV_BLOCKED, (uint64_t)&thr[1]);
	int u0 = find(mark, EV_UNBLOCKED, (uint64_t)&thr[0]), u1 = find(mark, EV_UNBLOCKED, (uint64_t)&thr[1]);
	int distinct = b0 >= 0 && b1 >= 0 && evlog[b0].token != evlog[b1].token;
	result_int(&r, "tokens_distinct", distinct);
	result_int(&r, "t1_first", u1 >= 0 && u0 > u1);
	result_int(&r, "t1_done", thr[1].state == T_DONE);
	ok &= distinct && u1 >= 0 && u0 > u1 && thr[1].state == T_DONE;
	report_end(&r, "overlap", ok);
}

/* Wait (VP idle) until a record of `type` appears after `mark`, at most ms. */
static int wait_for(int mark, uint32_t type, int n, uint64_t ms)
{
	uint64_t limit = sys_time() + ms * MS;
	while (count_recs(mark, type) < n && sys_time() < limit)
		syscall0(SYS_vp_idle);
	return count_recs(mark, type) >= n;
}

static void check_timer(void)
{
	struct result r;
	/* A cancelled timer never fires. */
	int mark = nrec;
	long c1 = syscall2(SYS_timer, sys_time() + 2 * MS, TOK_CANCEL);
	long c2 = syscall2(SYS_timer, 0, 0);
	sys_sleep(6 * MS);
	int cancelled_fired = count_recs(mark, EV_TIMER);
	/* A timer fires once, with its token, at or after its deadline. */
	mark = nrec;
	uint64_t deadline = sys_time() + 3 * MS;
	long a = syscall2(SYS_timer, deadline, TOK_TIMER);
	int got = wait_for(mark, EV_TIMER, 1, 2000);
	sys_sleep(1 * MS);                /* a second firing would show now */
	int i = find(mark, EV_TIMER, 0);
	report_begin(&r, "timer");
	result_int(&r, "set", a);
	result_int(&r, "cancel_set", c1);
	result_int(&r, "cancel", c2);
	result_int(&r, "cancelled_fired", cancelled_fired);
	result_int(&r, "fired", count_recs(mark, EV_TIMER));
	int ok = !a && !c1 && !c2 && !cancelled_fired && got && count_recs(mark, EV_TIMER) == 1;
	if (i >= 0) {
		result_uint(&r, "token", evlog[i].token);
		result_uint(&r, "deadline", deadline);
		result_uint(&r, "arg", evlog[i].arg);
		result_int(&r, "late_ns", (int64_t)(evlog[i].t - deadline));
		ok &= evlog[i].token == TOK_TIMER && evlog[i].arg == deadline && evlog[i].t >= deadline;
	}
	report_end(&r, "timer", ok);
}

static volatile long sender_ret = 1;
static volatile int sender_done;

/* VP 1 (classic: no upcalls) sends one signal to VP 0, then sleeps. */
static void sender(uint64_t payload)
{
	sender_ret = syscall2(SYS_vp_signal, 0, payload);
	sender_done = 1;
	for (;;)
		syscall0(SYS_vp_idle);
}

static void check_signal_local(void)
{
	struct result r;
	int mark = nrec;
	char *stack = malloc(STACK);
	long s = syscall6(SYS_vp_start, 1, (long)sender, (long)(stack + STACK - 8), SIG_LOCAL, 0, 0);
	int got = wait_for(mark, EV_SIGNAL, 1, 2000);
	int i = find(mark, EV_SIGNAL, 0);
	report_begin(&r, "signal_local");
	result_int(&r, "start", s);
	result_int(&r, "sender_ret", sender_ret);
	result_int(&r, "signals", count_recs(mark, EV_SIGNAL));
	int ok = !s && got && count_recs(mark, EV_SIGNAL) == 1;
	if (i >= 0) {
		result_uint(&r, "payload", evlog[i].arg);
		result_uint(&r, "sender", evlog[i].result);
		result_uint(&r, "vp1_id", pseudo_page(1)->vp_id);
		ok &= evlog[i].arg == SIG_LOCAL && evlog[i].result == pseudo_page(1)->vp_id &&
		      evlog[i].vp == 0;
	}
	while (!sender_done)
		sys_yield();
	ok &= sender_ret == 0;
	report_end(&r, "signal_local", ok);
}

/* In the child: signal the capability twice, the second time with our
   own VP id as the payload so the parent can check the sender field. */
static int child(const char *capstr)
{
	uint64_t cap = strtoull(capstr, 0, 10);
	long r1 = syscall2(SYS_vp_signal, cap, SIG_REMOTE);
	long r2 = syscall2(SYS_vp_signal, cap, vp_pseudo()->vp_id);
	struct result r;
	result_begin(&r, "evtest-child");
	result_int(&r, "r1", r1);
	result_int(&r, "r2", r2);
	result_uint(&r, "vp_id", vp_pseudo()->vp_id);
	result_end(&r);
	return r1 || r2;
}

static void check_signal_cap(void)
{
	struct result r;
	int mark = nrec;
	long cap = sys_vp_cap(0);
	/* The child gets a copy as its first handle, CAP_BASE: a handle
	   means something only in its holder's table. */
	char capstr[24];
	snprintf(capstr, sizeof capstr, "%lu", (uint64_t)CAP_BASE);
	const char *argv[] = { "evtest", "child", capstr };
	long id = sys_spawn_caps("evtest", 3, argv, &cap, 1);
	int status = -1;
	long w = id > 0 ? sys_wait((int)id, &status) : id;
	int got = wait_for(mark, EV_SIGNAL, 2, 2000);
	int i = find(mark, EV_SIGNAL, 0), j = i >= 0 ? find(i + 1, EV_SIGNAL, 0) : -1;
	report_begin(&r, "signal_cap");
	result_int(&r, "cap_is_not_index", cap < 0 || (uint64_t)cap >= MAXVP);
	result_int(&r, "spawn", id);
	result_int(&r, "wait", w);
	result_int(&r, "child_status", status);
	result_int(&r, "signals", count_recs(mark, EV_SIGNAL));
	int ok = (uint64_t)cap >= MAXVP && id > 0 && w == id && status == 0 && got &&
		 count_recs(mark, EV_SIGNAL) == 2;
	if (j >= 0) {
		result_uint(&r, "payload1", evlog[i].arg);
		result_uint(&r, "payload2", evlog[j].arg);
		result_uint(&r, "sender1", evlog[i].result);
		result_uint(&r, "sender2", evlog[j].result);
		ok &= evlog[i].arg == SIG_REMOTE && evlog[j].result == evlog[j].arg &&
		      evlog[i].result == evlog[j].result && evlog[j].result != vp_pseudo()->vp_id &&
		      evlog[j].result != pseudo_page(1)->vp_id;
	}
	report_end(&r, "signal_cap", ok);
}

/* --- helpers: company for VP 0 on its CPU ------------------------------ */

#define MAXHELP 64
static volatile int helpers_stop, helper_started[MAXHELP], helper_cpu[MAXHELP];
static int nhelp;

static void helper(uint64_t i)
{
	helper_cpu[i] = vp_pseudo()->cpu;
	helper_started[i] = 1;
	while (!helpers_stop)
		__asm__ volatile("pause");
	for (;;)
		syscall0(SYS_vp_idle);
}

/* One at a time, each running before the next is made: the kernel puts a
   new VP on an idle CPU, else on the shortest queue, so 2*ncpu-1 of them
   leave every CPU with one running and one waiting. */
static void start_helpers(int n)
{
	nhelp = n < MAXHELP ? n : MAXHELP;
	for (int i = 0; i < nhelp; i++) {
		char *stack = malloc(16384);
		long v = syscall3(SYS_vp_create, (long)helper, (long)(stack + 16384 - 8), i);
		if (v < 0) {
			printf("evtest: vp_create: %ld\n", v);
			exit(3);
		}
		while (!helper_started[i])
			sys_yield();
	}
}

/* Run busy_loop until the handler (or the watchdog) stops it. */
static uint64_t busy_phase(int ph, struct busy_out *out)
{
	stop = 0;
	watchdog_fired = 0;
	phase_warnings = busy_preempted = other_preempted = 0;
	phase = ph;
	syscall2(SYS_timer, sys_time() + 3000 * MS, WATCHDOG);
	uint64_t n = busy_loop(&stop, out, &probe);
	syscall2(SYS_timer, 0, 0);
	phase = PH_NONE;
	return n;
}

/*
 * EV_WARNING, while VP 0 ignores it in busy_loop beside a helper. For each
 * warning (deadline = arg):
 *   before:  the loop last ran before the deadline (probe time < arg): the
 *            warning came in time, not after the VP had overrun it;
 *   within:  the handler saw it at most warn_ns before the deadline;
 *   in_quantum: if no new quantum began between the loop's last iteration
 *            and the handler (probe quantum_start == pp->quantum_start),
 *            arg == pp->quantum_end == pp->preempt_deadline. A new quantum
 *            in between happens only if the host stalled this CPU for the
 *            whole warning period (reported as "requantum").
 * These hold however late the emulated CPU runs the handler.
 */
static void check_warning(void)
{
	struct result r;
	struct vp_page *vpp = vp_self();
	struct busy_out out;
	vpp->warn_ns = WARN_NS;
	sys_yield();                     /* start a quantum with the warning armed */
	int mark = nrec;
	uint64_t n = busy_phase(PH_WARN, &out);
	vpp->warn_ns = 0;
	report_begin(&r, "warning");
	result_uint(&r, "warn_ns", WARN_NS);
	result_uint(&r, "quantum_ns", vp_pseudo()->quantum_ns);
	result_int(&r, "watchdog", watchdog_fired);
	int ok = !watchdog_fired && busy_check(n, &out);
	int k = 0, requantum = 0;
	result_array(&r, "lead_ns");     /* deadline - when the handler saw it */
	for (int i = mark; (i = find(i, EV_WARNING, 0)) >= 0; i++, k++)
		result_int(&r, 0, (int64_t)(evlog[i].arg - evlog[i].t));
	result_close(&r);
	result_array(&r, "loop_lead_ns");    /* deadline - when the loop last ran */
	for (int i = mark; (i = find(i, EV_WARNING, 0)) >= 0; i++)
		result_int(&r, 0, (int64_t)(evlog[i].arg - evlog[i].loop_t));
	result_close(&r);
	result_array(&r, "in_quantum");
	for (int i = mark; (i = find(i, EV_WARNING, 0)) >= 0; i++) {
		struct rec *w = &evlog[i];
		int same = w->loop_qstart == w->qstart;
		int in_quantum = w->arg == w->qend && w->pdl == w->arg;
		requantum += !same;
		result_int(&r, 0, same ? in_quantum : -1);
		ok &= w->loop_t < w->arg && w->arg - w->t <= WARN_NS && (!same || in_quantum);
	}
	result_close(&r);
	result_int(&r, "requantum", requantum);
	result_int(&r, "warnings", k);
	ok &= k >= NWARN;
	report_end(&r, "warning", ok);
}

static void check_preempted(void)
{
	struct result r;
	struct vp_page *vpp = vp_self();
	struct pseudo_page *pp = vp_pseudo();
	struct busy_out out;
	uint64_t c0, p0;
	vpp->want_preempted = 1;
	do {                             /* a consistent pair: see check_counters */
		c0 = counts[EV_PREEMPTED];
		p0 = pp->preemptions;
	} while (c0 != counts[EV_PREEMPTED]);
	int mark = nrec;
	uint64_t n = busy_phase(PH_PREEMPT, &out);
	uint64_t c1, p1;
	do {
		c1 = counts[EV_PREEMPTED];
		p1 = pp->preemptions;
	} while (c1 != counts[EV_PREEMPTED]);
	vpp->want_preempted = 0;
	int good = 1;
	for (int i = mark; (i = find(i, EV_PREEMPTED, 0)) >= 0; i++)
		good &= evlog[i].thread == (uint64_t)&thr[0];
	report_begin(&r, "preempted");
	result_int(&r, "watchdog", watchdog_fired);
	result_uint(&r, "in_busy_loop", busy_preempted);
	result_uint(&r, "elsewhere", other_preempted);
	result_uint(&r, "iterations", n);
	int correct = busy_check(n, &out);
	result_int(&r, "result_ok", correct);
	result_int(&r, "thread_ok", good);
	result_uint(&r, "events", c1 - c0);
	result_uint(&r, "preemptions", p1 - p0);
	result_uint(&r, "cpu", pp->cpu);
	result_array(&r, "helper_cpus");
	for (int i = 0; i < nhelp; i++)
		result_int(&r, 0, helper_cpu[i]);
	result_close(&r);
	int ok = !watchdog_fired && busy_preempted >= 1 && correct && good && p1 - p0 == c1 - c0;
	report_end(&r, "preempted", ok);
}

/* The pseudo-page statistics agree with the events the handler saw. Read
   with no events in flight: only VP 0's own activity could add one now,
   and each such event reaches the handler before this code runs on. */
static void check_counters(void)
{
	struct result r;
	struct pseudo_page *pp = vp_pseudo();
	uint64_t n0, b, u, s, w, e;
	do {
		n0 = nev;
		b = pp->blocks;
		u = pp->unblocks;
		s = pp->signals;
		w = pp->warnings;
		e = pp->events;
	} while (n0 != nev);
	report_begin(&r, "counters");
	result_uint(&r, "blocks", b);
	result_uint(&r, "blocked_events", counts[EV_BLOCKED]);
	result_uint(&r, "unblocks", u);
	result_uint(&r, "unblocked_events", counts[EV_UNBLOCKED]);
	result_uint(&r, "signals", s);
	result_uint(&r, "signal_events", counts[EV_SIGNAL]);
	result_uint(&r, "warnings", w);
	result_uint(&r, "warning_events", counts[EV_WARNING]);
	result_uint(&r, "events", e);
	result_uint(&r, "events_seen", n0);
	result_uint(&r, "upcalls", pp->upcalls);
	int ok = b == counts[EV_BLOCKED] && u == counts[EV_UNBLOCKED] && s == counts[EV_SIGNAL] &&
		 w == counts[EV_WARNING] && e == n0 && counts[0] == 0;
	report_end(&r, "counters", ok);
}

static void check_seq(void)
{
	struct result r;
	report_begin(&r, "seq");
	result_uint(&r, "events", nev);
	result_uint(&r, "last_seq", last_seq);
	result_uint(&r, "seq_errors", seq_errors);
	result_uint(&r, "vp_errors", vp_errors);
	result_uint(&r, "bad_thread", bad_thread);
	int ok = !seq_errors && !vp_errors && !bad_thread && last_seq == nev && nev > 0;
	report_end(&r, "seq", ok);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	if (vp_pseudo()->nvp < 2) {
		printf("evtest: run as evtest:2\n");
		return 2;
	}
	struct vp_page *vpp = upcall_register(0, handler, STACK);
	if (!vpp)
		return 2;
	/* main becomes thread T0 */
	cur = &thr[0];
	thr[0].state = T_RUNNING;
	vpp->current_thread = (uint64_t)&thr[0];
	vp_enable(vpp);

	check_block("sleep", SYS_sleep, 5 * MS, 0, BLK_SLEEP, 0);
	check_block("io", SYS_io, 3 * MS, IO_VALUE, BLK_IO, IO_VALUE);
	check_overlap();
	check_timer();
	check_signal_local();
	check_signal_cap();
	start_helpers(2 * (int)vp_pseudo()->ncpu - 1);
	check_warning();
	check_preempted();
	helpers_stop = 1;
	check_counters();
	check_seq();

	struct result r;
	result_begin(&r, "evtest");
	result_str(&r, "check", "summary");
	result_array(&r, "failed");
	for (int i = 0; i < nfailed; i++)
		result_str(&r, 0, failed[i]);
	result_close(&r);
	result_end(&r);
	return nfailed ? 1 : 0;
}
