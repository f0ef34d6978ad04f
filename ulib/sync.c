/*
 * Mutex, condition variable, semaphore, barrier and once, built only on
 * thread_block/thread_unblock. A waiter is a node on the waiter's stack;
 * whoever wakes it sets `granted` first, so a waiter loops until granted
 * (thread_block may return early on a stale permit).
 */
#include <sync.h>
#include <sys.h>

static void enqueue(struct waitq *q, struct waiter *w)
{
	w->next = 0;
	if (q->tail)
		q->tail->next = w;
	else
		q->head = w;
	q->tail = w;
}

static struct waiter *dequeue(struct waitq *q)
{
	struct waiter *w = q->head;
	if (w) {
		q->head = w->next;
		if (!q->head)
			q->tail = 0;
	}
	return w;
}

/* Grant w (its lock already released by the caller) and wake it. The
   thread pointer is read before `granted` is set: once granted, the
   waiter may return and its stack node vanish. */
static void grant(struct waiter *w)
{
	struct thread *t = w->t;
	__atomic_store_n(&w->granted, 1, __ATOMIC_RELEASE);
	thread_unblock(t);
}

static void wait_granted(struct waiter *w)
{
	while (!__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE))
		thread_block();
}

int mutex_trylock(struct mutex *m)
{
	int expect = 0;
	return __atomic_compare_exchange_n(&m->state, &expect, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Contended lock: queue, then wait for the unlocker to hand us the mutex. */
void mutex_lock_wait(struct mutex *m)
{
	struct waiter w = { thread_self(), 0, 0 };
	uspin_lock(&m->lock);
	if (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) == 0) {
		uspin_unlock(&m->lock);       /* freed meanwhile: it is ours */
		return;
	}
	enqueue(&m->q, &w);
	uspin_unlock(&m->lock);
	wait_granted(&w);
}

/* Contended unlock: hand the mutex straight to the first waiter. */
void mutex_unlock_wake(struct mutex *m)
{
	uspin_lock(&m->lock);
	struct waiter *w = dequeue(&m->q);
	if (!w) {
		__atomic_store_n(&m->state, 0, __ATOMIC_RELEASE);
		uspin_unlock(&m->lock);
		return;
	}
	/* still held (by w now); 2 keeps unlockers on this slow path while
	   more may wait, 1 lets the next unlock take the fast path */
	__atomic_store_n(&m->state, m->q.head ? 2 : 1, __ATOMIC_RELAXED);
	uspin_unlock(&m->lock);
	grant(w);
}

void cond_wait(struct cond *c, struct mutex *m)
{
	struct waiter w = { thread_self(), 0, 0 };
	uspin_lock(&c->lock);
	enqueue(&c->q, &w);
	uspin_unlock(&c->lock);
	mutex_unlock(m);
	wait_granted(&w);
	mutex_lock(m);
}

void cond_signal(struct cond *c)
{
	uspin_lock(&c->lock);
	struct waiter *w = dequeue(&c->q);
	uspin_unlock(&c->lock);
	if (w)
		grant(w);
}

void cond_broadcast(struct cond *c)
{
	uspin_lock(&c->lock);
	struct waiter *w = c->q.head;
	c->q.head = c->q.tail = 0;
	uspin_unlock(&c->lock);
	while (w) {
		struct waiter *next = w->next;   /* read before w may vanish */
		grant(w);
		w = next;
	}
}

void sem_init(struct sem *s, int count)
{
	*s = (struct sem){ .count = count };
}

void sem_wait(struct sem *s)
{
	struct waiter w = { thread_self(), 0, 0 };
	uspin_lock(&s->lock);
	if (s->count > 0) {
		s->count--;
		uspin_unlock(&s->lock);
		return;
	}
	enqueue(&s->q, &w);
	uspin_unlock(&s->lock);
	wait_granted(&w);
}

void sem_post(struct sem *s)
{
	uspin_lock(&s->lock);
	struct waiter *w = dequeue(&s->q);
	if (!w)
		s->count++;
	uspin_unlock(&s->lock);
	if (w)
		grant(w);                /* the unit goes straight to w */
}

void barrier_init(struct barrier *b, int n)
{
	*b = (struct barrier){ .n = n };
}

int barrier_wait(struct barrier *b)
{
	struct waiter w = { thread_self(), 0, 0 };
	uspin_lock(&b->lock);
	if (++b->arrived == b->n) {
		b->arrived = 0;
		b->generation++;
		struct waiter *all = b->q.head;
		b->q.head = b->q.tail = 0;
		uspin_unlock(&b->lock);
		while (all) {
			struct waiter *next = all->next;
			grant(all);
			all = next;
		}
		return 1;
	}
	enqueue(&b->q, &w);
	uspin_unlock(&b->lock);
	wait_granted(&w);
	return 0;
}

void once(struct once *o, void (*fn)(void))
{
	if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == 2)
		return;
	mutex_lock(&o->m);
	if (o->state == 0) {
		o->state = 1;
		mutex_unlock(&o->m);
		fn();
		mutex_lock(&o->m);
		__atomic_store_n(&o->state, 2, __ATOMIC_RELEASE);
		cond_broadcast(&o->c);
	}
	while (o->state != 2)
		cond_wait(&o->c, &o->m);
	mutex_unlock(&o->m);
}

/* The last spin lock is released and a warning was deferred: honor it
   by giving up the VP now (the kernel counts it as honored). */
void spin_yield_due(struct thread *t)
{
	t->yield_due = 0;
	sys_yield();
}
