/*
 * fkey: process-shared pthread objects and semaphores in a MAP_SHARED
 * file mapping (a shm_open'd object) block and wake across processes
 * (kernel/fkey.c: futexes keyed by the one frame every space maps;
 * harness/tests/test_fkey.py). Run in a child of its own, so that
 * INFO_MEM_AVAIL, read before it and after it ended, shows every frame
 * (and every pinned one) came back ("avail_lost").
 *   counter  NCHILD forked children each add N to a counter under a
 *            pshared mutex in the map, yielding inside it now and then:
 *            exactly NCHILD * N ("total")
 *   cond     parent and child hand a turn back and forth ROUNDS times
 *            through a pshared condition and mutex ("pingpong")
 *   barrier  the parent and 2 children meet at a pshared barrier ROUNDS
 *            times; each round every one sees the others' arrivals
 *   rwlock   a child holds the pshared write lock; our read lock waits
 *            until its store is done and it unlocks
 *   sem      sem_init(pshared 1): parent and child hand a turn back and
 *            forth ROUNDS times through two semaphores
 *   spawn    posix_spawn of /bin/fkey, which shares nothing with us but
 *            opens and maps the same shm name: each adds N under the
 *            mutex (2N), then it posts a semaphore we wait on and waits
 *            on one we post ("spawned": 1)
 *   killed   a child blocked in the mutex's lock is killed (SIGKILL);
 *            another child then blocks on it too and gets it when we
 *            unlock: the dead waiter took no wake-up with it
 *   pinned   a child's thread waits (SYS_futex_wait) on a word of a page
 *            that only the child maps, and another of its threads unmaps
 *            it; we then map the page and wake the word: the waiter's
 *            frame was kept for it, so the wake finds it ("pinned": 1;
 *            0 on a package whose kernel wait blocks the child's only VP,
 *            naive and det: its other thread cannot unmap meanwhile)
 */
#define CHECK_NAME "fkey"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sched.h>
#include <spawn.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

#define NCHILD 4
#define N 2000
#define ROUNDS 200
#define NAME "/fkey"

struct shared {
	pthread_mutex_t mx;
	pthread_cond_t cv;
	pthread_barrier_t bar;
	pthread_rwlock_t rw;
	sem_t ping, pong;
	long counter;
	int turn, wrote, held;
	int locking;             /* locker's child is about to lock */
	int arrived[ROUNDS];
	int bad;
};

/* The figures, set in the audited child, read by main: */
struct figures {
	long total;
	int pingpong, spawned, pinned;
	int unmapped;            /* pinned: the child let its mapping go */
};

static struct shared *sh;
static struct figures *fig;           /* (MAP_SHARED | MAP_ANONYMOUS, made before the audit) */

