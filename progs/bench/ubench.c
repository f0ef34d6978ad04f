/*
 * ubench [REPS]: microbenchmarks in guest instructions. Run it under
 * `-icount shift=0`, where rdtsc counts exactly one per guest instruction
 * (user and kernel alike), so every figure is an instruction count and
 * identical from run to run. Each figure is the median over REPS
 * repetitions (default 1000) after a short warm-up; min is reported too.
 * Figures are raw rdtsc differences: they include the few instructions of
 * the measurement itself (`rdtsc_overhead`, two back-to-back reads).
 *
 *   syscall.null           sys_null(): kernel entry and exit
 *   upcall.delivery        a self-signal (SYS_vp_signal to our own VP index)
 *                          from the running thread, through the upcall stub
 *                          and the C handler, back to the thread:
 *                          to_handler = syscall -> the handler's first line
 *                          (the stub included), to_resumed = that -> back
 *                          after the syscall instruction
 *   upcall.block_roundtrip sys_io(0, v) from a thread: it blocks (EV_BLOCKED),
 *                          completes at once (EV_UNBLOCKED, one upcall with
 *                          both), and the handler resumes its context with
 *                          the result
 *   upcall.fault_roundtrip a write to an untouched demand-zero page with a
 *                          1 ns latency: the fault blocks the thread, the
 *                          page is there before the kernel leaves (one
 *                          upcall with EV_BLOCKED and EV_UNBLOCKED), and
 *                          the handler resumes the faulting instruction
 *   upcall.profile         upcall.delivery cut finer, for whoever optimizes
 *                          it: kernel (syscall -> first instruction of the
 *                          entry stub, through a 3-instruction trampoline
 *                          that reads rdtsc), stub (-> handler's first line),
 *                          handler (event loop, -> the vp_resume call),
 *                          resume (vp_resume -> after the syscall), and two
 *                          references: the same self-signal with software
 *                          interrupts disabled (kernel posts and copies the
 *                          event, no upcall) and sys_vp_poll (empty queue)
 *
 * `ubench N delivery` does N deliveries and nothing else, so instruction
 * traces of two runs with different N can be diffed into a profile.
 *
 * `ubench N wall` reports the same figures in nanoseconds (unit "ns",
 * fractional), for runs without icount: the TSC then runs at the host's
 * rate, and the kernel's calibrated tsc_hz converts ticks to time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK    65536
#define WARMUP   16
#define MAXREPS  4096

static int reps = 1000;
static double ns_per_tick;      /* wall mode: > 0, figures in ns */

/* Samples of up to five intervals per repetition. */
static uint64_t s[5][MAXREPS];

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct stat {
	uint64_t median, min, max;
};

static struct stat stat(uint64_t *v)
{
	static uint64_t tmp[MAXREPS];
	memcpy(tmp, v, reps * sizeof *v);
	qsort(tmp, reps, sizeof *tmp, cmp);
	return (struct stat){ tmp[reps / 2], tmp[0], tmp[reps - 1] };
}

/* A figure in ticks: as is under icount (instructions), else in ns. */
static void figure(struct result *r, const char *key, uint64_t ticks)
{
	if (ns_per_tick > 0)
		result_double(r, key, ticks * ns_per_tick);
	else
		result_uint(r, key, ticks);
}

static void begin(struct result *r, const char *name, uint64_t *v)
{
	struct stat st = stat(v);
	result_begin(r, name);
	result_str(r, "unit", ns_per_tick > 0 ? "ns" : "instructions");
	figure(r, "value", st.median);
	figure(r, "min", st.min);
	figure(r, "max", st.max);
	result_int(r, "reps", reps);
}

static void field(struct result *r, const char *key, uint64_t *v)
{
	figure(r, key, stat(v).median);
}

/* ------------------------------------------------------------------ */

enum { M_SIGNAL, M_BLOCK, M_PROFILE, M_DISABLED };
static volatile int hmode;
static volatile uint64_t t_handler, t_resume;
volatile uint64_t t_stub __attribute__((used));   /* written by ub_entry */
static int bad;                           /* unexpected events or results */

