/*
 * pshm: memory and synchronization shared between processes
 * (harness/tests/test_pshm.py): MAP_SHARED | MAP_ANONYMOUS memory that
 * fork keeps shared (ulib/libc/mshared.c), process-shared pthread objects
 * and semaphores in it (ulib/pthread/pshared.c), named semaphores
 * between processes (ulib/pthread/semname.c, kernel/segname.c). Run in a
 * child of its own, so that INFO_MEM_AVAIL, read before and after it,
 * shows every segment and child came back ("avail_lost").
 *   counter  NCHILD children each add M to a counter under a pshared
 *            mutex, holding it across a yield now and then: the total is
 *            exact ("total")
 *   cond     a child waits on a pshared condition until the parent sets
 *            a flag; then the parent waits until the children set theirs
 *   barrier  the parent and 3 children meet at a pshared barrier ROUNDS
 *            times; each round every one sees the others' arrivals
 *   rwlock   a child holds the write lock: the parent's tryrdlock is
 *            EBUSY, its rdlock waits until the child's store is done; the
 *            writer's relock is EDEADLK, another process's unlock EPERM
 *   sem      sem_init(pshared 1): a child posts after a sleep, the parent
 *            waits; a timed wait times out
 *   mprotect read-only and back, a part of a mapping cannot be unmapped,
 *            the child still sees the memory the parent unmapped
 *   named    a child opens a name the parent creates after the fork, and
 *            posts it; O_EXCL, ENOENT, unlink, the same sem_t again
 *   spawn    with /bin/pshm on the disk: posix_spawn of `pshm post NAME`,
 *            a program that shares nothing with us, opens the name and
 *            posts it ("spawned": 1)
 */
#define CHECK_NAME "pshm"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sched.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <spawn.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

#define NCHILD 4
#define M 3000
#define ROUNDS 20

struct shared {
	pthread_mutex_t mx;
	pthread_cond_t cv;
	pthread_barrier_t bar;
	pthread_rwlock_t rw;
	sem_t sem;
	long counter;
	int flag, done, go;
	int arrived[ROUNDS];
	int bad;
};

static struct shared *sh;
static long total;

/* The children's exit statuses all 0? */
static int reap(pid_t *p, int n)
{
	int ok = 1;
	for (int i = 0; i < n; i++) {
		int st = -1;
		if (p[i] <= 0 || waitpid(p[i], &st, 0) != p[i] || !WIFEXITED(st) || WEXITSTATUS(st))
			ok = 0;
	}
	return ok;
}

static void counter(void)
{
	pid_t p[NCHILD];
	for (int i = 0; i < NCHILD; i++)
		if ((p[i] = fork()) == 0) {
			for (int k = 0; k < M; k++) {
				if (pthread_mutex_lock(&sh->mx))
					_exit(1);
				long v = sh->counter;
				if (k % 64 == 0)
					sched_yield();       /* others find it held */
				sh->counter = v + 1;
				pthread_mutex_unlock(&sh->mx);
			}
			_exit(0);
		}
	CHECK(reap(p, NCHILD));
	total = sh->counter;
	CHECK(total == (long)NCHILD * M);
}

static void cond(void)
{
	pid_t p[2];
	for (int i = 0; i < 2; i++)
		if ((p[i] = fork()) == 0) {
			pthread_mutex_lock(&sh->mx);
			while (!sh->flag)
				pthread_cond_wait(&sh->cv, &sh->mx);
			sh->done++;
			pthread_cond_broadcast(&sh->cv);
			pthread_mutex_unlock(&sh->mx);
			_exit(0);
		}
	usleep(20000);                   /* (either way it must work) */
	pthread_mutex_lock(&sh->mx);
	sh->flag = 1;
	pthread_cond_broadcast(&sh->cv);
	while (sh->done < 2)
		pthread_cond_wait(&sh->cv, &sh->mx);
	pthread_mutex_unlock(&sh->mx);
	CHECK(reap(p, 2));
	CHECK(sh->done == 2);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 20000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&sh->mx);
	CHECK(pthread_cond_timedwait(&sh->cv, &sh->mx, &ts) == ETIMEDOUT);
	CHECK(pthread_mutex_unlock(&sh->mx) == 0);
}

