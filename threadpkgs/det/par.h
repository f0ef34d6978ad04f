/* det=par (par.c): det with DTHREADS's parallel phase, chosen by the
   `det=par` word (ulib/pthread/pstart.c) before the program's own. */
#ifndef DET_PAR_H
#define DET_PAR_H
#include <errno.h>
#include <animart/vprt.h>

extern int det_par;
__attribute__((noreturn)) void par_run(void *(*f)(void *), void *a);
struct thread *par_create(void *(*f)(void *), void *a, const struct thread_attr *at);

/*
 * A timed-out waiter of det or det=par sleeps the rest of its real
 * deadline in the kernel, holding the token: r is what that sleep
 * returned. Another process's signal cuts it short (-EINTR), but an
 * interrupt does not take the signal inside a wait of the POSIX layer
 * (intr_run: async_hold), so take it here: its post to us sets our
 * sigpend. Only then: a look at the signals in every nap cost det=par
 * its turns (a fenced spin lock inside a fenced wait: the public
 * suite's pthread_join 6-3 hung at -smp 2). Nonzero when sigpend is no
 * longer sp (a handler waits for us, or ran): the wait ends early and
 * its caller runs the handler and says EINTR, as on Linux (sleeps,
 * sem_timedwait). Before, the sleep went on to its deadline.
 */
static inline int det_sig_cut(struct thread *t, int sp, long r)
{
	if (r == -EINTR && thread_kern_sigs && thread_signal_dispatch)
		thread_signal_dispatch();
	return t->sigpend != sp;
}

#endif
