/*
 * blocking MODE: blocking operations, classic and with upcalls. Each mode
 * prints `@result {"name": "blocking", "mode": MODE, ...}` and exits 0 when
 * every check it can make itself passed (1 otherwise); the test checks the
 * numbers too.
 *
 *   lazy0          demand-zero region, latency 0: pages read as zero, writes
 *                  stick, nothing blocks
 *   lazy-classic   latency 5 ms, classic VP: each first touch takes >= 5 ms
 *                  and blocks the VP
 *   lazy-upcall    latency 5 ms, upcalls: only the touching thread blocks
 *                  (EV_BLOCKED/EV_UNBLOCKED, arg BLK_PAGE); the other thread
 *                  progresses; the faulting instruction is re-executed
 *   lazy-handler   a latency fault inside the upcall handler (disabled)
 *                  blocks the VP: no nested upcall
 *   futex-classic  (2 VPs) VP 1 waits, VP 0 wakes it
 *   futex-upcall   (2 VPs) a thread of VP 1 waits and its other thread
 *                  progresses; VP 0 wakes the waiter
 *   futex-errors   -EAGAIN, -ETIMEDOUT, -EFAULT, -EINVAL, and wake's results
 *   futex-timeout-upcall  a thread's timed wait ends in EV_UNBLOCKED with
 *                  -ETIMEDOUT while its other thread progresses
 *   sleep-classic  (2 VPs) VP 0 sleeps; VP 1, same space, runs meanwhile
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define MS            1000000UL
#define LATENCY       (5 * MS)
#define STACK         65536
#define PAGE          4096

static const char *mode = "";
static int failures;
static struct result R;

#define CHECK(cond) do { if (!(cond)) { failures++; \
	printf("blocking %s: check failed: %s (line %d)\n", mode, #cond, __LINE__); } } while (0)

static void finish(void)
{
	result_int(&R, "failures", failures);
	result_end(&R);
	exit(failures ? 1 : 0);
}

static long futex_wait(volatile uint32_t *a, uint32_t expected, uint64_t timeout)
{
	return syscall3(SYS_futex_wait, a, expected, timeout);
}
static long futex_wake(volatile uint32_t *a, long n)
{
	return syscall2(SYS_futex_wake, a, n);
}
static void *map_lazy(size_t len, uint64_t latency)
{
	return (void *)syscall6(SYS_map, 0, len, PROT_READ | PROT_WRITE | MAP_LAZY, latency, 0, 0);
}

/* Start parked VP `index` running fn(arg) on a fresh stack. */
static void start_vp(int index, void (*fn)(uint64_t), uint64_t arg)
{
	char *stack = malloc(STACK);
	uint64_t rsp = (((uint64_t)stack + STACK) & ~15UL) - 8;   /* as if just called */
	long r = syscall6(SYS_vp_start, index, (long)fn, (long)rsp, (long)arg, 0, 0);
	if (r != 0) {
		printf("blocking: vp_start(%d) = %ld\n", index, r);
		exit(2);
	}
}

/* ------------------------------------------------------------------ */
/* A two-thread dispatcher for one VP (as in twothreads.c): the worker  */
/* does the blocking operation, the counter counts. The handler logs   */
/* every event.                                                         */

struct thr {
	struct uctx ctx;
	uint8_t fpu[512] __attribute__((aligned(16)));
	int ready;
};
static struct thr worker, counter;
static struct thr *cur;
static volatile uint64_t count;

#define MAXLOG 64
static struct {
	uint32_t type;
	uint64_t arg, result, thread;
} evlog[MAXLOG];
static volatile int nlog;

static void counter_fn(void)
{
	for (;;)
		count++;
}

static void log_event(struct event *e)
{
	if (nlog < MAXLOG)
		evlog[nlog++] = (typeof(evlog[0])){ e->type, e->arg, e->result, e->thread };
}

static void two_handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	int cur_blocked = 0;
	vpp->pending = 0;
	for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
		log_event(e);
		struct thr *t = (struct thr *)e->thread;
		if (e->type == EV_BLOCKED) {
			memcpy(t->fpu, vpp->fpu, sizeof t->fpu);
			t->ready = 0;
			cur_blocked |= t == cur;
		} else if (e->type == EV_UNBLOCKED) {
			t->ctx = e->ctx;
			t->ready = 1;
		}
	}
	if (!cur_blocked) {
		cur->ctx = vpp->save;
		memcpy(cur->fpu, vpp->fpu, sizeof cur->fpu);
		cur->ready = 1;
	}
	struct thr *next = worker.ready ? &worker : &counter;
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
	t->ctx.rsp = (((uint64_t)stack + STACK) & ~15UL) - 8;
	t->ctx.rflags = 0x202;
	__asm__ volatile("fxsave64 %0" : "=m"(t->fpu));
	t->ready = 1;
}