static void barrier(void)
{
	pid_t p[3];
	for (int i = 0; i < 3; i++)
		if ((p[i] = fork()) == 0) {
			for (int r = 0; r < ROUNDS; r++) {
				__atomic_add_fetch(&sh->arrived[r], 1, __ATOMIC_SEQ_CST);
				pthread_barrier_wait(&sh->bar);
				if (__atomic_load_n(&sh->arrived[r], __ATOMIC_SEQ_CST) != 4)
					__atomic_add_fetch(&sh->bad, 1, __ATOMIC_SEQ_CST);
			}
			_exit(0);
		}
	int serial = 0;
	for (int r = 0; r < ROUNDS; r++) {
		if (r % 4 == 0)
			usleep(2000);    /* the children wait for us */
		__atomic_add_fetch(&sh->arrived[r], 1, __ATOMIC_SEQ_CST);
		serial += pthread_barrier_wait(&sh->bar) == PTHREAD_BARRIER_SERIAL_THREAD;
		CHECK(__atomic_load_n(&sh->arrived[r], __ATOMIC_SEQ_CST) == 4);
	}
	CHECK(reap(p, 3));
	CHECK(sh->bad == 0);
	(void)serial;
}

static void rwlock(void)
{
	sh->flag = 0;
	pid_t p = fork();
	if (p == 0) {
		pthread_rwlock_wrlock(&sh->rw);
		__atomic_store_n(&sh->done, 100, __ATOMIC_SEQ_CST);
		while (!__atomic_load_n(&sh->go, __ATOMIC_SEQ_CST))   /* the parent tried */
			usleep(1000);
		usleep(20000);           /* (it waits in rdlock now, or soon) */
		sh->flag = 7;
		pthread_rwlock_unlock(&sh->rw);
		_exit(0);
	}
	while (__atomic_load_n(&sh->done, __ATOMIC_SEQ_CST) != 100)
		usleep(1000);
	CHECK(pthread_rwlock_tryrdlock(&sh->rw) == EBUSY);
	__atomic_store_n(&sh->go, 1, __ATOMIC_SEQ_CST);
	CHECK(pthread_rwlock_rdlock(&sh->rw) == 0);
	CHECK(sh->flag == 7);
	CHECK(pthread_rwlock_unlock(&sh->rw) == 0);
	CHECK(pthread_rwlock_unlock(&sh->rw) == EPERM);
	CHECK(reap(&p, 1));
	CHECK(pthread_rwlock_wrlock(&sh->rw) == 0);
	CHECK(pthread_rwlock_wrlock(&sh->rw) == EDEADLK);
	CHECK(pthread_rwlock_tryrdlock(&sh->rw) == EBUSY);
	if ((p = fork()) == 0)           /* not the writer: EPERM */
		_exit(pthread_rwlock_unlock(&sh->rw) == EPERM ? 0 : 1);
	CHECK(reap(&p, 1));
	CHECK(pthread_rwlock_unlock(&sh->rw) == 0);
}

static void sem(void)
{
	CHECK(sem_trywait(&sh->sem) == -1 && errno == EAGAIN);
	pid_t p = fork();
	if (p == 0) {
		usleep(20000);           /* (the parent waits by then, or not: either way) */
		_exit(sem_post(&sh->sem) ? 1 : 0);
	}
	CHECK(sem_wait(&sh->sem) == 0);
	CHECK(reap(&p, 1));
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 0;
	ts.tv_nsec = ts.tv_nsec >= 980000000 ? 999999999 : ts.tv_nsec + 20000000;
	CHECK(sem_timedwait(&sh->sem, &ts) == -1 && errno == ETIMEDOUT);
}

