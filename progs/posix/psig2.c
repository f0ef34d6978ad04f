/*
 * psig2: what a signal from another process does beyond psig's cases,
 * one area per run (argv[1]):
 *   hold: a signal every thread blocks and that has no handler stays
 *         pending for sigwaitinfo, sigtimedwait and sigpending (SIGUSR1,
 *         SIGCHLD, SIGURG, SIGWINCH), and its default action happens
 *         once a thread unblocks it (a child ends by it: WTERMSIG);
 *   intr: a handled signal cuts short, in the thread that waits, a
 *         nanosleep (EINTR, the time left), a relative and an absolute
 *         clock_nanosleep, sem_wait (EINTR), sigsuspend and pause, a
 *         pipe read (EINTR; with SA_RESTART it goes on: the second
 *         handler in it writes what it reads), and runs its
 *         handler inside a condition wait, a join and a mutex lock,
 *         which then go on;
 *   rtq:  a real-time signal sent N times by sigqueue is delivered N
 *         times, in order, with its values; a standard one stays one;
 *         past the per-process limit sigqueue fails with EAGAIN;
 *   exec: an ignored signal stays ignored across exec, a handled one is
 *         reset, the mask and pending signals are kept (one pending in
 *         the library, one from another process); argv[2] the package
 *         the new image runs on (/bin/psig2 on the disk, execd).
 * The sender is a child that signals us again and again until the wait
 * under test has returned (a shared page says so): a signal that comes
 * before the wait began runs its handler then, the next one finds it
 * waiting. No wait here ends on its own: one that is not cut short
 * hangs, and the harness's timeout fails it.
 */
#define CHECK_NAME "psig2"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <time.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>
#include <sigcatch.h>

struct shared {
	volatile int stop;       /* the parent's wait returned: stop sending */
	volatile int sent;
};
static struct shared *sh;

static void mask(int how, int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	CHECK(pthread_sigmask(how, &s, 0) == 0);
}

static int status_of(pid_t c)
{
	int st = -1;
	pid_t r;
	while ((r = waitpid(c, &st, 0)) == -1 && errno == EINTR)
		;       /* a nagger's signal: its handler has no SA_RESTART (Linux's EINTR) */
	return r == c ? st : -1;
}

/* A child that sends us sig every half millisecond until sh->stop. */
static pid_t nagger(int sig)
{
	sh->stop = 0;
	sh->sent = 0;
	pid_t c = fork();
	if (c == 0) {
		pid_t p = getppid();
		for (int i = 0; i < 200000 && !sh->stop; i++) {
			if (kill(p, sig) != 0)
				_exit(2);
			sh->sent++;
			usleep(500);
		}
		_exit(sh->stop ? 0 : 1);
	}
	CHECK(c > 0);
	return c;
}

static void stop(pid_t c)
{
	sh->stop = 1;
	CHECK(status_of(c) == 0);
}

/* ---- hold ---- */

static void hold_one(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sig);
	signal(sig, SIG_DFL);
	mask(SIG_BLOCK, sig);
	pid_t c = fork();
	if (c == 0)
		_exit(sigqueue(getppid(), sig, (union sigval){ .sival_int = sig }) == 0 ? 0 : 1);
	siginfo_t si;
	CHECK(sigwaitinfo(&set, &si) == sig);
	CHECK(si.si_pid == c && si.si_code == SI_QUEUE && si.si_value.sival_int == sig);
	CHECK(status_of(c) == 0);
	/* That child's own end raised a SIGCHLD too (sent before its wait
	   status shows, psig_child_end). When it came after the take above it
	   is still pending, and the kill below would merge into it: take it
	   now, so the next record is the kill's. */
	struct timespec none = { 0, 0 };
	if (sig == SIGCHLD && sigtimedwait(&set, &si, &none) == sig)
		CHECK(si.si_pid == c && si.si_code == CLD_EXITED);

	c = fork();
	if (c == 0)
		_exit(kill(getppid(), sig) == 0 ? 0 : 1);
	CHECK(status_of(c) == 0);
	sigset_t p;
	sigemptyset(&p);
	for (int i = 0; i < 100000 && !sigismember(&p, sig); i++) {
		sched_yield();
		sigpending(&p);
	}
	CHECK(sigismember(&p, sig));
	struct timespec ts = { 5, 0 };
	CHECK(sigtimedwait(&set, &si, &ts) == sig && si.si_pid == c && si.si_code == SI_USER);
	mask(SIG_UNBLOCK, sig);
}