/* Run worker_fn as the worker beside the counter on this VP; never returns
   (worker_fn ends the program). */
__attribute__((noreturn)) static void run_two(void (*worker_fn)(void))
{
	struct vp_page *vpp = upcall_register(vp_index(), two_handler, STACK);
	if (!vpp) {
		printf("blocking: cannot register upcalls\n");
		exit(2);
	}
	init_thread(&worker, worker_fn);
	init_thread(&counter, counter_fn);
	worker.ready = 0;
	cur = &worker;
	vpp->current_thread = (uint64_t)&worker;
	vp_switch(vpp, &worker.ctx, worker.fpu);
}

/* The first n entries of evlog. */
static void log_report(int n)
{
	result_array(&R, "events");
	for (int i = 0; i < n; i++) {
		result_object(&R, 0);
		result_uint(&R, "type", evlog[i].type);
		result_uint(&R, "arg", evlog[i].arg);
		result_int(&R, "result", (int64_t)evlog[i].result);
		result_int(&R, "worker", evlog[i].thread == (uint64_t)&worker);
		result_close(&R);
	}
	result_close(&R);
}

static void stats_report(unsigned index)
{
	struct pseudo_page *pp = pseudo_page(index);
	result_uint(&R, "upcalls", pp->upcalls);
	result_uint(&R, "blocks", pp->blocks);
	result_uint(&R, "unblocks", pp->unblocks);
}

/* ------------------------------------------------------------------ */
/* Demand-zero regions                                                  */

#define NPAGES 4

/* Every byte of the page at p reads zero, except the 8 at `skip` (-1: none). */
static int page_zero(volatile uint8_t *p, int skip)
{
	for (int i = 0; i < PAGE; i += 8)
		if (i != (skip & ~7) && *(volatile uint64_t *)(p + i))
			return 0;
	return 1;
}

static void lazy0(void)
{
	struct pseudo_page *pp = vp_pseudo();
	volatile uint8_t *region = map_lazy(NPAGES * PAGE, 0);
	CHECK(!sys_failed((long)region));
	uint64_t blocks = pp->blocks, t0 = sys_time();
	int zero = 1;
	for (int i = 0; i < NPAGES; i++)
		zero &= page_zero(region + i * PAGE, -1);
	for (int i = 0; i < NPAGES; i++)
		for (int j = 0; j < PAGE; j += 512)
			region[i * PAGE + j] = (uint8_t)(i * 31 + j / 512 + 1);
	int stick = 1;
	for (int i = 0; i < NPAGES; i++)
		for (int j = 0; j < PAGE; j += 512)
			stick &= region[i * PAGE + j] == (uint8_t)(i * 31 + j / 512 + 1);
	uint64_t elapsed = sys_time() - t0;
	CHECK(zero);
	CHECK(stick);
	CHECK(pp->blocks == blocks);
	result_int(&R, "pages", NPAGES);
	result_int(&R, "zero", zero);
	result_int(&R, "stick", stick);
	result_uint(&R, "new_blocks", pp->blocks - blocks);
	result_uint(&R, "elapsed_ns", elapsed);
	finish();
}

