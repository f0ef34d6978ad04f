/*
 * psig: signals between processes (kernel/psig.c, ulib/libc/signal.c,
 * proc.c, waitid.c). A child's kill and sigqueue of its parent run the
 * parent's handler (si_pid, si_code, si_uid, si_value) and reach its
 * sigwaitinfo; kill(0) and kill(-pg) run the handlers of several
 * children; a handler runs in a thread that only computes, within a
 * bound counted in its VP's quanta; SIGCHLD with si_pid, si_code and
 * si_status for an exit and a kill; SIGCHLD ignored, and SA_NOCLDWAIT,
 * reap the children (wait: ECHILD); waitpid(0) and waitpid(-pg) wait
 * only for that group; waitid. Hostile: bad signal numbers and
 * dispositions, a bad buffer (the signal is given back), a child
 * flooding its parent (at most one EV_PSIG per VP per take), a target
 * that ends while it is signalled.
 */
#define CHECK_NAME "psig"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animart/upcall.h>
#include <anima/psig.h>
#include <check.h>

static volatile int usr1, usr2, chld;
static siginfo_t last1, last_chld;

static void on_usr1(int s, siginfo_t *si, void *u)
{
	(void)s, (void)u;
	last1 = *si;
	usr1++;
}

static void on_chld(int s, siginfo_t *si, void *u)
{
	(void)s, (void)u;
	last_chld = *si;
	chld++;
}

static void catch(int sig, void (*fn)(int, siginfo_t *, void *), int flags)
{
	struct sigaction a = { 0 };
	a.sa_sigaction = fn;
	a.sa_flags = SA_SIGINFO | flags;
	CHECK(sigaction(sig, &a, 0) == 0);
}

static void mask(int how, int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	CHECK(sigprocmask(how, &s, 0) == 0);
}

/* Wait until *n reaches want, the signal blocked outside sigsuspend. */
static void await(volatile int *n, int want)
{
	sigset_t none;
	sigemptyset(&none);
	while (*n < want)
		sigsuspend(&none);
}

/* (Our handlers have no SA_RESTART: a signal that comes during the
   wait ends it with EINTR, as on Linux, so wait again.) */
static int status_of(pid_t c)
{
	int st = -1;
	pid_t r;
	while ((r = waitpid(c, &st, 0)) < 0 && errno == EINTR)
		;
	return r == c ? st : -1;
}

/* A child's kill and sigqueue of its parent; sigwaitinfo sees one. */
static void to_parent(void)
{
	catch(SIGUSR1, on_usr1, 0);
	mask(SIG_BLOCK, SIGUSR1);
	pid_t c = fork();
	if (c == 0)
		_exit(kill(getppid(), SIGUSR1) == 0 ? 0 : 1);
	await(&usr1, 1);
	CHECK(usr1 == 1 && last1.si_pid == c && last1.si_code == SI_USER && last1.si_uid == 0);
	CHECK(status_of(c) == 0);

	c = fork();
	if (c == 0)
		_exit(sigqueue(getppid(), SIGUSR1, (union sigval){ .sival_int = 42 }) == 0 ? 0 : 1);
	await(&usr1, 2);
	CHECK(last1.si_pid == c && last1.si_code == SI_QUEUE && last1.si_value.sival_int == 42);
	CHECK(status_of(c) == 0);

	c = fork();
	if (c == 0)
		_exit(kill(getppid(), SIGUSR1) == 0 ? 0 : 1);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	siginfo_t si;
	CHECK(sigwaitinfo(&set, &si) == SIGUSR1 && si.si_pid == c && usr1 == 2);
	CHECK(status_of(c) == 0);
	mask(SIG_UNBLOCK, SIGUSR1);
}

/* A child that waits for one SIGUSR1 (inherited handler and mask), and
   ends with how many it had. */
static pid_t waiter(void)
{
	pid_t c = fork();
	if (c == 0) {
		usr1 = 0;
		await(&usr1, 1);
		_exit(usr1);
	}
	CHECK(c > 0);
	return c;
}

/* kill(0) runs the handlers of two children and ours; kill(-pg) those
   of a group of two, not ours. */
