/*
 * POSIX threads on the standard interface: each pthread is a thread of
 * the package the POSIX start chose (pstart.c: pkg=NAME), created through
 * its struct pkg and joined through the interface (thread_join's
 * protocol, here with cancellation). The layer's own descriptor, struct
 * pthread, hangs off the thread's TCB (<tls.h>), so pthread_self is one
 * load from %fs.
 *
 * Lifetime: a joinable thread's descriptors go at pthread_join. A
 * detached thread cannot free its own (it is on its stack): it puts its
 * descriptor on the reap list as it exits, and the next pthread_create or
 * pthread_detach frees every entry whose thread has left its stack
 * (JOIN_DONE). So memory stays bounded by the threads alive plus those
 * that exited since the last create.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys.h>
#include <tls.h>
#include <pkg.h>
#include <sys/resource.h>
#include "pwait.h"

enum { JOINABLE, DETACHED, EXITED };   /* struct pthread.state */

struct pthread {
	struct thread *t;
	void *(*fn)(void *);
	void *arg;
	void *ret;
	volatile int state;
	volatile int cancel_pending;
	int cancel_off, cancel_async, exiting;
	int policy, prio;                /* the scheduling the program asked for */
	struct __pthread_cleanup *cleanup;
	struct spec { unsigned seq; void *v; } *spec;   /* keys (lazily) */
	struct pthread *next, *prev;     /* all live pthreads (rusage), or the reap list */
};

const struct pkg *posix_pkg;        /* pstart.c's choice (default fifo) */

static struct spin all_lock;         /* all, live, exited_*; reap */
static struct pthread *all;
static int live;
static uint64_t exited_nvcsw, exited_nivcsw;
static struct pthread *reap;

static uint64_t ivcsw_of(struct thread *t);

/* ---- descriptors ---- */

static void link_live(struct pthread *pt)
{
	spin_lock(&all_lock);
	pt->prev = 0;
	if ((pt->next = all))
		all->prev = pt;
	all = pt;
	live++;
	spin_unlock(&all_lock);
}

