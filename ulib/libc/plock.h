/* A lock in memory several processes map (plock.c): mqueue.c's queues,
   sysvsem.c's sets. Internal. */
#ifndef ULIB_PLOCK_H
#define ULIB_PLOCK_H
#include <stdint.h>

#define PLK_POLL_NS 20000000ULL     /* a waiter asks whether the holder lives this often */

int plk_self(void);                 /* the caller's pid, without a system call */
int plk_alive(int pid);             /* 0 once pid ended (a zombie too) */
int plk_past(uint64_t deadline);    /* 0: none; DL_REALTIME: a CLOCK_REALTIME time */
/* Take the lock word *w; `repair(arg)` runs, the lock held, when it is
   taken over from a holder that died. */
void plk_lock(volatile uint32_t *w, void (*repair)(void *), void *arg);
void plk_unlock(volatile uint32_t *w);
/* The lock held: sleep while *word still holds what it held, *count
   one more meanwhile, then take the lock again. 0 (look again),
   ETIMEDOUT, EINTR (a handler without SA_RESTART), ECANCELED (`cancel`:
   at a cancellation point). */
int plk_sleep(volatile uint32_t *w, void (*repair)(void *), void *arg, volatile uint32_t *word,
	      volatile uint32_t *count, uint64_t deadline, int cancel);
#endif