/* A child blocks SIGTERM, a grandchild sends it, the child sees it
   pending, then unblocks it: it ends by it. And one that ignores by
   default (SIGURG) does nothing when unblocked. */
static void hold_then_unblock(void)
{
	pid_t c = fork();
	if (c == 0) {
		mask(SIG_BLOCK, SIGTERM);
		mask(SIG_BLOCK, SIGURG);
		pid_t g = fork();
		if (g == 0)
			_exit(kill(getppid(), SIGTERM) || kill(getppid(), SIGURG));
		int st = status_of(g);
		sigset_t p;
		sigemptyset(&p);
		for (int i = 0; i < 100000 && !sigismember(&p, SIGTERM); i++) {
			sched_yield();
			sigpending(&p);
		}
		if (st != 0 || !sigismember(&p, SIGTERM) || !sigismember(&p, SIGURG))
			_exit(3);
		mask(SIG_UNBLOCK, SIGURG);
		mask(SIG_UNBLOCK, SIGTERM);
		_exit(4);
	}
	int st = status_of(c);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	if (!(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM))
		printf("psig2: hold_then_unblock status %#x\n", st);
}

/* Two threads block it; a worker that does not block it ends us. */
static void *blocked_worker(void *arg)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	int sig = 0;
	CHECK(sigwait(&set, &sig) == 0 && sig == SIGUSR2);
	return arg;
}

static void hold(void)
{
	hold_one(SIGUSR1);
	hold_one(SIGCHLD);
	hold_one(SIGURG);
	hold_one(SIGWINCH);
	hold_then_unblock();
	/* a worker takes it with sigwait, main blocks it too */
	mask(SIG_BLOCK, SIGUSR2);
	pthread_t w;
	CHECK(pthread_create(&w, 0, blocked_worker, 0) == 0);
	pid_t c = fork();
	if (c == 0)
		_exit(kill(getppid(), SIGUSR2) == 0 ? 0 : 1);
	CHECK(pthread_join(w, 0) == 0);
	CHECK(status_of(c) == 0);
	mask(SIG_UNBLOCK, SIGUSR2);
}

/* ---- intr ---- */

static volatile int ran, in_wait, ran_in_wait;

static void on_usr1(int s)
{
	(void)s;
	ran++;
	if (in_wait)
		ran_in_wait = 1;
}

static void handle(int flags)
{
	CHECK(sig_catch(SIGUSR1, on_usr1, flags) == 0);
	ran = ran_in_wait = 0;
}

static void sleeps(void)
{
	handle(0);
	pid_t c = nagger(SIGUSR1);
	struct timespec req = { 1000, 0 }, rem = { 0, 0 };
	int r = nanosleep(&req, &rem);
	stop(c);
	CHECK(r == -1 && errno == EINTR && ran >= 1);
	CHECK(rem.tv_sec > 0 && rem.tv_sec <= 1000);

	c = nagger(SIGUSR1);
	rem.tv_sec = 0;
	r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem);
	stop(c);
	CHECK(r == EINTR && rem.tv_sec > 0 && rem.tv_sec <= 1000);

	struct timespec abs;
	clock_gettime(CLOCK_REALTIME, &abs);
	abs.tv_sec += 1000;
	c = nagger(SIGUSR1);
	r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &abs, 0);
	stop(c);
	CHECK(r == EINTR);
}

