/*
 * uctx: <ucontext.h> (ulib/libc/ucontext.S, ucontext.c) the way coroutine code
 * uses it: getcontext/setcontext returning again; a generator on its own
 * stack, resumed by swapcontext 1000 times; makecontext with 9 arguments
 * (3 of them on the stack) arriving intact on an ABI-aligned stack; a
 * function's return resuming uc_link; the signal mask and the x87
 * control word restored with a context; bad contexts refused (EINVAL);
 * generators in 4 pthreads at once (their packages switch them while on
 * the coroutine stacks). Each CHECK counts; a failure prints a line.
 * Prints @result {"name": "uctx", "checks": N, "failures": F}, then ends
 * through a context whose function returns with uc_link 0: exit(0) if no
 * check failed (glibc's rule), so the line "uctx: after" never appears.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

#define CHECK_NAME "uctx"
#include <check.h>

#define STACK 16384

/* ---- a generator ---- */

struct gen {
	ucontext_t caller, self;
	long value;
	int done;
	char stack[STACK] __attribute__((aligned(16)));
};

static void gen_body(unsigned lo, unsigned hi)
{
	/* Recover our struct from the stack we run on (makecontext passes
	   ints; a pointer split in two halves is the portable idiom). */
	struct gen *g = (struct gen *)((uintptr_t)hi << 32 | lo);
	for (long i = 0; i < 1000; i++) {
		g->value = i * i;
		swapcontext(&g->self, &g->caller);
	}
	g->done = 1;                     /* returns: uc_link, the caller */
}

static long run_gen(struct gen *g)
{
	CHECK(getcontext(&g->self) == 0);
	g->self.uc_stack.ss_sp = g->stack;
	g->self.uc_stack.ss_size = sizeof g->stack;
	g->self.uc_link = &g->caller;
	g->done = 0;
	uintptr_t p = (uintptr_t)g;
	makecontext(&g->self, (void (*)(void))gen_body, 2, (unsigned)p, (unsigned)(p >> 32));
	long sum = 0, n = 0, bad = 0;
	for (;;) {
		if (swapcontext(&g->caller, &g->self) != 0)
			return -1;
		if (g->done)
			break;
		if (g->value != n * n)
			bad++;
		sum += g->value, n++;
		if (n % 100 == 0)
			sched_yield();
	}
	return bad ? -2 : n == 1000 ? sum : -3;
}

#define GEN_SUM 332833500L               /* sum of i*i, i < 1000 */

/* ---- many arguments ---- */

static ucontext_t main_ctx, args_ctx;
static char args_stack[STACK] __attribute__((aligned(16)));
static int args_ok, aligned_ok;

static void nine(long a, long b, long c, long d, long e, long f, long g, long h, long i)
{
	args_ok = a == 1 && b == -2 && c == 3 && d == 0x7fffffffffffL && e == 5 && f == 6 &&
		  g == 7 && h == -8 && i == 0x123456789L;
	/* a frame pointer is the entry's rsp - 8: 16-byte aligned by the ABI */
	aligned_ok = (uintptr_t)__builtin_frame_address(0) % 16 == 0;
}

/* ---- generators in threads ---- */

static void *threaded(void *arg)
{
	(void)arg;
	struct gen *g = malloc(sizeof *g);
	long r = run_gen(g);
	free(g);
	return (void *)r;
}

/* ---- the end ---- */

static void last(void)
{
	printf("@result {\"name\": \"uctx\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	if (failures)
		exit(1);
	/* returns: uc_link is 0, so the process ends, status 0 */
}

int main(void)
{
	/* getcontext returns again after setcontext */
	static volatile int again;
	ucontext_t c;
	again = 0;
	CHECK(getcontext(&c) == 0);
	if (++again < 3)
		setcontext(&c);
	CHECK(again == 3);

	/* the signal mask and the x87 control word come back with it */
	static volatile int phase;
	sigset_t s, now;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_SETMASK, &s, 0);
	unsigned short cw0, cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw0));
	phase = 0;
	CHECK(getcontext(&c) == 0);
	if (phase++ == 0) {
		sigemptyset(&s);
		sigaddset(&s, SIGUSR2);
		sigprocmask(SIG_SETMASK, &s, 0);
		unsigned short other = (unsigned short)(cw0 ^ 0x0c00);   /* rounding toward zero */
		__asm__ volatile("fldcw %0" : : "m"(other));
		setcontext(&c);
	}
	sigprocmask(SIG_BLOCK, 0, &now);
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	CHECK(sigismember(&now, SIGUSR1) && !sigismember(&now, SIGUSR2));
	CHECK(cw == cw0);
	sigemptyset(&s);
	sigprocmask(SIG_SETMASK, &s, 0);

	/* a generator */
	static struct gen g;
	CHECK(run_gen(&g) == GEN_SUM);

	/* nine arguments, and uc_link; two stack tops 8 bytes apart, so that
	   one of them needs the alignment makecontext does */
	for (int k = 0; k < 2; k++) {
		CHECK(getcontext(&args_ctx) == 0);
		args_ctx.uc_stack.ss_sp = args_stack;
		args_ctx.uc_stack.ss_size = sizeof args_stack - 8 * (size_t)(k + 1);
		args_ctx.uc_link = &main_ctx;
		args_ok = aligned_ok = 0;
		makecontext(&args_ctx, (void (*)(void))nine, 9, 1L, -2L, 3L, 0x7fffffffffffL, 5L, 6L,
			    7L, -8L, 0x123456789L);
		CHECK(swapcontext(&main_ctx, &args_ctx) == 0);
		CHECK(args_ok && aligned_ok);
	}

	/* bad contexts */
	errno = 0;
	CHECK(setcontext(0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(getcontext(0) == -1 && errno == EINVAL);
	ucontext_t nostack;
	CHECK(getcontext(&nostack) == 0);
	nostack.uc_stack.ss_sp = 0;
	nostack.uc_stack.ss_size = STACK;
	makecontext(&nostack, (void (*)(void))last, 0);
	errno = 0;
	CHECK(swapcontext(&c, &nostack) == -1 && errno == EINVAL);
	nostack.uc_stack.ss_sp = args_stack;
	nostack.uc_stack.ss_size = 64;   /* too small */
	makecontext(&nostack, (void (*)(void))last, 0);
	CHECK(setcontext(&nostack) == -1 && errno == EINVAL);

	/* generators in threads at once */
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], 0, threaded, 0) == 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0 && (long)r == GEN_SUM);
	}

	/* the end: a function returning with uc_link 0 ends the process */
	CHECK(getcontext(&args_ctx) == 0);
	args_ctx.uc_stack.ss_sp = args_stack;
	args_ctx.uc_stack.ss_size = sizeof args_stack;
	args_ctx.uc_link = 0;
	makecontext(&args_ctx, last, 0);
	setcontext(&args_ctx);
	printf("uctx: after\n");
	return 2;
}
