/*
 * Mutex, condition variable, semaphore, barrier and once, built only on
 * thread_block/thread_unblock, their waiters on <animart/waitq.h>'s
 * queues (in the order the waiters' package wants).
 */
#include <animart/sync.h>
#include <animart/sys.h>

/* Lock and hand-off paths are measured in instructions (make bench): no
   frame pointer here, as in rt_switch.c. */
#pragma GCC optimize("omit-frame-pointer")

/* Inline: on every contended wait (make bench's signal-wait). */
static inline __attribute__((always_inline)) void wait_granted(struct waiter *w)
{
	while (!__atomic_load_n(&w->granted, __ATOMIC_ACQUIRE))
		thread_block();
}

/* A mutex's states count from base: 0, or MX_CEIL with a ceiling. */
static inline int mx_base(struct mutex *m)
{
	return m->ceiling ? MX_CEIL : 0;
}

static int try_take(struct mutex *m, int base)
{
	int expect = base;
	return __atomic_compare_exchange_n(&m->state, &expect, base + 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* Contended lock: queue, then wait for the unlocker to hand us the mutex. */
static void lock_wait(struct mutex *m, int base)
{
	struct waiter w = { thread_self(), 0, 0 };
	spin_lock_by(&m->lock, w.t);
	if (__atomic_exchange_n(&m->state, base + 2, __ATOMIC_ACQUIRE) == base) {
		spin_unlock_by(&m->lock, w.t);       /* freed meanwhile: it is ours */
		return;
	}
	wq_push(&m->q, &w);
	spin_unlock_by(&m->lock, w.t);
	wait_granted(&w);
}

/* Contended unlock: hand the mutex straight to the first waiter. */
static void unlock_wake(struct mutex *m, int base)
{
	struct thread *self = thread_self();
	spin_lock_by(&m->lock, self);
	struct waiter *w = wq_pop(&m->q);
	if (!w) {
		__atomic_store_n(&m->state, base, __ATOMIC_RELEASE);
		spin_unlock_by(&m->lock, self);
		return;
	}
	/* still held (by w now); base+2 keeps unlockers on this slow path
	   while more may wait, base+1 lets the next unlock take the fast one */
	__atomic_store_n(&m->state, base + (m->q.head ? 2 : 1), __ATOMIC_RELAXED);
	spin_unlock_by(&m->lock, self);
	wq_grant(w);
}

/* Priority ceiling: raise the caller to the ceiling before it contends;
   the holder's own priority is kept in the mutex (only it writes that). */
static int ceiling_raise(struct mutex *m, struct thread *self)
{
	int old = self->prio;
	if (m->ceiling > old)
		self->prio = m->ceiling;
	return old;
}

int umutex_trylock(struct mutex *m)
{
	int base = mx_base(m);
	struct thread *self = base ? thread_self() : 0;
	int old = self ? ceiling_raise(m, self) : 0;
	if (try_take(m, base)) {
		m->saved_prio = old;
		return 1;
	}
	if (self)
		self->prio = old;
	return 0;
}

void umutex_lock_slow(struct mutex *m)
{
	int base = mx_base(m);
	if (!base) {
		lock_wait(m, 0);
		return;
	}
	int old = ceiling_raise(m, thread_self());
	if (!try_take(m, base))
		lock_wait(m, base);
	m->saved_prio = old;
}

/* With a ceiling: back to the holder's own priority; if that drops it, a
   thread it kept out may be waiting for its VP: let the package pick. */
void umutex_unlock_slow(struct mutex *m)
{
	int base = mx_base(m);
	if (!base) {
		unlock_wake(m, 0);
		return;
	}
	struct thread *self = thread_self();
	int old = m->saved_prio, expect = base + 1;
	if (!__atomic_compare_exchange_n(&m->state, &expect, base, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		unlock_wake(m, base);
	if (old < self->prio) {
		self->prio = old;
		thread_yield();
	}
}

void ucond_wait(struct cond *c, struct mutex *m)
{
	struct waiter w = { thread_self(), 0, 0 };
	spin_lock_by(&c->lock, w.t);
	wq_push(&c->q, &w);
	spin_unlock_by(&c->lock, w.t);
	umutex_unlock(m);
	wait_granted(&w);
	umutex_lock(m);
}

void ucond_signal(struct cond *c)
{
	struct thread *self = thread_self();
	spin_lock_by(&c->lock, self);
	struct waiter *w = wq_pop(&c->q);
	spin_unlock_by(&c->lock, self);
	if (w)
		wq_grant(w);
}

void ucond_broadcast(struct cond *c)
{
	struct thread *self = thread_self();
	spin_lock_by(&c->lock, self);
	struct waiter *w = c->q.head;
	c->q.head = c->q.tail = 0;
	spin_unlock_by(&c->lock, self);
	while (w) {
		struct waiter *next = w->next;   /* read before w may vanish */
		wq_grant(w);
		w = next;
	}
}

void usem_init(struct sem *s, int count)
{
	*s = (struct sem){ .count = count };
}

void usem_wait(struct sem *s)
{
	struct waiter w = { thread_self(), 0, 0 };
	spin_lock_by(&s->lock, w.t);
	if (s->count > 0) {
		s->count--;
		spin_unlock_by(&s->lock, w.t);
		return;
	}
	wq_push(&s->q, &w);
	spin_unlock_by(&s->lock, w.t);
	wait_granted(&w);
}

void usem_post(struct sem *s)
{
	struct thread *self = thread_self();
	spin_lock_by(&s->lock, self);
	struct waiter *w = wq_pop(&s->q);
	if (!w)
		s->count++;
	spin_unlock_by(&s->lock, self);
	if (w)
		wq_grant(w);                /* the unit goes straight to w */
}

void ubarrier_init(struct barrier *b, int n)
{
	*b = (struct barrier){ .n = n };
}

int ubarrier_wait(struct barrier *b)
{
	struct waiter w = { thread_self(), 0, 0 };
	spin_lock_by(&b->lock, w.t);
	if (++b->arrived == b->n) {
		b->arrived = 0;
		b->generation++;
		struct waiter *all = b->q.head;
		b->q.head = b->q.tail = 0;
		spin_unlock_by(&b->lock, w.t);
		while (all) {
			struct waiter *next = all->next;
			wq_grant(all);
			all = next;
		}
		return 1;
	}
	wq_push(&b->q, &w);
	spin_unlock_by(&b->lock, w.t);
	wait_granted(&w);
	return 0;
}

void uonce(struct once *o, void (*fn)(void))
{
	if (__atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == 2)
		return;
	umutex_lock(&o->m);
	if (o->state == 0) {
		o->state = 1;
		umutex_unlock(&o->m);
		fn();
		umutex_lock(&o->m);
		__atomic_store_n(&o->state, 2, __ATOMIC_RELEASE);
		ucond_broadcast(&o->c);
	}
	while (o->state != 2)
		ucond_wait(&o->c, &o->m);
	umutex_unlock(&o->m);
}