static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	uint64_t t = rdtsc();
	(void)pp;
	t_handler = t;
	vpp->pending = 0;
	if (hmode == M_BLOCK) {
		/* Both events come in one upcall: the io completed at once. */
		struct event *e, *unblocked = 0;
		for (; (e = vp_next_event(vpp)); vpp->ring_head++)
			if (e->type == EV_UNBLOCKED)
				unblocked = e;
			else if (e->type != EV_BLOCKED)
				bad++;
		if (!unblocked) {
			bad++;
			vp_resume(vpp);
		}
		/* The ring slot stays valid until the kernel's next copy,
		   which cannot happen before we are back in user code. */
		vp_switch(vpp, &unblocked->ctx, 0);
	}
	for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++)
		if (e->type != EV_SIGNAL)
			bad++;
	t_resume = rdtsc();
	vp_resume(vpp);
}

/* The profile's entry point: note the time, then the normal stub. rax and
   rdx are free here: the interrupted context is already in vpp->save. */
void ub_entry(void);
__asm__(".text\n"
	".globl ub_entry\n"
	"ub_entry:\n"
	"	rdtsc\n"
	"	movl %eax, t_stub(%rip)\n"
	"	movl %edx, t_stub+4(%rip)\n"
	"	jmp upcall_entry\n");

