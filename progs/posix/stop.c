/*
 * stop: stopped processes and who may signal whom (kernel/pstop.c,
 * psig.c, space.c). Children count in shared memory; a stopped child's
 * counts must not move across a period in which another child computes
 * (a round trip to a third process: counted, never timed). Checks:
 * SIGSTOP stops every thread of a child (on kthread each its own VP),
 * WUNTRACED reports it once, SIGCHLD says CLD_STOPPED; SIGCONT continues
 * it (WCONTINUED, CLD_CONTINUED); SA_NOCLDSTOP; SIGTSTP stops by default
 * and runs a handler instead when one is set; SIGCONT's handler runs
 * after the continue; raise(SIGSTOP) stops the caller until continued;
 * a timer expiring while stopped is delivered after the continue;
 * SIGKILL ends a stopped child; a sibling (same session) may stop and
 * continue another, one in another session gets EPERM; an orphan's
 * getppid is 1.
 */
#define CHECK_NAME "stop"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

static volatile long *shm;           /* [0..2] counts, [3] handler runs, [4] flags, [5] ppid */

static void drain(void);

/* Count for ever, letting the other threads of the VP run now and then
   (naive, tutor and prio switch threads only at a yield). */
static void *spin(void *a)
{
	volatile long *c = a;
	for (;;)
		if ((__atomic_add_fetch(c, 1, __ATOMIC_RELAXED) & 1023) == 0)
			sched_yield();
	return 0;
}

/* A child counting in shm[0] (and, with threads, in shm[1] and shm[2]). */
static pid_t counter(int threads)
{
	memset((void *)shm, 0, 8 * sizeof shm[0]);
	pid_t c = fork();
	if (c == 0) {
		pthread_t t;
		for (int i = 1; i <= threads; i++)
			pthread_create(&t, 0, spin, (void *)&shm[i]);
		spin((void *)&shm[0]);
	}
	CHECK(c > 0);
	while (__atomic_load_n(&shm[0], __ATOMIC_RELAXED) == 0 ||
	       (threads && (shm[1] == 0 || shm[2] == 0)))
		usleep(1000);
	return c;
}

/* A third process computes and ends: the stopped child had every chance
   to run meanwhile (the other CPU, the time slices around it). */
static void round_trip(void)
{
	pid_t b = fork();
	if (b == 0) {
		volatile long x = 0;
		for (long i = 0; i < 3000000; i++)
			x += i;
		usleep(20000);
		_exit(0);
	}
	int st;
	CHECK(waitpid(b, &st, 0) == b && WIFEXITED(st));
	drain();                             /* (its end's SIGCHLD) */
}

static long sum(void)
{
	return shm[0] + shm[1] + shm[2];
}

/* The next SIGCHLD (blocked: taken here), its code and status. */
static int chld(int *status)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	siginfo_t si;
	struct timespec ts = { 5, 0 };
	if (sigtimedwait(&s, &si, &ts) != SIGCHLD)
		return -1;
	*status = si.si_status;
	return si.si_code;
}

static int no_chld(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	struct timespec ts = { 0, 0 };
	return sigtimedwait(&s, 0, &ts) == -1 && errno == EAGAIN;
}

/* Take a SIGCHLD pending (ends told before their waits returned). */
static void drain(void)
{
	(void)no_chld();
}