static void protect(void)
{
	char *a = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(a != MAP_FAILED);
	if (a == MAP_FAILED)
		return;
	a[4096] = 5;
	CHECK(mprotect(a, 4096, PROT_READ) == 0);
	CHECK(mprotect(a, 4096, PROT_READ | PROT_WRITE) == 0);
	a[0] = 9;
	CHECK(mprotect(a, 4096, PROT_READ | PROT_EXEC) == -1 && errno == EACCES);
	CHECK(munmap(a + 4096, 4096) == -1 && errno == EINVAL);
	pid_t p = fork();
	if (p == 0) {
		usleep(20000);           /* the parent unmaps meanwhile */
		_exit(a[0] == 9 && a[4096] == 5 && a[8192] == 0 ? 0 : 1);
	}
	CHECK(munmap(a, 3 * 4096) == 0);
	CHECK(reap(&p, 1));
	/* a private mapping is not shared, as before */
	int *q = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*q = 1;
	if ((p = fork()) == 0) {
		*q = 2;
		_exit(0);
	}
	CHECK(reap(&p, 1) && *q == 1);
	munmap(q, 4096);
}

static void named(void)
{
	const char *n = "/pshm_named";
	sem_unlink(n);
	pid_t p = fork();
	if (p == 0) {
		sem_t *s = SEM_FAILED;
		for (int i = 0; i < 2000 && s == SEM_FAILED; i++)
			if ((s = sem_open(n, 0)) == SEM_FAILED)
				usleep(1000);
		_exit(s == SEM_FAILED || sem_post(s) || sem_close(s) ? 1 : 0);
	}
	usleep(10000);
	sem_t *s = sem_open(n, O_CREAT | O_EXCL, 0600, 0);
	CHECK(s != SEM_FAILED);
	if (s == SEM_FAILED)
		return;
	CHECK(sem_open(n, O_CREAT | O_EXCL, 0600, 0) == SEM_FAILED && errno == EEXIST);
	sem_t *again = sem_open(n, 0);
	CHECK(again == s);
	CHECK(sem_wait(s) == 0);         /* the child's post */
	CHECK(reap(&p, 1));
	CHECK(sem_close(again) == 0);
	CHECK(sem_unlink(n) == 0);
	CHECK(sem_unlink(n) == -1 && errno == ENOENT);
	CHECK(sem_open(n, 0) == SEM_FAILED && errno == ENOENT);
	CHECK(sem_post(s) == 0);         /* still open here */
	CHECK(sem_close(s) == 0);
}

static int spawned;

static void spawn(void)
{
	const char *n = "/pshm_spawn";
	if (access("/bin/pshm", X_OK) != 0)
		return;                  /* (no disk: not this run's part) */
	sem_t *s = sem_open(n, O_CREAT | O_EXCL, 0600, 0);
	CHECK(s != SEM_FAILED);
	if (s == SEM_FAILED)
		return;
	char *argv[] = { "pshm", "post", (char *)n, 0 };
	pid_t p;
	CHECK(posix_spawn(&p, "/bin/pshm", 0, 0, argv, 0) == 0);
	CHECK(sem_wait(s) == 0);         /* its post */
	CHECK(reap(&p, 1));
	CHECK(sem_unlink(n) == 0 && sem_close(s) == 0);
	spawned = 1;
}

static int body(void)
{
	sh = mmap(0, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	if (sh == MAP_FAILED)
		return 1;
	pshared_objects(&sh->mx, &sh->cv, &sh->bar, 4, &sh->rw);
	CHECK(sem_init(&sh->sem, 1, 0) == 0);
	counter();
	cond();
	barrier();
	rwlock();
	sem();
	protect();
	named();
	spawn();
	CHECK(pthread_mutex_destroy(&sh->mx) == 0);
	CHECK(munmap(sh, sizeof *sh) == 0);
	printf("pshm: %d checks, %d failures\n", checks, failures);
	return (failures ? 1 : 0) | spawned << 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "post")) {      /* spawn's program */
		sem_t *s = sem_open(argv[2], 0);
		return s == SEM_FAILED || sem_post(s) || sem_close(s) ? 1 : 0;
	}
	struct result R;
	result_begin(&R, "pshm");
	fork_warm();                     /* (with its blocking sleep: 64 KiB once lost in a full-suite run) */
	long before = avail_settled(1);
	pid_t p = fork();
	if (p == 0)
		_exit(body());
	int s = fork_status(p);
	CHECK(s >= 0);
	result_int(&R, "status", s < 128 ? s & 1 : s);
	result_int(&R, "spawned", s < 128 && (s & 2));
	result_int(&R, "avail_lost", before - avail_settled(1));
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
