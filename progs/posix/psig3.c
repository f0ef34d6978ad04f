/*
 * psig3: what a signal held for a process keeps when a thread never
 * touched signals, and what an exec keeps of queued values; one area
 * per run (argv[1]):
 *   fork: a worker that never touched signals lives in the parent; a
 *         forked child (where only the caller lives) blocks SIGUSR1,
 *         its own child sends it, and it stays pending for sigpending
 *         and sigwaitinfo (the worker is not here, so every thread of
 *         the child blocks it);
 *   exec: a child blocks SIGUSR1 and execs /bin/psig3 (execthr): the
 *         new image's first act is to make a worker, which inherits the
 *         mask the exec kept (POSIX), so SIGUSR1 from another process
 *         stays pending; then a child with SIGRTMIN and SIGRTMIN+1
 *         blocked queues them to itself with values (and one SIGRTMIN
 *         comes from its own child) and execs /bin/psig3 (execrt): the
 *         new image's sigwaitinfo takes every send, in order, with its
 *         value. argv[2] is the package the new images run on,
 *         argv[3] (nvp=N, optional) their number of VPs.
 *   execign: a child ignores and blocks SIGUSR2 (alone, then with a
 *         worker that does not block it) and execs /bin/psig3 (execig):
 *         the new image has SIGUSR2 ignored and blocked, and sends from
 *         its child stay pending (a blocked signal is never ignored at
 *         its sending), from its first instruction; unblocked, it
 *         discards the one pending. Before, the first image came out
 *         with SIGUSR2 at its default action (its held bit hid the
 *         SIG_IGN from the exec), and the second discarded the sends
 *         until its first mask change.
 *   execloop: EXECLOOP times, a child blocks SIGUSR1 and execs
 *         /bin/psig3 (execwk), whose first act is to make NWK workers
 *         and which never calls a mask function: SIGUSR1 from its child
 *         stays pending, is taken with its value, and every worker
 *         blocks it. Before, main could claim the kept mask before
 *         posix_main_init (a signal hook in the start), its workers then
 *         had no slot (no mask) and the send ended the image.
 *   forkpend: main blocks SIGUSR1 and SIGRTMIN and makes them pending
 *         (raise, sigqueue of the program with values, pthread_kill of
 *         main by a worker), then forks: the child (POSIX) has nothing
 *         pending but keeps the mask, and a send of its own is the only
 *         one it takes; the parent takes all it had, with the values.
 * Before this work each case ended by SIGUSR1 (the slotless worker
 * counted as blocking nothing), and execrt saw one SIGRTMIN and one
 * SIGRTMIN+1, both of value 0.
 */
#define CHECK_NAME "psig3"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <errno.h>
#include <unistd.h>
#include <pthread.h>
#include <semaphore.h>
#include <animalib/result.h>
#include <check.h>
#include <forkaudit.h>

static sem_t go;

#define EXECLOOP 12      /* execloop's rounds: each exec a chance of the race */

/* Never touches signals until it is let go; then says whether it
   blocks SIGUSR1 (1) or not (0). */
static void *idle_worker(void *arg)
{
	(void)arg;
	while (sem_wait(&go) != 0)
		;
	sigset_t m;
	sigemptyset(&m);
	pthread_sigmask(SIG_BLOCK, 0, &m);
	return (void *)(long)sigismember(&m, SIGUSR1);
}

/* sig seen pending within a bound of looks (one from another process
   is taken at a look: the count bounds a miss, not the time). */
static int pending_soon(int sig)
{
	sigset_t p;
	int i = 0;
	while (!(sigpending(&p) == 0 && sigismember(&p, sig)) && ++i < 100000)
		sched_yield();
	return i < 100000;
}

/* The caller blocks sig; its child queues sig with a value: pending, then
   taken by sigwaitinfo with the sender and value. 1 if all held. */
