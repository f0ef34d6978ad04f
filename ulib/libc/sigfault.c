/*
 * A fault as a signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP): the
 * runtime's hook (ulib/rt/fault.c) for a fault the kernel sent as
 * EV_FAULT. The handler gets the fault's siginfo and a ucontext_t whose
 * registers are the faulting ones; what it leaves there is what the
 * thread resumes (the faulting instruction again, unless it moved rip).
 * docs/libc.md, "Faults".
 */
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <animart/fault.h>

int __sig_fault_act(int sig, siginfo_t *si, sigset_t *uc_mask, void *uc);

#define FX_FCW   0                        /* in the fxsave image */
#define FX_MXCSR 24

static void to_uc(greg_t *g, const struct uctx *c)
{
	g[REG_RAX] = (greg_t)c->rax; g[REG_RBX] = (greg_t)c->rbx; g[REG_RCX] = (greg_t)c->rcx;
	g[REG_RDX] = (greg_t)c->rdx; g[REG_RSI] = (greg_t)c->rsi; g[REG_RDI] = (greg_t)c->rdi;
	g[REG_RBP] = (greg_t)c->rbp; g[REG_RSP] = (greg_t)c->rsp; g[REG_R8] = (greg_t)c->r8;
	g[REG_R9] = (greg_t)c->r9; g[REG_R10] = (greg_t)c->r10; g[REG_R11] = (greg_t)c->r11;
	g[REG_R12] = (greg_t)c->r12; g[REG_R13] = (greg_t)c->r13; g[REG_R14] = (greg_t)c->r14;
	g[REG_R15] = (greg_t)c->r15; g[REG_RIP] = (greg_t)c->rip; g[REG_EFL] = (greg_t)c->rflags;
}

static void from_uc(struct uctx *c, const greg_t *g)
{
	c->rax = (uint64_t)g[REG_RAX]; c->rbx = (uint64_t)g[REG_RBX]; c->rcx = (uint64_t)g[REG_RCX];
	c->rdx = (uint64_t)g[REG_RDX]; c->rsi = (uint64_t)g[REG_RSI]; c->rdi = (uint64_t)g[REG_RDI];
	c->rbp = (uint64_t)g[REG_RBP]; c->rsp = (uint64_t)g[REG_RSP]; c->r8 = (uint64_t)g[REG_R8];
	c->r9 = (uint64_t)g[REG_R9]; c->r10 = (uint64_t)g[REG_R10]; c->r11 = (uint64_t)g[REG_R11];
	c->r12 = (uint64_t)g[REG_R12]; c->r13 = (uint64_t)g[REG_R13]; c->r14 = (uint64_t)g[REG_R14];
	c->r15 = (uint64_t)g[REG_R15]; c->rip = (uint64_t)g[REG_RIP];
	/* the arithmetic flags, DF and TF are the handler's to set; IF stays */
	c->rflags = ((uint64_t)g[REG_EFL] & 0x4dd5) | 0x202;
}

int __sig_fault(int sig, int code, uint64_t addr, struct uctx *ctx, void *fpu,
		unsigned vector, unsigned error);
int __sig_fault(int sig, int code, uint64_t addr, struct uctx *ctx, void *fpu,
		unsigned vector, unsigned error)
{
	siginfo_t si = { .si_signo = sig, .si_code = code, .si_addr = (void *)addr };
	ucontext_t uc;
	memset(&uc, 0, sizeof uc);
	greg_t *g = uc.uc_mcontext.gregs;
	to_uc(g, ctx);
	g[REG_TRAPNO] = vector;
	g[REG_ERR] = error;
	g[REG_CR2] = sig == SIGSEGV ? (greg_t)addr : 0;
	uc.uc_mcontext.fpregs = fpu;             /* its fxsave image, as Linux's */
	memcpy(&uc.uc_mcontext.mxcsr, (char *)fpu + FX_MXCSR, sizeof uc.uc_mcontext.mxcsr);
	memcpy(&uc.uc_mcontext.fpucw, (char *)fpu + FX_FCW, sizeof uc.uc_mcontext.fpucw);
	if (!__sig_fault_act(sig, &si, &uc.uc_sigmask, &uc))
		return 0;
	from_uc(ctx, g);
	sigset_t now;
	sigprocmask(SIG_BLOCK, 0, &now);
	if (now != uc.uc_sigmask)        /* the handler changed it there: as sigreturn */
		sigprocmask(SIG_SETMASK, &uc.uc_sigmask, 0);
	return 1;
}