static long self_signal(unsigned me)
{
	return syscall2(SYS_vp_signal, me, 0);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		reps = atoi(argv[1]);
	if (reps < 1 || reps > MAXREPS)
		reps = 1000;
	/* `ubench N delivery`: only N self-signal deliveries and nothing else,
	   so an instruction trace of the run can be diffed against N = 1. */
	int only_delivery = argc > 2 && !strcmp(argv[2], "delivery");
	if (argc > 2 && !strcmp(argv[2], "wall"))
		ns_per_tick = 1e9 / (double)sys_getinfo(INFO_TSC_HZ);
	unsigned me = vp_index();
	struct pseudo_page *pp = vp_pseudo();
	struct result r;
	if (only_delivery) {
		struct vp_page *vpp = upcall_register(me, handler, STACK);
		vp_enable(vpp);
		for (int i = 0; i < reps; i++)
			self_signal(me);
		return 0;
	}

	/* the measurement's own cost */
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc(), t1 = rdtsc();
		if (i >= 0)
			s[0][i] = t1 - t0;
	}
	uint64_t overhead = stat(s[0]).median;

	/* syscall.null */
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc();
		sys_null();
		uint64_t t1 = rdtsc();
		if (i >= 0)
			s[0][i] = t1 - t0;
	}
	begin(&r, "syscall.null", s[0]);
	figure(&r, "rdtsc_overhead", overhead);
	result_end(&r);
	uint64_t null_median = stat(s[0]).median;

	struct vp_page *vpp = upcall_register(me, handler, STACK);
	if (!vpp) {
		printf("ubench: cannot register upcalls\n");
		return 2;
	}

	/* reference: a self-signal with software interrupts disabled (the
	   kernel queues the event and copies it into the ring; no upcall) */
	hmode = M_DISABLED;
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc();
		long x = self_signal(me);
		uint64_t t1 = rdtsc();
		bad += x != 0 || !vpp->pending;
		vpp->pending = 0;
		vpp->ring_head = vpp->ring_tail;
		if (i >= 0)
			s[0][i] = t1 - t0;
	}
	uint64_t disabled_median = stat(s[0]).median;
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc();
		syscall0(SYS_vp_poll);
		uint64_t t1 = rdtsc();
		if (i >= 0)
			s[0][i] = t1 - t0;
	}
	uint64_t poll_median = stat(s[0]).median;
	vp_enable(vpp);

	/* upcall.delivery */
	hmode = M_SIGNAL;
	uint64_t up0 = pp->upcalls;
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc();
		long x = self_signal(me);
		uint64_t t2 = rdtsc();
		bad += x != 0;
		if (i >= 0) {
			s[0][i] = t2 - t0;
			s[1][i] = t_handler - t0;
			s[2][i] = t2 - t_handler;
		}
	}
	uint64_t upcalls = pp->upcalls - up0;
	begin(&r, "upcall.delivery", s[0]);
	field(&r, "to_handler", s[1]);
	field(&r, "to_resumed", s[2]);
	result_uint(&r, "upcalls", upcalls);
	figure(&r, "rdtsc_overhead", overhead);
	result_end(&r);

	/* upcall.block_roundtrip */
	hmode = M_BLOCK;
	up0 = pp->upcalls;
	uint64_t b0 = pp->blocks;
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc();
		long x = syscall2(SYS_io, 0, 1000 + i);
		uint64_t t2 = rdtsc();
		bad += x != 1000 + i;
		if (i >= 0) {
			s[0][i] = t2 - t0;
			s[1][i] = t_handler - t0;
			s[2][i] = t2 - t_handler;
		}
	}
	upcalls = pp->upcalls - up0;
	begin(&r, "upcall.block_roundtrip", s[0]);
	field(&r, "to_handler", s[1]);
	field(&r, "to_resumed", s[2]);
	result_uint(&r, "upcalls", upcalls);
	result_uint(&r, "blocks", pp->blocks - b0);
	figure(&r, "rdtsc_overhead", overhead);
	result_end(&r);

	/* upcall.fault_roundtrip: a write to an untouched page of a region
	   whose pages come after 1 ns (MAP_LAZY): the fault blocks the
	   thread (BLK_PAGE), the latency is over before the kernel leaves, so
	   EV_BLOCKED and EV_UNBLOCKED come in one upcall as for the I/O
	   above; the handler resumes the faulting instruction, which now
	   finds the page. The path a file page's fault takes (BLK_FPAGE,
	   kernel/fmap.c) but for the device's time and the page's copy. */
	uint64_t npg = (uint64_t)(reps + WARMUP);
	char *lz = (char *)syscall4(SYS_map, 0, npg * 4096, PROT_READ | PROT_WRITE | MAP_LAZY, 1);
	bad += sys_failed((long)lz);
	up0 = pp->upcalls;
	b0 = pp->blocks;
	for (int i = -WARMUP; !sys_failed((long)lz) && i < reps; i++) {
		volatile char *pg = lz + (uint64_t)(i + WARMUP) * 4096;
		uint64_t t0 = rdtsc();
		*pg = 1;
		uint64_t t2 = rdtsc();
		bad += *pg != 1;
		if (i >= 0) {
			s[0][i] = t2 - t0;
			s[1][i] = t_handler - t0;
			s[2][i] = t2 - t_handler;
		}
	}
	begin(&r, "upcall.fault_roundtrip", s[0]);
	field(&r, "to_handler", s[1]);
	field(&r, "to_resumed", s[2]);
	result_uint(&r, "upcalls", pp->upcalls - up0);
	result_uint(&r, "blocks", pp->blocks - b0);
	figure(&r, "rdtsc_overhead", overhead);
	result_end(&r);

	/* upcall.profile: delivery again, entering through ub_entry */
	hmode = M_PROFILE;
	vpp->upcall_entry = (uint64_t)ub_entry;
	for (int i = -WARMUP; i < reps; i++) {
		uint64_t t0 = rdtsc();
		long x = self_signal(me);
		uint64_t t2 = rdtsc();
		bad += x != 0;
		if (i >= 0) {
			s[0][i] = t2 - t0;
			s[1][i] = t_stub - t0;
			s[2][i] = t_handler - t_stub;
			s[3][i] = t_resume - t_handler;
		}
	}
	vpp->upcall_entry = (uint64_t)upcall_entry;
	for (int i = 0; i < reps; i++)          /* resume: t_resume -> t2 */
		s[4][i] = s[0][i] - s[1][i] - s[2][i] - s[3][i];
	begin(&r, "upcall.profile", s[0]);      /* value: the whole, trampoline included */
	field(&r, "kernel", s[1]);
	field(&r, "stub", s[2]);
	field(&r, "handler", s[3]);
	field(&r, "resume", s[4]);
	result_uint(&r, "trampoline", 3);
	figure(&r, "ref_null_syscall", null_median);
	figure(&r, "ref_signal_disabled", disabled_median);
	figure(&r, "ref_poll", poll_median);
	figure(&r, "rdtsc_overhead", overhead);
	result_end(&r);

	struct result f;
	result_begin(&f, "ubench");
	result_int(&f, "reps", reps);
	result_int(&f, "bad", bad);
	result_end(&f);
	return bad ? 1 : 0;
}
