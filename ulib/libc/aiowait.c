/*
 * aio_suspend and aio_cancel: waiting for and withdrawing queued
 * asynchronous I/O requests (aio.c, aioq.h).
 *
 * A waiter puts a semaphore of its own on aio_waiters; every completion
 * posts each one there, and it looks at its requests again. A semaphore
 * because its wait is what aio_suspend must be: a cancellation point
 * (the cleanup takes the waiter off the list), ended by a handled
 * signal (EINTR) and by a deadline (EAGAIN).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "aioq.h"

static void waiter_on(struct aio_waiter *w)
{
	sem_init(&w->sem, 0, 0);
	w->next = aio_waiters;
	aio_waiters = w;
}

static void waiter_off(void *arg)
{
	struct aio_waiter *w = arg;
	pthread_mutex_lock(&aio_lk);
	for (struct aio_waiter **p = &aio_waiters; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	pthread_mutex_unlock(&aio_lk);
	sem_destroy(&w->sem);
}

static int any_done(const struct aiocb *const list[], int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] && __atomic_load_n(&list[i]->__error, __ATOMIC_ACQUIRE) != EINPROGRESS)
			return 1;
	return 0;
}

int aio_wait(const struct timespec *deadline)
{
	struct aio_waiter w;
	int r;
	waiter_on(&w);
	pthread_mutex_unlock(&aio_lk);
	pthread_cleanup_push(waiter_off, &w);
	r = deadline ? sem_clockwait(&w.sem, CLOCK_MONOTONIC, deadline) : sem_wait(&w.sem);
	pthread_cleanup_pop(1);
	pthread_mutex_lock(&aio_lk);
	return r < 0 ? errno : 0;
}

int aio_suspend(const struct aiocb *const list[], int n, const struct timespec *timeout)
{
	pthread_testcancel();                /* a cancellation point even if one is done */
	struct timespec at;
	if (n < 0 || (timeout && (timeout->tv_sec < 0 || timeout->tv_nsec < 0 ||
				  timeout->tv_nsec >= 1000000000L))) {
		errno = EINVAL;
		return -1;
	}
	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_sec += timeout->tv_sec;
		at.tv_nsec += timeout->tv_nsec;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
	}
	int e = 0;
	pthread_mutex_lock(&aio_lk);
	while (!any_done(list, n)) {
		if (timeout && !timeout->tv_sec && !timeout->tv_nsec) {
			e = EAGAIN;
			break;
		}
		e = aio_wait(timeout ? &at : 0);
		if (e == ETIMEDOUT)
			e = EAGAIN;
		if (e && !any_done(list, n))
			break;
		e = 0;
	}
	pthread_mutex_unlock(&aio_lk);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

/* Queued requests are cancelled (ECANCELED, notified as if done); a
   running one cannot be (AIO_NOTCANCELED): its pread or pwrite is
   under way in a worker. */
int aio_cancel(int fd, struct aiocb *cb)
{
	if (cb && cb->aio_fildes != fd) {
		errno = EINVAL;
		return -1;
	}
	if (fcntl(fd, F_GETFL) < 0) {
		errno = EBADF;
		return -1;
	}
	pthread_mutex_lock(&aio_lk);
	struct aiocb *out = aio_unqueue(fd, cb);
	int r = aio_running(cb, fd) ? AIO_NOTCANCELED : out ? AIO_CANCELED : AIO_ALLDONE;
	pthread_mutex_unlock(&aio_lk);
	while (out) {
		struct sigevent ev;
		struct aio_group *g;
		pthread_mutex_lock(&aio_lk);
		struct aiocb *next = out->__next;
		aio_finish(out, ECANCELED, -1, &ev, &g);
		pthread_mutex_unlock(&aio_lk);
		aio_notify(&ev, 1);
		aio_group_done(g);
		out = next;
	}
	return r;
}
