/*
 * POSIX asynchronous I/O: aio_read, aio_write, aio_fsync, aio_error,
 * aio_return, and the request queue with its workers (aioq.h).
 *
 * As glibc's: in user space, by a pool of at most AIO_THREADS helper
 * threads of the running package, made as requests come and kept (idle
 * ones wait on a condition). Each does pread, pwrite or fsync for the
 * request it took, sets its status, then notifies as its aio_sigevent
 * asks. A worker takes the oldest queued request whose descriptor no
 * other worker is busy with and no older queued request names, so the
 * requests on one descriptor run one at a time in submission order
 * (POSIX asks it of O_APPEND writes and of aio_fsync, which covers
 * the requests queued before it), and those on different descriptors
 * in parallel. aio_reqprio is checked, not used (no prioritized I/O).
 *
 * Workers block every signal (made with all of them blocked, so no
 * window), so a SIGEV_SIGNAL notification goes to a thread of the
 * program; an idle one does not keep it alive (__pt_daemon), one at
 * work on a request does (__pt_undaemon). They are ordinary
 * threads of the package, not service threads: det runs them in its
 * logical order, as any thread that waits on a condition.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <animart/thread.h>
#include "aioq.h"

#define AIO_THREADS 4

pthread_mutex_t aio_lk = PTHREAD_MUTEX_INITIALIZER;
struct aio_waiter *aio_waiters;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static struct aiocb *head, *tail;        /* queued, not yet taken */
static struct aiocb *busy[AIO_THREADS];  /* what each worker does now */
static int inflight;                     /* queued or running */
static int nworkers, nidle;

int __sig_queue(int sig, int code, union sigval v);                                      /* signal.c */
int __sigev_thread(const pthread_attr_t *a, void (*fn)(union sigval), union sigval v);  /* sigevthr.c */
void __pt_daemon(void);                                                                   /* pthread.c */
void __pt_undaemon(void);

int aio_room(int n)
{
	return inflight + n <= AIO_MAX;
}

int aio_running(const struct aiocb *cb, int fd)
{
	for (int i = 0; i < AIO_THREADS; i++)
		if (busy[i] && (cb ? busy[i] == cb : busy[i]->aio_fildes == fd))
			return 1;
	return 0;
}

/* The oldest request a worker may take now, off the queue; 0 if none. */
static struct aiocb *take(void)
{
	for (struct aiocb **p = &head, *prev = 0; *p; prev = *p, p = &(*p)->__next) {
		struct aiocb *cb = *p;
		if (aio_running(0, cb->aio_fildes))
			continue;
		int older = 0;
		for (struct aiocb *o = head; o != cb && !older; o = o->__next)
			older = o->aio_fildes == cb->aio_fildes;
		if (older)
			continue;
		*p = cb->__next;
		if (tail == cb)
			tail = prev;
		return cb;
	}
	return 0;
}

struct aiocb *aio_unqueue(int fd, const struct aiocb *only)
{
	struct aiocb *out = 0, **end = &out, *prev = 0;
	for (struct aiocb **p = &head; *p;) {
		struct aiocb *cb = *p;
		if (cb->aio_fildes == fd && (!only || cb == only)) {
			*p = cb->__next;
			*end = cb;
			end = &cb->__next;
			cb->__next = 0;
		} else {
			prev = cb;
			p = &cb->__next;
		}
	}
	tail = prev;
	return out;
}

static ssize_t do_io(struct aiocb *cb)
{
	void *buf = (void *)cb->aio_buf;
	switch (cb->__op) {
	case LIO_READ:
		return pread(cb->aio_fildes, buf, cb->aio_nbytes, cb->aio_offset);
	case LIO_WRITE: {
		/* O_APPEND: at the end, as write does (glibc's choice too) */
		int fl = fcntl(cb->aio_fildes, F_GETFL);
		if (fl >= 0 && (fl & O_APPEND))
			return write(cb->aio_fildes, buf, cb->aio_nbytes);
		return pwrite(cb->aio_fildes, buf, cb->aio_nbytes, cb->aio_offset);
	}
	case AIO_OP_SYNC:
		return fsync(cb->aio_fildes);
	case AIO_OP_DSYNC:
		return fdatasync(cb->aio_fildes);
	}
	errno = EINVAL;
	return -1;
}

