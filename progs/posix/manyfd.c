/*
 * manyfd: a process has Linux's 1,024 descriptors (ulib/libc/fd.c's
 * table, the kernel's MAXFILE_SPACE; harness/tests/test_manyfd.py). The
 * disk holds this program as /bin/manyfd, the file opened over and over.
 * Run in a child of its own (fork_audit), so that INFO_MEM_AVAIL before
 * and after shows every open file and table came back ("avail_lost").
 *   limits   getrlimit(RLIMIT_NOFILE) 1024/1024, sysconf(_SC_OPEN_MAX)
 *            and getdtablesize 1024
 *   fill     opens until EMFILE: exactly fds 3..1023; then pipe, dup and
 *            open fail EMFILE; every one closes, then is EBADF
 *   high     dup2 onto 1000, dup3 onto 999 with O_CLOEXEC, dup2 onto 1024
 *            EBADF, F_DUPFD from 1023 and (EINVAL) 1024, select on 1000;
 *            a fork's child has 1000 and 999 (cloexec) and writes through
 *            1000; its exec of /bin/manyfd has 1000 still and not 999;
 *            posix_spawn with a dup2 action onto 1010 writes through it
 *   hostile  4 rounds of 4 children that each open to the limit at once
 *            and end without closing: the kernel's free memory stays up
 *            (each full table is charged to its space) and all comes back
 */
#define CHECK_NAME "manyfd"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <sys/select.h>
#include <sys/resource.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

#define LIMIT 1024
#define SELF "/bin/manyfd"

static void limits(void)
{
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur == LIMIT && rl.rlim_max == LIMIT);
	CHECK(sysconf(_SC_OPEN_MAX) == LIMIT);
	CHECK(getdtablesize() == LIMIT);
}

/* Open SELF until it fails: how many opened (fds 3.. in order), errno
   of the failure in *err. */
static int open_all(int *err)
{
	int n = 0, fd;
	while ((fd = open(SELF, O_RDONLY)) >= 0) {
		if (fd != 3 + n)
			return -1;
		n++;
	}
	*err = errno;
	return n;
}

static void fill(void)
{
	int err = 0, p[2];
	/* The kernel's charges, raw calls (no library memory): the first
	   open makes the table (room for 64), the second is a file alone. */
	long c0 = sys_getinfo(INFO_MEM_CHARGED);
	long k0 = syscall2(SYS_file_open, SELF, 0);
	long c1 = sys_getinfo(INFO_MEM_CHARGED);
	long k1 = syscall2(SYS_file_open, SELF, 0);
	long c2 = sys_getinfo(INFO_MEM_CHARGED);
	printf("manyfd: first open charged %ld bytes, the second %ld\n", c1 - c0, c2 - c1);
	CHECK(k0 >= 0 && k1 >= 0 && syscall1(SYS_file_close, k0) == 0 && syscall1(SYS_file_close, k1) == 0);
	int n = open_all(&err);
	printf("manyfd: fill: %d opened, then errno %d\n", n, err);
	fflush(stdout);
	CHECK(n == LIMIT - 3 && err == EMFILE);
	errno = 0;
	CHECK(pipe(p) == -1 && errno == EMFILE);
	errno = 0;
	CHECK(dup(3) == -1 && errno == EMFILE);
	errno = 0;
	CHECK(open("/dev/null", O_RDONLY) == -1 && errno == EMFILE);
	char b[4];
	CHECK(pread(LIMIT - 1, b, 4, 1) == 4 && !memcmp(b, "ELF", 3));
	int closed = 0;
	for (int fd = 3; fd < LIMIT; fd++)
		closed += close(fd) == 0;
	CHECK(closed == LIMIT - 3);
	int bad = 0;
	for (int fd = 3; fd < LIMIT; fd++)
		bad += fcntl(fd, F_GETFD) == -1 && errno == EBADF;
	CHECK(bad == LIMIT - 3);
}

/* The byte a child or a spawned program wrote into p. */
static int got(int rfd, char want)
{
	char c = 0;
	return read(rfd, &c, 1) == 1 && c == want;
}

