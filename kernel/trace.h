/*
 * Scheduling trace: per-CPU rings of timestamped events, recorded only
 * when the command line holds the word `trace` (or `trace=N`, N events
 * per CPU). Off, each trace point is one load and a not-taken branch.
 * The same flag drives the race shaker (`jitter`, jitter.c): at every
 * trace point and every shake() point it spins a pseudo-random while.
 * At shutdown the rings are printed as `%t` lines (never `@`, so they
 * cannot be mistaken for results); `python3 -m harness trace` turns
 * them into Chrome trace-event JSON (Perfetto). Format: docs/trace.md.
 */
#ifndef TRACE_H
#define TRACE_H

#include <stdint.h>

enum {
	TR_DISPATCH = 1,  /* vp starts running on this CPU */
	TR_STOP,          /* vp left the CPU; arg: its state (enum vpstate) */
	TR_PREEMPT,       /* vp's quantum ended with others waiting */
	TR_WARN,          /* EV_WARNING posted to vp; arg: us to the deadline */
	TR_UPCALL,        /* vp entered its upcall handler */
	TR_BLOCK,         /* a kop blocked vp (arg 0) or only its thread (arg 1) */
	TR_UNBLOCK,       /* a kop of vp completed; arg: its mode, as TR_BLOCK */
	TR_WAKE,          /* vp made runnable; arg: the CPU whose queue took it */
	TR_IPI,           /* this CPU sent a reschedule IPI; arg: the target CPU */
	TR_IDLE,          /* this CPU halts for want of work */
	TR_RESUME,        /* ... and is awake again */
	TR_NTYPES
};

struct vp;
/* Bits of trace_on: recording (trace) and the race shaker (jitter). One
   flag for both, so each point stays one load and a not-taken branch. */
#define TRACE_REC    1
#define TRACE_JITTER 2
extern int trace_on;
void trace_slow(int type, struct vp *vp, uint32_t arg);   /* type 0: shake only */
void trace_setup(const char *word);     /* cmdline: "trace" or "trace=N" */
void trace_init(void);                  /* allocate the rings (after pmm) */
void trace_dump(void);                  /* print and stop (kernel_finish) */

static inline void trace(int type, struct vp *vp, uint32_t arg)
{
	if (__builtin_expect(trace_on, 0))
		trace_slow(type, vp, arg);
}

/* A race-shaker point (jitter.c) that records nothing: put one where a
   delay could let another CPU in (a lock just dropped, a VP just let
   go). Off, one load and a not-taken branch, like trace(). */
static inline void shake(void)
{
	if (__builtin_expect(trace_on, 0))
		trace_slow(0, 0, 0);
}

void jitter_setup(const char *word);    /* cmdline: "jitter" or "jitter=SEED" */
void jitter_init(void);                 /* seed the CPUs' generators, turn it on */
void jitter(void);                      /* one pseudo-random busy delay */

#endif
