/*
 * execkill: a kill that meets an exec is not lost
 * (harness/tests/test_execkill.py). ROUNDS times a child forks and execs
 * a spinning image of this program while the parent sends it SIGKILL,
 * a little later each round (the child says through a shared page when
 * it is about to exec): the kill lands before, inside and after the
 * exec. Whichever image the kill finds, the process ends by SIGKILL
 * (POSIX: a signal to a process is not lost because the process is
 * changing its image; Linux kills it). Before the fix a kill that met
 * the exec's hand-over (the old image ending, the new one not yet in
 * its place) ended nothing: the new image spun for ever, and system's
 * cancel (progs/posix/cpoint.c), which kills its child and waits for
 * it, hung. A child still there LATE_S seconds after the kill counts
 * as lost (a kill takes microseconds); it is killed again to go on.
 *
 * `execkill stop`: the same rounds with SIGSTOP in place of the kill,
 * then waitpid(WUNTRACED) must say the child stopped (whichever image
 * the stop found: Linux stops the new one). Before, a stop that met the
 * hand-over did nothing and the new image spun on; a child not reported
 * stopped within LATE_S (polled, WNOHANG) counts as lost. It is then
 * killed and reaped either way. Each lost one costs LATE_S, so after
 * MAXLOST of them the rounds end early and the run fails with a line
 * that says so (the unfixed kernel lost about half of them with
 * `jitter`, and the run never ended within its time limit). `tstp`
 * sends SIGTSTP (default action), `ctstp` SIGTSTP to a child whose old
 * image catches it and stops itself for it (the new image's is SIG_DFL:
 * a caught one pending across the exec stops it). `held` is one round:
 * a caught SIGTSTP, blocked and pending at exec, stops the new image
 * once it unblocks it. Every kill must succeed: one that found the old
 * image after the exec had unlinked it from its parent was EPERM.
 */
#define CHECK_NAME "execkill"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#define ROUNDS 500
#define STEP 40          /* the kill's delay grows by this many spins a round */
#define LATE_S 10
#define MAXLOST 3       /* lost ones that end the rounds early */

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* The child's end within LATE_S: 1 if it ended by SIGKILL, 0 if not
   (reaped after a second kill), -1 if it ended otherwise. */
static int reaped(pid_t p)
{
	int st = 0;
	double end = now_s() + LATE_S;
	pid_t r;
	while ((r = waitpid(p, &st, WNOHANG)) == 0 && now_s() < end)
		usleep(1000);
	if (r == 0) {
		kill(p, SIGKILL);
		while (waitpid(p, &st, 0) < 0 && errno == EINTR)
			;
		return 0;
	}
	return r == p && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 1 : -1;
}

/* The child reported stopped within LATE_S, by want or (if not 0)
   also: 1, else 0 (-1: it ended, or was reported otherwise). */
static int stopped(pid_t p, int want, int also)
{
	int st = 0;
	double end = now_s() + LATE_S;
	pid_t r;
	while ((r = waitpid(p, &st, WNOHANG | WUNTRACED)) == 0 && now_s() < end)
		usleep(1000);
	if (r == 0)
		return 0;
	return r == p && WIFSTOPPED(st) && (WSTOPSIG(st) == want || (also && WSTOPSIG(st) == also)) ? 1 : -1;
}

/* `ctstp`'s old image catches SIGTSTP and stops itself for it: whether
   the signal finds it, the hand-over or the new image (where it is
   SIG_DFL, POSIX), the process stops. */
static void stop_self(int sig)
{
	(void)sig;
	raise(SIGSTOP);
}

/* `held`: a SIGTSTP caught and blocked, pending at exec, is the new
   image's with the default action (POSIX): still blocked (the mask
   stays) and pending, it stops the new image once unblocked. The new
   image (`heldchild`) exits 0 if it found the signal so and was
   continued; the parent sees the stop, continues it and reaps it. */
static void held_child(void)
{
	struct sigaction sa;
	sigset_t pend, m;
	sigemptyset(&m);
	sigaddset(&m, SIGTSTP);
	int bad = sigaction(SIGTSTP, 0, &sa) != 0 || sa.sa_handler != SIG_DFL;
	bad |= sigpending(&pend) != 0 || !sigismember(&pend, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &m, 0);          /* stops here, until the parent's SIGCONT */
	_exit(bad ? 1 : 0);
}

static void held(void)
{
	pid_t p = fork();
	if (p == 0) {
		sigset_t m;
		signal(SIGTSTP, stop_self);
		sigemptyset(&m);
		sigaddset(&m, SIGTSTP);
		sigprocmask(SIG_BLOCK, &m, 0);
		raise(SIGTSTP);
		char *args[] = { "execkill", "heldchild", 0 };
		execv("/bin/execkill", args);
		_exit(127);
	}
	CHECK(p > 0);
	int r = stopped(p, SIGTSTP, 0), st = 0;
	CHECK(r == 1);
	kill(p, r == 1 ? SIGCONT : SIGKILL);
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (r != 1 || !WIFEXITED(st) || WEXITSTATUS(st))
		printf("execkill held: stop %d, status %#x\n", r, st);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "kill";
	if (!strcmp(mode, "spin"))
		for (;;)
			;
	if (!strcmp(mode, "heldchild"))
		held_child();
	/* the signal sent, and the stop it must cause (0: it kills) */
	int sig = SIGKILL, want = 0, also = 0;
	if (!strcmp(mode, "stop"))
		sig = want = SIGSTOP;
	else if (!strcmp(mode, "tstp"))
		sig = want = SIGTSTP;
	else if (!strcmp(mode, "ctstp"))
		sig = want = SIGTSTP, also = SIGSTOP;
	if (!strcmp(mode, "held"))
		held();
	volatile int *go = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(go != MAP_FAILED);
	int lost = 0, other = 0, i;
	for (i = 0; i < ROUNDS && lost < MAXLOST && strcmp(mode, "held"); i++) {
		*go = 0;
		pid_t p = fork();
		if (p == 0) {
			char *args[] = { "execkill", "spin", 0 };
			if (also)
				signal(SIGTSTP, stop_self);
			*go = 1;
			execv("/bin/execkill", args);
			_exit(127);
		}
		if (p < 0) {
			CHECK(p > 0);
			break;
		}
		while (!*go)
			;
		for (volatile int d = 0; d < (i % 50) * STEP; d++)
			;
		int r;
		if (kill(p, sig) != 0) {
			printf("execkill: round %d: kill: %s\n", i, strerror(errno));
			CHECK(0);
		}
		if (want) {
			r = stopped(p, want, also);
			kill(p, SIGKILL);
			if (reaped(p) != 1)
				r = -1;
		} else {
			r = reaped(p);
		}
		lost += r == 0;
		other += r < 0;
	}
	CHECK(lost == 0);
	CHECK(other == 0);
	if (lost || other)
		printf("execkill: %d %s lost, %d other ends, in %d rounds of %d\n", lost,
		       want ? "stops" : "kills", other, i, ROUNDS);
	struct result r;
	result_begin(&r, "execkill");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_int(&r, "lost", lost);
	result_end(&r);
	return failures != 0;
}