static void sems(void)
{
	sem_t s;
	CHECK(sem_init(&s, 0, 0) == 0);
	handle(0);
	pid_t c = nagger(SIGUSR1);
	int r = sem_wait(&s);
	stop(c);
	CHECK(r == -1 && errno == EINTR && ran >= 1);
	sem_destroy(&s);
}

static void suspends(void)
{
	handle(0);
	sigset_t none;
	sigemptyset(&none);
	pid_t c = nagger(SIGUSR1);
	int r = sigsuspend(&none);
	stop(c);
	CHECK(r == -1 && errno == EINTR && ran >= 1);
	ran = 0;
	c = nagger(SIGUSR1);
	r = pause();
	stop(c);
	CHECK(r == -1 && errno == EINTR && ran >= 1);
}

static void pipes(void)
{
	int fd[2];
	char b;
	CHECK(pipe(fd) == 0);
	handle(0);
	pid_t c = nagger(SIGUSR1);
	ssize_t n = read(fd[0], &b, 1);
	stop(c);
	CHECK(n == -1 && errno == EINTR && ran >= 1);
	close(fd[0]);
	close(fd[1]);
}

/* With SA_RESTART the read goes on after the handler: the second
   handler that runs in it writes the byte it then reads (a read that
   ended at the first would return EINTR). */
static int wfd;
static volatile int runs_in_wait;

static void on_usr1_write(int s)
{
	(void)s;
	ran++;
	if (in_wait && ++runs_in_wait == 2)
		CHECK(write(wfd, "x", 1) == 1);
}

static void pipes_restart(void)
{
	int fd[2];
	char b = 0;
	CHECK(pipe(fd) == 0);
	wfd = fd[1];
	CHECK(sig_catch(SIGUSR1, on_usr1_write, SA_RESTART) == 0);
	pid_t c = nagger(SIGUSR1);
	in_wait = 1;
	ssize_t n = read(fd[0], &b, 1);
	in_wait = 0;
	stop(c);
	CHECK(n == 1 && b == 'x' && runs_in_wait >= 2);
	close(fd[0]);
	close(fd[1]);
}

/* A condition wait, a join and a mutex lock run the handler inside
   and go on: a helper that blocks the signal ends each wait once the
   handler ran in it. */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int done;

static void *ender(void *arg)
{
	int what = (int)(long)arg;
	mask(SIG_BLOCK, SIGUSR1);
	if (what == 2)
		pthread_mutex_lock(&m);       /* held before main tries */
	while (!ran_in_wait)
		usleep(1000);
	if (what == 0) {
		pthread_mutex_lock(&m);
		done = 1;
		pthread_cond_signal(&cv);
	}
	pthread_mutex_unlock(&m);
	return 0;
}

static void waits(void)
{
	for (int what = 0; what < 3; what++) {
		handle(SA_RESTART);
		done = 0;
		pthread_t e;
		if (what == 0)
			pthread_mutex_lock(&m);
		CHECK(pthread_create(&e, 0, ender, (void *)(long)what) == 0);
		if (what == 2)
			while (pthread_mutex_trylock(&m) == 0)
				pthread_mutex_unlock(&m), sched_yield();
		pid_t c = nagger(SIGUSR1);
		in_wait = 1;
		if (what == 0)
			while (!done)
				pthread_cond_wait(&cv, &m);
		else if (what == 1)
			CHECK(pthread_join(e, 0) == 0);
		else
			CHECK(pthread_mutex_lock(&m) == 0);
		in_wait = 0;
		pthread_mutex_unlock(&m);
		stop(c);
		CHECK(ran_in_wait);
		if (what != 1)
			CHECK(pthread_join(e, 0) == 0);
	}
}