/* The shm object NAME mapped (made and sized if `make`), or 0. */
static struct shared *map(int make)
{
	int fd = shm_open(NAME, make ? O_CREAT | O_EXCL | O_RDWR : O_RDWR, 0600);
	if (fd < 0 || (make && ftruncate(fd, sizeof(struct shared)) != 0))
		return 0;
	void *m = mmap(0, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return m == MAP_FAILED ? 0 : m;
}

static void add(int n)
{
	for (int k = 0; k < n; k++) {
		pthread_mutex_lock(&sh->mx);
		long v = sh->counter;
		if (k % 64 == 0)
			sched_yield();   /* the others find it held and sleep */
		sh->counter = v + 1;
		pthread_mutex_unlock(&sh->mx);
	}
}

static void counter(void)
{
	pid_t p[NCHILD];
	for (int i = 0; i < NCHILD; i++)
		if ((p[i] = fork()) == 0) {
			add(N);
			_exit(0);
		}
	for (int i = 0; i < NCHILD; i++)
		CHECK(fork_status(p[i]) == 0);
	fig->total = sh->counter;
	CHECK(fig->total == (long)NCHILD * N);
}

/* Wait under the mutex until the turn is t, then pass it on. */
static void turn(int t)
{
	pthread_mutex_lock(&sh->mx);
	while (sh->turn != t)
		pthread_cond_wait(&sh->cv, &sh->mx);
	sh->turn = !t;
	pthread_cond_signal(&sh->cv);
	pthread_mutex_unlock(&sh->mx);
}

static void cond(void)
{
	sh->turn = 0;
	pid_t p = fork();
	if (p == 0) {
		for (int r = 0; r < ROUNDS; r++)
			turn(1);
		_exit(0);
	}
	int r = 0;
	for (; r < ROUNDS; r++)
		turn(0);
	CHECK(fork_status(p) == 0);
	fig->pingpong = r;
}

static void barrier(void)
{
	pid_t p[2];
	for (int i = 0; i < 2; i++)
		if ((p[i] = fork()) == 0) {
			for (int r = 0; r < ROUNDS; r++) {
				__atomic_add_fetch(&sh->arrived[r], 1, __ATOMIC_SEQ_CST);
				pthread_barrier_wait(&sh->bar);
				if (__atomic_load_n(&sh->arrived[r], __ATOMIC_SEQ_CST) != 3)
					__atomic_add_fetch(&sh->bad, 1, __ATOMIC_SEQ_CST);
			}
			_exit(0);
		}
	for (int r = 0; r < ROUNDS; r++) {
		if (r % 16 == 0)
			usleep(2000);    /* the children wait for us */
		__atomic_add_fetch(&sh->arrived[r], 1, __ATOMIC_SEQ_CST);
		pthread_barrier_wait(&sh->bar);
		CHECK(__atomic_load_n(&sh->arrived[r], __ATOMIC_SEQ_CST) == 3);
	}
	for (int i = 0; i < 2; i++)
		CHECK(fork_status(p[i]) == 0);
	CHECK(sh->bad == 0);
}

static void rwlock(void)
{
	pid_t p = fork();
	if (p == 0) {
		pthread_rwlock_wrlock(&sh->rw);
		__atomic_store_n(&sh->held, 1, __ATOMIC_SEQ_CST);
		usleep(50000);           /* (the parent waits in rdlock now, or soon) */
		sh->wrote = 7;
		_exit(pthread_rwlock_unlock(&sh->rw) ? 1 : 0);
	}
	while (!__atomic_load_n(&sh->held, __ATOMIC_SEQ_CST))
		usleep(1000);
	CHECK(pthread_rwlock_rdlock(&sh->rw) == 0);
	CHECK(sh->wrote == 7);
	CHECK(pthread_rwlock_unlock(&sh->rw) == 0);
	CHECK(fork_status(p) == 0);
}

static void sem(void)
{
	pid_t p = fork();
	if (p == 0) {
		for (int r = 0; r < ROUNDS; r++)
			if (sem_wait(&sh->ping) || sem_post(&sh->pong))
				_exit(1);
		_exit(0);
	}
	int ok = 1;
	for (int r = 0; r < ROUNDS; r++)
		ok &= sem_post(&sh->ping) == 0 && sem_wait(&sh->pong) == 0;
	CHECK(ok);
	CHECK(fork_status(p) == 0);
}

/* The spawned program: map NAME, add N under its mutex, post ping, wait
   for pong. */
static int child(void)
{
	if (!(sh = map(0)))
		return 3;
	add(N);
	return sem_post(&sh->ping) || sem_wait(&sh->pong) ? 4 : 0;
}

static void spawn(void)
{
	if (access("/bin/fkey", X_OK) != 0)
		return;                  /* (no disk: not this run's part) */
	sh->counter = 0;
	char *argv[] = { "fkey", "child", 0 };
	pid_t p = -1;
	CHECK(posix_spawn(&p, "/bin/fkey", 0, 0, argv, 0) == 0);
	add(N);
	CHECK(sem_wait(&sh->ping) == 0);
	CHECK(sem_post(&sh->pong) == 0);
	CHECK(fork_status(p) == 0);
	CHECK(sh->counter == 2 * N);
	fig->spawned = sh->counter == 2 * N;
}

/* A child that locks the mutex (we hold it) and exits 0 once it has it;
   returned once the child is about to lock and, unless the word is
   `marked` waited-on already (a waiter was there before: the word cannot
   change), once the lock word changed from what it was (the child marks
   it: its next step is the kernel's wait), and a little more. Before,
   the second child's wait for a change that cannot come polled 5,000
   times (5 s of every boot). */
static pid_t locker(int marked)
{
	int held = __atomic_load_n(&sh->mx.__state, __ATOMIC_SEQ_CST);
	__atomic_store_n(&sh->locking, 0, __ATOMIC_SEQ_CST);
	pid_t p = fork();
	if (p == 0) {
		__atomic_store_n(&sh->locking, 1, __ATOMIC_SEQ_CST);
		_exit(pthread_mutex_lock(&sh->mx) || pthread_mutex_unlock(&sh->mx) ? 1 : 0);
	}
	for (int i = 0; i < 5000 && (!__atomic_load_n(&sh->locking, __ATOMIC_SEQ_CST) ||
	     (!marked && __atomic_load_n(&sh->mx.__state, __ATOMIC_SEQ_CST) == held)); i++)
		usleep(1000);
	usleep(50000);                   /* (it sleeps in the kernel by now) */
	return p;
}

static void killed(void)
{
	CHECK(pthread_mutex_lock(&sh->mx) == 0);
	pid_t p = locker(0);
	CHECK(kill(p, SIGKILL) == 0);
	CHECK(fork_status(p) == 128 + SIGKILL);
	CHECK(syscall2(SYS_futex_wake, &sh->mx.__state, 1) == 0);   /* no waiter left behind */
	p = locker(1);              /* (the killed waiter left the mark) */
	CHECK(pthread_mutex_unlock(&sh->mx) == 0);   /* wakes one: the live one */
	CHECK(fork_status(p) == 0);
	CHECK(pthread_mutex_lock(&sh->mx) == 0 && pthread_mutex_unlock(&sh->mx) == 0);
}

static volatile uint32_t *pin_word;

static void *pin_wait(void *a)
{
	(void)a;
	return (void *)syscall3(SYS_futex_wait, pin_word, 0, 0);
}

/* The child of `pinned`: wait on the word in one thread, unmap the page
   in this one; 0 if the wait ended in a wake-up. */
static int pin_child(void)
{
	int fd = shm_open("/fkpin", O_RDWR, 0);
	void *m = fd < 0 ? MAP_FAILED : mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	pin_word = m;
	pthread_t t;
	void *r = (void *)1L;
	if (pthread_create(&t, 0, pin_wait, 0))
		return 2;
	usleep(50000);           /* (it sleeps in the kernel by now) */
	if (munmap(m, 4096))
		return 3;
	__atomic_store_n(&fig->unmapped, 1, __ATOMIC_SEQ_CST);
	pthread_join(t, &r);
	return r == 0 ? 0 : 4;
}

static void pinned(void)
{
	int fd = shm_open("/fkpin", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0);
	pid_t p = fork();
	if (p == 0)
		_exit(pin_child());
	for (int i = 0; i < 3000 && !__atomic_load_n(&fig->unmapped, __ATOMIC_SEQ_CST); i++)
		usleep(1000);            /* (naive, det: a kernel wait blocks the child's one VP) */
	int unmapped = __atomic_load_n(&fig->unmapped, __ATOMIC_SEQ_CST);
	volatile uint32_t *w = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(w != MAP_FAILED);
	if (w == MAP_FAILED)
		return;
	*w = 1;
	long n = syscall2(SYS_futex_wake, w, 1);
	CHECK(n == 1);
	if (n != 1)
		kill(p, SIGKILL);        /* (it would sleep on) */
	int st = fork_status(p);
	CHECK(st == 0);
	if (st)
		printf("fkey: pinned child status %d\n", st);
	fig->pinned = n == 1 && st == 0 && unmapped;   /* (0 where the waiter blocks its VP) */
	CHECK(munmap((void *)w, 4096) == 0 && close(fd) == 0 && shm_unlink("/fkpin") == 0);
}

static int body(void)
{
	shm_unlink(NAME);
	shm_unlink("/fkpin");
	sh = map(1);
	CHECK(sh != 0);
	if (!sh)
		return failures;
	pshared_objects(&sh->mx, &sh->cv, &sh->bar, 3, &sh->rw);
	CHECK(sem_init(&sh->ping, 1, 0) == 0 && sem_init(&sh->pong, 1, 0) == 0);
	counter();
	cond();
	barrier();
	rwlock();
	sem();
	spawn();
	killed();
	pinned();
	CHECK(munmap(sh, sizeof *sh) == 0 && shm_unlink(NAME) == 0);
	return failures;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "child"))    /* spawn's program */
		return child();
	struct result R;
	result_begin(&R, "fkey");
	fig = mmap(0, sizeof *fig, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(fig != MAP_FAILED);
	if (fig == MAP_FAILED)
		return 1;
	long lost;
	int st = fork_audit(body, &lost);
	CHECK(st >= 0);
	result_int(&R, "status", st);
	result_int(&R, "total", fig->total);
	result_int(&R, "pingpong", fig->pingpong);
	result_int(&R, "spawned", fig->spawned);
	result_int(&R, "pinned", fig->pinned);
	result_int(&R, "avail_lost", lost);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
