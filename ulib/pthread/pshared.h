/* Process-shared objects (pshared.c): the private objects' code sends
   an object marked __pshared here. Internal. */
#ifndef POSIX_PSHARED_H
#define POSIX_PSHARED_H
#include <stdint.h>
#include <semaphore.h>
#include <anima/seg.h>
#include <animart/sys.h>

/* Can other processes see the object at p? Only in a shared segment
   (MAP_SHARED | MAP_ANONYMOUS memory, a named semaphore) or a MAP_SHARED
   file mapping (shm_open, a file: the kernel keys its futexes by the one
   frame every space maps, kernel/fkey.c; asked at init only, off every
   wait's path): elsewhere a pshared object is a private one, which
   signals and cancellation interrupt as POSIX wants. */
static inline int psh_here(const volatile void *p, int pshared)
{
	return pshared && (((uintptr_t)p >= SEG_BASE && (uintptr_t)p < SEG_TOP) ||
			   syscall2(SYS_getinfo, INFO_FSHARED, (uintptr_t)p) == 1);
}

int psh_mutex_lock(pthread_mutex_t *m, uint64_t deadline, int try);
int psh_mutex_unlock(pthread_mutex_t *m);
int psh_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, uint64_t deadline, int how);
void psh_cond_wake(pthread_cond_t *c, int all);
int psh_cond_destroy(pthread_cond_t *c);
int psh_rwlock_take(pthread_rwlock_t *l, int wr, int try, uint64_t deadline);
int psh_rwlock_unlock(pthread_rwlock_t *l);
int psh_barrier_wait(pthread_barrier_t *b);
int psh_sem_wait(sem_t *s, int try, uint64_t deadline);
int psh_sem_post(sem_t *s);
int psh_word_wait(volatile uint32_t *w, uint32_t v, uint64_t deadline, int how);
void psh_word_wake(volatile uint32_t *w, int n);
struct thread;
int psh_own_sleep(struct thread *t, volatile void *w, uint32_t v, uint64_t deadline, int cancel);
#endif
