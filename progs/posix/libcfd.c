/*
 * libcfd: descriptors, the working directory, <error.h> and %Zu
 * (docs/libc.md), the way ordinary programs use them.
 *
 *   libcfd [exit|quick]
 *
 * Each CHECK counts; failures print a line. Prints @result {"name":
 * "libcfd", "checks": N, "failures": F}, then lines the harness checks:
 * error() and error_at_line() messages on stderr, a line printed while
 * stdout is /dev/null (must not appear), and one through a copy of fd 1.
 * With "exit", ends with error(3, ENOENT, ...): status 3; with "quick",
 * with quick_exit(4) (its at_quick_exit function prints, atexit's not).
 */
#include <errno.h>
#include <error.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_NAME "libcfd"
#include <check.h>

static char buf[256];
#define F(...) (snprintf(buf, sizeof buf, __VA_ARGS__), buf)

static void test_dup(void)
{
	/* copies of the console's descriptors */
	int d = dup(1);
	CHECK(d == 3);
	CHECK(write(d, "libcfd: via dup\n", 16) == 16);
	CHECK(isatty(d) == 1);
	CHECK(fcntl(d, F_GETFL) == O_WRONLY && fcntl(d, F_GETFD) == 0);
	CHECK(close(d) == 0);
	errno = 0;
	CHECK(close(d) == -1 && errno == EBADF);
	errno = 0;
	CHECK(write(d, "x", 1) == -1 && errno == EBADF);
	CHECK(dup2(2, 9) == 9 && write(9, "libcfd: via dup2\n", 17) == 17);
	CHECK(dup2(9, 9) == 9);
	errno = 0;
	CHECK(dup2(8, 8) == -1 && errno == EBADF);
	CHECK(dup3(0, 10, O_CLOEXEC) == 10 && fcntl(10, F_GETFD) == FD_CLOEXEC);
	char c;
	CHECK(read(10, &c, 1) == 0);
	errno = 0;
	CHECK(dup3(10, 10, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(dup3(0, 11, 12345) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(dup2(1, -1) == -1 && errno == EBADF);
	errno = 0;
	CHECK(dup2(1, 1 << 20) == -1 && errno == EBADF);
	errno = 0;
	CHECK(dup(77) == -1 && errno == EBADF);
	CHECK(fcntl(0, F_DUPFD, 20) == 20 && fcntl(1, F_DUPFD_CLOEXEC, 20) == 21);
	CHECK(fcntl(21, F_GETFD) == FD_CLOEXEC && fcntl(21, F_SETFD, 0) == 0 && fcntl(21, F_GETFD) == 0);
	errno = 0;
	CHECK(fcntl(1, F_DUPFD, -1) == -1 && errno == EINVAL);
	CHECK(close(9) == 0 && close(10) == 0 && close(20) == 0 && close(21) == 0);
	/* the table fills up: EMFILE; sysconf says how big it is */
	long max = sysconf(_SC_OPEN_MAX);
	CHECK(max >= 20);
	int n = 0, last = -1;
	while ((d = dup(0)) >= 0)
		last = d, n++;
	CHECK(errno == EMFILE && n == max - 3 && last == max - 1);
	for (int fd = 3; fd < max; fd++)
		close(fd);
	CHECK(dup(0) == 3 && close(3) == 0);
}

static void test_devnull(void)
{
	int fd = open("/dev/null", O_RDWR);
	CHECK(fd == 3);
	char b[8] = "zzz";
	CHECK(write(fd, "discarded\n", 10) == 10);
	CHECK(read(fd, b, sizeof b) == 0 && b[0] == 'z');
	CHECK(isatty(fd) == 0 && errno == ENOTTY);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && S_ISCHR(st.st_mode));
	CHECK(fcntl(fd, F_GETFL) == O_RDWR);
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN | POLLOUT }, { .fd = 40, .events = POLLIN } };
	CHECK(poll(p, 2, 0) == 2 && (p[0].revents & (POLLIN | POLLOUT)) == (POLLIN | POLLOUT) &&
	      p[1].revents == POLLNVAL);
	fd_set r;
	FD_ZERO(&r);
	FD_SET(fd, &r);
	struct timeval tv = { 0, 0 };
	CHECK(select(fd + 1, &r, 0, 0, &tv) == 1 && FD_ISSET(fd, &r));
	CHECK(close(fd) == 0);
	/* opened for writing only: not readable; for reading only: not writable */
	int w = open("/dev/null", O_WRONLY), rd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(w == 3 && rd == 4);
	errno = 0;
	CHECK(read(w, b, 1) == -1 && errno == EBADF);
	errno = 0;
	CHECK(write(rd, "x", 1) == -1 && errno == EBADF);
	CHECK(fcntl(rd, F_GETFD) == FD_CLOEXEC);
	errno = 0;
	CHECK(open("/dev/null", O_RDONLY | O_DIRECTORY) == -1 && errno == ENOTDIR);
	errno = 0;
	CHECK(open("/dev/nul", O_RDONLY) == -1 && errno == ENOENT);
	/* stdout onto /dev/null and back: printf's text is dropped meanwhile */
	fflush(stdout);
	int saved = dup(1);
	CHECK(saved == 5 && dup2(w, 1) == 1);
	printf("libcfd: this line must not appear\n");
	fflush(stdout);
	CHECK(dup2(saved, 1) == 1 && close(saved) == 0);
	printf("libcfd: stdout is back\n");
	CHECK(close(w) == 0 && close(rd) == 0);
}

