/* fifo's own knobs and counters (the package itself: fifo.c). */
#ifndef FIFO_H
#define FIFO_H
#include <stdint.h>
#include <animart/vprt.h>

/* Preemption warning each fifo VP asks for, in ns (0: none). Set before
   fifo_pkg.run. */
extern uint64_t fifo_warn_ns;
/* Stack size of threads created from now on with no stack attribute
   (default 64 KiB). */
extern uint64_t fifo_stack_size;
/* Time slice: a thread running this long moves to the tail of the
   shortest run queue (0: threads run until they yield, block or are
   warned). Set before fifo_pkg.run. */
extern uint64_t fifo_slice_ns;

struct fifo_stats {
	struct rt_stats rt;                 /* the runtime's: blocked, warnings, ... */
	uint64_t steals;                    /* threads taken from another VP's queue */
	uint64_t moved;                     /* threads moved to even out run queues */
	uint64_t slices;                    /* time slices that ran out */
};
extern struct fifo_stats fifo_stats;    /* racy counters: for reports only */

#endif
