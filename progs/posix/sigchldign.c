/*
 * sigchldign: SIGCHLD set to SIG_IGN (by signal or sigaction), whether
 * or not every thread blocks it, has the children collected at their
 * end, as on Linux: a later wait blocks until they have all ended and
 * then fails with ECHILD; SA_NOCLDWAIT the same; an exec keeps SIG_IGN
 * for SIGCHLD and its collecting. And sigaction(sig, 0, &old) gives
 * back the flags and mask that were set; after SA_RESETHAND fired the
 * action reads SIG_DFL with its flags and mask kept (Linux). Before, a blocked SIG_IGN SIGCHLD left its
 * children zombies (ulib held it for the mask: the kernel caught it).
 *
 * A child's end or stop sends no SIGCHLD then (Linux); a kill does. An
 * exec drops SA_NOCLDWAIT of a caught SIGCHLD (Linux clears the flags).
 *
 * argv[1]: ign (default), flags, exec; execig, execdf: images exec made.
 * @result {"name": "sigchldign", "checks": N, "failures": F}
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "sigchldign"
#include <check.h>

static void block_chld(int on)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGCHLD);
	sigprocmask(on ? SIG_BLOCK : SIG_UNBLOCK, &s, 0);
}

/* n children that end (the last after a pause, so some end while the
   wait waits): the wait finds none to report, ECHILD. */
static int all_collected(int n)
{
	for (int i = 0; i < n; i++) {
		pid_t c = fork();
		if (c == 0) {
			if (i == n - 1)
				usleep(20000);
			_exit(i);
		}
		if (c < 0)
			return 0;
	}
	usleep(5000);
	errno = 0;
	int st, r = wait(&st);
	int ok = r == -1 && errno == ECHILD;
	errno = 0;
	r = waitpid(-1, &st, WNOHANG);
	if (!ok)
		printf("sigchldign: wait gave %d errno %d\n", r, errno);
	return ok && r == -1 && errno == ECHILD;
}

static void chld(int sig) { (void)sig; }

static int chld_pending(void)
{
	sigset_t p;
	sigpending(&p);
	return sigismember(&p, SIGCHLD) == 1;
}

/* A child's stop is still reported to waitpid (WUNTRACED), and once
   killed the child is collected. */
static int stop_told(void)
{
	pid_t c = fork();
	if (c == 0) {
		raise(SIGSTOP);
		for (;;)
			pause();
	}
	int st = 0, r = waitpid(c, &st, WUNTRACED);
	int ok = r == c && WIFSTOPPED(st);
	kill(c, SIGKILL);
	errno = 0;
	r = waitpid(c, &st, 0);
	return ok && r == -1 && errno == ECHILD;
}

static void ign_area(void)
{
	signal(SIGCHLD, SIG_IGN);
	CHECK(all_collected(3));
	block_chld(1);
	CHECK(all_collected(3));
	block_chld(0);
	signal(SIGCHLD, SIG_DFL);
	block_chld(1);                   /* blocked first, then SIG_IGN */
	struct sigaction a = { .sa_handler = SIG_IGN };
	CHECK(sigaction(SIGCHLD, &a, 0) == 0);
	CHECK(all_collected(3));
	CHECK(!chld_pending());          /* Linux sends none for a child */
	CHECK(stop_told());
	CHECK(!chld_pending());
	kill(getpid(), SIGCHLD);         /* a kill is held: blocked, never ignored at sending */
	CHECK(chld_pending());
	block_chld(0);
	CHECK(!chld_pending());
	CHECK(all_collected(2));
	a = (struct sigaction){ .sa_handler = chld, .sa_flags = SA_NOCLDWAIT };
	CHECK(sigaction(SIGCHLD, &a, 0) == 0);
	CHECK(all_collected(2));
	block_chld(1);
	CHECK(all_collected(2));
	block_chld(0);
	/* back to SIG_DFL: a child is reported again */
	signal(SIGCHLD, SIG_DFL);
	pid_t c = fork();
	if (c == 0)
		_exit(7);
	int st = 0;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 7);
}

static volatile int hits;
static void once(int sig) { (void)sig; hits++; }
static void oncei(int sig, siginfo_t *si, void *c) { (void)si; (void)c; once(sig); }

