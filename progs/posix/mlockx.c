/*
 * mlockx: which memory is locked, as Linux keeps it (ulib/libc/mlock.c;
 * harness/tests/test_mlockx.py). Nothing leaves memory here, so a lock
 * changes no page; what a program sees of it is:
 *   - msync(MS_INVALIDATE) is EBUSY on a locked page: one mlock'd, or any
 *     after mlockall(MCL_CURRENT), or a mapping made after MCL_FUTURE;
 *     after munlock, munlockall, or munmap and a new mapping there, it
 *     succeeds; a fork's child has nothing locked;
 *   - RLIMIT_MEMLOCK counts what is locked in all (a process that is not
 *     root): 3 pages and then 2 more past a 4-page limit is ENOMEM, the
 *     same 3 again are counted once, and after munlock there is room;
 *     mlockall(MCL_CURRENT) is ENOMEM when the whole process is past it;
 *   - _POSIX_MEMLOCK and _POSIX_MEMLOCK_RANGE are 200809L, as sysconf says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "mlockx"
#include "check.h"

static long pg;
static char *shm;                /* 8 pages of a shm_open object, MAP_SHARED */

static int busy(void *p)
{
	return msync(p, pg, MS_SYNC | MS_INVALIDATE) == -1 && errno == EBUSY;
}

static int ok(void *p)
{
	return msync(p, pg, MS_SYNC | MS_INVALIDATE) == 0;
}

static void in_child(void (*f)(void))
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		f();
		printf("@result {\"name\": \"mlockx-child\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
		fflush(stdout);
		_exit(failures != 0);
	}
	int st = 0;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void nothing_locked(void)
{
	CHECK(ok(shm) && ok(shm + pg));
}

static void ranges(void)
{
	CHECK(ok(shm));
	CHECK(mlock(shm + 10, 20) == 0);                 /* (the page it is in) */
	CHECK(busy(shm) && ok(shm + pg));
	in_child(nothing_locked);                        /* a fork's child has none */
	CHECK(munlock(shm, pg) == 0 && ok(shm));
	CHECK(mlock(shm, 4 * pg) == 0 && munlock(shm + pg, pg) == 0);   /* a hole */
	CHECK(busy(shm) && ok(shm + pg) && busy(shm + 2 * pg));
	CHECK(munlockall() == 0 && ok(shm) && ok(shm + 2 * pg));
}

static void all_current(void)
{
	CHECK(mlockall(MCL_CURRENT) == 0);
	CHECK(busy(shm) && busy(shm + 7 * pg));
	CHECK(munlockall() == 0 && ok(shm));
}

static void future_and_unmap(void)
{
	int fd = shm_open("/mlockx_f", O_RDWR | O_CREAT, 0600);
	shm_unlink("/mlockx_f");
	CHECK(fd >= 0 && ftruncate(fd, 2 * pg) == 0);
	CHECK(mlockall(MCL_FUTURE) == 0);
	char *m = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED && busy(m) && ok(shm));    /* the new one only */
	CHECK(mlockall(MCL_CURRENT) == 0);               /* (ends MCL_FUTURE, as Linux) */
	CHECK(munlockall() == 0 && ok(m));
	CHECK(mlock(m, 2 * pg) == 0 && busy(m) && munmap(m, 2 * pg) == 0);
	char *n = mmap(m, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	CHECK(n == m && ok(n));                          /* unmapped: no longer locked */
	munmap(n, 2 * pg);
	close(fd);
}

static void limited(void)
{
	struct rlimit rl = { 4 * pg, 4 * pg };
	CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0 && seteuid(65534) == 0);
	CHECK(mlock(shm, 3 * pg) == 0);
	CHECK(mlock(shm + 4 * pg, 2 * pg) == -1 && errno == ENOMEM);   /* 5 in all */
	CHECK(mlock(shm, 3 * pg) == 0 && mlock(shm + pg, 3 * pg) == 0); /* 4: counted once */
	CHECK(mlock(shm + 5 * pg, pg) == -1 && errno == ENOMEM);
	CHECK(munlock(shm, 2 * pg) == 0 && mlock(shm + 5 * pg, 2 * pg) == 0);
	CHECK(mlockall(MCL_CURRENT) == -1 && errno == ENOMEM);          /* the whole process */
	CHECK(munlockall() == 0);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	CHECK(_POSIX_MEMLOCK == 200809L && _POSIX_MEMLOCK_RANGE == 200809L);
	CHECK(sysconf(_SC_MEMLOCK) == 200809L && sysconf(_SC_MEMLOCK_RANGE) == 200809L);
	int fd = shm_open("/mlockx", O_RDWR | O_CREAT, 0600);
	shm_unlink("/mlockx");
	CHECK(fd >= 0 && ftruncate(fd, 8 * pg) == 0);
	shm = mmap(0, 8 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(shm != MAP_FAILED);
	if (shm != MAP_FAILED) {
		ranges();
		all_current();
		future_and_unmap();
		in_child(limited);
	}
	printf("@result {\"name\": \"mlockx\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