static int held_from_child(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	if (pthread_sigmask(SIG_BLOCK, &set, 0) != 0)
		return 0;
	pid_t g = fork();
	if (g == 0)
		_exit(sigqueue(getppid(), sig, (union sigval){ .sival_int = 77 }) != 0);
	siginfo_t si;
	int ok = fork_status(g) == 0 && pending_soon(sig) && sigwaitinfo(&set, &si) == sig &&
		 si.si_pid == g && si.si_code == SI_QUEUE && si.si_value.sival_int == 77;
	if (!ok)
		printf("psig3: %d not held as it should be\n", sig);
	return ok;
}

static void child_ok(pid_t c, const char *what)
{
	int st = fork_status(c);
	CHECK(st == 0);
	if (st)
		printf("psig3: %s: child status %d (128 + signal)\n", what, st);
}

static void fork_area(void)
{
	pthread_t w;
	void *r;
	CHECK(sem_init(&go, 0, 0) == 0);
	CHECK(pthread_create(&w, 0, idle_worker, 0) == 0);
	pid_t c = fork();
	if (c == 0)
		_exit(held_from_child(SIGUSR1) ? 0 : 3);
	child_ok(c, "fork");
	sem_post(&go);
	CHECK(pthread_join(w, &r) == 0 && r == 0);   /* (its creator blocked nothing) */
}

static sigset_t usr1_rtmin(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN);
	return set;
}

static void *kill_main(void *main)
{
	return (void *)(long)pthread_kill(*(pthread_t *)main, SIGRTMIN);
}

/* sigtimedwait for set with a zero timeout: the signal, or -errno. */
static int take_now(const sigset_t *set, siginfo_t *si)
{
	struct timespec zero = { 0, 0 };
	int s = sigtimedwait(set, si, &zero);
	return s > 0 ? s : -errno;
}

/* The forked child: nothing pending, the mask kept; its own sigqueue
   is taken with its value, and then nothing is left. 0 if all held. */
static int forkpend_child(void)
{
	int f0 = failures;
	sigset_t set = usr1_rtmin(), p, m;
	siginfo_t si = { 0 };
	CHECK(sigpending(&p) == 0 && !sigismember(&p, SIGUSR1) && !sigismember(&p, SIGRTMIN));
	CHECK(pthread_sigmask(SIG_BLOCK, 0, &m) == 0 && sigismember(&m, SIGUSR1) &&
	      sigismember(&m, SIGRTMIN));
	int s = take_now(&set, &si);
	CHECK(s == -EAGAIN);
	if (s != -EAGAIN)
		printf("psig3: forkpend child took %d value %d\n", s, si.si_value.sival_int);
	CHECK(sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = 9 }) == 0);
	CHECK(take_now(&set, &si) == SIGRTMIN && si.si_value.sival_int == 9);
	CHECK(take_now(&set, &si) == -EAGAIN);
	return failures != f0;
}

static void forkpend_area(void)
{
	sigset_t set = usr1_rtmin(), p;
	pthread_t me = pthread_self(), w;
	void *r;
	CHECK(pthread_sigmask(SIG_BLOCK, &set, 0) == 0);
	CHECK(raise(SIGUSR1) == 0);
	for (int v = 5; v <= 6; v++)
		CHECK(sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = v }) == 0);
	CHECK(pthread_create(&w, 0, kill_main, &me) == 0);
	CHECK(pthread_join(w, &r) == 0 && r == 0);
	CHECK(sigpending(&p) == 0 && sigismember(&p, SIGUSR1) && sigismember(&p, SIGRTMIN));
	pid_t c = fork();
	if (c == 0)
		_exit(forkpend_child() ? 3 : 0);
	child_ok(c, "forkpend");
	/* The parent's: SIGUSR1 once, SIGRTMIN three times (5 and 6 queued
	   with their values, one from pthread_kill), then nothing. */
	int usr1 = 0, rt = 0, vals = 0;
	siginfo_t si;
	for (int s; (s = take_now(&set, &si)) > 0;) {
		usr1 += s == SIGUSR1;
		rt += s == SIGRTMIN;
		if (s == SIGRTMIN && si.si_code == SI_QUEUE)
			vals += si.si_value.sival_int;
	}
	CHECK(usr1 == 1 && rt == 3 && vals == 11);
	if (!(usr1 == 1 && rt == 3 && vals == 11))
		printf("psig3: forkpend parent: SIGUSR1 %d, SIGRTMIN %d, values %d\n", usr1, rt, vals);
}