static void flags_area(void)
{
	static const int fl[] = { SA_RESETHAND, SA_NODEFER, SA_RESTART, SA_SIGINFO,
				  SA_ONSTACK, SA_RESETHAND | SA_NODEFER | SA_RESTART };
	for (unsigned i = 0; i < sizeof fl / sizeof fl[0]; i++) {
		struct sigaction a = { .sa_handler = once, .sa_flags = fl[i] }, o;
		sigemptyset(&a.sa_mask);
		sigaddset(&a.sa_mask, SIGUSR2);
		sigaddset(&a.sa_mask, SIGTERM);
		CHECK(sigaction(SIGUSR1, &a, 0) == 0);
		memset(&o, 0, sizeof o);
		CHECK(sigaction(SIGUSR1, 0, &o) == 0);
		CHECK((o.sa_flags & fl[i]) == fl[i]);
		CHECK(sigismember(&o.sa_mask, SIGUSR2) == 1 && sigismember(&o.sa_mask, SIGTERM) == 1 &&
		      sigismember(&o.sa_mask, SIGINT) == 0);
		CHECK(o.sa_handler == once);
	}
	static const int cf[] = { SA_NOCLDSTOP, SA_NOCLDWAIT, SA_NOCLDSTOP | SA_NOCLDWAIT | SA_RESTART };
	for (unsigned i = 0; i < sizeof cf / sizeof cf[0]; i++) {
		struct sigaction a = { .sa_handler = chld, .sa_flags = cf[i] }, o;
		CHECK(sigaction(SIGCHLD, &a, 0) == 0);
		memset(&o, 0, sizeof o);
		CHECK(sigaction(SIGCHLD, 0, &o) == 0 && (o.sa_flags & cf[i]) == cf[i]);
	}
	signal(SIGCHLD, SIG_DFL);
	/* SA_RESETHAND: once run, the action reads SIG_DFL, with the flags
	   and mask kept (Linux resets only the handler) */
	int rf = SA_RESETHAND | SA_RESTART | SA_NODEFER;
	struct sigaction a = { .sa_handler = once, .sa_flags = rf }, o;
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGTERM);
	CHECK(sigaction(SIGUSR1, &a, 0) == 0);
	raise(SIGUSR1);
	CHECK(hits == 1);
	memset(&o, 0xff, sizeof o);
	CHECK(sigaction(SIGUSR1, 0, &o) == 0 && o.sa_handler == SIG_DFL);
	CHECK((o.sa_flags & (rf | SA_SIGINFO)) == rf);
	CHECK(sigismember(&o.sa_mask, SIGTERM) == 1 && sigismember(&o.sa_mask, SIGINT) == 0);
	a = (struct sigaction){ .sa_sigaction = oncei, .sa_flags = SA_RESETHAND | SA_SIGINFO };
	sigemptyset(&a.sa_mask);
	CHECK(sigaction(SIGUSR1, &a, 0) == 0);
	raise(SIGUSR1);
	CHECK(hits == 2);
	CHECK(sigaction(SIGUSR1, 0, &o) == 0 && o.sa_handler == SIG_DFL &&
	      (o.sa_flags & (SA_RESETHAND | SA_SIGINFO)) == (SA_RESETHAND | SA_SIGINFO));
	signal(SIGUSR1, SIG_DFL);
	/* the old action an install gives back */
	struct sigaction b = { .sa_handler = SIG_IGN };
	a = (struct sigaction){ .sa_handler = once, .sa_flags = SA_RESTART | SA_NODEFER | SA_RESETHAND };
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGALRM);
	CHECK(sigaction(SIGUSR2, &a, 0) == 0);
	CHECK(sigaction(SIGUSR2, &b, &o) == 0 && o.sa_handler == once &&
	      (o.sa_flags & (SA_RESTART | SA_NODEFER | SA_RESETHAND)) ==
	      (SA_RESTART | SA_NODEFER | SA_RESETHAND) && sigismember(&o.sa_mask, SIGALRM) == 1);
}

/* The image an exec made with SIGCHLD SIG_IGN (blocked if argv says). */
static void execig(void)
{
	struct sigaction o;
	CHECK(sigaction(SIGCHLD, 0, &o) == 0 && o.sa_handler == SIG_IGN);
	CHECK(all_collected(2));
}

/* The image an exec made with a caught SIGCHLD with SA_NOCLDWAIT: SIG_DFL
   now, without the flag (Linux): a child is reported. */
static void execdf(void)
{
	struct sigaction o;
	CHECK(sigaction(SIGCHLD, 0, &o) == 0 && o.sa_handler == SIG_DFL);
	pid_t c = fork();
	if (c == 0)
		_exit(5);
	int st = 0;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 5);
}

/* how: 0 SIG_IGN, 1 SIG_IGN blocked, 2 caught with SA_NOCLDWAIT */
static void exec_one(const char *pkg, int how)
{
	pid_t c = fork();
	if (c == 0) {
		struct sigaction a = { .sa_handler = how == 2 ? chld : SIG_IGN,
				       .sa_flags = how == 2 ? SA_NOCLDWAIT : 0 };
		sigaction(SIGCHLD, &a, 0);
		if (how == 1)
			block_chld(1);
		char pk[32];
		snprintf(pk, sizeof pk, "pkg=%s", pkg);
		char *args[] = { "sigchldign", pk, how == 2 ? "execdf" : "execig", 0 };
		execv("/bin/sigchldign", args);
		_exit(99);
	}
	int st = -1;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(int argc, char **argv)
{
	const char *area = argc > 1 ? argv[1] : "ign";
	const char *pkg = argc > 2 ? argv[2] : "fifo";
	if (!strcmp(area, "execig") || !strcmp(area, "execdf")) {
		if (area[5] == 'g')
			execig();
		else
			execdf();
		if (failures)
			printf("sigchldign: execig: %d failures\n", failures);
		return failures;
	}
	if (!strcmp(area, "flags"))
		flags_area();
	else if (!strcmp(area, "exec")) {
		exec_one(pkg, 0);
		exec_one(pkg, 1);
		exec_one(pkg, 2);
	} else
		ign_area();
	printf("@result {\"name\": \"sigchldign\", \"area\": \"%s\", \"checks\": %d, \"failures\": %d}\n",
	       area, checks, failures);
	return 0;
}