static void intr(const char *which)
{
	if (!which || !strcmp(which, "sleep"))
		sleeps();
	if (!which || !strcmp(which, "sem"))
		sems();
	if (!which || !strcmp(which, "suspend"))
		suspends();
	if (!which || !strcmp(which, "pipe"))
		pipes();
	if (!which || !strcmp(which, "restart"))
		pipes_restart();
	if (!which || !strcmp(which, "waits"))
		waits();
	signal(SIGUSR1, SIG_DFL);
}

/* ---- rtq ---- */

#define NRT 12
static int got_sig[3 * NRT + 8], got_val[3 * NRT + 8], ngot;

static void on_rt(int s, siginfo_t *si, void *u)
{
	(void)u;
	if (ngot < (int)(sizeof got_sig / sizeof got_sig[0])) {
		got_sig[ngot] = s;
		got_val[ngot] = si->si_value.sival_int;
	}
	ngot++;
}

static void rtq(void)
{
	struct sigaction a = { 0 };
	a.sa_sigaction = on_rt;
	a.sa_flags = SA_SIGINFO;
	sigemptyset(&a.sa_mask);         /* one handler at a time: in order */
	sigaddset(&a.sa_mask, SIGRTMIN);
	sigaddset(&a.sa_mask, SIGRTMIN + 1);
	sigaddset(&a.sa_mask, SIGUSR2);
	CHECK(sigaction(SIGRTMIN, &a, 0) == 0);
	CHECK(sigaction(SIGRTMIN + 1, &a, 0) == 0);
	CHECK(sigaction(SIGUSR2, &a, 0) == 0);
	mask(SIG_BLOCK, SIGRTMIN);
	mask(SIG_BLOCK, SIGRTMIN + 1);
	mask(SIG_BLOCK, SIGUSR2);
	pid_t c = fork();
	if (c == 0) {
		int bad = 0;
		for (int i = 0; i < NRT; i++) {
			bad += sigqueue(getppid(), SIGRTMIN + 1, (union sigval){ .sival_int = 100 + i }) != 0;
			bad += sigqueue(getppid(), SIGRTMIN, (union sigval){ .sival_int = i }) != 0;
			bad += sigqueue(getppid(), SIGUSR2, (union sigval){ .sival_int = i }) != 0;
		}
		_exit(bad);
	}
	CHECK(status_of(c) == 0);
	/* everything is in: the kernel holds it, or the library took it */
	sigset_t p;
	sigemptyset(&p);
	for (int i = 0; i < 100000 && !sigismember(&p, SIGRTMIN + 1); i++) {
		sched_yield();
		sigpending(&p);
	}
	sigset_t both;
	sigemptyset(&both);
	sigaddset(&both, SIGRTMIN);
	sigaddset(&both, SIGRTMIN + 1);
	sigaddset(&both, SIGUSR2);
	CHECK(pthread_sigmask(SIG_UNBLOCK, &both, 0) == 0);
	CHECK(ngot == 2 * NRT + 1);
	/* lowest first: SIGUSR2 (12) once, then SIGRTMIN's, then +1's */
	int ok = got_sig[0] == SIGUSR2;
	for (int i = 0; i < NRT; i++)
		ok &= got_sig[1 + i] == SIGRTMIN && got_val[1 + i] == i &&
		      got_sig[1 + NRT + i] == SIGRTMIN + 1 && got_val[1 + NRT + i] == 100 + i;
	CHECK(ok);
	if (!ok || ngot != 2 * NRT + 1)
		for (int i = 0; i < ngot && i < 3 * NRT + 8; i++)
			printf("psig2: rt %d: sig %d val %d\n", i, got_sig[i], got_val[i]);

	/* the limit: a child queues until EAGAIN, we then take them all */
	mask(SIG_BLOCK, SIGRTMIN);
	ngot = 0;
	c = fork();
	if (c == 0) {
		int n = 0;
		while (n < 100000 && sigqueue(getppid(), SIGRTMIN, (union sigval){ .sival_int = n }) == 0)
			n++;
		_exit(n < 100000 && errno == EAGAIN ? (n > 250 ? 250 : n) : 255);
	}
	int st = status_of(c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) >= NRT && WEXITSTATUS(st) < 250);
	int sent = WEXITSTATUS(st);
	mask(SIG_UNBLOCK, SIGRTMIN);
	CHECK(ngot == sent);
	printf("psig2: rt limit %d\n", sent);
}