static void lazy_classic(void)
{
	struct pseudo_page *pp = vp_pseudo();
	volatile uint8_t *region = map_lazy(NPAGES * PAGE, LATENCY);
	CHECK(!sys_failed((long)region));
	uint64_t blocks = pp->blocks, first[NPAGES], again[NPAGES];
	int zero = 1, stick = 1;
	for (int i = 0; i < NPAGES; i++) {
		volatile uint8_t *p = region + i * PAGE;
		uint64_t t0 = sys_time();
		if (i % 2)
			p[100] = 0x5a;                /* a write fault */
		else
			zero &= p[100] == 0;          /* a read fault */
		uint64_t t1 = sys_time();
		zero &= page_zero(p, i % 2 ? 100 : -1);
		p[200] = (uint8_t)(i + 1);
		uint64_t t2 = sys_time();
		first[i] = t1 - t0;
		again[i] = t2 - t1;
	}
	for (int i = 0; i < NPAGES; i++)
		CHECK(first[i] >= LATENCY);
	for (int i = 0; i < NPAGES; i++) {
		stick &= region[i * PAGE + 200] == (uint8_t)(i + 1);
		if (i % 2)
			stick &= region[i * PAGE + 100] == 0x5a;
	}
	CHECK(zero);
	CHECK(stick);
	CHECK(pp->blocks - blocks == NPAGES);
	CHECK(pp->upcalls == 0);
	result_uint(&R, "latency_ns", LATENCY);
	result_uints(&R, "first_ns", first, NPAGES);
	result_uints(&R, "again_ns", again, NPAGES);
	result_int(&R, "zero", zero);
	result_int(&R, "stick", stick);
	result_uint(&R, "new_blocks", pp->blocks - blocks);
	result_uint(&R, "upcalls", pp->upcalls);
	finish();
}

static volatile uint8_t *lazy_region;

static void lazy_upcall_worker(void)
{
	uint64_t elapsed[NPAGES], progress[NPAGES];
	int zero = 1, stick = 1;
	for (int i = 0; i < NPAGES; i++) {
		volatile uint8_t *p = lazy_region + i * PAGE;
		uint64_t c0 = count, t0 = sys_time();
		if (i % 2)
			p[8] = 0xa5;              /* re-executed after EV_UNBLOCKED */
		else
			zero &= p[8] == 0;
		elapsed[i] = sys_time() - t0;
		progress[i] = count - c0;
		zero &= page_zero(p, i % 2 ? 8 : -1);
		if (i % 2)
			stick &= p[8] == 0xa5;
	}
	uint64_t minp = ~0UL;
	for (int i = 0; i < NPAGES; i++) {
		minp = progress[i] < minp ? progress[i] : minp;
		CHECK(elapsed[i] >= LATENCY);
	}
	CHECK(zero);
	CHECK(stick);
	CHECK(minp > 0);
	result_uint(&R, "latency_ns", LATENCY);
	result_uints(&R, "elapsed_ns", elapsed, NPAGES);
	result_uints(&R, "progress", progress, NPAGES);
	result_uint(&R, "min_progress", minp);
	result_int(&R, "zero", zero);
	result_int(&R, "stick", stick);
	stats_report(vp_index());
	log_report(nlog);
	finish();
}

static void lazy_upcall(void)
{
	lazy_region = map_lazy(NPAGES * PAGE, LATENCY);
	CHECK(!sys_failed((long)lazy_region));
	run_two(lazy_upcall_worker);
}

/* A fault in the handler itself: software interrupts are disabled there,
   so the VP blocks (no nested upcall) and the handler simply goes on. */
static volatile uint64_t h_upcalls_before, h_upcalls_after, h_elapsed, h_blocks;
static volatile int h_value, h_ran, h_nested, h_page_events;
static volatile int in_handler;

static void fault_handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	if (in_handler)
		h_nested++;               /* must never happen */
	in_handler = 1;
	h_ran++;
	vpp->pending = 0;
	for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++)
		log_event(e);
	if (h_ran == 1) {
		uint64_t b = pp->blocks;
		h_upcalls_before = pp->upcalls;
		uint64_t t0 = sys_time();
		lazy_region[16] = 0x77;
		h_value = lazy_region[16];
		h_elapsed = sys_time() - t0;
		h_upcalls_after = pp->upcalls;
		h_blocks = pp->blocks - b;
		/* Anything the fault produced is in the ring by now. */
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++) {
			log_event(e);
			h_page_events += e->arg == BLK_PAGE;
		}
	}
	in_handler = 0;
	vp_resume(vpp);
}

static void lazy_handler(void)
{
	lazy_region = map_lazy(PAGE, LATENCY);
	CHECK(!sys_failed((long)lazy_region));
	struct vp_page *vpp = upcall_register(vp_index(), fault_handler, STACK);
	vp_enable(vpp);
	long r = syscall2(SYS_vp_signal, vp_index(), 1);   /* into the handler */
	CHECK(r == 0);
	CHECK(h_ran == 1);
	CHECK(h_nested == 0);
	CHECK(h_upcalls_after == h_upcalls_before);
	CHECK(h_elapsed >= LATENCY);
	CHECK(h_value == 0x77);
	CHECK(h_blocks == 1);
	CHECK(h_page_events == 0);
	result_int(&R, "handler_runs", h_ran);
	result_int(&R, "nested", h_nested);
	result_uint(&R, "upcalls_during_fault", h_upcalls_after - h_upcalls_before);
	result_uint(&R, "elapsed_ns", h_elapsed);
	result_int(&R, "value", h_value);
	result_uint(&R, "blocks_during_fault", h_blocks);
	result_int(&R, "page_events", h_page_events);
	log_report(nlog);
	finish();
}

