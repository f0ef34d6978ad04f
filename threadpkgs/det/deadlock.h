/* deadlock.c: how det (det.c) and det=par (par.c) report a deadlock. */
#ifndef DET_DEADLOCK_H
#define DET_DEADLOCK_H
#include <animart/vprt.h>

#define DET_DEADLOCK 86              /* the exit status of a deadlock */
#define DEADLOCK_NS  2000000000UL    /* outside wake-ups waited for first */

/* each(say) calls say(t, first) for every live thread t of the
   caller's package, in its list's order (first: the list's head). */
typedef void (*det_say)(struct uthread *t, int first);
__attribute__((noreturn)) void det_deadlock(void (*each)(det_say say));

#endif
