/*
 * The asynchronous I/O request queue (aio.c), shared with aio_suspend
 * and aio_cancel (aiowait.c) and lio_listio (lio.c). Internal.
 *
 * A request is the program's own struct aiocb, linked through its
 * __next while queued: submitting allocates nothing, so the only bound
 * is AIO_MAX requests in flight. Everything here is under aio_lk, a
 * mutex of the POSIX layer (so det and det=par see its changes at their
 * fences), but for aio_error and aio_return, which must be
 * async-signal-safe (aio.c).
 */
#ifndef ULIB_AIOQ_H
#define ULIB_AIOQ_H

#include <aio.h>
#include <pthread.h>
#include <semaphore.h>

#define AIO_OP_SYNC  3               /* aio_fsync(O_SYNC): fsync */
#define AIO_OP_DSYNC 4               /* aio_fsync(O_DSYNC): fdatasync */

/* lio_listio's list: notified (LIO_NOWAIT) or its caller woken
   (LIO_WAIT) once its last request is done. */
struct aio_group {
	int left;                        /* its requests not done yet */
	int wait;                        /* LIO_WAIT: the caller's, on its stack */
	struct sigevent ev;              /* LIO_NOWAIT's notification */
};

/* A thread in aio_suspend or lio_listio(LIO_WAIT): posted at every
   completion, it looks again. */
struct aio_waiter {
	sem_t sem;
	struct aio_waiter *next;
};

extern pthread_mutex_t aio_lk;
extern struct aio_waiter *aio_waiters;

/* Queue cb (aio_lk held; cb->__op, __group set): 0, or -1 with errno
   EAGAIN (AIO_MAX in flight, or no worker could be made). */
int aio_enqueue(struct aiocb *cb);
/* Room for n more requests (aio_lk held). */
int aio_room(int n);
/* cb is done with error e (0: ok) and result r: its status is set and
   waiters are woken (aio_lk held). Its notification goes into *ev and
   its list into *g (0: none); the caller sends *ev after aio_lk (a
   handler may call aio_error), then calls aio_group_done(*g). */
void aio_finish(struct aiocb *cb, int e, ssize_t r, struct sigevent *ev, struct aio_group **g);
/* One request of g is done and notified (aio_lk not held): the last
   wakes a LIO_WAIT caller, or sends a LIO_NOWAIT list's notification
   and frees g. After the request's own notification, so the list's
   never comes before a request's (the public suite's lio_listio 14-1
   counts them at the list's signal). */
void aio_group_done(struct aio_group *g);
/* Send the first n of ev (aio_lk not held). */
void aio_notify(const struct sigevent *ev, int n);
/* Whether cb is taken by a worker now (aio_lk held). */
int aio_running(const struct aiocb *cb, int fd);
/* Take off the queue the requests on fd (cb: only that one) not yet
   running, linked through __next (aio_lk held). */
struct aiocb *aio_unqueue(int fd, const struct aiocb *cb);

/* aio_lk held: wait, letting it go, until a completion or the
   CLOCK_MONOTONIC deadline (0: none); aio_lk held again. 0 or the
   wait's errno: EINTR (a handler ran), ETIMEDOUT. A cancellation point. */
int aio_wait(const struct timespec *deadline);

#endif
