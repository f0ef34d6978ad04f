/*
 * waitintr: a blocking wait interrupted by a handler, as on Linux
 * (harness/tests/test_waitintr.py). For each of waitpid, wait, waitid
 * and wait4: a child waits on a pipe (no timing: it ends when we let
 * it), a second child sends us SIGUSR1 while we wait for the first.
 *   - handler without SA_RESTART: the wait fails with EINTR after the
 *     handler ran (the sender sends again every 20 ms until we say the
 *     wait ended, so a signal that came before the wait cannot hang it;
 *     after 50 it lets the child end, and the check fails instead)
 *   - handler with SA_RESTART: the handler runs and the wait goes on
 *     until the child ends (the sender lets it end once the handler ran,
 *     and itself ends only after the wait)
 * WNOHANG answers 0 for a running child, with a handler pending or not.
 * SIGCHLD's handler without SA_RESTART, for the very child waited for,
 * ends no wait: the wait reports the child.
 * Prints `@result {"name":"waitintr","checks":N,"failures":F,...}`.
 */
#define CHECK_NAME "waitintr"
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <animalib/result.h>
#include <check.h>
#include <sigcatch.h>

static volatile long *shm;       /* [0] handler runs, [1] waiting, [2] wait over */
static int maxruns;

static void on_usr1(int sig)
{
	(void)sig;
	__atomic_fetch_add(&shm[0], 1, __ATOMIC_SEQ_CST);
}

/* The child we wait for: it ends (status 7) once a byte comes on fd. */
static pid_t sleeper(int fd[2])
{
	pid_t c = fork();
	if (c == 0) {
		char b;
		close(fd[1]);
		_exit(read(fd[0], &b, 1) == 1 ? 7 : 8);
	}
	close(fd[0]);
	return c;
}

/* The sender: SIGUSR1 to `to` once we wait, again every 20 ms (restart:
   until a handler ran; else until the wait is over, at most 50); then
   the byte that ends the sleeper (without restart only if the wait is
   not over: then we write it). */
static pid_t sender(pid_t to, int wfd, int restart)
{
	pid_t c = fork();
	if (c == 0) {
		while (!shm[1])
			usleep(1000);
		for (int i = 0; i < 50 && !shm[2] && !(restart && shm[0]); i++) {
			usleep(20000);
			if (!shm[2])
				kill(to, SIGUSR1);
		}
		while (restart && !shm[0])
			usleep(1000);
		int ok = (!restart && shm[2]) || write(wfd, "x", 1) == 1;
		while (!shm[2])          /* (so that wait() finds the sleeper first) */
			usleep(1000);
		_exit(ok ? 0 : 9);
	}
	return c;
}

/* The wait under test, kind 0..3: waitpid, wait, waitid, wait4. The
   pid it ended, 0 for waitid's success, or -1 and errno. */
static pid_t await(int kind, pid_t c, int *st)
{
	siginfo_t si;
	struct rusage ru;
	switch (kind) {
	case 0:
		return waitpid(c, st, 0);
	case 1:
		return wait(st);
	case 2:
		memset(&si, 0, sizeof si);
		if (waitid(P_PID, (id_t)c, &si, WEXITED) < 0)
			return -1;
		*st = si.si_code == CLD_EXITED ? si.si_status << 8 : -1;
		return si.si_pid;
	default:
		return wait4(c, st, 0, &ru);
	}
}

/* Collect c whatever comes (a late SIGUSR1 may cut this wait too). */
static int reap(pid_t c)
{
	int st = -1;
	while (waitpid(c, &st, 0) < 0 && errno == EINTR)
		;
	return st;
}

static void one(int kind, int restart)
{
	CHECK(sig_catch(SIGUSR1, on_usr1, restart ? SA_RESTART : 0) == 0);
	shm[0] = shm[1] = shm[2] = 0;
	int fd[2];
	CHECK(pipe(fd) == 0);
	pid_t c = sleeper(fd);
	pid_t s = sender(getpid(), fd[1], restart);
	int st = -1;
	CHECK(waitpid(c, &st, WNOHANG) == 0);    /* WNOHANG: 0, nothing cut */
	shm[1] = 1;
	errno = 0;
	pid_t r = await(kind, c, &st);
	int e = errno;
	shm[2] = 1;
	long ran = shm[0];
	if (ran > maxruns)
		maxruns = (int)ran;
	if (restart) {
		CHECK(r == c && WIFEXITED(st) && WEXITSTATUS(st) == 7);
		CHECK(ran >= 1);
	} else {
		if (!(r == -1 && e == EINTR))
			printf("waitintr: kind %d: %d errno %d after %ld handler runs\n", kind, r, e,
			       ran);
		CHECK(r == -1 && e == EINTR);
		CHECK(ran >= 1);
		/* WNOHANG with the child still there: 0, a handler or not */
		CHECK(waitpid(c, &st, WNOHANG) == 0);
		CHECK(write(fd[1], "x", 1) == 1);
		st = reap(c);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
	}
	st = reap(s);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(fd[1]);
}

static volatile int chlds;

static void on_chld(int sig)
{
	(void)sig;
	chlds++;
}

/* SIGCHLD's handler without SA_RESTART, for the child waited for: the
   wait reports the child (its end is what the wait was for), no EINTR */
static void chld(void)
{
	struct sigaction sa = { .sa_handler = on_chld }, old;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGCHLD, &sa, &old) == 0);
	shm[0] = shm[1] = shm[2] = 0;
	int fd[2], st = -1;
	CHECK(pipe(fd) == 0);
	pid_t c = sleeper(fd);
	pid_t s = fork();
	if (s == 0) {                    /* lets the sleeper end once we wait */
		while (!shm[1])
			usleep(1000);
		usleep(20000);
		int ok = write(fd[1], "x", 1) == 1;
		while (!shm[2])
			usleep(1000);
		_exit(ok ? 0 : 9);
	}
	shm[1] = 1;
	pid_t r = waitpid(c, &st, 0);
	shm[2] = 1;
	CHECK(r == c && WIFEXITED(st) && WEXITSTATUS(st) == 7);
	st = reap(s);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(chlds >= 1);
	CHECK(sigaction(SIGCHLD, &old, 0) == 0);
	close(fd[1]);
}

int main(void)
{
	shm = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	signal(SIGPIPE, SIG_IGN);        /* (a failed run's late byte: EPIPE) */
	for (int kind = 0; kind < 4; kind++) {
		one(kind, 0);
		one(kind, 1);
	}
	chld();
	struct result r;
	result_begin(&r, "waitintr");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_int(&r, "maxruns", maxruns);
	result_end(&r);
	return failures != 0;
}
