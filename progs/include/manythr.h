/*
 * Many threads at once, for the tests that flood a bound with them
 * (kopflood, parkflood): small stacks, so that a thousand fit.
 */
#ifndef PROGS_MANYTHR_H
#define PROGS_MANYTHR_H

#include <pthread.h>
#include <stdlib.h>

/* Up to n threads running fn(0), with 16 KiB stacks, into a new array
   *th (to join them); how many were made. */
static inline int manythr(int n, void *(*fn)(void *), pthread_t **th)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 16 * 1024);
	*th = calloc(n, sizeof **th);
	int made = 0;
	while (*th && made < n && pthread_create(&(*th)[made], &a, fn, 0) == 0)
		made++;
	pthread_attr_destroy(&a);
	return made;
}

#endif
