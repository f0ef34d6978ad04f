/* <fenv.h>: the floating-point environment, x86-64's two units at once
   (ulib/fenv.c), with glibc's values and fenv_t layout: the x87 FNSTENV
   image (28 bytes) then MXCSR. Rounding changes set both units (double
   arithmetic is SSE, long double x87); exception flags are the union of
   both. The environment is per thread: the switch routines keep each
   thread's MXCSR and x87 control word (ulib/ctx.S), as the ABI makes them
   callee-saved. GNU's feenableexcept/fedisableexcept/fegetexcept unmask
   traps (a trap is a #XM/#MF fault, which kills the space, as SIGFPE's
   default action ends a Linux process). */
#ifndef ULIB_FENV_H
#define ULIB_FENV_H

#define FE_INVALID    0x01
#define __FE_DENORM   0x02
#define FE_DIVBYZERO  0x04
#define FE_OVERFLOW   0x08
#define FE_UNDERFLOW  0x10
#define FE_INEXACT    0x20
#define FE_ALL_EXCEPT (FE_INEXACT | FE_DIVBYZERO | FE_UNDERFLOW | FE_OVERFLOW | FE_INVALID)

#define FE_TONEAREST  0
#define FE_DOWNWARD   0x400
#define FE_UPWARD     0x800
#define FE_TOWARDZERO 0xc00

typedef unsigned short fexcept_t;

typedef struct {
	unsigned short __control_word;
	unsigned short __glibc_reserved1;
	unsigned short __status_word;
	unsigned short __glibc_reserved2;
	unsigned short __tags;
	unsigned short __glibc_reserved3;
	unsigned int __eip;
	unsigned short __cs_selector;
	unsigned int __opcode : 11;
	unsigned int __glibc_reserved4 : 5;
	unsigned int __data_offset;
	unsigned short __data_selector;
	unsigned short __glibc_reserved5;
	unsigned int __mxcsr;
} fenv_t;

/* The environment at program start (all masked, to nearest), and GNU's
   one with every exception unmasked. */
#define FE_DFL_ENV   ((const fenv_t *)-1)
#define FE_NOMASK_ENV ((const fenv_t *)-2)

int feclearexcept(int excepts);
int fegetexceptflag(fexcept_t *flagp, int excepts);
int feraiseexcept(int excepts);
int fesetexceptflag(const fexcept_t *flagp, int excepts);
int fetestexcept(int excepts);
int fegetround(void);
int fesetround(int round);
int fegetenv(fenv_t *envp);
int feholdexcept(fenv_t *envp);
int fesetenv(const fenv_t *envp);
int feupdateenv(const fenv_t *envp);
int feenableexcept(int excepts);
int fedisableexcept(int excepts);
int fegetexcept(void);

#endif