/* ------------------------------------------------------------------ */
/* Futexes                                                              */

static volatile uint32_t fword;
static volatile int waiter_ready, waiter_done;
static volatile long waiter_ret;
static volatile uint64_t waiter_progress, waiter_ns;

/* VP 0: wake the waiter on fword, retrying until the kernel says it woke
   one (the waiter may not be asleep yet). Returns the attempts. */
static int wake_waiter(long *woken)
{
	while (!waiter_ready)
		sys_sleep(MS / 10);
	int tries = 0;
	long n = 0;
	while (n == 0 && tries < 2000) {
		sys_sleep(MS);
		n = futex_wake(&fword, 1);
		tries++;
	}
	*woken = n;
	uint64_t t0 = sys_time();
	while (!waiter_done && sys_time() - t0 < 2000 * MS)
		sys_sleep(MS / 10);
	return tries;
}

static void classic_waiter(uint64_t arg)
{
	(void)arg;
	uint64_t t0 = sys_time();
	waiter_ready = 1;
	waiter_ret = futex_wait(&fword, 0, 0);
	waiter_ns = sys_time() - t0;
	waiter_done = 1;
	for (;;)
		sys_sleep(1000 * MS);
}

static void futex_classic(void)
{
	start_vp(1, classic_waiter, 0);
	long woken;
	int tries = wake_waiter(&woken);
	CHECK(woken == 1);
	CHECK(waiter_done);
	CHECK(waiter_ret == 0);
	CHECK(pseudo_page(1)->upcalls == 0);
	CHECK(pseudo_page(1)->blocks >= 1);
	result_int(&R, "woken", woken);
	result_int(&R, "tries", tries);
	result_int(&R, "waiter_done", waiter_done);
	result_int(&R, "waiter_ret", waiter_ret);
	result_uint(&R, "waiter_ns", waiter_ns);
	stats_report(1);
	finish();
}

static void upcall_waiter_worker(void)
{
	uint64_t c0 = count, t0 = sys_time();
	waiter_ready = 1;
	waiter_ret = futex_wait(&fword, 0, 0);
	waiter_ns = sys_time() - t0;
	waiter_progress = count - c0;
	waiter_done = 1;
	for (;;)
		sys_sleep(1000 * MS);     /* the counter keeps the VP */
}

static void upcall_waiter(uint64_t arg)
{
	(void)arg;
	run_two(upcall_waiter_worker);
}

static void futex_upcall(void)
{
	start_vp(1, upcall_waiter, 0);
	long woken;
	int tries = wake_waiter(&woken);
	CHECK(woken == 1);
	CHECK(waiter_done);
	CHECK(waiter_ret == 0);
	CHECK(waiter_progress > 0);
	result_int(&R, "woken", woken);
	result_int(&R, "tries", tries);
	result_int(&R, "waiter_done", waiter_done);
	result_int(&R, "waiter_ret", waiter_ret);
	result_uint(&R, "waiter_ns", waiter_ns);
	result_uint(&R, "progress", waiter_progress);
	stats_report(1);
	/* VP 1 is still writing evlog; the first two entries are settled. */
	log_report(nlog < 2 ? nlog : 2);
	finish();
}