/* posix_spawn of SELF `spawn` with p's write end dup2'd onto 1010: its status. */
static int spawned(int w)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "manyfd", "pkg=fifo", "spawn", 0 };
	pid_t pid = 0;
	posix_spawn_file_actions_init(&fa);
	int r = posix_spawn_file_actions_adddup2(&fa, w, 1010);
	r = r ? r : posix_spawn(&pid, SELF, &fa, 0, argv, 0);
	posix_spawn_file_actions_destroy(&fa);
	return r ? -1 : fork_status(pid);
}

static void high(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	CHECK(dup2(p[1], 1000) == 1000 && fcntl(1000, F_GETFD) == 0);
	CHECK(dup3(p[1], 999, O_CLOEXEC) == 999 && fcntl(999, F_GETFD) == FD_CLOEXEC);
	errno = 0;
	CHECK(dup2(p[1], LIMIT) == -1 && errno == EBADF);
	CHECK(fcntl(p[1], F_DUPFD, LIMIT - 1) == LIMIT - 1 && close(LIMIT - 1) == 0);
	errno = 0;
	CHECK(fcntl(p[1], F_DUPFD, LIMIT) == -1 && errno == EINVAL);
	CHECK(write(1000, "w", 1) == 1);
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	struct timeval tv = { 0, 0 };
	CHECK(select(p[0] + 1, &rd, 0, 0, &tv) == 1 && FD_ISSET(p[0], &rd));
	CHECK(got(p[0], 'w'));

	pid_t c = fork();
	if (c == 0) {
		int ok = fcntl(1000, F_GETFD) == 0 && fcntl(999, F_GETFD) == FD_CLOEXEC &&
			 write(1000, "c", 1) == 1;
		if (!ok)
			_exit(2);
		execl(SELF, "manyfd", "pkg=fifo", "exec", (char *)0);
		_exit(4);
	}
	CHECK(close(999) == 0 && close(1000) == 0);
	CHECK(got(p[0], 'c'));
	CHECK(got(p[0], 'e'));
	CHECK(fork_status(c) == 0);

	CHECK(spawned(p[1]) == 0);
	CHECK(got(p[0], 's'));
	CHECK(close(p[0]) == 0 && close(p[1]) == 0);
}

/* A child that opens to the limit and ends with all of them open: 0 if
   it got exactly LIMIT - 3. One of them prints what its space was
   charged for them (INFO_MEM_CHARGED). */
static int hog(int report)
{
	int err = 0;
	long before = sys_getinfo(INFO_MEM_CHARGED);
	int n = open_all(&err);
	if (report)
		printf("manyfd: hostile: %d open files charged %ld bytes\n", n,
		       sys_getinfo(INFO_MEM_CHARGED) - before);
	return n == LIMIT - 3 && err == EMFILE ? 0 : 1;
}

static void hostile(void)
{
	long low = avail();
	int fails = 0;
	for (int round = 0; round < 4; round++) {
		pid_t k[4];
		for (int i = 0; i < 4; i++)
			if ((k[i] = fork()) == 0) {
				int st = hog(round == 0 && i == 0);
				usleep(20000);   /* all four full at once */
				long a = avail();
				_exit(st ? st : a > 0 ? 0 : 5);
			}
		for (int i = 0; i < 4; i++)
			fails += fork_status(k[i]) != 0;
		long a = avail();
		low = a < low ? a : low;
	}
	CHECK(fails == 0);
	CHECK(low > 0);
}

static int body(void)
{
	limits();
	fill();
	high();
	hostile();
	return failures;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "exec"))      /* the fork's child's exec */
		return fcntl(999, F_GETFD) == -1 && errno == EBADF && write(1000, "e", 1) == 1 ? 0 : 3;
	if (argc == 2 && !strcmp(argv[1], "spawn"))     /* posix_spawn's program */
		return write(1010, "s", 1) == 1 ? 0 : 3;
	return fork_audit_report(body);
}
