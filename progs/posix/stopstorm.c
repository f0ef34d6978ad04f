/*
 * stopstorm: SIGSTOP/SIGCONT storms from several processes at once at a
 * target that forks and exits (kernel/pstop.c, psig.c, space.c; the
 * lock-order hang of 59ea0b0 lived here). The target leads its own
 * process group and forks children that exit at once (every fifth
 * sleeps a little, every seventh stops itself), continuing each it sees
 * stopped (WUNTRACED) and reaping each;
 * it catches SIGCONT and SIGCHLD. ATTACKERS processes each send ROUNDS
 * pairs of SIGSTOP and SIGCONT, alternately to the target and to its
 * whole group (its children too), some with a yield between. When all
 * have ended, the parent continues the group once more; the target must
 * then finish its forks and exit 0. No hang (the harness's timeout), no
 * panic, and every child the target forked is reaped.
 * argv[1]: attackers (3), argv[2]: rounds each (300), argv[3]: forks (200).
 */
#define CHECK_NAME "stopstorm"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>

static volatile long *shm;       /* [0] forks done, [1] reaped, [2] bad child statuses, [3] attackers ready */

static void on_sig(int s)
{
	(void)s;
}

static int target(int forks)
{
	signal(SIGCONT, on_sig);
	signal(SIGCHLD, on_sig);
	for (int i = 0; i < forks; i++) {
		pid_t c = fork();
		if (c == 0) {
			if (i % 5 == 0)
				usleep(200);
			if (i % 7 == 0)
				raise(SIGSTOP);          /* its own stop: the target continues it */
			_exit(i % 100);
		}
		if (c < 0) {
			i--;                         /* (interrupted or out of room: again) */
			continue;
		}
		shm[0]++;
		int st = 0;
		pid_t w;
		while ((w = waitpid(c, &st, WUNTRACED)) < 0 || (w == c && WIFSTOPPED(st)))
			if (w == c)
				kill(c, SIGCONT);    /* its own stop, or a storm's */
		if (w == c && WIFEXITED(st) && WEXITSTATUS(st) == i % 100)
			shm[1]++;
		else
			shm[2]++;
	}
	return 0;
}

static void attacker(pid_t t, int rounds, int k)
{
	__atomic_fetch_add(&shm[3], 1, __ATOMIC_RELAXED);
	for (int i = 0; i < rounds; i++) {
		pid_t who = (i + k) % 2 ? t : -t;
		kill(who, SIGSTOP);
		if (i % 3 == k % 3)
			sched_yield();
		kill(who, SIGCONT);
		if (i % 4 == 0)
			kill(t, SIGCHLD);            /* noise the target catches */
	}
	kill(-t, SIGCONT);
	_exit(0);
}

int main(int argc, char **argv)
{
	int na = argc > 1 ? atoi(argv[1]) : 3;
	int rounds = argc > 2 ? atoi(argv[2]) : 300;
	int forks = argc > 3 ? atoi(argv[3]) : 200;
	shm = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	pid_t t = fork();
	if (t == 0) {
		setpgid(0, 0);
		_exit(target(forks));
	}
	setpgid(t, t);                           /* (either may come first) */
	pid_t a[16];
	if (na > 16)
		na = 16;
	for (int k = 0; k < na; k++)
		if ((a[k] = fork()) == 0)
			attacker(t, rounds, k);
	int aok = 0;
	for (int k = 0; k < na; k++) {
		int st = 0;
		aok += waitpid(a[k], &st, 0) == a[k] && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	CHECK(aok == na);
	kill(-t, SIGCONT);                       /* no stop is left behind */
	int st = 0;
	pid_t w;
	while ((w = waitpid(t, &st, WUNTRACED | WCONTINUED)) == t && !WIFEXITED(st) && !WIFSIGNALED(st))
		kill(-t, SIGCONT);                   /* (a report of an old stop or continue) */
	CHECK(w == t && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(shm[0] == forks && shm[1] == forks && shm[2] == 0);
	struct result r;
	result_begin(&r, "stopstorm");
	result_str(&r, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	result_int(&r, "attackers", na);
	result_int(&r, "rounds", rounds);
	result_int(&r, "forks", shm[0]);
	result_int(&r, "reaped", shm[1]);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
