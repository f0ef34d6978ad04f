/*
 * shmcoh: mmap(MAP_SHARED) of a file is one memory in every process
 * mapping it (kernel/fshare.c; harness/tests/test_shmcoh.py). Run in a
 * child of its own, so that INFO_MEM_AVAIL, read before it and after it
 * ended, shows every frame came back ("avail_lost").
 *   count   a shm_open object mapped before a fork
 *           (its counter page untouched: each process maps it at its own
 *           first touch) by the parent and two children, each adding N
 *           to one counter under a spin lock in the map and N to another
 *           with atomics: both are exactly 3N
 *   spawn   posix_spawn of /bin/shmcoh (this program, on the disk), which
 *           opens and maps the object by name and adds N atomically
 *           while the parent does: 2N
 *   calls   a child opens and maps an object the parent mapped and
 *           touched: the child's pwrite is seen in the parent's map, the
 *           child's store (no msync, _exit) in the parent's map and by
 *           the parent's pread
 *   disk    /out (4 KiB) mapped by the parent and, through its own open,
 *           by a child, which stores "child" at 0 and msyncs; the parent
 *           stores "parent" at 16 and unmaps: the host finds both
 */
#define CHECK_NAME "shmcoh"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

#define N 20000
#define PG 4096

struct shared {
	int lock;
	long locked;             /* under lock */
	long atomic;
	int arrived;
};

static int add(struct shared *s)
{
	/* All three map the page before any adds, so all three add into
	   one frame at once (a counter that ended with _exit before the
	   others' first touch once took its stores with it; fshare.c now
	   keeps them for the file). */
	__atomic_fetch_add(&s->arrived, 1, __ATOMIC_ACQ_REL);
	for (int i = 0; i < 10000 && __atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) < 3; i++)
		usleep(1000);    /* (at most 10 s: unshared maps never arrive, and fail below) */
	int met = __atomic_load_n(&s->arrived, __ATOMIC_ACQUIRE) >= 3;
	for (int i = 0; i < N; i++) {
		while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE))
			sched_yield();
		s->locked++;
		__atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
		__atomic_fetch_add(&s->atomic, 1, __ATOMIC_RELAXED);
	}
	return met;
}

static int waitok(pid_t p)
{
	int st = -1;
	return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void count(void)
{
	int fd = shm_open("/count", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 2 * PG) == 0);
	char *m = mmap(0, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	struct shared *s = (struct shared *)(m + PG);      /* (not touched before the forks) */
	pid_t c[2];
	for (int i = 0; i < 2; i++)
		if ((c[i] = fork()) == 0) {
			_exit(add(s) ? 0 : 1);
		}
	CHECK(add(s));
	CHECK(waitok(c[0]) && waitok(c[1]));
	CHECK(s->locked == 3 * N);
	CHECK(s->atomic == 3 * N);
	printf("shmcoh: count locked %ld atomic %ld (want %d)\n", s->locked, s->atomic, 3 * N);
	CHECK(munmap(m, 2 * PG) == 0 && close(fd) == 0 && shm_unlink("/count") == 0);
}

/* The spawned program: add N atomically to /spawn's counter. */
static int spawned(void)
{
	int fd = shm_open("/spawn", O_RDWR, 0);
	struct shared *s = fd < 0 ? MAP_FAILED : mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (s == MAP_FAILED)
		return 3;
	__atomic_fetch_add(&s->lock, 1, __ATOMIC_RELAXED);   /* (a mark the parent checks) */
	for (int i = 0; i < N; i++)
		__atomic_fetch_add(&s->atomic, 1, __ATOMIC_RELAXED);
	return 0;
}

static void spawn(void)
{
	int fd = shm_open("/spawn", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, PG) == 0);
	struct shared *s = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(s != MAP_FAILED);
	if (s == MAP_FAILED)
		return;
	char *argv[] = { "shmcoh", "pkg=fifo", "add", 0 };
	pid_t p = -1;
	CHECK(posix_spawn(&p, "/bin/shmcoh", 0, 0, argv, 0) == 0);
	for (int i = 0; i < N; i++)
		__atomic_fetch_add(&s->atomic, 1, __ATOMIC_RELAXED);
	CHECK(waitok(p));
	CHECK(s->lock == 1);             /* (its first store, seen here) */
	CHECK(s->atomic == 2 * N);
	printf("shmcoh: spawn atomic %ld (want %d)\n", s->atomic, 2 * N);
	CHECK(munmap(s, PG) == 0 && close(fd) == 0 && shm_unlink("/spawn") == 0);
}

static int calls_child(void)
{
	int fd = shm_open("/calls", O_RDWR, 0);
	char *m = fd < 0 ? MAP_FAILED : mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED || m[0] != 'p')
		return 1;
	if (pwrite(fd, "hello", 5, 100) != 5 || memcmp(m + 100, "hello", 5))
		return 2;
	memcpy(m + 200, "child", 5);
	return 0;
}

static void calls(void)
{
	int fd = shm_open("/calls", O_CREAT | O_EXCL | O_RDWR, 0600);
	CHECK(fd >= 0 && ftruncate(fd, PG) == 0);
	char *m = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	m[0] = 'p';
	pid_t p = fork();
	if (p == 0)
		_exit(calls_child());
	CHECK(waitok(p));
	CHECK(!memcmp(m + 100, "hello", 5));
	CHECK(!memcmp(m + 200, "child", 5));
	char b[6] = { 0 };
	CHECK(pread(fd, b, 5, 200) == 5 && !strcmp(b, "child"));
	CHECK(munmap(m, PG) == 0 && close(fd) == 0 && shm_unlink("/calls") == 0);
}

static void disk(void)
{
	int fd = open("/out", O_CREAT | O_TRUNC | O_RDWR, 0644);
	CHECK(fd >= 0 && ftruncate(fd, PG) == 0);
	char *m = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	pid_t p = fork();
	if (p == 0) {
		int f = open("/out", O_RDWR);
		char *c = f < 0 ? MAP_FAILED : mmap(0, PG, PROT_READ | PROT_WRITE, MAP_SHARED, f, 0);
		if (c == MAP_FAILED)
			_exit(1);
		memcpy(c, "child", 5);
		_exit(msync(c, PG, MS_SYNC) == 0 ? 0 : 2);
	}
	CHECK(waitok(p));
	CHECK(!memcmp(m, "child", 5));
	memcpy(m + 16, "parent", 6);
	CHECK(munmap(m, PG) == 0 && close(fd) == 0);
}

static int body(void)
{
	count();
	spawn();
	calls();
	disk();
	return failures;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "add"))     /* spawn's program */
		return spawned();
	return fork_audit_report(body);
}
