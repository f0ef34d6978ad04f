/* Non-local jumps (ulib/setjmp.S, sigjmp.c). sigsetjmp with a nonzero
   savemask saves the calling thread's signal mask, and siglongjmp
   restores it; setjmp and longjmp leave the mask alone (as glibc's). */
#ifndef ULIB_SETJMP_H
#define ULIB_SETJMP_H

typedef unsigned long jmp_buf[9];     /* rbx rbp r12-r15 rsp rip, mxcsr|fpucw */
typedef unsigned long sigjmp_buf[11]; /* the same, then: mask saved?, the mask */

int setjmp(jmp_buf env) __attribute__((returns_twice));
int _setjmp(jmp_buf env) __attribute__((returns_twice));
int sigsetjmp(sigjmp_buf env, int savemask) __attribute__((returns_twice));
__attribute__((noreturn)) void longjmp(jmp_buf env, int val);
__attribute__((noreturn)) void _longjmp(jmp_buf env, int val);
__attribute__((noreturn)) void siglongjmp(sigjmp_buf env, int val);

#endif
