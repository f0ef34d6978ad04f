/*
 * twothreads [SLEEPS] [SLEEP_MS]: a hand-written two-thread dispatcher on
 * one VP, the smallest user of upcalls. Thread A sleeps in the kernel
 * SLEEPS times; thread B computes. Because sys_sleep blocks only the
 * thread (EV_BLOCKED), B keeps the VP while A sleeps, and A comes back
 * with its context in EV_UNBLOCKED. Both threads do floating point, so
 * FPU state must survive every switch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK 65536

struct thr {
	struct uctx ctx;
	uint8_t fpu[512] __attribute__((aligned(16)));
	int ready;                  /* has a context to run */
	const char *name;
};

static struct thr A = { .name = "A" }, B = { .name = "B" };
static struct thr *cur;
static volatile uint64_t b_count;
static volatile double b_sum;
static int sleeps = 5;
static uint64_t sleep_ns = 20000000;
static uint64_t blocked_seen, unblocked_seen, other_seen;

static void thread_a(void)
{
	uint64_t progress[64];
	int n = sleeps < 64 ? sleeps : 64;
	double a = 0;
	uint64_t t0 = sys_time();
	for (int i = 0; i < n; i++) {
		uint64_t before = b_count;
		a += 0.5;
		sys_sleep(sleep_ns);
		progress[i] = b_count - before;
	}
	uint64_t elapsed = sys_time() - t0;
	uint64_t minp = ~0UL;
	for (int i = 0; i < n; i++)
		minp = progress[i] < minp ? progress[i] : minp;
	struct pseudo_page *pp = vp_pseudo();
	struct result r;
	result_begin(&r, "twothreads");
	result_int(&r, "sleeps", n);
	result_uint(&r, "sleep_ns", sleep_ns);
	result_uint(&r, "elapsed_ns", elapsed);
	result_uints(&r, "b_progress", progress, n);
	result_uint(&r, "min_progress", minp);
	/* FPU state must have survived: both sums are exact in binary. B may
	   have been interrupted between its two increments, so b_sum may
	   trail b_count by one. */
	uint64_t bc = b_count;
	double bs = b_sum;
	int fpu_ok = a == 0.5 * n && (bs == (double)bc || bs == (double)(bc - 1));
	result_int(&r, "fpu_ok", fpu_ok);
	result_uint(&r, "upcalls", pp->upcalls);
	result_uint(&r, "blocks", pp->blocks);
	result_uint(&r, "unblocks", pp->unblocks);
	result_uint(&r, "blocked_events", blocked_seen);
	result_uint(&r, "unblocked_events", unblocked_seen);
	result_end(&r);
	exit(minp > 0 && fpu_ok ? 0 : 1);
}

static void thread_b(void)
{
	for (;;) {
		b_count++;
		b_sum += 1.0;
	}
}

static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	int cur_blocked = 0;
	vpp->pending = 0;
	for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
		struct thr *t = (struct thr *)e->thread;
		switch (e->type) {
		case EV_BLOCKED:      /* t is gone into the kernel; keep its FPU state */
			blocked_seen++;
			memcpy(t->fpu, vpp->fpu, sizeof t->fpu);
			t->ready = 0;
			cur_blocked |= t == cur;
			break;
		case EV_UNBLOCKED:    /* t may run again, from the context the kernel kept */
			unblocked_seen++;
			t->ctx = e->ctx;
			t->ready = 1;
			break;
		default:
			other_seen++;
		}
	}
	if (!cur_blocked) {       /* interrupted, not blocked: cur can resume later */
		cur->ctx = vpp->save;
		memcpy(cur->fpu, vpp->fpu, sizeof cur->fpu);
		cur->ready = 1;
	}
	struct thr *next = A.ready ? &A : &B;   /* A first: it has waited */
	next->ready = 0;
	cur = next;
	vpp->current_thread = (uint64_t)next;
	vp_switch(vpp, &next->ctx, next->fpu);
}

static void init_thread(struct thr *t, void (*fn)(void))
{
	char *stack = malloc(STACK);
	memset(&t->ctx, 0, sizeof t->ctx);
	t->ctx.rip = (uint64_t)fn;
	t->ctx.rsp = ((uint64_t)stack + STACK - 8) & ~15UL;   /* as if just called */
	t->ctx.rsp -= 8;
	t->ctx.rflags = 0x202;
	__asm__ volatile("fxsave64 %0" : "=m"(t->fpu));        /* a clean FPU image */
	t->ready = 1;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		sleeps = atoi(argv[1]);
	if (argc > 2)
		sleep_ns = strtoull(argv[2], 0, 10) * 1000000;
	struct vp_page *vpp = upcall_register(vp_index(), handler, STACK);
	if (!vpp) {
		printf("twothreads: cannot register upcalls\n");
		return 2;
	}
	init_thread(&A, thread_a);
	init_thread(&B, thread_b);
	B.ready = 1;
	A.ready = 0;
	cur = &A;
	vpp->current_thread = (uint64_t)&A;
	vp_switch(vpp, &A.ctx, A.fpu);        /* enables upcalls; main is done */
}