static void test_cwd(void)
{
	char b[PATH_MAX];
	CHECK(getcwd(b, sizeof b) == b && !strcmp(b, "/"));
	errno = 0;
	CHECK(getcwd(b, 1) == 0 && errno == ERANGE);
	errno = 0;
	CHECK(getcwd(b, 0) == 0 && errno == EINVAL);
	char *m = getcwd(0, 0);
	CHECK(m && !strcmp(m, "/"));
	free(m);
	CHECK(chdir("/") == 0 && chdir(".") == 0 && chdir("/./..//") == 0);
	errno = 0;
	CHECK(chdir("/tmp") == -1 && errno == ENOENT);
	errno = 0;
	CHECK(chdir("") == -1 && errno == ENOENT);
	errno = 0;
	CHECK(chdir("...") == -1 && errno == ENOENT);
	CHECK(getcwd(b, sizeof b) && !strcmp(b, "/"));
}

static void test_format(void)
{
	size_t z = 123456789012UL;
	ssize_t s = -42;
	/* %Z: glibc's old name of %z; through a pointer, so GCC does not warn */
	const char *fz = "%Zu %Zd %Zx";
	CHECK(!strcmp(F(fz, z, s, (size_t)255), "123456789012 -42 ff"));
}

static void test_more(void)
{
	/* access, unlink: "/" and /dev/null exist, nothing else */
	CHECK(access("/", F_OK) == 0 && access("/", R_OK | X_OK) == 0);
	errno = 0;
	CHECK(access("/", W_OK) == -1 && errno == EROFS);
	CHECK(access("/dev/null", R_OK | W_OK) == 0);
	errno = 0;
	CHECK(access("/etc/passwd", F_OK) == -1 && errno == ENOENT);
	errno = 0;
	CHECK(access("/", 64) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(unlink("/tmp/x") == -1 && errno == ENOENT);
	CHECK(getdtablesize() == sysconf(_SC_OPEN_MAX));
	/* limits */
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur == (rlim_t)sysconf(_SC_OPEN_MAX));
	CHECK(getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur >= 16384 && rl.rlim_max == RLIM_INFINITY);
	CHECK(getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY);
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0);                 /* what it is: fine */
	rl.rlim_cur = rl.rlim_max = 1 << 30;                    /* lowered: recorded, as Linux */
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0 && getrlimit(RLIMIT_AS, &rl) == 0 &&
	      rl.rlim_cur == 1 << 30 && rl.rlim_max == 1 << 30);
	rl.rlim_max = RLIM_INFINITY;
	errno = 0;
	CHECK(setrlimit(RLIMIT_AS, &rl) == -1 && errno == EPERM);  /* a hard limit raised */
	CHECK(getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur == 0);
	rl.rlim_cur = 4096;
	CHECK(setrlimit(RLIMIT_CORE, &rl) == 0 && getrlimit(RLIMIT_CORE, &rl) == 0 && rl.rlim_cur == 4096);
	rl.rlim_cur = rl.rlim_max + 0;
	rl.rlim_max = 1;
	rl.rlim_cur = 2;
	errno = 0;
	CHECK(setrlimit(RLIMIT_CORE, &rl) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(getrlimit(99, &rl) == -1 && errno == EINVAL);
	/* GNU's names of argv[0] */
	CHECK(!strcmp(program_invocation_short_name, "libcfd"));
	CHECK(strstr(program_invocation_name, "libcfd") != 0);
}

static void on_quick(void)
{
	printf("libcfd: at_quick_exit\n");
	fflush(stdout);
}

static void on_exit_fn(void)
{
	printf("libcfd: atexit: must not appear after quick_exit\n");
}

int main(int argc, char **argv)
{
	test_dup();
	test_devnull();
	test_cwd();
	test_format();
	test_more();
	printf("@result {\"name\": \"libcfd\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	unsigned before = error_message_count;
	error(0, 0, "plain %d", 1);
	error(0, EINVAL, "with errno");
	error_at_line(0, 0, "file.c", 12, "at line");
	error_one_per_line = 1;
	error_at_line(0, ERANGE, "file.c", 13, "once");
	error_at_line(0, ERANGE, "file.c", 13, "twice: must not appear");
	error_at_line(0, 0, "file.c", 14, "next line");
	printf("libcfd: messages %u\n", error_message_count - before);
	if (argc > 1 && !strcmp(argv[1], "quick")) {
		atexit(on_exit_fn);
		at_quick_exit(on_quick);
		quick_exit(4);
	}
	if (argc > 1 && !strcmp(argv[1], "exit")) {
		error(3, ENOENT, "bye %d", 2);
		printf("libcfd: after error(3): must not appear\n");
	}
	return failures ? 1 : 0;
}
