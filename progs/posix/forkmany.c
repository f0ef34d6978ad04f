/*
 * forkmany: a process forks 100 children before it waits for any (musl's
 * libc-test forks that many from signal handlers), half of them from a
 * SIGUSR1 handler that raise() runs, half from main, some children
 * ending at once, some still running (sleeping) when the last is made;
 * then wait() collects every one, each pid once with its own exit
 * status, and the next wait() is ECHILD. Run twice, each time in a
 * child of its own, so that INFO_MEM_AVAIL, read before and after the
 * second, shows every child came back (avail_lost). Before MAXCHILD was half the space table (128),
 * the 33rd fork was EAGAIN. harness/tests/test_forkmany.py.
 * @result {"name": "forkmany", "status", "avail_lost", "failures"}
 */
#define CHECK_NAME "forkmany"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>
#include <forkaudit.h>
#include <sigcatch.h>

#define NKID 100
static pid_t kids[NKID];
static volatile int made, refused;

/* Child i: ends with status i, at once or after a short sleep. */
static void spawn_one(void)
{
	int i = made;
	pid_t p = fork();
	if (p == 0) {
		if (i % 3 == 0)
			usleep(20000);
		_exit(i);
	}
	if (p < 0) {
		refused++;
		printf("forkmany: fork %d: errno %d\n", i, errno);
		return;
	}
	kids[made++] = p;
}

static void on_usr1(int sig)
{
	(void)sig;
	spawn_one();
}

static int body(void)
{
	CHECK(sig_catch(SIGUSR1, on_usr1, 0) == 0);
	for (int i = 0; i < NKID && !refused; i++) {
		if (i % 2)
			spawn_one();
		else
			CHECK(raise(SIGUSR1) == 0);  /* (the handler forks) */
	}
	CHECK(made == NKID && refused == 0);
	int seen[NKID] = { 0 }, bad = 0;
	for (int n = 0; n < made; n++) {
		int st = -1;
		pid_t p = wait(&st);
		int i = 0;
		while (i < made && kids[i] != p)
			i++;
		bad += i == made || seen[i]++ || !WIFEXITED(st) || WEXITSTATUS(st) != i;
	}
	CHECK(bad == 0);
	CHECK(wait(0) == -1 && errno == ECHILD);
	printf("forkmany: %d forks, %d refused, %d collected wrong\n", made, refused, bad);
	return failures;
}

/* Run twice, each in a child of its own; the memory is measured around
   the second: the first leaves the parent's runtime what its polling
   waitpid sets up on whichever VPs it ran (17 pages once on naive at
   -smp 2 under load, avail_lost 69,632), and a kernel leak per child
   would show in every run. */
int main(void)
{
	struct result R;
	result_begin(&R, CHECK_NAME);
	fork_warm();
	int st0 = fork_body(body);
	long before = avail_flushed();
	int st = fork_body(body);
	long lost = before - avail_flushed();
	CHECK(st0 == 0 && st >= 0);
	result_int(&R, "status", st0 ? st0 : st);
	result_int(&R, "avail_lost", lost);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures;
}
