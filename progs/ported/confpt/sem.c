/* sem_*: unnamed and named semaphores (glibc's errno values; a named
   one's name starts with a slash). */
#include "conf.h"
#include <fcntl.h>
#include <limits.h>

static sem_t s;
static void *poster(void *a)
{
	conf_msleep((long)a);
	sem_post(&s);
	return NULL;
}

static void *waits_once(void *a)
{
	(void)a;
	sem_wait(&s);
	return NULL;
}

static void unnamed(void)
{
	int v = -1;
	struct timespec d, t0;
	EQ(sem_init(&s, 0, 0), 0);
	EQ(sem_getvalue(&s, &v), 0);
	EQ(v, 0);
	ERRNO(sem_trywait(&s), EAGAIN);
	EQ(sem_post(&s), 0);
	EQ(sem_post(&s), 0);
	sem_getvalue(&s, &v);
	EQ(v, 2);
	EQ(sem_trywait(&s), 0);
	EQ(sem_wait(&s), 0);
	sem_getvalue(&s, &v);
	EQ(v, 0);
	d = conf_after(CLOCK_REALTIME, -10);
	ERRNO(sem_timedwait(&s, &d), ETIMEDOUT);
	d.tv_nsec = 1000000000;
	ERRNO(sem_timedwait(&s, &d), EINVAL);
	d.tv_nsec = -1;
	ERRNO(sem_timedwait(&s, &d), EINVAL);
	t0 = conf_now();
	d = conf_after(CLOCK_REALTIME, 30);
	ERRNO(sem_timedwait(&s, &d), ETIMEDOUT);
	CK(conf_ms_since(&t0) >= 29);
	/* A post from another thread ends a wait and a timed wait. */
	pthread_t t = conf_start(poster, (void *)20L);
	EQ(sem_wait(&s), 0);
	pthread_join(t, NULL);
	t = conf_start(poster, (void *)20L);
	d = conf_after(CLOCK_REALTIME, 5000);
	EQ(sem_timedwait(&s, &d), 0);
	pthread_join(t, NULL);
	/* With a waiter: glibc's value is 0 (POSIX allows minus the
	   waiters). */
	t = conf_start(waits_once, NULL);
	conf_msleep(20);
	EQ(sem_getvalue(&s, &v), 0);
	CK(v == 0 || v == -1);
	sem_post(&s);
	pthread_join(t, NULL);
	EQ(sem_destroy(&s), 0);
	/* The largest value, and one past it. */
	CK(SEM_VALUE_MAX >= 32767);
	EQ(sysconf(_SC_SEM_VALUE_MAX), SEM_VALUE_MAX);
	ERRNO(sem_init(&s, 0, (unsigned)SEM_VALUE_MAX + 1), EINVAL);
	EQ(sem_init(&s, 0, SEM_VALUE_MAX), 0);
	sem_getvalue(&s, &v);
	EQ(v, SEM_VALUE_MAX);
	ERRNO(sem_post(&s), EOVERFLOW);
	EQ(sem_destroy(&s), 0);
	EQ(sem_init(&s, 1, 3), 0);   /* pshared in private memory */
	sem_getvalue(&s, &v);
	EQ(v, 3);
	EQ(sem_destroy(&s), 0);
}

static void named(void)
{
	sem_t *a, *b;
	int v = -1;
	sem_unlink("/confpt_s");
	sem_unlink("/confpt_t");
	errno = 0;
	CK(sem_open("/confpt_s", 0) == SEM_FAILED && errno == ENOENT);
	a = sem_open("/confpt_s", O_CREAT | O_EXCL, 0600, 2);
	CK(a != SEM_FAILED);
	errno = 0;
	CK(sem_open("/confpt_s", O_CREAT | O_EXCL, 0600, 0) == SEM_FAILED && errno == EEXIST);
	b = sem_open("/confpt_s", O_CREAT, 0600, 7);   /* exists: value kept */
	CK(b != SEM_FAILED);
	EQ(sem_getvalue(b, &v), 0);
	EQ(v, 2);
	EQ(sem_wait(a), 0);
	ERRNO(sem_trywait(b) == 0 ? sem_trywait(b) : 0, EAGAIN);
	EQ(sem_post(b), 0);
	sem_getvalue(a, &v);
	EQ(v, 1);
	errno = 0;
	CK(sem_open("/confpt_t", O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1) == SEM_FAILED && errno == EINVAL);
	EQ(sem_close(b), 0);
	EQ(sem_close(a), 0);   /* opened twice: closed twice */
	EQ(sem_unlink("/confpt_s"), 0);
	ERRNO(sem_unlink("/confpt_s"), ENOENT);
	errno = 0;
	CK(sem_open("/confpt_s", 0) == SEM_FAILED && errno == ENOENT);
	/* Unlinked while open: still usable until closed. */
	a = sem_open("/confpt_s", O_CREAT, 0600, 1);
	CK(a != SEM_FAILED);
	EQ(sem_unlink("/confpt_s"), 0);
	EQ(sem_wait(a), 0);
	EQ(sem_post(a), 0);
	EQ(sem_close(a), 0);
}

void area_sem(void)
{
	unnamed();
	named();
}