void aio_finish(struct aiocb *cb, int e, ssize_t r, struct sigevent *ev, struct aio_group **g)
{
	*ev = cb->aio_sigevent;              /* copied first: once done, cb is the program's again */
	*g = cb->__group;
	cb->__group = 0;
	cb->__return = r;
	__atomic_store_n(&cb->__error, e, __ATOMIC_RELEASE);
	inflight--;
	for (struct aio_waiter *w = aio_waiters; w; w = w->next)
		sem_post(&w->sem);
}

void aio_group_done(struct aio_group *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&aio_lk);
	int last = --g->left == 0, notify = last && !g->wait;
	struct sigevent ev = g->ev;
	if (last)
		for (struct aio_waiter *w = aio_waiters; w; w = w->next)
			sem_post(&w->sem);
	pthread_mutex_unlock(&aio_lk);
	if (notify) {
		aio_notify(&ev, 1);
		free(g);
	}
}

void aio_notify(const struct sigevent *ev, int n)
{
	for (int i = 0; i < n; i++) {
		if (ev[i].sigev_notify == SIGEV_SIGNAL && ev[i].sigev_signo > 0)
			__sig_queue(ev[i].sigev_signo, SI_ASYNCIO, ev[i].sigev_value);
		else if (ev[i].sigev_notify == SIGEV_THREAD && ev[i].sigev_notify_function) {
			pthread_attr_t a;
			if (ev[i].sigev_notify_attributes)
				a = *(pthread_attr_t *)ev[i].sigev_notify_attributes;
			else
				pthread_attr_init(&a);
			pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
			__sigev_thread(&a, ev[i].sigev_notify_function, ev[i].sigev_value);
		}
	}
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	__pt_daemon();
	pthread_mutex_lock(&aio_lk);
	for (;;) {
		struct aiocb *cb = busy[me];     /* handed over as it was made (aio_enqueue) */
		if (!cb && (cb = take()) != 0) {
			busy[me] = cb;
			__pt_undaemon();         /* live while it works (pthread.c) */
		}
		if (!cb) {
			nidle++;
			pthread_cond_wait(&work, &aio_lk);
			nidle--;
			continue;
		}
		pthread_mutex_unlock(&aio_lk);
		ssize_t r = do_io(cb);
		int e = r < 0 ? errno : 0;
		struct sigevent ev;
		struct aio_group *g;
		pthread_mutex_lock(&aio_lk);
		busy[me] = 0;
		aio_finish(cb, e, r < 0 ? -1 : r, &ev, &g);
		if (head)
			pthread_cond_broadcast(&work);   /* one on cb's descriptor may go now */
		pthread_mutex_unlock(&aio_lk);
		aio_notify(&ev, 1);
		aio_group_done(g);
		__pt_daemon();               /* (the process ends here if it was the last) */
		pthread_mutex_lock(&aio_lk);
	}
	return 0;
}

/* Another worker (aio_lk held), with every signal blocked from its
   first instruction; 0 or an errno. */
static int add_worker(void)
{
	pthread_attr_t a;
	pthread_t th;
	sigset_t all, old;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&th, &a, worker, (void *)(long)nworkers);
	pthread_sigmask(SIG_SETMASK, &old, 0);
	if (!e)
		nworkers++;
	return e;
}

/* A request queued with no worker idle: a new worker, if there is room
   for one, made with the oldest request it may take already its own
   (as glibc's), so that request counts as running from here on: an
   aio_cancel at once finds it AIO_NOTCANCELED, as on Linux. 0, or -1
   when no worker exists at all (then cb goes off the queue again). */
