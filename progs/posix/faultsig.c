/*
 * faultsig: faults as signals (kernel/fault.c, ulib/rt/fault.c). A
 * program that installs a SIGSEGV, SIGBUS, SIGFPE or SIGILL handler has
 * it run on the faulting thread, with siginfo and the faulting context,
 * as on Linux; before, every fault ended the program. Each case runs in
 * a forked child whose end the parent reads:
 *   maperr   a read of an unmapped page: SEGV_MAPERR, si_addr exact, the
 *            handler leaves by siglongjmp (the mask restored);
 *   accerr   a store to a PROT_READ page: SEGV_ACCERR, si_addr exact;
 *            the handler makes the page writable and returns: the store
 *            runs again and lands (one handler call);
 *   bus      a read of a file-mapped page past the file's end (/data on
 *            the disk): SIGBUS, BUS_ADRERR, si_addr exact;
 *   fpe      an integer divide by zero: FPE_INTDIV, si_addr the idiv;
 *            the handler steps rip past it and sets rax: the program
 *            goes on with the handler's quotient;
 *   simd, x87 floating-point exceptions (below): each FPE_FLT* code;
 *   ill      ud2: ILL_ILLOPN, si_addr the ud2, stepped over likewise;
 *   thread   a thread other than main faults 50 times (accerr's way)
 *            while another computes: 50 handler calls, on that thread;
 *   twice    the handler faults again: killed by SIGSEGV;
 *   blocked  SIGSEGV blocked, a handler installed: killed by SIGSEGV;
 *   dfl      no handler: killed by SIGSEGV;
 *   reset    SA_RESETHAND: the first fault's handler runs, the second
 *            fault kills;
 *   loop     the handler returns, the store faults again, forever: the
 *            parent runs meanwhile, sees 1000 faults handled, kills it;
 *   ucmask   the handler adds SIGUSR1 to its ucontext's uc_sigmask: the
 *            thread's mask has it after the handler returns;
 *   overflow (only when named) a thread runs past its
 *            16 KiB stack into the guard; its SA_ONSTACK handler runs on
 *            the alternate stack and siglongjmps back;
 *   blockfix a child blocks SIGSEGV (a handler installed) and stores
 *            into a read-only page; the page becomes writable while the
 *            runtime finds the signal blocked (a hook around libc's
 *            stands for another thread's mprotect then): the child is
 *            killed by SIGSEGV at once, as Linux forces it. Before, the
 *            runtime set the kernel's disposition to the default and ran
 *            the store again, which passed: the child lived on with its
 *            handler installed in libc but not in the kernel, and the
 *            parent's kill(SIGSEGV) then ended it without the handler.
 *   forge    a handled fault named to SYS_sigdie forged (see forge()):
 *            -EINVAL each time, the child lives;
 * @result {"name": "faultsig", "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#define CHECK_NAME "faultsig"
#include <check.h>
#include <animart/fault.h>
#include <animart/sys.h>
#include <animart/upcall.h>
#include <anima/psig.h>

#define PAGE 4096

static sigjmp_buf jb;
static volatile int calls, got_sig, got_code;
static void *volatile got_addr;
static volatile char *page;              /* the page a handler fixes */
static volatile pthread_t handler_thread;

static void on(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, 0);
}

static void note(int sig, siginfo_t *si)
{
	calls++;
	got_sig = sig;
	got_code = si->si_code;
	got_addr = si->si_addr;
	handler_thread = pthread_self();
}

static void jump_out(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	note(sig, si);
	siglongjmp(jb, 1);
}

static void make_writable(int sig, siginfo_t *si, void *uc)
{
	note(sig, si);
	CHECK(uc != 0 && ((ucontext_t *)uc)->uc_mcontext.gregs[REG_CR2] == (greg_t)si->si_addr);
	mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE);
}

