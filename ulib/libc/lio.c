/*
 * lio_listio: a list of asynchronous reads and writes submitted at once
 * (aio.c), waited for (LIO_WAIT) or notified as a whole once the last
 * is done (LIO_NOWAIT with a sigevent), besides each request's own
 * notification. All of the list is queued or none: no room for it is
 * EAGAIN before anything starts. An entry with a bad aio_lio_opcode or
 * aio_reqprio is not queued: its status is EINVAL and the call's result
 * EIO, as for a request that failed.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include "aioq.h"

static int bad_entry(const struct aiocb *cb)
{
	return (cb->aio_lio_opcode != LIO_READ && cb->aio_lio_opcode != LIO_WRITE) ||
	       cb->aio_reqprio < 0 || cb->aio_reqprio > AIO_PRIO_DELTA_MAX;
}

static int wanted(const struct aiocb *cb)
{
	return cb && cb->aio_lio_opcode != LIO_NOP;
}

int lio_listio(int mode, struct aiocb *const list[], int n, struct sigevent *sev)
{
	if ((mode != LIO_WAIT && mode != LIO_NOWAIT) || n < 0 || n > AIO_LISTIO_MAX) {
		errno = EINVAL;
		return -1;
	}
	struct aio_group own = { .wait = 1 }, *g = &own;
	int nbad = 0, total = 0;
	for (int i = 0; i < n; i++)
		if (wanted(list[i]) && !bad_entry(list[i]))
			total++;
	int notify = mode == LIO_NOWAIT && sev && sev->sigev_notify != SIGEV_NONE;
	if (mode == LIO_NOWAIT) {
		if (!(g = calloc(1, sizeof *g))) {
			errno = EAGAIN;
			return -1;
		}
		if (notify)
			g->ev = *sev;
		else
			g->ev.sigev_notify = SIGEV_NONE;
	}
	pthread_mutex_lock(&aio_lk);
	if (!aio_room(total)) {
		pthread_mutex_unlock(&aio_lk);
		if (g != &own)
			free(g);
		errno = EAGAIN;
		return -1;
	}
	g->left = total + 1;                 /* + 1: ours, until all are queued */
	for (int i = 0; i < n; i++) {
		struct aiocb *cb = list[i];
		if (!wanted(cb))
			continue;
		if (bad_entry(cb)) {
			cb->__error = EINVAL;
			cb->__return = -1;
			nbad++;
			continue;
		}
		cb->__op = cb->aio_lio_opcode;
		cb->__group = g;
		if (aio_enqueue(cb)) {       /* no worker at all: no room after all */
			cb->__error = EAGAIN;
			cb->__return = -1;
			cb->__group = 0;
			g->left--;
			nbad++;
		}
	}
	pthread_mutex_unlock(&aio_lk);
	aio_group_done(g);                   /* ours: notified here if all are done (or none queued) */
	if (mode == LIO_NOWAIT) {
		if (nbad) {
			errno = EIO;
			return -1;
		}
		return 0;
	}
	/* LIO_WAIT: until every request is done; a handler that runs
	   meanwhile does not end it (as glibc's on a SA_RESTART signal) */
	pthread_mutex_lock(&aio_lk);
	while (g->left > 0)
		aio_wait(0);
	pthread_mutex_unlock(&aio_lk);
	for (int i = 0; i < n; i++)
		if (wanted(list[i]) && list[i]->__error)
			nbad++;
	if (nbad) {
		errno = EIO;
		return -1;
	}
	return 0;
}