static int more_workers(struct aiocb *cb)
{
	if (nidle > 0 || nworkers >= AIO_THREADS)
		return 0;
	struct aiocb *mine = take();
	busy[nworkers] = mine;
	if (mine)
		__pt_undaemon();                 /* (the worker's __pt_daemon at its start balances) */
	if (add_worker() == 0)
		return 0;
	busy[nworkers] = 0;
	if (mine) {                              /* back at the head, where it was oldest */
		__pt_daemon();
		mine->__next = head;
		head = mine;
		if (!tail)
			tail = mine;
	}
	if (nworkers > 0)
		return 0;
	aio_unqueue(cb->aio_fildes, cb);
	return -1;
}

int aio_enqueue(struct aiocb *cb)
{
	if (!aio_room(1)) {
		errno = EAGAIN;
		return -1;
	}
	cb->__next = 0;
	cb->__return = 0;
	__atomic_store_n(&cb->__error, EINPROGRESS, __ATOMIC_RELEASE);
	if (tail)
		tail->__next = cb;
	else
		head = cb;
	tail = cb;
	inflight++;
	if (more_workers(cb)) {
		inflight--;
		errno = EAGAIN;
		return -1;
	}
	pthread_cond_signal(&work);
	return 0;
}

/* aio_read, aio_write, aio_fsync: what glibc checks at once (the rest,
   a bad descriptor or offset, is the request's status: EBADF, EINVAL). */
static int submit(struct aiocb *cb, int op)
{
	if (cb->aio_reqprio < 0 || cb->aio_reqprio > AIO_PRIO_DELTA_MAX) {
		cb->__error = EINVAL;
		cb->__return = -1;
		errno = EINVAL;
		return -1;
	}
	cb->__op = op;
	cb->__group = 0;
	pthread_mutex_lock(&aio_lk);
	int r = aio_enqueue(cb);
	pthread_mutex_unlock(&aio_lk);
	return r;
}

int aio_read(struct aiocb *cb)
{
	return submit(cb, LIO_READ);
}

int aio_write(struct aiocb *cb)
{
	return submit(cb, LIO_WRITE);
}

int aio_fsync(int op, struct aiocb *cb)
{
	int fl = fcntl(cb->aio_fildes, F_GETFL);
	if (op != O_SYNC && op != O_DSYNC) {
		errno = EINVAL;
		return -1;
	}
	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
		errno = EBADF;
		return -1;
	}
	return submit(cb, op == O_SYNC ? AIO_OP_SYNC : AIO_OP_DSYNC);
}

/* Without aio_lk: POSIX lists both as async-signal-safe, and a handler
   (of a request's own signal) calls them; with the lock, one that
   interrupted its thread inside aio_lk waited for itself (det=par hung
   in the public suite's aio_cancel 3-1). The worker sets __return, then
   __error with release. A look that finds the request running is a
   turn (thread_turn): on det a loop polling it lets the worker run, and
   det=par's view takes in what the worker committed. */
int aio_error(const struct aiocb *cb)
{
	int e = __atomic_load_n(&cb->__error, __ATOMIC_ACQUIRE);
	if (e == EINPROGRESS)
		thread_turn();
	return e;
}

ssize_t aio_return(struct aiocb *cb)
{
	(void)__atomic_load_n(&cb->__error, __ATOMIC_ACQUIRE);
	return cb->__return;
}

/* A fork's child (ulib/pthread/pfork.c) has none of the parent's
   requests or workers: POSIX. */
void __aio_forked(void);
void __aio_forked(void)
{
	pthread_mutex_init(&aio_lk, 0);
	pthread_cond_init(&work, 0);
	head = tail = 0;
	for (int i = 0; i < AIO_THREADS; i++)
		busy[i] = 0;
	inflight = nworkers = nidle = 0;
	aio_waiters = 0;
}
