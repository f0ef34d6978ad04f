/*
 * A signal handler set up in one call, for the tests that catch a
 * signal to see where it lands (killcancel, asynccancel, sleepintr, ...).
 * The test's point is the handler and its flags, so those stay at the
 * call; the struct sigaction around them is the same every time.
 */
#ifndef PROGS_SIGCATCH_H
#define PROGS_SIGCATCH_H

#include <signal.h>

/* fn runs on sig with sa_flags `flags` (SA_RESTART: a wait it interrupts
   goes on; 0: the wait ends with EINTR), nothing but sig itself blocked
   while it runs. sigaction's answer. */
static inline int sig_catch(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = flags };
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, 0);
}

#endif
