/* Time since boot. */
#ifndef ULIB_CLOCK_H
#define ULIB_CLOCK_H

#include <stdint.h>

uint64_t now_ns(void);          /* nanoseconds since boot: the TSC and the pseudo-register page */

#endif