static void many(void)
{
	catch(SIGUSR1, on_usr1, 0);
	mask(SIG_BLOCK, SIGUSR1);
	pid_t a = waiter(), b = waiter();
	mask(SIG_UNBLOCK, SIGUSR1);
	usr1 = 0;
	CHECK(kill(0, SIGUSR1) == 0 && usr1 == 1);
	CHECK(status_of(a) == 1 << 8 && status_of(b) == 1 << 8);

	mask(SIG_BLOCK, SIGUSR1);
	pid_t c = waiter(), d = waiter();
	mask(SIG_UNBLOCK, SIGUSR1);
	CHECK(setpgid(c, c) == 0 && setpgid(d, c) == 0);
	CHECK(kill(-c, SIGUSR1) == 0 && usr1 == 1);
	CHECK(status_of(c) == 1 << 8 && status_of(d) == 1 << 8);
}

/* The handler runs in a worker that only computes: main blocks the
   signal; the worker reads nothing but memory (its VP's pseudo page)
   and stops after QUANTA quanta of its VPs without it. */
#define QUANTA 200
static pthread_t worker_id;
static volatile int in_worker, got2;
static int quanta;

static void on_usr2(int s)
{
	(void)s;
	in_worker = pthread_equal(pthread_self(), worker_id);
	got2 = 1;
}

static void *spin(void *arg)
{
	(void)arg;
	mask(SIG_UNBLOCK, SIGUSR2);
	uint64_t last = 0;
	uint32_t vp = ~0u;
	int n = 0;
	while (!got2 && n < QUANTA) {
		const struct pseudo_page *pp = vp_pseudo();
		uint64_t q = __atomic_load_n(&pp->quantum_start, __ATOMIC_RELAXED);
		if (q != last || pp->vp_index != vp) {
			last = q;
			vp = pp->vp_index;
			n++;
		}
	}
	quanta = n;
	return 0;
}

static void compute(void)
{
	signal(SIGUSR2, on_usr2);
	mask(SIG_BLOCK, SIGUSR2);
	CHECK(pthread_create(&worker_id, 0, spin, 0) == 0);
	pid_t c = fork();
	if (c == 0)
		_exit(kill(getppid(), SIGUSR2) == 0 ? 0 : 1);
	CHECK(pthread_join(worker_id, 0) == 0);
	CHECK(got2 && in_worker && quanta < QUANTA);
	CHECK(status_of(c) == 0);
	mask(SIG_UNBLOCK, SIGUSR2);
}

/* SIGCHLD: an exit and a kill, with who and how. */
static void sigchld(void)
{
	catch(SIGCHLD, on_chld, SA_RESTART);
	mask(SIG_BLOCK, SIGCHLD);
	pid_t c = fork();
	if (c == 0)
		_exit(7);
	await(&chld, 1);
	CHECK(last_chld.si_signo == SIGCHLD && last_chld.si_pid == c);
	CHECK(last_chld.si_code == CLD_EXITED && last_chld.si_status == 7);
	CHECK(status_of(c) == 7 << 8);
	c = fork();
	if (c == 0)
		for (;;)
			pause();
	CHECK(kill(c, SIGTERM) == 0);
	await(&chld, 2);
	CHECK(last_chld.si_pid == c && last_chld.si_code == CLD_KILLED &&
	      last_chld.si_status == SIGTERM);
	CHECK(status_of(c) == SIGTERM);
	signal(SIGCHLD, SIG_DFL);
	mask(SIG_UNBLOCK, SIGCHLD);
}

/* SIGCHLD ignored, then SA_NOCLDWAIT: wait finds no child once both end. */
static void reap(void)
{
	for (int round = 0; round < 2; round++) {
		struct sigaction a = { 0 };
		a.sa_handler = round ? SIG_DFL : SIG_IGN;
		a.sa_flags = round ? SA_NOCLDWAIT : 0;
		CHECK(sigaction(SIGCHLD, &a, 0) == 0);
		for (int i = 0; i < 2; i++)
			if (fork() == 0) {
				usleep(2000);
				_exit(3);
			}
		int st;
		errno = 0;
		CHECK(wait(&st) == -1 && errno == ECHILD);
		signal(SIGCHLD, SIG_DFL);
	}
}

