/*
 * forkfd: a fork's child gets its parent's disk descriptors (kernel
 * file_fork in sysfile.c; harness/tests/test_forkfd.py). The disk holds
 * /data = "0123456789". Run in a child of its own, so that
 * INFO_MEM_AVAIL, read before it and after it ended, shows every open
 * file, table and child came back ("avail_lost").
 *   shared   the parent reads 2 bytes, a child reads 3 (finding "234"),
 *            then the parent reads on at offset 5
 *   write    /out written by the parent, a child through the same
 *            descriptor, the parent again: "parent1\nchild\nparent2\n"
 *   close    a child closes its copy (then EBADF there); the parent's
 *            still reads
 *   outlive  the parent closes its descriptor right after the fork; the
 *            child still reads the file through its own
 *   cloexec  FD_CLOEXEC stays set on the child's copy, and clear on
 *            another descriptor
 *   many     140 forks (as many as the kernel gives: MAXCHILD, 128) each hold
 *            the file, dup it and read through the copy while the others
 *            run; every one reads right. The fork refused (-EAGAIN, by
 *            space_register after file_fork took its references) drops
 *            them with the discarded child: the parent still reads
 *   spawn    posix_spawn of /bin/forkfd (this program, on the disk) with
 *            `read FD`: a descriptor without FD_CLOEXEC reaches it (it
 *            reads "0123456789", exit 0), one with it does not (exit 3)
 */
#define CHECK_NAME "forkfd"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include <spawn.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>

/* Run fn in a child; its exit status (0: every check there passed). */
static int in_child(int (*fn)(int), int fd)
{
	pid_t p = fork();
	if (p == 0)
		_exit(fn(fd));
	return fork_status(p);
}

static int read3(int fd)
{
	char b[4] = { 0 };
	return read(fd, b, 3) == 3 && !memcmp(b, "234", 3) ? 0 : 1;
}

static int write_child(int fd)
{
	return write(fd, "child\n", 6) == 6 ? 0 : 1;
}

static int close_child(int fd)
{
	char b[1];
	return close(fd) == 0 && read(fd, b, 1) == -1 && errno == EBADF ? 0 : 1;
}

static int flags_child(int fd)
{
	return fcntl(fd, F_GETFD) == FD_CLOEXEC ? 0 : 1;
}

static void shared(void)
{
	int fd = open("/data", O_RDONLY);
	char b[8] = { 0 };
	CHECK(fd >= 0 && read(fd, b, 2) == 2 && !memcmp(b, "01", 2));
	CHECK(in_child(read3, fd) == 0);
	CHECK(lseek(fd, 0, SEEK_CUR) == 5);
	CHECK(read(fd, b, 1) == 1 && b[0] == '5');
	CHECK(close(fd) == 0);
}

static void writes(void)
{
	int fd = open("/out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "parent1\n", 8) == 8);
	CHECK(in_child(write_child, fd) == 0);
	CHECK(write(fd, "parent2\n", 8) == 8);
	CHECK(lseek(fd, 0, SEEK_CUR) == 22);
	CHECK(close(fd) == 0);
}

static void closes(void)
{
	int fd = open("/data", O_RDONLY);
	char b[11] = { 0 };
	CHECK(fd >= 0);
	CHECK(in_child(close_child, fd) == 0);
	CHECK(read(fd, b, 10) == 10 && !strcmp(b, "0123456789"));
	CHECK(close(fd) == 0);
}

static void outlive(void)
{
	int fd = open("/data", O_RDONLY);
	CHECK(fd >= 0);
	pid_t p = fork();
	if (p == 0) {
		char b[11] = { 0 };
		usleep(20000);                   /* (either order is right: the parent likely closed) */
		_exit(pread(fd, b, 10, 0) == 10 && !strcmp(b, "0123456789") ? 0 : 1);
	}
	CHECK(p > 0 && close(fd) == 0);
	int st = -1;
	CHECK(waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static void cloexec(void)
{
	int a = open("/data", O_RDONLY | O_CLOEXEC), b = open("/data", O_RDONLY);
	CHECK(a >= 0 && b >= 0);
	CHECK(in_child(flags_child, a) == 0);
	CHECK(in_child(flags_child, b) == 1);
	CHECK(close(a) == 0 && close(b) == 0);
}

static void many(void)
{
	int fd = open("/data", O_RDONLY), forks = 0, ok = 0;
	pid_t kids[140];
	CHECK(fd >= 0);
	for (int i = 0; i < 140; i++) {
		pid_t p = fork();
		if (p == 0) {
			char b[2] = { 0 };
			int d = dup(fd);
			usleep(5000);
			_exit(d >= 0 && pread(d, b, 1, i % 10) == 1 && b[0] == '0' + i % 10 ? 0 : 1);
		}
		if (p < 0)
			break;
		kids[forks++] = p;
	}
	for (int i = 0; i < forks; i++) {
		int st = -1;
		ok += waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	printf("forkfd: many: %d forks, %d read right\n", forks, ok);
	CHECK(forks >= 8 && ok == forks);
	char b[2] = { 0 };
	CHECK(pread(fd, b, 1, 9) == 1 && b[0] == '9');
	CHECK(close(fd) == 0);
}

/* posix_spawn /bin/forkfd read FD: its exit status. */
static int spawned(int fd)
{
	char arg[8];
	snprintf(arg, sizeof arg, "%d", fd);
	char *argv[] = { "forkfd", "pkg=fifo", "read", arg, 0 };
	pid_t p = 0;
	if (posix_spawn(&p, "/bin/forkfd", 0, 0, argv, 0))
		return -1;
	return fork_status(p);
}

static void spawn(void)
{
	int a = open("/data", O_RDONLY), b = open("/data", O_RDONLY | O_CLOEXEC);
	CHECK(a >= 0 && b >= 0);
	CHECK(spawned(a) == 0);
	CHECK(spawned(b) == 3);
	CHECK(close(a) == 0 && close(b) == 0);
}

static int body(void)
{
	shared();
	writes();
	closes();
	outlive();
	cloexec();
	many();
	spawn();
	return failures;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "read")) {    /* spawn's program */
		char b[11] = { 0 };
		return pread(atoi(argv[2]), b, 10, 0) == 10 && !strcmp(b, "0123456789") ? 0 : 3;
	}
	return fork_audit_report(body);
}