/* ---- exec ---- */

static void on_usr1_any(int s)
{
	(void)s;
}

static int pending_has(int sig)
{
	sigset_t p;
	sigemptyset(&p);
	for (int i = 0; i < 100000 && !sigismember(&p, sig); i++) {
		sched_yield();
		sigpending(&p);
	}
	return sigismember(&p, sig);
}

/* A child ignores SIGUSR2, handles SIGUSR1, blocks SIGTERM and SIGINT,
   has SIGINT pending from itself and SIGTERM from its own child, and
   execs /bin/psig2 (the new image: execd); it ends with the new
   image's failures. */
static void exec_keeps(const char *pkg)
{
	pid_t c = fork();
	if (c == 0) {
		signal(SIGUSR2, SIG_IGN);
		signal(SIGUSR1, on_usr1_any);
		mask(SIG_BLOCK, SIGTERM);
		mask(SIG_BLOCK, SIGINT);
		kill(getpid(), SIGINT);
		pid_t g = fork();
		if (g == 0)
			_exit(kill(getppid(), SIGTERM) != 0);
		if (status_of(g) != 0 || !pending_has(SIGTERM) || !pending_has(SIGINT))
			_exit(98);
		char pk[32];
		snprintf(pk, sizeof pk, "pkg=%s", pkg);
		char *args[] = { "psig2", pk, "execd", 0 };
		execv("/bin/psig2", args);
		_exit(99);
	}
	int st = status_of(c);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		printf("psig2: exec'd child status %#x\n", st);
}

/* The image the exec made: SIGUSR2 still ignored (a kill of it does
   nothing), SIGUSR1 back to SIG_DFL, SIGTERM and SIGINT blocked and
   pending. */
static void execd(void)
{
	struct sigaction old;
	CHECK(sigaction(SIGUSR2, 0, &old) == 0 && old.sa_handler == SIG_IGN);
	CHECK(sigaction(SIGUSR1, 0, &old) == 0 && old.sa_handler == SIG_DFL);
	sigset_t m;
	CHECK(pthread_sigmask(SIG_BLOCK, 0, &m) == 0);
	CHECK(sigismember(&m, SIGTERM) && sigismember(&m, SIGINT) && !sigismember(&m, SIGUSR1));
	CHECK(pending_has(SIGTERM) && pending_has(SIGINT));
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	CHECK(sigwaitinfo(&set, 0) == SIGTERM);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	CHECK(sigwaitinfo(&set, 0) == SIGINT);
	pid_t c = fork();
	if (c == 0)
		_exit(kill(getppid(), SIGUSR2) != 0);
	CHECK(status_of(c) == 0);
	sigset_t p;
	CHECK(sigpending(&p) == 0 && !sigismember(&p, SIGUSR2));
}

int main(int argc, char **argv)
{
	const char *area = argc > 1 ? argv[1] : "hold";
	sh = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED);
	if (!strcmp(area, "hold"))
		hold();
	else if (!strcmp(area, "intr"))
		intr(argc > 2 ? argv[2] : 0);
	else if (!strcmp(area, "rtq"))
		rtq();
	else if (!strcmp(area, "exec"))
		exec_keeps(argc > 2 ? argv[2] : "fifo");
	else if (!strcmp(area, "execd")) {
		execd();
		if (failures)
			printf("psig2: execd: %d failures\n", failures);
		return failures;
	}
	else
		CHECK(!"no such area");
	struct result r;
	result_begin(&r, "psig2");
	result_str(&r, "area", area);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
