/*
 * POSIX message queues (<mqueue.h>) between the threads of one program.
 * Anima has no file system and a POSIX program is one process, so, as
 * for named semaphores (semname.c), the names are a list within the
 * program: mq_open of a name that is there opens the same queue,
 * mq_unlink removes the name at once and the queue goes when its last
 * descriptor closes. A queue is a list of messages, the highest priority
 * first and the oldest first within one, under a mutex; full and empty
 * waits are condition waits, so they are cancellation points; a signal
 * handler that runs in one ends it with EINTR unless it has SA_RESTART,
 * as on Linux (__cond_wait_intr). Linux's limits and error numbers.
 */
#include <mqueue.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "../pthread/pwait.h"

#define DEF_MAXMSG  10               /* Linux's defaults when mq_open has no attr */
#define DEF_MSGSIZE 8192
#define MAX_MAXMSG  65536            /* and its hard limits (HARD_MSGMAX, HARD_MSGSIZEMAX) */
#define MAX_MSGSIZE (16L << 20)

struct msg {
	struct msg *next;
	unsigned prio;
	size_t len;
	char data[];
};

struct mq {
	struct mq *next;                 /* on the list */
	int refs;                        /* descriptors open, and calls under way */
	int linked;                      /* its name is still there */
	long maxmsg, msgsize, cur;
	struct msg *head;
	int receivers;                   /* threads waiting in a receive */
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	int notify_d;                    /* descriptor + 1 that asked mq_notify; 0: none */
	struct sigevent ev;
	pthread_attr_t ev_attr;          /* SIGEV_THREAD's, copied at mq_notify */
	char name[NAME_MAX + 1];
};

static struct { struct mq *q; int flags; } descs[MQ_OPEN_MAX];
static struct mq *list;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;   /* the list, descs, refs */

int __sig_queue(int sig, int code, union sigval v);   /* ulib/signal.c */

static int fail(int e)
{
	errno = e;
	return -1;
}

/* The name without its '/', or 0 with errno set: Linux wants one
   leading '/' and no other. */
static const char *check(const char *name)
{
	if (name[0] != '/' || !name[1]) {
		errno = EINVAL;
		return 0;
	}
	if (strchr(name + 1, '/')) {
		errno = EACCES;
		return 0;
	}
	if (strlen(name + 1) > NAME_MAX) {
		errno = ENAMETOOLONG;
		return 0;
	}
	return name + 1;
}

static struct mq *find(const char *name)
{
	for (struct mq *q = list; q; q = q->next)
		if (q->linked && !strcmp(q->name, name))
			return q;
	return 0;
}

/* lock held: q loses a reference; gone with the last, once unlinked */
static void unref(struct mq *q)
{
	if (--q->refs || q->linked)
		return;
	for (struct mq **p = &list; *p; p = &(*p)->next)
		if (*p == q) {
			*p = q->next;
			break;
		}
	while (q->head) {
		struct msg *m = q->head;
		q->head = m->next;
		free(m);
	}
	free(q);
}

/* d's queue, held (a reference) for one call, and d's flags; 0: EBADF */
static struct mq *get(mqd_t d, int *flags)
{
	struct mq *q = 0;
	pthread_mutex_lock(&lock);
	if (d >= 0 && d < MQ_OPEN_MAX && (q = descs[d].q)) {
		q->refs++;
		*flags = descs[d].flags;
	}
	pthread_mutex_unlock(&lock);
	if (!q)
		errno = EBADF;
	return q;
}

static void put(struct mq *q)
{
	pthread_mutex_lock(&lock);
	unref(q);
	pthread_mutex_unlock(&lock);
}

static struct mq *make(const char *name, const struct mq_attr *a)
{
	long maxmsg = a ? a->mq_maxmsg : DEF_MAXMSG, msgsize = a ? a->mq_msgsize : DEF_MSGSIZE;
	if (maxmsg <= 0 || msgsize <= 0 || maxmsg > MAX_MAXMSG || msgsize > MAX_MSGSIZE) {
		errno = EINVAL;
		return 0;
	}
	struct mq *q = calloc(1, sizeof *q);
	if (!q) {
		errno = ENOMEM;
		return 0;
	}
	q->maxmsg = maxmsg;
	q->msgsize = msgsize;
	q->linked = 1;
	pthread_mutex_init(&q->lock, 0);
	pthread_cond_init(&q->nonempty, 0);
	pthread_cond_init(&q->nonfull, 0);
	strcpy(q->name, name);
	q->next = list;
	list = q;
	return q;
}

