/* The program's own "sync": a checksum over the clock and the tasks. */
#ifndef OWN_SYNC_H
#define OWN_SYNC_H
#include <clock.h>
#include <thread.h>
int sync_sum(const struct clock *c, const struct thread *t);
#endif
