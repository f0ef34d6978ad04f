/*
 * execp: the exec family and posix_spawn (ulib/libc/exec.c, spawn.c;
 * kernel/exec.c), with its own file copied to /bin/execp on the disk
 * and /data holding "0123456789" (harness/tests/test_exec.py).
 *   execp before PKG   4 threads compute and print "execp old alive"
 *                      every 20 ms; main opens /data (reads 5 bytes) and
 *                      /out with O_CLOEXEC, then execs /bin/execp after
 *                      PKG PID PPID FD: the new image checks its pid and
 *                      parent, that FD reads on at offset 5, that /out's
 *                      descriptor is closed, and exits 42
 *   execp errors       exec of bad programs fails and the caller goes on
 *   execp spawn        posix_spawn with file actions (kid exits 9),
 *                      posix_spawnp, and a missing program
 *   execp chain N      execs itself N times, then exits 7
 *   execp forkloop ok|fail   40 posix_spawns of `chain 0` (or of a child
 *                      whose file action fails: 127), each waited for
 */
#define CHECK_NAME "execp"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

static void *spin(void *arg)
{
	for (;;) {
		volatile long x = 0;
		for (long i = 0; i < 200000; i++)
			x += i;
		usleep(20000);
		printf("execp old alive %ld\n", (long)(intptr_t)arg);
	}
	return 0;
}

static int before(const char *pkg)
{
	pthread_t t;
	for (long i = 0; i < 4; i++)
		pthread_create(&t, 0, spin, (void *)i);
	int fd = open("/data", O_RDONLY);
	char b[8];
	CHECK(fd >= 0 && read(fd, b, 5) == 5);
	int out = open("/out", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	CHECK(out >= 0 && out != fd);
	usleep(100000);                  /* the parent is waiting by now; the threads run */
	char a[4][24];
	snprintf(a[0], 24, "pkg=%s", pkg);
	snprintf(a[1], 24, "%d", (int)getpid());
	snprintf(a[2], 24, "%d", (int)getppid());
	snprintf(a[3], 24, "%d", fd);
	char o[24];
	snprintf(o, 24, "%d", out);
	printf("execp: exec now\n");
	execl("/bin/execp", "execp", a[0], "after", a[1], a[2], a[3], o, (char *)0);
	printf("execp: exec failed: %s\n", strerror(errno));
	return 1;
}

static int after(char **argv)
{
	struct result r;
	int fd = atoi(argv[4]), out = atoi(argv[5]);
	char b[8] = { 0 };
	result_begin(&r, "execp");
	result_str(&r, "mode", "after");
	result_int(&r, "pid", getpid());
	result_int(&r, "pid_before", atoi(argv[2]));
	result_int(&r, "ppid", getppid());
	result_int(&r, "ppid_before", atoi(argv[3]));
	result_int(&r, "read", read(fd, b, 5));
	result_str(&r, "bytes", b);
	errno = 0;
	result_int(&r, "closed", read(out, b, 1) < 0 && errno == EBADF);
	result_end(&r);
	return 42;
}

static int errors(void)
{
	struct result r;
	result_begin(&r, "execp");
	result_str(&r, "mode", "errors");
	char *argv[] = { "x", 0 };
	const char *paths[] = { "/nope", "/garbage", "/bin", "/data", "relative-nope" };
	result_object(&r, "errno");
	for (int i = 0; i < 5; i++) {
		errno = 0;
		int rv = execv(paths[i], argv);
		result_int(&r, paths[i], rv == -1 ? errno : 0);
	}
	result_close(&r);
	static char big[65 * 1024];      /* two of them: over ARG_MAX (128 KiB) */
	memset(big, 'a', sizeof big - 1);
	char *many[] = { "execp", big, big, 0 };
	errno = 0;
	result_int(&r, "e2big", execv("/bin/execp", many) == -1 ? errno : 0);
	errno = 0;
	result_int(&r, "execvp_nope", execvp("nope", argv) == -1 ? errno : 0);
	result_end(&r);
	return 0;
}

static int spawn(void)
{
	struct result r;
	result_begin(&r, "execp");
	result_str(&r, "mode", "spawn");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 5, "/data", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, 5, 7);
	posix_spawn_file_actions_addclose(&fa, 5);
	char *kid[] = { "execp", "pkg=fifo", "kid", 0 };
	pid_t pid = 0;
	int st = -1;
	result_int(&r, "spawn", posix_spawn(&pid, "/bin/execp", &fa, 0, kid, 0));
	result_int(&r, "waited", waitpid(pid, &st, 0) == pid);
	result_int(&r, "kid_status", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	posix_spawn_file_actions_destroy(&fa);
	char *kid2[] = { "execp", "pkg=fifo", "chain", "0", 0 };
	st = -1;
	result_int(&r, "spawnp", posix_spawnp(&pid, "execp", 0, 0, kid2, 0));
	pid_t w = waitpid(pid, &st, 0);
	if (w != pid || !WIFEXITED(st))
		printf("execp: waitpid(%d) = %d (%s), status %#x\n", (int)pid, (int)w, strerror(errno), st);
	result_int(&r, "spawnp_status", w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	result_int(&r, "missing", posix_spawn(&pid, "/nope", 0, 0, kid, 0));
	result_end(&r);
	return 0;
}

static int kid(void)
{
	char b[8] = { 0 };
	int ok = read(7, b, 5) == 5 && !strcmp(b, "01234");
	errno = 0;
	ok &= read(5, b, 1) < 0 && errno == EBADF;
	return ok ? 9 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "before") && argc == 3)
		return before(argv[2]);
	if (!strcmp(mode, "after") && argc == 6)
		return after(argv);
	if (!strcmp(mode, "errors"))
		return errors();
	if (!strcmp(mode, "spawn"))
		return spawn();
	if (!strcmp(mode, "forkloop") && argc == 3) {
		int bad = 0;
		for (int i = 0; i < 40; i++) {
			posix_spawn_file_actions_t fa;
			posix_spawn_file_actions_init(&fa);
			if (!strcmp(argv[2], "fail"))
				posix_spawn_file_actions_addopen(&fa, 5, "/nope", O_RDONLY, 0);
			char *k[] = { "execp", "pkg=fifo", "chain", "0", 0 };
			pid_t pid = 0;
			int st = -1;
			int e = posix_spawn(&pid, "/bin/execp", &fa, 0, k, 0);
			pid_t w = waitpid(pid, &st, 0);
			if (e || w != pid || !WIFEXITED(st)) {
				printf("execp: forkloop %d: e %d pid %d w %d st %#x\n", i, e, (int)pid, (int)w, st);
				bad++;
			}
			posix_spawn_file_actions_destroy(&fa);
		}
		printf("execp: forkloop bad %d\n", bad);
		return 0;
	}
	if (!strcmp(mode, "kid"))
		return kid();
	if (!strcmp(mode, "chain") && argc == 3) {
		int n = atoi(argv[2]);
		if (n <= 0)
			return 7;
		char a[16];
		snprintf(a, sizeof a, "%d", n - 1);
		execl("/bin/execp", "execp", "pkg=fifo", "vps=1", "chain", a, (char *)0);
		return 1;
	}
	printf("execp: bad arguments\n");
	return 2;
}
