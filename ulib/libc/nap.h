/*
 * The library's polls: ask the kernel without waiting, then nap, and ask
 * again (waitpid in a program with threads, proc.c; F_SETLKW on det
 * with other threads, flock.c; a pipe another process holds, on det
 * with other threads, pipe.c). Why poll rather than wait in the kernel:
 * a wait there holds the caller's whole VP, and on det, which runs one
 * thread at a time, the token; no other thread of the program would run
 * meanwhile, not even the one that would cancel or signal the waiter.
 * A nap is a thread-level timed block (thread_block_until), which lets
 * them run. Internal.
 */
#ifndef ULIB_NAP_H
#define ULIB_NAP_H

#include <stdint.h>
#include <animart/clock.h>
#include <animart/thread.h>

/* One nap between asks: *ns starts at 0; the first nap is 50 us, each
   later one twice the last while that was under 2 ms (so up to 3.2 ms):
   a quick answer is seen soon, a long wait costs few asks. */
static inline void poll_nap(uint64_t *ns)
{
	*ns = !*ns ? 50000 : *ns < 2000000 ? *ns * 2 : *ns;
	thread_block_until(now_ns() + *ns);
}

int __pt_nlive(void) __attribute__((weak));   /* ulib/pthread/pthread.c */

/* Must the caller poll rather than wait in the kernel? On det (own
   time) with other threads, yes: a kernel wait would hold the token. A
   lone thread waits in the kernel (nothing else would run anyway). */
static inline int nap_polls(struct thread *self)
{
	return self->ops->own_time && __pt_nlive && __pt_nlive() > 1;
}

#endif
