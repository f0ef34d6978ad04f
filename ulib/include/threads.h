/*
 * <threads.h>: C11 threads, thin wrappers over the POSIX layer
 * (ulib/posix/c11threads.c, docs/posix.md), so they run on every thread
 * package, and synchronize with pthreads of the same program. Return
 * codes as glibc's.
 */
#ifndef ULIB_THREADS_H
#define ULIB_THREADS_H

#include <pthread.h>
#include <time.h>

#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 202311L)
#define thread_local _Thread_local
#endif

#define TSS_DTOR_ITERATIONS 4        /* as PTHREAD_DESTRUCTOR_ITERATIONS */

typedef pthread_t thrd_t;
typedef int (*thrd_start_t)(void *);
typedef pthread_key_t tss_t;
typedef void (*tss_dtor_t)(void *);
typedef pthread_mutex_t mtx_t;
typedef pthread_cond_t cnd_t;
typedef pthread_once_t once_flag;

#define ONCE_FLAG_INIT PTHREAD_ONCE_INIT

enum {
	thrd_success  = 0,
	thrd_busy     = 1,
	thrd_error    = 2,
	thrd_nomem    = 3,
	thrd_timedout = 4
};

enum {
	mtx_plain     = 0,
	mtx_recursive = 1,
	mtx_timed     = 2
};

int thrd_create(thrd_t *thr, thrd_start_t func, void *arg);
thrd_t thrd_current(void);
int thrd_detach(thrd_t thr);
int thrd_equal(thrd_t a, thrd_t b);
__attribute__((__noreturn__)) void thrd_exit(int res);
int thrd_join(thrd_t thr, int *res);
int thrd_sleep(const struct timespec *duration, struct timespec *remaining);
void thrd_yield(void);

int mtx_init(mtx_t *m, int type);
int mtx_lock(mtx_t *m);
int mtx_timedlock(mtx_t *__restrict m, const struct timespec *__restrict ts);
int mtx_trylock(mtx_t *m);
int mtx_unlock(mtx_t *m);
void mtx_destroy(mtx_t *m);

void call_once(once_flag *flag, void (*func)(void));

int cnd_init(cnd_t *c);
int cnd_signal(cnd_t *c);
int cnd_broadcast(cnd_t *c);
int cnd_wait(cnd_t *c, mtx_t *m);
int cnd_timedwait(cnd_t *__restrict c, mtx_t *__restrict m, const struct timespec *__restrict ts);
void cnd_destroy(cnd_t *c);

int tss_create(tss_t *key, tss_dtor_t dtor);
void *tss_get(tss_t key);
int tss_set(tss_t key, void *val);
void tss_delete(tss_t key);

#endif