static void stop_and_continue(int threads)
{
	pid_t a = counter(threads);
	int st = 0, s2 = 0;
	CHECK(kill(a, SIGSTOP) == 0);
	CHECK(waitpid(a, &st, WUNTRACED) == a && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	CHECK(chld(&s2) == CLD_STOPPED && s2 == SIGSTOP);
	long c1 = sum();
	round_trip();
	CHECK(sum() == c1);                                  /* no thread of it ran */
	CHECK(waitpid(a, &st, WUNTRACED | WNOHANG) == 0);    /* reported once */
	CHECK(kill(a, SIGCONT) == 0);
	CHECK(waitpid(a, &st, WCONTINUED) == a && WIFCONTINUED(st));
	CHECK(chld(&s2) == CLD_CONTINUED && s2 == SIGCONT);
	while (shm[0] == c1 || (threads && (shm[1] == 0 || shm[2] == 0)))
		usleep(1000);                                /* it runs again */
	long t1 = shm[1], t2 = shm[2];
	while (threads && (shm[1] == t1 || shm[2] == t2))
		usleep(1000);                                /* every thread */
	CHECK(kill(a, SIGKILL) == 0);
	CHECK(waitpid(a, &st, 0) == a && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	drain();
}

static void on_tstp(int s)
{
	(void)s;
	shm[3]++;
}

static void on_alrm(int s)
{
	(void)s;
	shm[3]++;
}

static void tstp_and_nocldstop(void)
{
	/* SIGTSTP's default: a stop; SA_NOCLDSTOP: no SIGCHLD for it. */
	struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_NOCLDSTOP };
	CHECK(sigaction(SIGCHLD, &sa, 0) == 0);
	pid_t a = counter(0);
	int st = 0;
	CHECK(kill(a, SIGTSTP) == 0);
	CHECK(waitpid(a, &st, WUNTRACED) == a && WIFSTOPPED(st) && WSTOPSIG(st) == SIGTSTP);
	long c1 = shm[0];
	round_trip();
	CHECK(shm[0] == c1);
	CHECK(no_chld());
	/* SIGKILL ends a stopped child. */
	CHECK(kill(a, SIGKILL) == 0);
	CHECK(waitpid(a, &st, 0) == a && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	sa.sa_flags = 0;
	CHECK(sigaction(SIGCHLD, &sa, 0) == 0);
	drain();                                             /* (its end's) */

	/* A SIGTSTP handler runs instead; SIGTTIN ignored: nothing. */
	memset((void *)shm, 0, 8 * sizeof shm[0]);
	pid_t h = fork();
	if (h == 0) {
		signal(SIGTSTP, on_tstp);
		signal(SIGTTIN, SIG_IGN);
		shm[4] = 1;
		spin((void *)&shm[0]);
	}
	while (!shm[4])
		usleep(1000);
	CHECK(kill(h, SIGTSTP) == 0 && kill(h, SIGTTIN) == 0);
	while (!shm[3])
		usleep(1000);
	long c1b = shm[0];
	while (shm[0] == c1b)
		usleep(1000);                                /* still running */
	CHECK(waitpid(h, &st, WUNTRACED | WNOHANG) == 0);
	CHECK(kill(h, SIGKILL) == 0 && waitpid(h, &st, 0) == h);
	drain();
}

static void on_cont(int s)
{
	(void)s;
	shm[3] = 100 + (long)(shm[4] == 2);   /* ran after the continue */
}

static void self_and_handlers(void)
{
	/* raise(SIGSTOP): stopped until continued. */
	memset((void *)shm, 0, 8 * sizeof shm[0]);
	pid_t d = fork();
	if (d == 0) {
		signal(SIGCONT, on_cont);
		shm[4] = 1;
		raise(SIGSTOP);
		shm[4] = 2;
		shm[0] = 1;
		_exit(7);
	}
	int st = 0, s2;
	CHECK(waitpid(d, &st, WUNTRACED) == d && WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP);
	CHECK(chld(&s2) == CLD_STOPPED);
	round_trip();
	CHECK(shm[4] == 1 && shm[3] == 0);
	CHECK(kill(d, SIGCONT) == 0);
	CHECK(waitpid(d, &st, 0) == d && WIFEXITED(st) && WEXITSTATUS(st) == 7);
	CHECK(shm[4] == 2 && shm[3] >= 100);                 /* its SIGCONT handler ran */
	drain();

	/* A timer that expires while stopped is delivered after the continue. */
	memset((void *)shm, 0, 8 * sizeof shm[0]);
	pid_t f = fork();
	if (f == 0) {
		signal(SIGALRM, on_alrm);
		struct itimerval it = { { 0, 0 }, { 0, 5000 } };
		setitimer(ITIMER_REAL, &it, 0);
		shm[4] = 1;
		spin((void *)&shm[0]);
	}
	while (!shm[4])
		usleep(100);
	CHECK(kill(f, SIGSTOP) == 0);
	CHECK(waitpid(f, &st, WUNTRACED) == f && WIFSTOPPED(st));
	long h1 = shm[3], c1 = shm[0];
	usleep(20000);
	round_trip();
	CHECK(shm[3] == h1 && shm[0] == c1);
	CHECK(kill(f, SIGCONT) == 0);
	while (shm[3] == 0)
		usleep(1000);
	CHECK(shm[3] == 1);
	CHECK(kill(f, SIGKILL) == 0 && waitpid(f, &st, 0) == f);
	drain();
}

static void siblings_and_orphans(void)
{
	/* A sibling in our session may stop and continue another. */
	pid_t a = counter(0);
	int st = 0;
	pid_t y = fork();
	if (y == 0)
		_exit(kill(a, 0) == 0 && kill(a, SIGSTOP) == 0 ? 0 : 1);
	CHECK(waitpid(y, &st, 0) == y && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(waitpid(a, &st, WUNTRACED) == a && WIFSTOPPED(st));
	long c1 = shm[0];
	round_trip();
	CHECK(shm[0] == c1);
	y = fork();
	if (y == 0)
		_exit(kill(a, SIGCONT) == 0 ? 0 : 1);
	CHECK(waitpid(y, &st, 0) == y && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(waitpid(a, &st, WCONTINUED) == a && WIFCONTINUED(st));
	/* One that left our session may not. */
	y = fork();
	if (y == 0) {
		if (setsid() < 0)
			_exit(2);
		_exit(kill(a, 0) == -1 && errno == EPERM ? 0 : 1);
	}
	CHECK(waitpid(y, &st, 0) == y && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(kill(a, SIGKILL) == 0 && waitpid(a, &st, 0) == a);

	/* An orphan's parent is 1 (Linux's init), not 0. */
	shm[5] = -1;
	pid_t g = fork();
	if (g == 0) {
		pid_t me = getpid();
		if (fork() == 0) {
			while (getppid() == me)
				usleep(1000);
			shm[5] = getppid();
			_exit(0);
		}
		_exit(0);
	}
	CHECK(waitpid(g, &st, 0) == g);
	while (shm[5] == -1)
		usleep(1000);
	CHECK(shm[5] == 1);
	drain();
}

int main(void)
{
	shm = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	sigprocmask(SIG_BLOCK, &s, 0);
	stop_and_continue(0);
	stop_and_continue(2);
	tstp_and_nocldstop();
	self_and_handlers();
	siblings_and_orphans();
	struct result r;
	result_begin(&r, "stop");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
