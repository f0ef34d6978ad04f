/*
 * The C half of <ucontext.h> (the registers are ucontext.S): the signal
 * mask, makecontext, and the end of a makecontext function.
 */
#include <ucontext.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

_Static_assert(offsetof(ucontext_t, uc_mcontext.gregs) == UC_GREGS, "UC_GREGS");
_Static_assert(offsetof(ucontext_t, uc_mcontext.mxcsr) == UC_MXCSR, "UC_MXCSR");
_Static_assert(offsetof(ucontext_t, uc_mcontext.fpucw) == UC_FPUCW, "UC_FPUCW");

#define MINSTACK 256     /* a stack smaller than this is refused */

void __uc_trampoline(void);
int __uc_einval(void);
int __uc_getmask(ucontext_t *ucp);
int __uc_setmask(const ucontext_t *ucp);
int __uc_swapmask(ucontext_t *oucp, const ucontext_t *ucp);
void __uc_end(const ucontext_t *link) __attribute__((noreturn));

int __uc_einval(void)
{
	errno = EINVAL;
	return -1;
}

int __uc_getmask(ucontext_t *ucp)
{
	ucp->uc_mcontext.fpregs = 0;
	sigprocmask(SIG_BLOCK, 0, &ucp->uc_sigmask);
	return 0;
}

/* A context setcontext may load: makecontext leaves rip 0 in one it refused. */
static int usable(const ucontext_t *ucp)
{
	return ucp && ucp->uc_mcontext.gregs[REG_RIP] && ucp->uc_mcontext.gregs[REG_RSP];
}

int __uc_setmask(const ucontext_t *ucp)
{
	if (!usable(ucp))
		return __uc_einval();
	sigprocmask(SIG_SETMASK, &ucp->uc_sigmask, 0);
	return 0;
}

int __uc_swapmask(ucontext_t *oucp, const ucontext_t *ucp)
{
	oucp->uc_mcontext.fpregs = 0;
	if (!usable(ucp)) {
		sigprocmask(SIG_BLOCK, 0, &oucp->uc_sigmask);
		return __uc_einval();
	}
	sigprocmask(SIG_SETMASK, &ucp->uc_sigmask, &oucp->uc_sigmask);
	return 0;
}

void makecontext(ucontext_t *ucp, void (*func)(void), int argc, ...)
{
	greg_t *g = ucp->uc_mcontext.gregs;
	uintptr_t lo = (uintptr_t)ucp->uc_stack.ss_sp, n = ucp->uc_stack.ss_size;
	int spill = argc > 6 ? argc - 6 : 0;
	if (!func || argc < 0 || !lo || n < MINSTACK + 8 * (uintptr_t)spill || lo + n < lo) {
		g[REG_RIP] = 0;              /* setcontext refuses it */
		return;
	}
	/* Arguments 7 and on at the top of the stack, the first of them at a
	   16-byte boundary, and below it the return address, the trampoline:
	   the ABI's stack at a function's entry. */
	uint64_t *args = (uint64_t *)((lo + n - 8 * (uintptr_t)spill) & ~(uintptr_t)15);
	static const int reg[6] = { REG_RDI, REG_RSI, REG_RDX, REG_RCX, REG_R8, REG_R9 };
	va_list ap;
	va_start(ap, argc);
	for (int i = 0; i < argc; i++) {
		uint64_t a = va_arg(ap, uint64_t);
		if (i < 6)
			g[reg[i]] = (greg_t)a;
		else
			args[i - 6] = a;
	}
	va_end(ap);
	args[-1] = (uint64_t)__uc_trampoline;
	g[REG_RSP] = (greg_t)(args - 1);
	g[REG_RIP] = (greg_t)func;
	g[REG_RBX] = (greg_t)ucp->uc_link;   /* callee-saved: the trampoline finds it */
}

void __uc_end(const ucontext_t *link)
{
	if (!link)
		exit(0);
	setcontext(link);
	abort();                         /* a link setcontext refused */
}