/* argv[3], "nvp=N" or none: the new images run on N VPs (vps=N). */
static char vps_word[16], *vps_arg;

static void exec_one(const char *pkg, const char *area, void (*before)(void))
{
	pid_t c = fork();
	if (c == 0) {
		before();
		char pk[32];
		snprintf(pk, sizeof pk, "pkg=%s", pkg);
		char *args[] = { "psig3", pk, vps_arg ? vps_arg : (char *)area,
				 vps_arg ? (char *)area : 0, 0 };
		execv("/bin/psig3", args);
		_exit(99);
	}
	child_ok(c, area);
}

static void block_usr1(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, 0);
}

static void queue_rt(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGRTMIN + 1);
	sigprocmask(SIG_BLOCK, &set, 0);
	sigqueue(getpid(), SIGRTMIN + 1, (union sigval){ .sival_int = 100 });
	for (int v = 1; v <= 3; v++)
		sigqueue(getpid(), SIGRTMIN, (union sigval){ .sival_int = v });
	pid_t g = fork();
	if (g == 0)
		_exit(sigqueue(getppid(), SIGRTMIN, (union sigval){ .sival_int = 4 }) != 0);
	if (fork_status(g) != 0)
		_exit(98);
}

/* The image of exec_one(block_usr1): a worker first of all. */
static void execthr(void)
{
	pthread_t w;
	void *r;
	CHECK(sem_init(&go, 0, 0) == 0);
	CHECK(pthread_create(&w, 0, idle_worker, 0) == 0);
	CHECK(held_from_child(SIGUSR1));
	sem_post(&go);
	CHECK(pthread_join(w, &r) == 0 && r == (void *)1L);
}

/* The image of exec_one(block_usr1) in execloop: NWK workers first of
   all (spread over the VPs), and no mask call at all: the kept mask alone
   must hold SIGUSR1 for every thread, from the first instruction. */
#define NWK 4
static void execwk(void)
{
	pthread_t w[NWK];
	void *r;
	sigset_t set;
	siginfo_t si;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	CHECK(sem_init(&go, 0, 0) == 0);
	for (int i = 0; i < NWK; i++)
		CHECK(pthread_create(&w[i], 0, idle_worker, 0) == 0);
	pid_t g = fork();
	if (g == 0)
		_exit(sigqueue(getppid(), SIGUSR1, (union sigval){ .sival_int = 78 }) != 0);
	CHECK(fork_status(g) == 0 && pending_soon(SIGUSR1));
	CHECK(sigwaitinfo(&set, &si) == SIGUSR1 && si.si_pid == g && si.si_value.sival_int == 78);
	for (int i = 0; i < NWK; i++)
		sem_post(&go);
	for (int i = 0; i < NWK; i++)
		CHECK(pthread_join(w[i], &r) == 0 && r == (void *)1L);
}

/* The image of execign's execs: SIGUSR2 is ignored (the exec keeps it
   so) and blocked (the mask it kept), and no mask call comes first. A
   blocked signal is never ignored at its sending (Linux): one from a
   child stays pending and is taken with its value; one more, still
   pending as SIGUSR2 is unblocked, is discarded then, and the image
   lives on. */