/* waitpid(0) and waitpid(-pg) wait only for children of that group. */
static void groups(void)
{
	pid_t a = fork();
	if (a == 0) {
		setpgid(0, 0);
		usleep(20000);
		_exit(21);
	}
	setpgid(a, a);                   /* (whichever runs first) */
	pid_t b = fork();
	if (b == 0) {
		usleep(5000);
		_exit(22);
	}
	int st = 0;
	CHECK(waitpid(0, &st, 0) == b && WEXITSTATUS(st) == 22);
	errno = 0;
	CHECK(waitpid(0, &st, WNOHANG) == -1 && errno == ECHILD);
	CHECK(waitpid(-a, &st, 0) == a && WEXITSTATUS(st) == 21);
	errno = 0;
	CHECK(waitpid(-a, &st, 0) == -1 && errno == ECHILD);
	errno = 0;
	CHECK(waitpid(-999999, &st, WNOHANG) == -1 && errno == ECHILD);
}

static void waitids(void)
{
	siginfo_t si;
	pid_t c = fork();
	if (c == 0)
		_exit(5);
	CHECK(waitid(P_PID, c, &si, WEXITED | WNOWAIT) == 0 && si.si_pid == c &&
	      si.si_code == CLD_EXITED && si.si_status == 5 && si.si_signo == SIGCHLD);
	CHECK(waitid(P_PID, c, &si, WEXITED) == 0 && si.si_pid == c && si.si_status == 5);
	errno = 0;
	CHECK(waitid(P_PID, c, &si, WEXITED) == -1 && errno == ECHILD);
	pid_t d = fork();
	if (d == 0)
		for (;;)
			pause();
	CHECK(waitid(P_ALL, 0, &si, WEXITED | WNOHANG) == 0 && si.si_pid == 0);
	CHECK(kill(d, SIGKILL) == 0);
	CHECK(waitid(P_PGID, 0, &si, WEXITED) == 0 && si.si_pid == d &&
	      si.si_code == CLD_KILLED && si.si_status == SIGKILL);
	errno = 0;
	CHECK(waitid(P_ALL, 0, &si, 0) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(waitid((idtype_t)7, 0, &si, WEXITED) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(waitid(P_ALL, 0, &si, WEXITED) == -1 && errno == ECHILD);
}

/* A bad buffer gives the signal back (hostile's child): bits of what
   failed. */
static int give_back(void)
{
	int bad = 0;
	catch(SIGUSR1, on_usr1, 0);
	signal(SIGUSR2, on_usr2);
	mask(SIG_BLOCK, SIGUSR2);
	usr1 = 0;
	pid_t c = fork();
	if (c == 0) {                    /* our go first, then its signal */
		sigset_t go;
		int sig;
		sigemptyset(&go);
		sigaddset(&go, SIGUSR2);
		sigwait(&go, &sig);
		_exit(kill(getppid(), SIGUSR1) == 0 ? 0 : 1);
	}
	static struct spin lk = SPIN_INIT;
	spin_lock(&lk);
	bad |= (kill(c, SIGUSR2) != 0) << 0;
	long pend = 0;
	for (int i = 0; i < 1000000 && !(pend & (1L << SIGUSR1)); i++) {
		pend = syscall2(SYS_getinfo, INFO_SIGPEND, 0);
		sys_yield();
	}
	bad |= !(pend & (1L << SIGUSR1)) << 1;
	bad |= (syscall2(SYS_sigtake, 8, 8) != -EFAULT) << 2;
	bad |= (syscall2(SYS_sigtake, 0x7ffffffff000L, 8) != -EFAULT) << 3;
	bad |= (syscall2(SYS_sigtake, -4096L, 8) != -EFAULT) << 7;
	bad |= !(syscall2(SYS_getinfo, INFO_SIGPEND, 0) & (1L << SIGUSR1)) << 4;   /* given back */
	bad |= (syscall2(SYS_getinfo, INFO_SIGPEND, 3) != -EINVAL) << 5;
	spin_unlock(&lk);
	mask(SIG_BLOCK, SIGUSR1);
	await(&usr1, 1);                  /* and it still runs the handler */
	mask(SIG_UNBLOCK, SIGUSR1);
	bad |= !(usr1 == 1 && last1.si_pid == c && status_of(c) == 0) << 6;
	return bad;
}

/* Bad numbers; a bad buffer gives the signal back. The runtime takes a
   pending signal at our VP's next upcall, except while we hold a spin
   lock (crit): so a child of one VP holds one while it looks at the
   kernel's set (give_back). */
static void hostile(void)
{
	CHECK(syscall2(SYS_sigdisp, 0, SIGD_CATCH) == -EINVAL);
	CHECK(syscall2(SYS_sigdisp, 64, SIGD_CATCH) == -EINVAL);
	CHECK(syscall2(SYS_sigdisp, -1L, SIGD_CATCH) == -EINVAL);
	CHECK(syscall2(SYS_sigdisp, SIGKILL, SIGD_CATCH) == -EINVAL);
	CHECK(syscall2(SYS_sigdisp, SIGSTOP, SIGD_IGN) == -EINVAL);
	CHECK(syscall2(SYS_sigdisp, SIGUSR1, 3) == -EINVAL);
	CHECK(syscall2(SYS_sigdisp, SIGUSR1, SIGD_CATCH | SIGD_NOCLDWAIT) == -EINVAL);
	CHECK(syscall2(SYS_sigtake, 0, 0) == -EINVAL);
	CHECK(syscall3(SYS_sigqueue, getpid(), 0, 0) == -EINVAL);
	CHECK(syscall3(SYS_sigqueue, 999999, SIGUSR1, 0) == -ESRCH);
	CHECK(syscall3(SYS_sigqueue, -1, SIGUSR1, 0) == -ESRCH);
	CHECK(syscall3(SYS_sigqueue, getpid(), 64, 0) == -EINVAL);
	errno = 0;
	CHECK(kill(getpid() + 100000, 65) == -1 && errno == EINVAL);

	/* In a child: it has one VP (a fork's), which the lock keeps from
	   taking the signal; ours would hand it from an idle one at once.
	   Each failed look is a bit of its status. */
	pid_t h = fork();
	if (h == 0)
		_exit(give_back());
	int st = status_of(h), bad = WIFEXITED(st) ? WEXITSTATUS(st) : 0xff;
	for (int i = 0; i < 8; i++)
		CHECK(!(bad & (1 << i)));
}

#define FLOOD 20000
static int flood_ran;
static long notices, takes, nvps;

/* A child floods us; a target that ends while it is signalled. */
static void flood(void)
{
	catch(SIGUSR1, on_usr1, 0);
	usr1 = 0;
	pid_t c = fork();
	if (c == 0) {
		int bad = 0;
		for (int i = 0; i < FLOOD; i++)
			bad += kill(getppid(), SIGUSR1) != 0;
		_exit(bad != 0);
	}
	CHECK(status_of(c) == 0);
	mask(SIG_BLOCK, SIGUSR1);
	await(&usr1, 1);
	mask(SIG_UNBLOCK, SIGUSR1);
	usleep(1000);
	flood_ran = usr1;
	notices = syscall2(SYS_getinfo, INFO_SIGPEND, 1);
	takes = syscall2(SYS_getinfo, INFO_SIGPEND, 2);
	nvps = vp_pseudo()->nvp;
	CHECK(flood_ran >= 1 && flood_ran <= FLOOD);
	CHECK(notices <= nvps * (takes + 1));      /* one round per take, whatever is sent */

	c = fork();                      /* ends as we signal it */
	if (c == 0) {
		usleep(1000);
		_exit(9);
	}
	int i = 0;
	while (i < 10000000 && kill(c, SIGUSR1) == 0)
		i++;
	CHECK(errno == ESRCH);
	CHECK(status_of(c) == 9 << 8);
}

int main(void)
{
	struct result r;
	to_parent();
	many();
	compute();
	sigchld();
	reap();
	groups();
	waitids();
	hostile();
	flood();
	result_begin(&r, "psig");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_int(&r, "quanta", quanta);
	result_int(&r, "flood_ran", flood_ran);
	result_int(&r, "notices", notices);
	result_int(&r, "takes", takes);
	result_int(&r, "nvp", nvps);
	result_end(&r);
	return failures != 0;
}
