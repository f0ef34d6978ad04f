/*
 * User contexts (ulib/ucontext.S, ucontext.c): coroutines on stacks a
 * program allocates, within the calling thread. getcontext saves the
 * registers a callee preserves, the stack and return address, MXCSR and
 * the x87 control word, and the thread's signal mask; setcontext resumes
 * one (a getcontext returns again, 0); swapcontext saves into one and
 * resumes another; makecontext makes a context that calls func(args...)
 * on ucp->uc_stack and, when func returns, resumes uc_link, or ends the
 * process with exit(0) if uc_link is 0, as glibc does. Up to any number
 * of int or pointer arguments, as on glibc (7 and on go on the stack).
 * setcontext and swapcontext return -1 with errno EINVAL for a null
 * context or one makecontext refused (no stack, or under 256 bytes).
 */
#ifndef ULIB_UCONTEXT_H
#define ULIB_UCONTEXT_H

#include <sys/ucontext.h>

int getcontext(ucontext_t *ucp);
int setcontext(const ucontext_t *ucp);
int swapcontext(ucontext_t *oucp, const ucontext_t *ucp);
void makecontext(ucontext_t *ucp, void (*func)(void), int argc, ...);

#endif