static void futex_errors(void)
{
	static volatile uint32_t words[4] __attribute__((aligned(16)));
	words[0] = 7;
	long again = futex_wait(&words[0], 8, 0);
	uint64_t t0 = sys_time();
	long timedout = futex_wait(&words[0], 7, 3 * MS);
	uint64_t tns = sys_time() - t0;
	long unmapped = futex_wait((volatile uint32_t *)0x00007f0000000000UL, 0, 0);
	long kernel = futex_wait((volatile uint32_t *)0xffffffff80100000UL, 0, 0);
	long null = futex_wait((volatile uint32_t *)0, 0, 0);
	long misaligned = futex_wait((volatile uint32_t *)((char *)&words[1] + 1), 0, 0);
	long wake_none = futex_wake(&words[0], 1);
	long wake_unmapped = futex_wake((volatile uint32_t *)0x00007f0000000000UL, 1);
	long wake_misaligned = futex_wake((volatile uint32_t *)((char *)&words[1] + 2), 1);
	CHECK(again == -EAGAIN);
	CHECK(timedout == -ETIMEDOUT);
	CHECK(tns >= 3 * MS);
	CHECK(unmapped == -EFAULT);
	CHECK(kernel == -EFAULT);
	CHECK(null == -EFAULT);
	CHECK(misaligned == -EINVAL);
	CHECK(wake_none == 0);
	CHECK(wake_unmapped == -EFAULT);
	CHECK(wake_misaligned == -EINVAL);
	result_int(&R, "eagain", again);
	result_int(&R, "etimedout", timedout);
	result_uint(&R, "timeout_ns", tns);
	result_int(&R, "efault_unmapped", unmapped);
	result_int(&R, "efault_kernel", kernel);
	result_int(&R, "efault_null", null);
	result_int(&R, "einval", misaligned);
	result_int(&R, "wake_none", wake_none);
	result_int(&R, "wake_efault", wake_unmapped);
	result_int(&R, "wake_einval", wake_misaligned);
	result_int(&R, "EAGAIN", EAGAIN);
	result_int(&R, "ETIMEDOUT", ETIMEDOUT);
	result_int(&R, "EFAULT", EFAULT);
	result_int(&R, "EINVAL", EINVAL);
	finish();
}

static void timeout_worker(void)
{
	uint64_t c0 = count, t0 = sys_time();
	long r = futex_wait(&fword, 0, 5 * MS);
	uint64_t ns = sys_time() - t0, progress = count - c0;
	CHECK(r == -ETIMEDOUT);
	CHECK(ns >= 5 * MS);
	CHECK(progress > 0);
	result_int(&R, "ret", r);
	result_uint(&R, "elapsed_ns", ns);
	result_uint(&R, "progress", progress);
	result_int(&R, "ETIMEDOUT", ETIMEDOUT);
	stats_report(vp_index());
	log_report(nlog);
	finish();
}

/* ------------------------------------------------------------------ */
/* sys_sleep on a classic VP                                            */

static void spinner(uint64_t arg)
{
	(void)arg;
	waiter_ready = 1;
	for (;;)
		count++;
}

static void sleep_classic(void)
{
	start_vp(1, spinner, 0);
	while (!waiter_ready)
		sys_yield();
	struct pseudo_page *pp = vp_pseudo();
	uint64_t blocks = pp->blocks, progress[3], elapsed[3];
	for (int i = 0; i < 3; i++) {
		uint64_t c0 = count, t0 = sys_time();
		long r = sys_sleep(LATENCY);
		elapsed[i] = sys_time() - t0;
		progress[i] = count - c0;
		CHECK(r == 0);
		CHECK(elapsed[i] >= LATENCY);
		CHECK(progress[i] > 0);
	}
	CHECK(pp->blocks - blocks == 3);
	CHECK(pp->upcalls == 0);
	result_uint(&R, "sleep_ns", LATENCY);
	result_uints(&R, "elapsed_ns", elapsed, 3);
	result_uints(&R, "progress", progress, 3);
	result_uint(&R, "new_blocks", pp->blocks - blocks);
	result_uint(&R, "upcalls", pp->upcalls);
	result_uint(&R, "ncpu", pp->ncpu);
	finish();
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: blocking MODE\n");
		return 2;
	}
	mode = argv[1];
	result_begin(&R, "blocking");
	result_str(&R, "mode", mode);
	if (!strcmp(mode, "lazy0"))
		lazy0();
	else if (!strcmp(mode, "lazy-classic"))
		lazy_classic();
	else if (!strcmp(mode, "lazy-upcall"))
		lazy_upcall();
	else if (!strcmp(mode, "lazy-handler"))
		lazy_handler();
	else if (!strcmp(mode, "futex-classic"))
		futex_classic();
	else if (!strcmp(mode, "futex-upcall"))
		futex_upcall();
	else if (!strcmp(mode, "futex-errors"))
		futex_errors();
	else if (!strcmp(mode, "futex-timeout-upcall"))
		run_two(timeout_worker);
	else if (!strcmp(mode, "sleep-classic"))
		sleep_classic();
	printf("blocking: unknown mode %s\n", mode);
	return 2;
}