mqd_t mq_open(const char *name, int oflag, ...)
{
	const struct mq_attr *attr = 0;
	if (oflag & O_CREAT) {
		va_list ap;
		va_start(ap, oflag);
		(void)va_arg(ap, int);   /* mode: there are no permissions to check */
		attr = va_arg(ap, const struct mq_attr *);
		va_end(ap);
	}
	if ((oflag & O_ACCMODE) == O_ACCMODE)
		return fail(EINVAL);
	if (!(name = check(name)))
		return -1;
	pthread_mutex_lock(&lock);
	int d = 0, e = 0;
	while (d < MQ_OPEN_MAX && descs[d].q)
		d++;
	struct mq *q = find(name);
	if (d == MQ_OPEN_MAX)
		e = EMFILE;
	else if (q && (oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		e = EEXIST;
	else if (!q && !(oflag & O_CREAT))
		e = ENOENT;
	else if (!q && !(q = make(name, attr)))
		e = errno;
	if (!e) {
		q->refs++;
		descs[d].q = q;
		descs[d].flags = oflag & (O_ACCMODE | O_NONBLOCK);
	}
	pthread_mutex_unlock(&lock);
	return e ? fail(e) : d;
}

int mq_close(mqd_t d)
{
	int e = EBADF;
	pthread_mutex_lock(&lock);
	struct mq *q = d >= 0 && d < MQ_OPEN_MAX ? descs[d].q : 0;
	if (q) {
		e = 0;
		pthread_mutex_lock(&q->lock);
		if (q->notify_d == d + 1)        /* its notification goes with it */
			q->notify_d = 0;
		pthread_mutex_unlock(&q->lock);
		descs[d].q = 0;
		unref(q);
	}
	pthread_mutex_unlock(&lock);
	return e ? fail(e) : 0;
}

int mq_unlink(const char *name)
{
	if (!(name = check(name)))
		return -1;
	pthread_mutex_lock(&lock);
	struct mq *q = find(name);
	if (q) {
		q->linked = 0;
		q->refs++;                       /* (unref frees it if nothing is open) */
		unref(q);
	}
	pthread_mutex_unlock(&lock);
	return q ? 0 : fail(ENOENT);
}

/* What a wait leaves behind when it is cancelled: the queue's mutex
   (a condition wait takes it back first), the reference, a message. */
struct op {
	struct mq *q;
	struct msg *m;
	int receiving;
};

static void op_end(void *arg)
{
	struct op *o = arg;
	if (o->receiving)
		o->q->receivers--;
	pthread_mutex_unlock(&o->q->lock);
	free(o->m);
	put(o->q);
}

/* Wait on c while `full` (the queue's mutex held): 0, or EAGAIN
   (O_NONBLOCK), ETIMEDOUT, EINTR (a handler without SA_RESTART ran) or
   EINVAL (a bad abstime: only looked at when the call must wait, as
   POSIX says). */
static int wait_for(struct mq *q, pthread_cond_t *c, int flags, const struct timespec *abstime,
		    int (*full)(struct mq *))
{
	int e = 0;
	while (!e && full(q)) {
		if (flags & O_NONBLOCK)
			return EAGAIN;
		e = __cond_wait_intr(c, &q->lock, abstime, PW_INTR);
	}
	return e == ETIMEDOUT && !full(q) ? 0 : e;
}

static int is_full(struct mq *q) { return q->cur >= q->maxmsg; }
static int is_empty(struct mq *q) { return q->cur == 0; }

/* SIGEV_THREAD's thread: the function with its value, nothing else */
struct notice {
	void (*fn)(union sigval);
	union sigval v;
};

static void *notice_thread(void *arg)
{
	struct notice n = *(struct notice *)arg;
	free(arg);
	n.fn(n.v);
	return 0;
}

/* A message came to an empty queue with no receiver waiting: the
   registered notification, once (it is removed, as POSIX says). */
static void notify(const struct sigevent *ev, pthread_attr_t *a)
{
	if (ev->sigev_notify == SIGEV_SIGNAL)
		__sig_queue(ev->sigev_signo, SI_MESGQ, ev->sigev_value);
	else if (ev->sigev_notify == SIGEV_THREAD) {
		struct notice *n = malloc(sizeof *n);
		pthread_t th;
		if (!n)
			return;
		*n = (struct notice){ ev->sigev_notify_function, ev->sigev_value };
		pthread_attr_setdetachstate(a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, a, notice_thread, n))
			free(n);
	}
}

int mq_timedsend(mqd_t d, const char *msg, size_t len, unsigned prio,
		 const struct timespec *abstime)
{
	int flags, e = 0;
	struct mq *q = get(d, &flags);
	if (!q)
		return -1;
	struct op o = { q, 0, 0 };
	if ((flags & O_ACCMODE) == O_RDONLY)
		e = EBADF;
	else if ((long)len > q->msgsize)
		e = EMSGSIZE;
	else if (prio >= MQ_PRIO_MAX)
		e = EINVAL;
	else if (!(o.m = malloc(sizeof *o.m + len)))
		e = ENOMEM;
	if (e) {
		free(o.m);
		put(q);
		return fail(e);
	}
	o.m->prio = prio;
	o.m->len = len;
	memcpy(o.m->data, msg, len);
	struct sigevent ev = { .sigev_notify = SIGEV_NONE };
	pthread_attr_t a;
	pthread_mutex_lock(&q->lock);
	pthread_cleanup_push(op_end, &o);
	e = wait_for(q, &q->nonfull, flags, abstime, is_full);
	if (!e) {
		struct msg **p = &q->head;   /* after every message of its priority or above */
		while (*p && (*p)->prio >= prio)
			p = &(*p)->next;
		o.m->next = *p;
		*p = o.m;
		o.m = 0;
		if (q->cur++ == 0 && !q->receivers && q->notify_d) {
			ev = q->ev;
			a = q->ev_attr;
			q->notify_d = 0;
		}
		pthread_cond_signal(&q->nonempty);
	}
	pthread_cleanup_pop(1);
	if (!e && ev.sigev_notify != SIGEV_NONE)
		notify(&ev, &a);                 /* after the locks: a handler may use the queue */
	return e ? fail(e) : 0;
}

int mq_send(mqd_t d, const char *msg, size_t len, unsigned prio)
{
	return mq_timedsend(d, msg, len, prio, 0);
}

ssize_t mq_timedreceive(mqd_t d, char *msg, size_t len, unsigned *prio,
			const struct timespec *abstime)
{
	int flags, e = 0;
	struct mq *q = get(d, &flags);
	if (!q)
		return -1;
	if ((flags & O_ACCMODE) == O_WRONLY)
		e = EBADF;
	else if ((long)len < q->msgsize)
		e = EMSGSIZE;
	if (e) {
		put(q);
		return fail(e);
	}
	struct op o = { q, 0, 1 };
	pthread_mutex_lock(&q->lock);
	q->receivers++;
	pthread_cleanup_push(op_end, &o);
	e = wait_for(q, &q->nonempty, flags, abstime, is_empty);
	if (!e) {
		o.m = q->head;
		q->head = o.m->next;
		q->cur--;
		pthread_cond_signal(&q->nonfull);
		memcpy(msg, o.m->data, o.m->len);
		if (prio)
			*prio = o.m->prio;
		len = o.m->len;
	}
	pthread_cleanup_pop(1);              /* frees the message */
	return e ? fail(e) : (ssize_t)len;
}

ssize_t mq_receive(mqd_t d, char *msg, size_t len, unsigned *prio)
{
	return mq_timedreceive(d, msg, len, prio, 0);
}

int mq_getattr(mqd_t d, struct mq_attr *attr)
{
	int flags;
	struct mq *q = get(d, &flags);
	if (!q)
		return -1;
	pthread_mutex_lock(&q->lock);
	*attr = (struct mq_attr){ flags & O_NONBLOCK, q->maxmsg, q->msgsize, q->cur, { 0 } };
	pthread_mutex_unlock(&q->lock);
	put(q);
	return 0;
}

/* Only O_NONBLOCK can change (the descriptor's); the rest is ignored. */
int mq_setattr(mqd_t d, const struct mq_attr *attr, struct mq_attr *old)
{
	if (attr->mq_flags & ~(long)O_NONBLOCK)
		return fail(EINVAL);
	if (old && mq_getattr(d, old))
		return -1;
	pthread_mutex_lock(&lock);
	int ok = d >= 0 && d < MQ_OPEN_MAX && descs[d].q;
	if (ok)
		descs[d].flags = (descs[d].flags & ~O_NONBLOCK) | (int)(attr->mq_flags & O_NONBLOCK);
	pthread_mutex_unlock(&lock);
	return ok ? 0 : fail(EBADF);
}

/* One registration per queue (EBUSY); sev 0 removes it. */
int mq_notify(mqd_t d, const struct sigevent *sev)
{
	int flags, e = 0;
	if (sev && !(sev->sigev_notify == SIGEV_NONE ||
		     (sev->sigev_notify == SIGEV_SIGNAL && sev->sigev_signo > 0 &&
		      sev->sigev_signo < NSIG) ||
		     (sev->sigev_notify == SIGEV_THREAD && sev->sigev_notify_function)))
		return fail(EINVAL);
	struct mq *q = get(d, &flags);
	if (!q)
		return -1;
	pthread_mutex_lock(&q->lock);
	if (!sev)
		q->notify_d = 0;
	else if (q->notify_d)
		e = EBUSY;
	else {
		q->notify_d = d + 1;
		q->ev = *sev;
		if (sev->sigev_notify == SIGEV_THREAD && sev->sigev_notify_attributes)
			q->ev_attr = *(pthread_attr_t *)sev->sigev_notify_attributes;
		else
			pthread_attr_init(&q->ev_attr);
	}
	pthread_mutex_unlock(&q->lock);
	put(q);
	return e ? fail(e) : 0;
}