/* rip past the 2-byte instruction that faulted, rax = 42 */
static void step_over(int sig, siginfo_t *si, void *uc)
{
	note(sig, si);
	greg_t *g = ((ucontext_t *)uc)->uc_mcontext.gregs;
	CHECK(g[REG_RIP] == (greg_t)si->si_addr);
	g[REG_RIP] += 2;
	g[REG_RAX] = 42;
}

static void fault_again(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	note(sig, si);
	*(volatile int *)page = 1;           /* still read-only: SIGSEGV, blocked now */
}

static char *fresh(int prot)
{
	char *p = mmap(0, PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? 0 : p;
}

static int maperr(void)
{
	char *volatile p = fresh(PROT_READ);
	munmap(p, PAGE);
	on(SIGSEGV, jump_out, 0);
	if (!sigsetjmp(jb, 1)) {
		(void)*(volatile char *)(p + 100);
		CHECK(!"the read of an unmapped page went on");
	}
	sigset_t now;
	sigprocmask(SIG_BLOCK, 0, &now);
	CHECK(calls == 1 && got_sig == SIGSEGV && got_code == SEGV_MAPERR);
	CHECK(got_addr == p + 100);
	CHECK(!sigismember(&now, SIGSEGV));
	return 0;
}

static int accerr(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, make_writable, 0);
	page[8] = 7;
	CHECK(calls == 1 && got_sig == SIGSEGV && got_code == SEGV_ACCERR);
	CHECK(got_addr == page + 8 && page[8] == 7);
	return 0;
}