static void execig(void)
{
	struct sigaction a;
	sigset_t set, p;
	siginfo_t si;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	CHECK(sigaction(SIGUSR2, 0, &a) == 0 && a.sa_handler == SIG_IGN);
	if (a.sa_handler != SIG_IGN)
		printf("psig3: execig: SIGUSR2 not ignored after the exec\n");
	for (int v = 80; v <= 81; v++) {
		pid_t g = fork();
		if (g == 0)
			_exit(sigqueue(getppid(), SIGUSR2, (union sigval){ .sival_int = v }) != 0);
		int held = fork_status(g) == 0 && pending_soon(SIGUSR2);
		CHECK(held);
		if (!held)
			printf("psig3: execig: send %d not held\n", v);
		if (v == 80)
			CHECK(sigwaitinfo(&set, &si) == SIGUSR2 && si.si_pid == g &&
			      si.si_value.sival_int == 80);
	}
	CHECK(pthread_sigmask(SIG_UNBLOCK, &set, 0) == 0);
	CHECK(sigpending(&p) == 0 && !sigismember(&p, SIGUSR2));
}

/* SIGUSR2 ignored and blocked by the caller alone: a worker made
   before the block (and so not blocking it) lives as it execs. */
static void *nap_worker(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 0;
}

static void ign_block_usr2(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	signal(SIGUSR2, SIG_IGN);
	sigprocmask(SIG_BLOCK, &set, 0);
}

static void ign_worker_block_usr2(void)
{
	pthread_t w;
	signal(SIGUSR2, SIG_IGN);
	pthread_create(&w, 0, nap_worker, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, 0);
}

/* The image of exec_one(queue_rt): SIGRTMIN 1, 2, 3 (its own, with its
   pid), 4 (its child's), then SIGRTMIN+1 100; nothing more. */
static void execrt(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigaddset(&set, SIGRTMIN + 1);
	static const int want_sig[] = { 0, 0, 0, 0, 1 }, want_val[] = { 1, 2, 3, 4, 100 };
	for (int i = 0; i < 5; i++) {
		siginfo_t si = { 0 };
		struct timespec ts = { 5, 0 };
		int s = sigtimedwait(&set, &si, &ts);
		CHECK(s == SIGRTMIN + want_sig[i] && si.si_value.sival_int == want_val[i] &&
		      si.si_code == SI_QUEUE);
		CHECK(i >= 3 || si.si_pid == getpid());
		CHECK(i != 3 || si.si_pid != getpid());
		if (s != SIGRTMIN + want_sig[i] || si.si_value.sival_int != want_val[i])
			printf("psig3: take %d: signal %d value %d\n", i, s, si.si_value.sival_int);
	}
	sigset_t p;
	CHECK(sigpending(&p) == 0 && !sigismember(&p, SIGRTMIN) && !sigismember(&p, SIGRTMIN + 1));
}

int main(int argc, char **argv)
{
	const char *area = argc > 1 ? argv[1] : "fork";
	const char *pkg = argc > 2 ? argv[2] : "fifo";
	if (argc > 3 && !strncmp(argv[3], "nvp=", 4)) {
		snprintf(vps_word, sizeof vps_word, "vps=%s", argv[3] + 4);
		vps_arg = vps_word;
	}
	if (!strcmp(area, "execthr") || !strcmp(area, "execrt") || !strcmp(area, "execwk") ||
	    !strcmp(area, "execig")) {
		if (area[4] == 't')
			execthr();
		else if (area[4] == 'w')
			execwk();
		else if (area[4] == 'i')
			execig();
		else
			execrt();
		if (failures)
			printf("psig3: %s: %d failures\n", area, failures);
		return failures;
	}
	if (!strcmp(area, "fork"))
		fork_area();
	else if (!strcmp(area, "forkpend"))
		forkpend_area();
	else if (!strcmp(area, "exec")) {
		exec_one(pkg, "execthr", block_usr1);
		exec_one(pkg, "execrt", queue_rt);
	} else if (!strcmp(area, "execign")) {
		exec_one(pkg, "execig", ign_block_usr2);
		exec_one(pkg, "execig", ign_worker_block_usr2);
	} else if (!strcmp(area, "execloop")) {
		for (int i = 0; i < EXECLOOP; i++)
			exec_one(pkg, "execwk", block_usr1);
	} else
		CHECK(!"no such area");
	struct result r;
	result_begin(&r, "psig3");
	result_str(&r, "area", area);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
