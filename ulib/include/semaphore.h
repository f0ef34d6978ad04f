/*
 * <semaphore.h>: unnamed POSIX semaphores on the thread interface
 * (ulib/posix/sem.c, docs/posix.md). Errors are reported as -1 and errno.
 */
#ifndef ULIB_SEMAPHORE_H
#define ULIB_SEMAPHORE_H

#include <bits/time.h>

typedef struct {
	volatile int __lk;           /* guards the rest (a <animart/spin.h> lock) */
	int __count;
	void *__head, *__tail;       /* waiters */
	int __pshared;               /* pshared 1: __count is its futex word (ulib/pthread/pshared.c) */
	volatile unsigned __nwait;
} sem_t;

#define SEM_VALUE_MAX 0x7fffffff
#define SEM_FAILED ((sem_t *)0)

int sem_init(sem_t *s, int pshared, unsigned value);
int sem_destroy(sem_t *s);
int sem_wait(sem_t *s);
int sem_trywait(sem_t *s);
int sem_timedwait(sem_t *s, const struct timespec *abstime);
int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abstime);  /* POSIX.1-2024 */
int sem_post(sem_t *s);
int sem_getvalue(sem_t *s, int *value);

/* Named semaphores (ulib/pthread/semname.c): shared by every process that
   opens the name; opening it again in a process gives the same sem_t. */
sem_t *sem_open(const char *name, int oflag, ...);
int sem_close(sem_t *s);
int sem_unlink(const char *name);

#endif
