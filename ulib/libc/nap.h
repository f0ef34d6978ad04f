/*
 * The library's polls: ask the kernel without waiting, then nap, and ask
 * again (waitpid in a program with threads, proc.c; F_SETLKW on det
 * with other threads, flock.c). Why poll rather than wait in the kernel:
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

#endif