static int bus(void)
{
	int fd = open("/data", O_RDONLY);
	CHECK(fd >= 0);
	char *volatile p = mmap(0, 2 * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(p != MAP_FAILED);
	on(SIGBUS, jump_out, 0);
	if (!sigsetjmp(jb, 1)) {
		CHECK(p[10] == 'x');
		(void)*(volatile char *)(p + PAGE + 5);
		CHECK(!"a read past the file's end went on");
	}
	CHECK(calls == 1 && got_sig == SIGBUS && got_code == BUS_ADRERR);
	CHECK(got_addr == p + PAGE + 5);
	return 0;
}

static int fpe(void)
{
	on(SIGFPE, step_over, 0);
	long q;
	extern char faultsig_idiv[];
	__asm__ volatile("mov $7, %%eax\n\tcltd\n\txor %%ecx, %%ecx\n"
			 ".globl faultsig_idiv\nfaultsig_idiv:\n\tidivl %%ecx"
			 : "=a"(q) : : "rcx", "rdx");
	CHECK(q == 42);
	CHECK(calls == 1 && got_sig == SIGFPE && got_code == FPE_INTDIV);
	CHECK(got_addr == faultsig_idiv);
	return 0;
}

static int ill(void)
{
	on(SIGILL, step_over, 0);
	long r;
	extern char faultsig_ud2[];
	__asm__ volatile("xor %%eax, %%eax\n.globl faultsig_ud2\nfaultsig_ud2:\n\tud2"
			 : "=a"(r));
	CHECK(r == 42);
	CHECK(calls == 1 && got_sig == SIGILL && got_code == ILL_ILLOPN);
	CHECK(got_addr == faultsig_ud2);
	return 0;
}

/* Floating-point exceptions (#XM, #MF): the handler's si_code is the
   unmasked exception that fired. fp_fix checks si_addr is the faulting
   rip, runs floating-point code of its own (a fresh FPU: with the
   faulting one it would fault again inside the handler, blocked, and
   die), and from its fp_fix_at-th call on masks every exception and
   clears the flags in its fpregs (the fxsave image: the FSW at 2,
   MXCSR at 24), which the thread's return reloads. */
static volatile int fp_fix_at;
static volatile double fp_inside;

static void fp_fix(int sig, siginfo_t *si, void *uc)
{
	note(sig, si);
	ucontext_t *u = uc;
	CHECK(u->uc_mcontext.gregs[REG_RIP] == (greg_t)si->si_addr);
	volatile double one = 1.0, zero = 0.0, big = 1e308;
	volatile long double lone = 1.0L, lzero = 0.0L;
	fp_inside = one / zero + big * big + zero / zero + (double)(lone / lzero);
	__asm__ volatile("fwait");           /* (QEMU's TCG checks a pending x87 one only here) */
	if (calls < fp_fix_at)
		return;                      /* as it was: it fires again */
	char *fx = u->uc_mcontext.fpregs;
	uint32_t mxcsr = 0x1f80;
	uint16_t fsw;
	memcpy(&fsw, fx + 2, sizeof fsw);
	fsw &= ~0x80ff;                      /* B, ES, SF, the flags (TOP stays) */
	memcpy(fx + 24, &mxcsr, sizeof mxcsr);
	memcpy(fx + 2, &fsw, sizeof fsw);
}

/* a / b (or a * b) by SSE with only the MXCSR exception `bit` unmasked */
__attribute__((noinline)) static double simd_op(double a, double b, int mul, unsigned bit)
{
	uint32_t unmasked = 0x1f80 & ~(bit << 7), deflt = 0x1f80;
	__asm__ volatile("ldmxcsr %0" : : "m"(unmasked));
	if (mul)
		__asm__ volatile(".globl faultsig_mulsd\nfaultsig_mulsd:\n\tmulsd %1, %0" : "+x"(a) : "x"(b));
	else
		__asm__ volatile(".globl faultsig_divsd\nfaultsig_divsd:\n\tdivsd %1, %0" : "+x"(a) : "x"(b));
	__asm__ volatile("ldmxcsr %0" : : "m"(deflt));
	return a;
}

static const struct { const char *what; unsigned bit; int code; double a, b; int mul; } simd_cases[] = {
	{ "0/0", 0x01, FPE_FLTINV, 0.0, 0.0, 0 }, { "1/0", 0x04, FPE_FLTDIV, 1.0, 0.0, 0 },
	{ "1e308*1e308", 0x08, FPE_FLTOVF, 1e308, 1e308, 1 },
	{ "1e-308*1e-308", 0x10, FPE_FLTUND, 1e-308, 1e-308, 1 },
	{ "1/3", 0x20, FPE_FLTRES, 1.0, 3.0, 0 },
};

/*   simd     each SSE exception unmasked in turn (invalid, divide,
 *            overflow, underflow, inexact): #XM, its FPE_FLT* code,
 *            si_addr the instruction; then a handler that masks only at
 *            its third call: the instruction faults three times, as on
 *            Linux (the flags and masks come back with the context).
 *            A CPU that raises no #XM at all (QEMU 7's TCG sets MXCSR's
 *            flag and goes on) is said so and checks nothing more. */
static int simd(void)
{
	extern char faultsig_mulsd[], faultsig_divsd[];
	on(SIGFPE, fp_fix, 0);
	fp_fix_at = 1;
	calls = 0;
	(void)simd_op(1.0, 0.0, 0, 0x04);
	if (!calls) {
		printf("faultsig: simd: this CPU raises no #XM: not checked\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof simd_cases / sizeof simd_cases[0]; i++) {
		calls = 0;
		got_code = -1;
		(void)simd_op(simd_cases[i].a, simd_cases[i].b, simd_cases[i].mul, simd_cases[i].bit);
		printf("faultsig: simd: %s: %d calls, si_code %d\n", simd_cases[i].what, calls, got_code);
		CHECK(calls == 1 && got_sig == SIGFPE && got_code == simd_cases[i].code);
		CHECK(got_addr == (simd_cases[i].mul ? faultsig_mulsd : faultsig_divsd));
	}
	fp_fix_at = 3;
	calls = 0;
	double r = simd_op(1.0, 0.0, 0, 0x04);
	CHECK(calls == 3 && got_code == FPE_FLTDIV && r > 1e308);
	return 0;
}

/* *a / *b on the x87 (extended precision) with only the exception `bit`
   unmasked: #MF at the next waiting instruction, an fwait */
__attribute__((noinline)) static void x87_op(const long double *a, const double *b, unsigned bit)
{
	uint16_t unmasked = (uint16_t)(0x37f & ~bit), deflt = 0x37f;
	__asm__ volatile("fldcw %0\n\tfldt %1\n\tfdivl %2\n"
			 ".globl faultsig_fwait\nfaultsig_fwait:\n\tfwait\n"
			 "\tfstp %%st(0)\n\tfldcw %3"
			 : : "m"(unmasked), "m"(*a), "m"(*b), "m"(deflt) : "memory");
}

static const struct { const char *what; unsigned bit; int code; long double a; double b; } x87_cases[] = {
	{ "0/0", 0x01, FPE_FLTINV, 0.0L, 0.0 }, { "1/0", 0x04, FPE_FLTDIV, 1.0L, 0.0 },
	{ "max/0.5", 0x08, FPE_FLTOVF, LDBL_MAX, 0.5 }, { "min/1e300", 0x10, FPE_FLTUND, LDBL_MIN, 1e300 },
	{ "1/3", 0x20, FPE_FLTRES, 1.0L, 3.0 },
};

/*   x87      each x87 exception unmasked in turn: #MF at the fwait after
 *            the fdiv, its FPE_FLT* code, si_addr the fwait; the handler
 *            clears the status word's flags: the thread goes on; then
 *            one that clears them only at its third call: three. */
static int x87(void)
{
	extern char faultsig_fwait[];
	on(SIGFPE, fp_fix, 0);
	fp_fix_at = 1;
	for (size_t i = 0; i < sizeof x87_cases / sizeof x87_cases[0]; i++) {
		calls = 0;
		got_code = -1;
		x87_op(&x87_cases[i].a, &x87_cases[i].b, x87_cases[i].bit);
		printf("faultsig: x87: %s: %d calls, si_code %d\n", x87_cases[i].what, calls, got_code);
		CHECK(calls == 1 && got_sig == SIGFPE && got_code == x87_cases[i].code);
		CHECK(got_addr == faultsig_fwait);
	}
	fp_fix_at = 3;
	calls = 0;
	x87_op(&x87_cases[1].a, &x87_cases[1].b, 0x04);
	CHECK(calls == 3 && got_code == FPE_FLTDIV);
	return 0;
}

static volatile int stop;
static volatile long spun;

static void *spinner(void *a)
{
	(void)a;
	while (!stop) {
		spun++;
		if (!(spun & 1023))
			sched_yield();       /* (det: a thread that only computes keeps the token) */
	}
	return 0;
}

static void *faulter(void *a)
{
	(void)a;
	for (int i = 0; i < 50; i++) {
		mprotect((void *)page, PAGE, PROT_READ);
		page[i] = (char)i;
		CHECK(page[i] == (char)i);
		CHECK(pthread_equal(handler_thread, pthread_self()));
	}
	return 0;
}

static int thread(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, make_writable, 0);
	pthread_t s, f;
	pthread_create(&s, 0, spinner, 0);
	pthread_create(&f, 0, faulter, 0);
	pthread_join(f, 0);
	stop = 1;
	pthread_join(s, 0);
	CHECK(calls == 50 && got_code == SEGV_ACCERR);
	return 0;
}

static int twice(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, fault_again, 0);
	*(volatile int *)page = 1;
	return 1;                            /* (not reached: killed) */
}

