/* <sys/random.h>: random bytes (ulib/libc/random.c). */
#ifndef ULIB_SYS_RANDOM_H
#define ULIB_SYS_RANDOM_H

#include <sys/types.h>

#define GRND_NONBLOCK 1
#define GRND_RANDOM   2
#define GRND_INSECURE 4

ssize_t getrandom(void *buf, size_t n, unsigned flags);
int getentropy(void *buf, size_t n);

#endif