/* Free every detached thread that has left its stack. */
static void reap_done(void)
{
	if (!__atomic_load_n(&reap, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&all_lock);
	struct pthread *r = reap, *keep = 0;
	reap = 0;
	spin_unlock(&all_lock);
	while (r) {
		struct pthread *next = r->next;
		if (__atomic_load_n(&r->t->join, __ATOMIC_ACQUIRE) == JOIN_DONE) {
			r->t->ops->free(r->t);
			free(r);
		} else {
			r->next = keep;
			keep = r;
		}
		r = next;
	}
	if (!keep)
		return;
	spin_lock(&all_lock);
	struct pthread *tail = keep;
	while (tail->next)
		tail = tail->next;
	tail->next = reap;
	reap = keep;
	spin_unlock(&all_lock);
}

/* The caller's descriptor; a thread the POSIX layer did not create (a
   native program's) gets one on first use, detached. */
static struct pthread *self_pt(void)
{
	struct tcb *tcb = tls_tcb();
	if (tcb && tcb->posix)
		return tcb->posix;
	struct pthread *pt = calloc(1, sizeof *pt);
	if (!pt || !tcb) {
		printf("pthread: a thread without TLS (not started by the POSIX start?)\n");
		exit(70);
	}
	pt->t = thread_self();
	pt->state = DETACHED;
	pt->prio = pt->t ? pt->t->prio : 0;
	tcb->posix = pt;
	link_live(pt);
	return pt;
}

/* pstart.c: the calling thread is main's. */
void posix_main_init(void)
{
	self_pt()->state = JOINABLE;
}

static void *entry(void *arg)
{
	struct pthread *pt = arg;
	pt->t = thread_self();
	tls_tcb()->posix = pt;
	pthread_exit(pt->fn(pt->arg));
}

/* ---- attributes ---- */

int pthread_attr_init(pthread_attr_t *a)
{
	*a = (pthread_attr_t){ .__stacksize = 64 * 1024 - 16, .__guardsize = 0 };
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *a)
{
	(void)a;
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *a, int s)
{
	if (s != PTHREAD_CREATE_JOINABLE && s != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	a->__detach = s;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *a, int *s)
{
	*s = a->__detach;
	return 0;
}

int pthread_attr_setstacksize(pthread_attr_t *a, size_t n)
{
	if (n < PTHREAD_STACK_MIN || n > (1UL << 30))
		return EINVAL;
	a->__stacksize = n;
	return 0;
}

int pthread_attr_getstacksize(const pthread_attr_t *a, size_t *n)
{
	*n = a->__stacksize;
	return 0;
}

int pthread_attr_setguardsize(pthread_attr_t *a, size_t n)
{
	a->__guardsize = n;              /* kept; stacks have no guard page */
	return 0;
}

int pthread_attr_getguardsize(const pthread_attr_t *a, size_t *n)
{
	*n = a->__guardsize;
	return 0;
}

static int prio_ok(int policy, int prio)
{
	return prio >= sched_get_priority_min(policy) && prio <= sched_get_priority_max(policy);
}

int pthread_attr_setschedparam(pthread_attr_t *a, const struct sched_param *p)
{
	if (p->sched_priority < THREAD_PRIO_MIN || p->sched_priority > THREAD_PRIO_MAX)
		return EINVAL;
	a->__prio = p->sched_priority;
	return 0;
}

int pthread_attr_getschedparam(const pthread_attr_t *a, struct sched_param *p)
{
	p->sched_priority = a->__prio;
	return 0;
}

int pthread_attr_setschedpolicy(pthread_attr_t *a, int policy)
{
	if (policy != SCHED_OTHER && policy != SCHED_FIFO && policy != SCHED_RR)
		return EINVAL;
	a->__policy = policy;
	return 0;
}

int pthread_attr_getschedpolicy(const pthread_attr_t *a, int *policy)
{
	*policy = a->__policy;
	return 0;
}

int pthread_attr_setinheritsched(pthread_attr_t *a, int inherit)
{
	if (inherit != PTHREAD_INHERIT_SCHED && inherit != PTHREAD_EXPLICIT_SCHED)
		return EINVAL;
	a->__inherit = inherit;
	return 0;
}

int pthread_attr_getinheritsched(const pthread_attr_t *a, int *inherit)
{
	*inherit = a->__inherit;
	return 0;
}

int pthread_attr_setscope(pthread_attr_t *a, int scope)
{
	if (scope == PTHREAD_SCOPE_PROCESS)
		return ENOTSUP;              /* every thread competes as its package does */
	if (scope != PTHREAD_SCOPE_SYSTEM)
		return EINVAL;
	a->__scope = scope;
	return 0;
}

int pthread_attr_getscope(const pthread_attr_t *a, int *scope)
{
	*scope = a->__scope;
	return 0;
}

/* ---- threads ---- */

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct pthread *me = self_pt();
	reap_done();
	struct pthread *pt = calloc(1, sizeof *pt);
	if (!pt)
		return EAGAIN;
	pt->fn = fn;
	pt->arg = arg;
	struct thread_attr ta = { .prio = me->prio };
	pt->policy = me->policy;
	pt->prio = me->prio;
	if (attr) {
		pt->state = attr->__detach ? DETACHED : JOINABLE;
		ta.stack_size = attr->__stacksize;
		if (attr->__inherit == PTHREAD_EXPLICIT_SCHED) {
			pt->policy = attr->__policy;
			ta.prio = pt->prio = attr->__prio;
		}
	}
	link_live(pt);
	const struct pkg *p = posix_pkg ? posix_pkg : &fifo_pkg;
	struct thread *t = p->create(entry, pt, &ta);
	if (!t) {
		spin_lock(&all_lock);
		if (pt->next)
			pt->next->prev = pt->prev;
		if (pt->prev)
			pt->prev->next = pt->next;
		else
			all = pt->next;
		live--;
		spin_unlock(&all_lock);
		free(pt);
		return EAGAIN;
	}
	pt->t = t;                       /* (entry sets it too: it may run first) */
	*th = (pthread_t)pt;
	return 0;
}

pthread_t pthread_self(void)
{
	return (pthread_t)self_pt();
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

static void run_key_dtors(struct pthread *pt);

void pthread_exit(void *ret)
{
	struct pthread *pt = self_pt();
	struct thread *t = thread_self();
	pt->exiting = 1;
	pt->cancel_off = 1;
	while (pt->cleanup) {
		struct __pthread_cleanup *c = pt->cleanup;
		pt->cleanup = c->__next;
		c->__fn(c->__arg);
	}
	run_key_dtors(pt);
	free(pt->spec);
	pt->spec = 0;
	pt->ret = ret;
	spin_lock(&all_lock);
	exited_nvcsw += t->nvcsw;
	exited_nivcsw += ivcsw_of(t);
	if (pt->next)
		pt->next->prev = pt->prev;
	if (pt->prev)
		pt->prev->next = pt->next;
	else
		all = pt->next;
	int last = --live == 0;
	/* joinable: the joiner frees us; detached: the reaper does */
	int was = JOINABLE;
	if (!__atomic_compare_exchange_n(&pt->state, &was, EXITED, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		pt->next = reap;
		reap = pt;
	}
	spin_unlock(&all_lock);
	if (last)
		exit(0);                     /* the last thread: the process ends */
	thread_exit(ret);
}

int pthread_join(pthread_t th, void **ret)
{
	struct pthread *pt = (struct pthread *)th, *me = self_pt();
	if (pt == me)
		return EDEADLK;
	if (pt->state == DETACHED)
		return EINVAL;
	struct thread *t = pt->t, *self = me->t;
	while (!t)                       /* its creator has not stored it yet */
		t = __atomic_load_n(&pt->t, __ATOMIC_ACQUIRE);
	uint64_t expect = 0;
	if (!__atomic_compare_exchange_n(&t->join, &expect, (uint64_t)self, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE) && expect != JOIN_DONE)
		return EINVAL;               /* someone else joins it */
	while (__atomic_load_n(&t->join, __ATOMIC_ACQUIRE) != JOIN_DONE) {
		if (pcancel_pending()) {
			expect = (uint64_t)self;     /* stop joining, then act */
			__atomic_compare_exchange_n(&t->join, &expect, 0, 0, __ATOMIC_ACQ_REL,
						    __ATOMIC_ACQUIRE);
			pcancel_act();
		}
		thread_block();
	}
	if (ret)
		*ret = pt->ret;
	t->ops->free(t);
	free(pt);
	return 0;
}

int pthread_detach(pthread_t th)
{
	struct pthread *pt = (struct pthread *)th;
	int was = JOINABLE;
	if (__atomic_compare_exchange_n(&pt->state, &was, DETACHED, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		reap_done();
		return 0;
	}
	if (was == DETACHED)
		return EINVAL;
	return pthread_join(th, 0);      /* it has exited: reclaim it now */
}

int sched_yield(void)
{
	struct thread *t = thread_self();
	if (t) {
		t->nvcsw++;
		thread_yield();
	} else
		sys_yield();
	return 0;
}

int sched_get_priority_min(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_FIFO || policy == SCHED_RR ? THREAD_PRIO_MIN : -1;
}

int sched_get_priority_max(int policy)
{
	if (policy == SCHED_OTHER)
		return THREAD_PRIO_MIN;
	return policy == SCHED_FIFO || policy == SCHED_RR ? THREAD_PRIO_MAX : -1;
}

int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *p)
{
	struct pthread *pt = (struct pthread *)th;
	if (sched_get_priority_min(policy) < 0 || !prio_ok(policy, p->sched_priority))
		return EINVAL;
	pt->policy = policy;
	pt->prio = p->sched_priority;
	pt->t->prio = p->sched_priority;     /* the package reads it at its next enqueue */
	if (pt == self_pt())
		thread_yield();              /* a lower priority: let higher ones run */
	return 0;
}

int pthread_getschedparam(pthread_t th, int *policy, struct sched_param *p)
{
	struct pthread *pt = (struct pthread *)th;
	*policy = pt->policy;
	p->sched_priority = pt->prio;
	return 0;
}

int pthread_setschedprio(pthread_t th, int prio)
{
	struct sched_param p = { prio };
	return pthread_setschedparam(th, ((struct pthread *)th)->policy, &p);
}

static int concurrency;

int pthread_setconcurrency(int level)
{
	if (level < 0)
		return EINVAL;
	concurrency = level;             /* a hint; VPs are set at start (vps=N) */
	return 0;
}

int pthread_getconcurrency(void)
{
	return concurrency;
}

/* ---- once ---- */

/* Callers that find the routine running wait on one queue for all once
   objects (pthread_once_t is a bare int): 0 not run, 1 running, 2 done. */
static volatile int once_lk;
static struct __pq once_q;

int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	if (__atomic_load_n(once, __ATOMIC_ACQUIRE) == 2)
		return 0;
	int expect = 0;
	struct thread *self = thread_self();
	if (__atomic_compare_exchange_n(once, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		fn();
		plock(&once_lk, self);
		__atomic_store_n(once, 2, __ATOMIC_RELEASE);
		struct pw *w = once_q.__head;
		once_q.__head = once_q.__tail = 0;
		punlock(&once_lk, self);
		while (w) {                  /* everyone: they recheck their own */
			struct pw *next = w->next;
			pw_grant(w);
			w = next;
		}
		return 0;
	}
	while (__atomic_load_n(once, __ATOMIC_ACQUIRE) != 2) {
		struct pw w = { self, 0, 0 };
		plock(&once_lk, self);
		if (__atomic_load_n(once, __ATOMIC_ACQUIRE) == 2) {
			punlock(&once_lk, self);
			break;
		}
		pq_push(&once_q, &w);
		punlock(&once_lk, self);
		pw_wait(&w, 0, 0, &once_lk, &once_q);
	}
	return 0;
}

/* ---- keys ---- */

static struct {
	volatile int used;
	unsigned seq;                    /* bumped at delete: old values vanish */
	void (*dtor)(void *);
} keys[PTHREAD_KEYS_MAX];
static struct spin keys_lock;

int pthread_key_create(pthread_key_t *k, void (*dtor)(void *))
{
	spin_lock(&keys_lock);
	for (unsigned i = 0; i < PTHREAD_KEYS_MAX; i++) {
		if (keys[i].used)
			continue;
		keys[i].used = 1;
		keys[i].seq++;
		keys[i].dtor = dtor;
		spin_unlock(&keys_lock);
		*k = i;
		return 0;
	}
	spin_unlock(&keys_lock);
	return EAGAIN;
}

int pthread_key_delete(pthread_key_t k)
{
	if (k >= PTHREAD_KEYS_MAX || !keys[k].used)
		return EINVAL;
	spin_lock(&keys_lock);
	keys[k].used = 0;
	keys[k].seq++;
	spin_unlock(&keys_lock);
	return 0;
}

void *pthread_getspecific(pthread_key_t k)
{
	struct pthread *pt = self_pt();
	if (k >= PTHREAD_KEYS_MAX || !pt->spec || pt->spec[k].seq != keys[k].seq)
		return 0;
	return pt->spec[k].v;
}

int pthread_setspecific(pthread_key_t k, const void *v)
{
	struct pthread *pt = self_pt();
	if (k >= PTHREAD_KEYS_MAX || !keys[k].used)
		return EINVAL;
	if (!pt->spec && !(pt->spec = calloc(PTHREAD_KEYS_MAX, sizeof *pt->spec)))
		return ENOMEM;
	pt->spec[k].seq = keys[k].seq;
	pt->spec[k].v = (void *)v;
	return 0;
}

static void run_key_dtors(struct pthread *pt)
{
	for (int round = 0; pt->spec && round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		int ran = 0;
		for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
			void *v = pt->spec[k].v;
			void (*dtor)(void *) = keys[k].dtor;
			if (!v || !keys[k].used || pt->spec[k].seq != keys[k].seq || !dtor)
				continue;
			pt->spec[k].v = 0;
			dtor(v);
			ran = 1;
		}
		if (!ran)
			break;
	}
}

/* ---- cancellation (deferred) ---- */

int pcancel_pending(void)
{
	struct tcb *tcb = tls_tcb();
	struct pthread *pt = tcb ? tcb->posix : 0;
	return pt && pt->cancel_pending && !pt->cancel_off;
}

void pcancel_act(void)
{
	pthread_exit(PTHREAD_CANCELED);
}

int pthread_cancel(pthread_t th)
{
	struct pthread *pt = (struct pthread *)th;
	if (pt->state == EXITED || pt->exiting)
		return 0;
	__atomic_store_n(&pt->cancel_pending, 1, __ATOMIC_SEQ_CST);
	if (pt == self_pt()) {
		if (pt->cancel_async && !pt->cancel_off)
			pcancel_act();
		return 0;
	}
	struct thread *t = pt->t;
	if (t)
		thread_unblock(t);           /* out of a wait: it looks at cancel_pending */
	return 0;
}

int pthread_setcancelstate(int state, int *old)
{
	if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
		return EINVAL;
	struct pthread *pt = self_pt();
	if (old)
		*old = pt->cancel_off;
	if (!pt->exiting)
		pt->cancel_off = state;
	return 0;
}

int pthread_setcanceltype(int type, int *old)
{
	if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS)
		return EINVAL;
	struct pthread *pt = self_pt();
	if (old)
		*old = pt->cancel_async;
	pt->cancel_async = type;         /* acted on at cancellation points only */
	return 0;
}

void pthread_testcancel(void)
{
	if (pcancel_pending())
		pcancel_act();
}

void __pthread_cleanup_push(struct __pthread_cleanup *c, void (*fn)(void *), void *arg)
{
	struct pthread *pt = self_pt();
	c->__fn = fn;
	c->__arg = arg;
	c->__next = pt->cleanup;
	pt->cleanup = c;
}

void __pthread_cleanup_pop(struct __pthread_cleanup *c, int execute)
{
	struct pthread *pt = self_pt();
	pt->cleanup = c->__next;
	if (execute)
		c->__fn(c->__arg);
}

/* ---- getrusage ---- */

/* A thread's involuntary switches: the runtime's count, or on kthread
   (a thread is a VP) the kernel's preemptions of its VP. */
static uint64_t ivcsw_of(struct thread *t)
{
	if (posix_pkg == &kthread_pkg && t == thread_self())
		t->nivcsw = vp_pseudo()->preemptions;
	return t->nivcsw;
}

int getrusage(int who, struct rusage *u)
{
	if (who != RUSAGE_SELF && who != RUSAGE_THREAD) {
		errno = EINVAL;
		return -1;
	}
	*u = (struct rusage){ 0 };
	struct thread *self = thread_self();
	uint64_t v = self ? self->nvcsw : 0, iv = self ? ivcsw_of(self) : 0;
	if (who == RUSAGE_SELF) {
		spin_lock(&all_lock);
		v = exited_nvcsw;
		iv = exited_nivcsw;
		for (struct pthread *pt = all; pt; pt = pt->next)
			if (pt->t) {
				v += pt->t->nvcsw;
				iv += pt->t->nivcsw;
			}
		spin_unlock(&all_lock);
	}
	u->ru_nvcsw = (long)v;
	u->ru_nivcsw = (long)iv;
	return 0;
}