static int blocked(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, make_writable, 0);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigprocmask(SIG_BLOCK, &s, 0);
	*(volatile int *)page = 1;
	return 1;
}

static int dfl(void)
{
	page = fresh(PROT_READ);
	*(volatile int *)page = 1;
	return 1;
}

static int reset(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, make_writable, SA_RESETHAND);
	page[0] = 1;
	mprotect((void *)page, PAGE, PROT_READ);
	if (calls != 1)
		return 2;
	page[0] = 2;
	return 1;
}

/* A thread with a 16 KiB guarded stack and an alternate signal stack
   recurses into its guard page: the SA_ONSTACK handler runs on the
   alternate stack (the overflowed one has no room for anything) and
   siglongjmps back. */
static sigjmp_buf tjb;
static char altstack[64 * 1024] __attribute__((aligned(16)));
static volatile int on_alt_ok;

static void overflow_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	char here;
	note(sig, si);
	on_alt_ok = &here >= altstack && &here < altstack + sizeof altstack;
	siglongjmp(tjb, 1);
}

static volatile int depth = 1 << 30;     /* (deeper than any stack) */

static int deep(int n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	return n < depth ? deep(n + 1) + pad[0] : 0;
}

static void *overflower(void *a)
{
	(void)a;
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof altstack };
	CHECK(sigaltstack(&ss, 0) == 0);
	if (!sigsetjmp(tjb, 1))
		deep(0);
	return 0;
}

