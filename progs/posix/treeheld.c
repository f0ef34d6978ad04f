/*
 * treeheld: INFO_TREE_HELD (kernel/space.c) and INFO_SPACES_HELD read
 * while the tree churns. Main forks children in rounds of KIDS and ends
 * them three ways (an _exit, a SIGKILL while it spins, a SIGTERM while
 * it sleeps), collecting each; a reader thread meanwhile reads both
 * counts in a loop and checks what holds at every instant: the caller's
 * own space counts (tree >= 1), neither is ever more than the spaces
 * the tree could hold (no wrapped or runaway count), and the tree's
 * are among all the spaces (tree <= spaces; the two are separate reads,
 * so a reading counts as broken only if it stays so over TRIES tries a
 * millisecond apart: a space made or taken down, or a copy-on-write
 * break begun or ended, between two reads is no fault. Both counts
 * count breaks in flight, and after a fork main's breaks end as this
 * reader's CPU takes their shootdown, between two of its system calls:
 * a tree count one above the spaces read on either side of it came
 * ~30 times a boot, and back-to-back tries, even 20 a yield apart,
 * failed 1 boot in 2 at -smp 2; a millisecond apart, none in 12). Once every
 * child is collected, the tree settles to the caller alone within
 * avail_settled's 5,000 1-ms polls. Booted alone, so INFO_SPACES_HELD
 * is this tree's too then. harness/tests/test_treeheld.py.
 * argv[1]: rounds (default 60).
 * @result {"name": "treeheld", "rounds", "reads", "tree_max",
 *          "tree_end", "spaces_end", "polls", "checks", "failures"}
 */
#define CHECK_NAME "treeheld"
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <avail.h>
#include <check.h>

#define KIDS 4
#define BOUND (KIDS * 4 + 2)     /* more than the tree can ever hold */
#define TRIES 3

static volatile int stop;
static long reads, tree_max, bad;

/* One reading of both counts (spaces read on each side of the tree's);
   0 if it is consistent, else what was wrong. */
static int reading(long *tree)
{
	long s1 = sys_getinfo(INFO_SPACES_HELD);
	long t = sys_getinfo(INFO_TREE_HELD);
	long s2 = sys_getinfo(INFO_SPACES_HELD);
	*tree = t;

	if (t < 1 || t > BOUND || s1 < 1 || s1 > BOUND || s2 < 1 || s2 > BOUND)
		return 1;
	return t > s1 && t > s2 ? 2 : 0;
}

static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		long t;
		int e = 0;
		for (int try = 0; try < TRIES && (e = reading(&t)); try++)
			sys_sleep(1000000UL);   /* (a tick apart: see TRIES) */
		reads++;
		if (t > tree_max)
			tree_max = t;
		if (e && bad++ < 5)
			printf("treeheld: bad reading (%d): tree %ld spaces %ld\n", e, t,
			       sys_getinfo(INFO_SPACES_HELD));
		sched_yield();           /* (a package that does not preempt) */
	}
	return 0;
}

/* Child i of a round: how it ends says its kind (i % 3). */
static pid_t kid(int i)
{
	pid_t p = fork();
	if (p != 0)
		return p;
	if (i % 3 == 0)
		_exit(7);
	if (i % 3 == 1)
		for (;;)
			__asm__ volatile("pause");
	for (;;)
		pause();
}

static void round_of(void)
{
	pid_t p[KIDS];
	for (int i = 0; i < KIDS; i++)
		p[i] = kid(i);
	for (int i = 0; i < KIDS; i++) {
		CHECK(p[i] > 0);
		if (p[i] <= 0)
			continue;
		if (i % 3 == 1)
			kill(p[i], SIGKILL);
		else if (i % 3 == 2)
			kill(p[i], SIGTERM);
		int st = 0;
		CHECK(waitpid(p[i], &st, 0) == p[i]);
		if (i % 3 == 0)
			CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 7);
		else
			CHECK(WIFSIGNALED(st) && WTERMSIG(st) == (i % 3 == 1 ? SIGKILL : SIGTERM));
	}
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 60;
	pthread_t r;
	CHECK(pthread_create(&r, 0, reader, 0) == 0);
	for (int i = 0; i < rounds; i++)
		round_of();
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(r, 0);
	CHECK(reads > 0);
	CHECK(bad == 0);
	avail_settled(1);
	long tree = sys_getinfo(INFO_TREE_HELD), spaces = sys_getinfo(INFO_SPACES_HELD);
	CHECK(tree == 1);
	CHECK(spaces == 1);
	struct result res;
	result_begin(&res, "treeheld");
	result_int(&res, "rounds", rounds);
	result_int(&res, "reads", reads);
	result_int(&res, "tree_max", tree_max);
	result_int(&res, "tree_end", tree);
	result_int(&res, "spaces_end", spaces);
	result_int(&res, "polls", avail_polls);
	result_int(&res, "checks", checks);
	result_int(&res, "failures", failures);
	result_end(&res);
	return failures != 0;
}
