/*
 * killreach: one boot program's signals never reach another boot
 * program's processes (kernel/space.c space_may_signal: session 0 holds
 * every boot program, each a login of its own). harness/tests/
 * test_killreach.py boots two at once:
 *   killreach wait   sleeps 400 ms, then reports it lived ("killreach_wait")
 *   killreach kill   after 100 ms forks a sleeper of its own, then
 *                    kill(-1, SIGKILL) (0): its own child must die, the other
 *                    program not; then kill(pid, 0) for pids 1..64 but
 *                    its own and its child's: how many were reachable
 *                    (none may be) and how many were EPERM (the waiter
 *                    among them) ("killreach_kill").
 */
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>

static void nap(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };
	while (nanosleep(&t, &t) == -1 && errno == EINTR)
		;
}

static int waiter(void)
{
	nap(400);
	struct result R;
	result_begin(&R, "killreach_wait");
	result_int(&R, "lived", 1);
	result_end(&R);
	return 0;
}

static int killer(void)
{
	nap(100);
	pid_t c = fork();
	if (c == 0) {
		nap(5000);
		_exit(3);
	}
	long many = kill(-1, SIGKILL);
	int st = 0;
	int child_killed = waitpid(c, &st, 0) == c && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
	long reached = 0, eperm = 0;
	for (pid_t p = 1; p <= 64; p++) {
		if (p == getpid() || p == c)
			continue;
		errno = 0;
		if (kill(p, 0) == 0)
			reached++;
		else if (errno == EPERM)
			eperm++;
	}
	struct result R;
	result_begin(&R, "killreach_kill");
	result_int(&R, "many", many);
	result_int(&R, "child_killed", child_killed);
	result_int(&R, "reached", reached);
	result_int(&R, "eperm", eperm);
	result_end(&R);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wait"))
		return waiter();
	if (argc > 1 && !strcmp(argv[1], "kill"))
		return killer();
	fprintf(stderr, "usage: killreach wait|kill\n");
	return 2;
}