static int overflow(void)
{
	on(SIGSEGV, overflow_handler, SA_ONSTACK);
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, PTHREAD_STACK_MIN);
	pthread_t t;
	CHECK(pthread_create(&t, &at, overflower, 0) == 0);
	pthread_join(t, 0);
	CHECK(calls == 1 && got_sig == SIGSEGV && on_alt_ok);
	return 0;
}

/* Linux's sigreturn: the handler's uc_sigmask is the thread's mask after */
static void block_usr1(int sig, siginfo_t *si, void *uc)
{
	make_writable(sig, si, uc);
	sigaddset(&((ucontext_t *)uc)->uc_sigmask, SIGUSR1);
}

static int ucmask(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, block_usr1, 0);
	page[1] = 3;
	sigset_t now;
	sigprocmask(SIG_BLOCK, 0, &now);
	CHECK(calls == 1 && page[1] == 3 && sigismember(&now, SIGUSR1) && !sigismember(&now, SIGSEGV));
	return 0;
}

/* A handler that returns without removing the fault's cause: the store
   faults again at once, forever. That is a loop like any other: the
   parent runs beside it (at -smp 1 too: the quantum preempts it), sees
   the count grow in a shared page, and kills it. */
static volatile long *loops;

static void count_only(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	__atomic_fetch_add(loops, 1, __ATOMIC_RELAXED);
}

static int loop(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, count_only, 0);
	page[0] = 1;
	return 1;
}

static volatile int handled;
static thread_fault_fn libc_hook;

static void set_handled(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	handled = 1;
}

/* libc's hook, then, when it could not deliver, what another thread
   could do at that moment: make the page writable. */
static int fixing_hook(int sig, int code, uint64_t addr, struct uctx *ctx, void *fpu,
		       unsigned vector, unsigned error)
{
	int r = libc_hook(sig, code, addr, ctx, fpu, vector, error);
	if (!r)
		mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE);
	return r;
}

static int blockfix_child(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, set_handled, 0);
	libc_hook = thread_fault_hook;
	thread_fault_hook = fixing_hook;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGSEGV);
	sigprocmask(SIG_BLOCK, &s, 0);
	page[0] = 1;                         /* blocked: the end, at once */
	sigprocmask(SIG_UNBLOCK, &s, 0);
	loops[1] = 1;                        /* alive: the parent kill()s */
	for (int n = 0; n < 5000 && !handled; n++)
		usleep(1000);
	return handled ? 4 : 3;
}

static int blockfix(void)
{
	loops[1] = 0;
	pid_t pid = fork();
	if (pid == 0)
		_exit(blockfix_child());
	int st = 0;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (loops[1]) {
			kill(pid, SIGSEGV);
			waitpid(pid, &st, 0);
			break;
		}
		usleep(1000);
	}
	printf("faultsig: blockfix: child lived on %d, status %#x\n", (int)loops[1], st);
	CHECK(!loops[1] && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV);
	return 0;
}

/* Which fault the kernel has on record for the handler running now:
   its VP and event seq (an upcall VP's frame keeps them; a classic VP's
   ring slot, just taken, still holds the event). */
static volatile long forge_vp = -1, forge_seq = -1;

