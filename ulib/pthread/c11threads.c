/*
 * C11 <threads.h> over the POSIX layer: each call is the pthread call,
 * with its error number turned into C11's codes (ETIMEDOUT thrd_timedout,
 * EBUSY thrd_busy, ENOMEM/EAGAIN at create thrd_nomem, any other thrd_error).
 * A thread's int result travels as the pthread's exit value.
 */
#include <threads.h>
#include <pthread.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sched.h>
#include <time.h>

static int code(int e)
{
	switch (e) {
	case 0:         return thrd_success;
	case ETIMEDOUT: return thrd_timedout;
	case EBUSY:     return thrd_busy;
	case ENOMEM:    return thrd_nomem;
	}
	return thrd_error;
}

struct start {
	thrd_start_t fn;
	void *arg;
};

static void *start(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	return (void *)(intptr_t)s.fn(s.arg);
}

int thrd_create(thrd_t *thr, thrd_start_t func, void *arg)
{
	struct start *s = malloc(sizeof *s);
	if (!s)
		return thrd_nomem;
	s->fn = func;
	s->arg = arg;
	int e = pthread_create(thr, 0, start, s);
	if (e) {
		free(s);
		return e == EAGAIN || e == ENOMEM ? thrd_nomem : thrd_error;
	}
	return thrd_success;
}

thrd_t thrd_current(void)
{
	return pthread_self();
}

int thrd_detach(thrd_t thr)
{
	return code(pthread_detach(thr));
}

int thrd_equal(thrd_t a, thrd_t b)
{
	return pthread_equal(a, b);
}

_Noreturn void thrd_exit(int res)
{
	pthread_exit((void *)(intptr_t)res);
}

int thrd_join(thrd_t thr, int *res)
{
	void *v;
	int e = pthread_join(thr, &v);
	if (e)
		return thrd_error;
	if (res)
		*res = (int)(intptr_t)v;
	return thrd_success;
}

/* 0 when slept, -1 when a signal handler cut it short (remaining says
   how much was left), -2 on another error (a bad duration), as glibc. */
int thrd_sleep(const struct timespec *duration, struct timespec *remaining)
{
	if (nanosleep(duration, remaining) == 0)
		return 0;
	return errno == EINTR ? -1 : -2;
}

void thrd_yield(void)
{
	sched_yield();
}

int mtx_init(mtx_t *m, int type)
{
	if (type != mtx_plain && type != mtx_timed &&
	    type != (mtx_plain | mtx_recursive) && type != (mtx_timed | mtx_recursive))
		return thrd_error;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, type & mtx_recursive ? PTHREAD_MUTEX_RECURSIVE :
							     PTHREAD_MUTEX_NORMAL);
	int e = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return code(e);
}

int mtx_lock(mtx_t *m)
{
	return code(pthread_mutex_lock(m));
}

int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict ts)
{
	return code(pthread_mutex_timedlock(m, ts));
}

int mtx_trylock(mtx_t *m)
{
	return code(pthread_mutex_trylock(m));
}

int mtx_unlock(mtx_t *m)
{
	return code(pthread_mutex_unlock(m));
}

void mtx_destroy(mtx_t *m)
{
	pthread_mutex_destroy(m);
}

void call_once(once_flag *flag, void (*func)(void))
{
	pthread_once(flag, func);
}

int cnd_init(cnd_t *c)
{
	return code(pthread_cond_init(c, 0));
}

int cnd_signal(cnd_t *c)
{
	return code(pthread_cond_signal(c));
}

int cnd_broadcast(cnd_t *c)
{
	return code(pthread_cond_broadcast(c));
}

int cnd_wait(cnd_t *c, mtx_t *m)
{
	return code(pthread_cond_wait(c, m));
}

int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m, const struct timespec *restrict ts)
{
	return code(pthread_cond_timedwait(c, m, ts));
}

void cnd_destroy(cnd_t *c)
{
	pthread_cond_destroy(c);
}

int tss_create(tss_t *key, tss_dtor_t dtor)
{
	return code(pthread_key_create(key, dtor));
}

void *tss_get(tss_t key)
{
	return pthread_getspecific(key);
}

int tss_set(tss_t key, void *val)
{
	return code(pthread_setspecific(key, val));
}

void tss_delete(tss_t key)
{
	pthread_key_delete(key);
}
