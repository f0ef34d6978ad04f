/*
 * RLIMIT_MEMLOCK for a process without the privilege to lock memory (on
 * Linux, CAP_IPC_LOCK; here, an effective user other than root), as
 * Linux applies it: mlock and mlockall are EPERM while the soft limit is
 * 0; mlock of more pages than the limit is ENOMEM; after
 * mlockall(MCL_FUTURE) a mapping larger than the limit is EAGAIN (an
 * anonymous one and a shm_open object's), until munlockall, and a
 * fork's child does not inherit it; munlock is never limited, and root
 * is never limited. What is locked in all is counted (ulib/libc/mlock.c;
 * test_mlockx.py asks more of it).
 * The Open POSIX suite's mlock 12-1 and mmap 18-1 ask this.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "memlockrl"
#include "check.h"

static long pg;

static int err(int r, int e)
{
	return r == -1 && errno == e;
}

static int map_fails(size_t len, int fd)
{
	void *p = mmap(0, len, PROT_READ | PROT_WRITE, fd < 0 ? MAP_PRIVATE | MAP_ANONYMOUS : MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return errno;
	munmap(p, len);
	return 0;
}

/* In a child: the limit set to `pages`, then not root any more. */
static void limited(int pages)
{
	struct rlimit rl = { pages * pg, pages * pg };
	CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0);
	CHECK(seteuid(65534) == 0);
}

static void run_in_child(void (*f)(void))
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		f();
		printf("@result {\"name\": \"memlockrl-child\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
		fflush(stdout);
		_exit(failures != 0);
	}
	int st = 0;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static char *buf;

static void no_limit_left(void)
{
	limited(0);
	CHECK(err(mlock(buf, 8), EPERM));
	CHECK(err(mlockall(MCL_CURRENT), EPERM));
	CHECK(err(mlockall(MCL_FUTURE), EPERM));
	CHECK(munlock(buf, 8) == 0 && munlockall() == 0);
}

static void grandchild(void)
{
	CHECK(map_fails(8 * pg, -1) == 0);               /* MCL_FUTURE is not inherited */
}

static void four_pages(void)
{
	limited(4);
	CHECK(mlock(buf, 4 * pg) == 0);
	CHECK(err(mlock(buf, 4 * pg + 1), ENOMEM));      /* 5 pages */
	CHECK(munlock(buf, 8 * pg) == 0);
	CHECK(map_fails(8 * pg, -1) == 0);               /* no MCL_FUTURE yet */
	CHECK(mlockall(MCL_FUTURE) == 0);                /* (MCL_CURRENT: Linux counts the whole process) */
	CHECK(map_fails(4 * pg, -1) == 0);
	CHECK(map_fails(5 * pg, -1) == EAGAIN);
	char name[64];
	snprintf(name, sizeof name, "/memlockrl_%d", getpid());
	int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
	shm_unlink(name);
	CHECK(fd >= 0 && ftruncate(fd, 8 * pg) == 0);
	CHECK(map_fails(8 * pg, fd) == EAGAIN);
	run_in_child(grandchild);
	CHECK(munlockall() == 0);                        /* mappings are free again */
	CHECK(map_fails(8 * pg, fd) == 0 && map_fails(8 * pg, -1) == 0);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	buf = mmap(0, 8 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(buf != MAP_FAILED);
	run_in_child(no_limit_left);
	run_in_child(four_pages);

	struct rlimit zero = { 0, 0 };                   /* root: never limited */
	CHECK(setrlimit(RLIMIT_MEMLOCK, &zero) == 0);
	CHECK(mlock(buf, 8 * pg) == 0 && mlockall(MCL_FUTURE) == 0);
	CHECK(map_fails(8 * pg, -1) == 0);
	CHECK(munlockall() == 0);
	printf("@result {\"name\": \"memlockrl\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
