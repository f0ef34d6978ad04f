/* <fenv.h> on x86-64: every call acts on both the x87 unit (long double)
   and SSE's MXCSR (float and double), as glibc's do, so a rounding mode or
   a flag means the same whichever unit computed. Flags are bits 0-5 of
   the x87 status word and of MXCSR; their masks are bits 0-5 of the x87
   control word and bits 7-12 of MXCSR; rounding is x87 CW bits 10-11 and
   MXCSR bits 13-14. */
#include <fenv.h>

struct x87env {                 /* what FNSTENV writes in 64-bit mode */
	unsigned short cw, r1, sw, r2, tags, r3;
	unsigned int rest[4];
};

static unsigned short get_cw(void)
{
	unsigned short cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	return cw;
}

static void set_cw(unsigned short cw)
{
	__asm__ volatile("fldcw %0" : : "m"(cw));
}

static unsigned get_mxcsr(void)
{
	unsigned m;
	__asm__ volatile("stmxcsr %0" : "=m"(m));
	return m;
}

static void set_mxcsr(unsigned m)
{
	__asm__ volatile("ldmxcsr %0" : : "m"(m));
}

static unsigned short get_sw(void)
{
	unsigned short sw;
	__asm__ volatile("fnstsw %0" : "=m"(sw));
	return sw;
}

/* Replace the x87 status word's flag bits with `flags` (FLDENV is the only
   way to set them; loading flags whose traps are unmasked arms the trap
   for the next x87 instruction, as on Linux). */
static void set_x87_flags(int mask, int flags)
{
	struct x87env e;
	__asm__ volatile("fnstenv %0" : "=m"(e));
	e.sw = (unsigned short)((e.sw & ~mask) | (flags & mask));
	__asm__ volatile("fldenv %0" : : "m"(e));
}

int feclearexcept(int excepts)
{
	excepts &= FE_ALL_EXCEPT;
	set_x87_flags(excepts, 0);
	set_mxcsr(get_mxcsr() & ~(unsigned)excepts);
	return 0;
}

int fetestexcept(int excepts)
{
	return (get_sw() | get_mxcsr()) & excepts & FE_ALL_EXCEPT;
}

int fegetexceptflag(fexcept_t *flagp, int excepts)
{
	*flagp = (fexcept_t)fetestexcept(excepts);
	return 0;
}

/* Sets the flags without raising (C's rule for fesetexceptflag). They go
   in MXCSR only, where setting a flag never traps; fetestexcept reads
   both units, so it sees them. */
int fesetexceptflag(const fexcept_t *flagp, int excepts)
{
	excepts &= FE_ALL_EXCEPT;
	set_x87_flags(excepts, 0);
	set_mxcsr((get_mxcsr() & ~(unsigned)excepts) | (*flagp & excepts));
	return 0;
}

/* Raising means what an operation would do: the flag is set, and an
   unmasked exception traps. Invalid and divide-by-zero come from SSE
   divisions; the rest from the x87 status word and an FWAIT (glibc's
   way), which traps if they are unmasked there. */
int feraiseexcept(int excepts)
{
	if (excepts & FE_INVALID) {
		float z = 0.0f;
		__asm__ volatile("divss %0, %0" : "+x"(z));
	}
	if (excepts & FE_DIVBYZERO) {
		float one = 1.0f, z = 0.0f;
		__asm__ volatile("divss %1, %0" : "+x"(one) : "x"(z));
	}
	int rest = excepts & (FE_OVERFLOW | FE_UNDERFLOW | FE_INEXACT);
	if (rest) {
		set_x87_flags(rest, rest);
		__asm__ volatile("fwait");
	}
	return 0;
}

int fegetround(void)
{
	return get_cw() & FE_TOWARDZERO;
}

int fesetround(int round)
{
	if (round & ~FE_TOWARDZERO)
		return 1;
	set_cw((unsigned short)((get_cw() & ~FE_TOWARDZERO) | round));
	set_mxcsr((get_mxcsr() & ~(FE_TOWARDZERO << 3)) | ((unsigned)round << 3));
	return 0;
}

int fegetenv(fenv_t *envp)
{
	/* FNSTENV masks every x87 exception as a side effect: load it back. */
	__asm__ volatile("fnstenv %0\n\tfldenv %0" : "=m"(*envp));
	envp->__mxcsr = get_mxcsr();
	return 0;
}

int fesetenv(const fenv_t *envp)
{
	fenv_t e;
	__asm__ volatile("fnstenv %0" : "=m"(e));
	if (envp == FE_DFL_ENV || envp == FE_NOMASK_ENV) {
		/* 0x37f: everything masked, to nearest, 64-bit precision. */
		e.__control_word = envp == FE_DFL_ENV ? 0x37f : 0x37f & ~FE_ALL_EXCEPT;
		e.__status_word &= (unsigned short)~(FE_ALL_EXCEPT | __FE_DENORM);
		e.__mxcsr = envp == FE_DFL_ENV ? 0x1f80 : 0x1f80 & ~(FE_ALL_EXCEPT << 7);
	} else {
		e.__control_word = envp->__control_word;
		e.__status_word = envp->__status_word;
		e.__mxcsr = envp->__mxcsr;
	}
	__asm__ volatile("fldenv %0" : : "m"(e));
	set_mxcsr(e.__mxcsr);
	return 0;
}

int feholdexcept(fenv_t *envp)
{
	fegetenv(envp);
	fenv_t e = *envp;
	e.__control_word |= FE_ALL_EXCEPT;
	e.__status_word &= (unsigned short)~FE_ALL_EXCEPT;
	e.__mxcsr = (e.__mxcsr | (FE_ALL_EXCEPT << 7)) & ~(unsigned)FE_ALL_EXCEPT;
	fesetenv(&e);
	return 0;
}

int feupdateenv(const fenv_t *envp)
{
	int raised = fetestexcept(FE_ALL_EXCEPT);
	fesetenv(envp);
	feraiseexcept(raised);
	return 0;
}

/* GNU: unmask (enable) or mask traps; each returns the previous set of
   enabled exceptions. */
int fegetexcept(void)
{
	return ~get_cw() & FE_ALL_EXCEPT;
}

int feenableexcept(int excepts)
{
	int old = fegetexcept();
	excepts &= FE_ALL_EXCEPT;
	set_cw((unsigned short)(get_cw() & ~excepts));
	set_mxcsr(get_mxcsr() & ~((unsigned)excepts << 7));
	return old;
}

int fedisableexcept(int excepts)
{
	int old = fegetexcept();
	excepts &= FE_ALL_EXCEPT;
	set_cw((unsigned short)(get_cw() | excepts));
	set_mxcsr(get_mxcsr() | ((unsigned)excepts << 7));
	return old;
}