static int recording_hook(int sig, int code, uint64_t addr, struct uctx *ctx, void *fpu,
			  unsigned vector, unsigned error)
{
	struct vp_page *p = vp_self();
	if (p->upcall_entry) {
		uint64_t from = ((struct fault_frame *)fpu)->from;
		forge_vp = (long)(from >> 32), forge_seq = (uint32_t)from;
	} else {
		struct event *e = &p->ring[(p->ring_head - 1) % RING_SIZE];
		if (e->type == EV_FAULT && e->token == (uint64_t)sig)
			forge_vp = e->vp, forge_seq = (long)e->seq;
	}
	return libc_hook(sig, code, addr, ctx, fpu, vector, error);
}

/*   forge    after a fault whose handler ran, SYS_sigdie with
 *            SIGDIE_FAULT names it forged: the next seq, the one before,
 *            the seq with high bits set, another VP, one past MAXVP,
 *            another signal. Each -EINVAL, and the child lives on
 *            (before, each ended it). The true one would end it (its
 *            own space: allowed), and is not asked. */
static int forge(void)
{
	page = fresh(PROT_READ);
	on(SIGSEGV, make_writable, 0);
	libc_hook = thread_fault_hook;
	thread_fault_hook = recording_hook;
	page[8] = 7;
	CHECK(calls == 1 && forge_vp >= 0 && forge_seq >= 0);
	long v = forge_vp, q = forge_seq;
	const long bad[][3] = {
		{ SIGSEGV, v, q + 1 }, { SIGSEGV, v, q - 1 }, { SIGSEGV, v, q | 1L << 32 },
		{ SIGSEGV, v + 1, q }, { SIGSEGV, v + MAXVP, q }, { SIGFPE, v, q },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		long r = syscall4(SYS_sigdie, bad[i][0], SIGDIE_FAULT, bad[i][1], bad[i][2]);
		printf("faultsig: forge: sig %ld vp %ld seq %#lx: %ld\n", bad[i][0], bad[i][1], bad[i][2], r);
		CHECK(r == -EINVAL);
	}
	return 0;
}

static const struct { const char *name; int (*fn)(void); int sig; } cases[] = {
	{ "maperr", maperr, 0 }, { "accerr", accerr, 0 }, { "bus", bus, 0 },
	{ "fpe", fpe, 0 }, { "simd", simd, 0 }, { "x87", x87, 0 }, { "ill", ill, 0 },
	{ "thread", thread, 0 },
	{ "twice", twice, SIGSEGV }, { "blocked", blocked, SIGSEGV },
	{ "dfl", dfl, SIGSEGV }, { "reset", reset, SIGSEGV }, { "ucmask", ucmask, 0 },
	{ "loop", loop, SIGKILL },
	{ "blockfix", blockfix, 0 }, { "forge", forge, 0 },
	{ "overflow", overflow, 0 },   /* (named alone: its own boot) */
};
#define NALL 16                  /* the cases a run with no argument runs */

int main(int argc, char **argv)
{
	loops = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (loops == MAP_FAILED)
		return 2;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (argc > 1 ? strcmp(argv[1], cases[i].name) != 0 : i >= NALL)
			continue;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			int r = cases[i].fn();
			fflush(stdout);
			_exit(r + (failures ? 10 : 0));
		}
		int st = 0;
		if (cases[i].sig == SIGKILL) {       /* loop: it runs until killed */
			long seen = 0;
			for (int n = 0; n < 2000 && (seen = *loops) < 1000; n++)
				usleep(1000);
			printf("faultsig: %s: %ld faults handled, then SIGKILL\n", cases[i].name, seen);
			CHECK(seen >= 1000);
			kill(pid, SIGKILL);
		}
		CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
		int ok = cases[i].sig ? WIFSIGNALED(st) && WTERMSIG(st) == cases[i].sig :
				       WIFEXITED(st) && WEXITSTATUS(st) == 0;
		CHECK(ok);
		printf("faultsig: %s: status %#x %s\n", cases[i].name, st, ok ? "ok" : "WRONG");
	}
	printf("@result {\"name\": \"faultsig\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
