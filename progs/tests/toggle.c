/*
 * toggle N: the disabled/pending handshake of <anima/vp.h> loses nothing.
 * Run as run=toggle:2,N.
 *
 * VP 1 (classic, no upcalls) sends N signals to VP 0 with payloads 1..N,
 * retrying after sys_yield() when the kernel refuses one (-EAGAIN: 512
 * queued). VP 0 registers an upcall handler and then toggles its software
 * interrupts off and on (vp_disable / vp_enable) as fast as it can, so
 * events keep arriving while it is disabled, while it is enabling, and
 * inside the resume window. The handler takes every event from the ring
 * and checks:
 *   - each is an EV_SIGNAL for VP 0, sent by VP 1;
 *   - payloads come in order 1, 2, ..., N (one sender, so FIFO) and sum
 *     to N(N+1)/2;
 *   - seq numbers are exactly 1, 2, 3, ...: none missing or repeated;
 *   - it never runs while VP 0 is inside its disabled stretch.
 * VP 0 stops when it has all N, or when it has waited STALL_S seconds
 * after VP 1 finished (events stuck somewhere), or after LIMIT_S seconds.
 */
#include <stdio.h>
#include <animart/clock.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK    65536
#define LIMIT_S  50
#define STALL_S  3

static uint64_t n_signals = 100000;
static uint64_t spread = 0;         /* VP 1 pauses 0..spread-1 times between signals */

/* VP 1's side */
static volatile uint64_t sent, eagain, send_errors;
static volatile long last_error;
static volatile int sender_done;

/* VP 0's side: written by the handler, read by main */
static volatile uint64_t received, payload_sum, order_errors, seq_errors, type_errors;
static volatile uint64_t sender_errors, last_seq, violations, handler_runs, polls;
static volatile int in_critical;
static uint32_t vp1_id;

static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	handler_runs++;
	if (in_critical)
		violations++;          /* an upcall inside the disabled stretch */
	for (;;) {
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
			if (e->seq != last_seq + 1)
				seq_errors++;
			last_seq = e->seq;
			if (e->type != EV_SIGNAL || e->vp != 0) {
				type_errors++;
				continue;
			}
			if (e->result != vp1_id)
				sender_errors++;
			received++;
			if (e->arg != received)
				order_errors++;
			payload_sum += e->arg;
		}
		if (!vpp->pending)
			break;
		vpp->pending = 0;      /* more were queued than the ring holds: fetch them */
		polls++;
		syscall0(SYS_vp_poll);
	}
	vp_resume(vpp);
}

static void sender(void)
{
	uint64_t x = 88172645463325252UL;   /* xorshift: irregular gaps between signals */
	for (uint64_t p = 1; p <= n_signals; p++) {
		if (spread) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			for (uint64_t k = x % spread; k; k--)
				__asm__ volatile("pause");
		}
		long r;
		while ((r = syscall2(SYS_vp_signal, 0, p)) == -EAGAIN) {
			eagain++;
			sys_yield();
		}
		if (r) {
			send_errors++;
			last_error = r;
		} else
			sent++;
	}
	sender_done = 1;
	for (;;)
		syscall0(SYS_vp_idle);
}


int main(int argc, char **argv)
{
	if (argc > 1)
		n_signals = strtoull(argv[1], 0, 10);
	if (argc > 2)
		spread = strtoull(argv[2], 0, 10);
	struct pseudo_page *pp = vp_pseudo();
	if (pp->nvp < 2) {
		printf("toggle: run as toggle:2\n");
		return 2;
	}
	vp1_id = pseudo_page(1)->vp_id;
	struct vp_page *vpp = upcall_register(0, handler, STACK);
	if (!vpp)
		return 2;
	vp_enable(vpp);

	uint64_t hz = pp->tsc_hz, t0 = rdtsc(), limit = t0 + LIMIT_S * hz, stall_at = 0;
	char *stack = malloc(STACK);
	long s = syscall6(SYS_vp_start, 1, (long)sender, (long)(stack + STACK - 8), 0, 0, 0);
	uint64_t toggles = 0, pending_at_enable = 0;
	int timed_out = 0;
	while (received < n_signals && !s) {
		vp_disable(vpp);
		in_critical = 1;
		toggles++;
		in_critical = 0;
		pending_at_enable += vpp->pending;   /* events came while disabled */
		vp_enable(vpp);
		if ((toggles & 1023) == 0) {
			uint64_t now = rdtsc();
			if (sender_done && !stall_at)
				stall_at = now + STALL_S * hz;
			if (now > limit || (stall_at && now > stall_at)) {
				timed_out = 1;
				break;
			}
		}
	}
	uint64_t elapsed = rdtsc() - t0;
	vp_disable(vpp);
	uint64_t n = n_signals;
	struct result r;
	result_begin(&r, "toggle");
	result_uint(&r, "n", n);
	result_int(&r, "start", s);
	result_uint(&r, "sent", sent);
	result_uint(&r, "eagain", eagain);
	result_uint(&r, "send_errors", send_errors);
	result_int(&r, "last_error", last_error);
	result_int(&r, "sender_done", sender_done);
	result_uint(&r, "received", received);
	result_uint(&r, "payload_sum", payload_sum);
	result_uint(&r, "expected_sum", n * (n + 1) / 2);
	result_uint(&r, "order_errors", order_errors);
	result_uint(&r, "seq_errors", seq_errors);
	result_uint(&r, "last_seq", last_seq);
	result_uint(&r, "type_errors", type_errors);
	result_uint(&r, "sender_errors", sender_errors);
	result_uint(&r, "violations", violations);
	result_uint(&r, "spread", spread);
	result_uint(&r, "toggles", toggles);
	result_uint(&r, "pending_at_enable", pending_at_enable);
	result_uint(&r, "handler_runs", handler_runs);
	result_uint(&r, "polls", polls);
	result_uint(&r, "upcalls", pp->upcalls);
	result_uint(&r, "events", pp->events);
	result_uint(&r, "pending", vpp->pending);
	result_uint(&r, "ring_unread", vpp->ring_tail - vpp->ring_head);
	result_int(&r, "timed_out", timed_out);
	result_uint(&r, "elapsed_ms", elapsed / (hz / 1000));
	result_end(&r);
	int ok = !s && received == n && sent == n && payload_sum == n * (n + 1) / 2 &&
		 !order_errors && !seq_errors && last_seq == n && !type_errors && !sender_errors &&
		 !violations && !send_errors;
	return ok ? 0 : 1;
}
