/*
 * pgrp: process groups, sessions and kill to many (kernel/pgrp.c,
 * ulib/libc/sigxsi.c, signal.c), with fork's children that sleep until
 * a signal ends them. Checks getpgrp/getsid/getppid of a boot program;
 * a group made of two children (setpgid from the parent and from the
 * child), killed with kill(-pg) while a third child in our own group
 * lives; kill(0) ending that child and running our own handler once;
 * kill(-1) ending every child but never us, then ESRCH when alone;
 * ESRCH for a pid that does not exist, 0 for a sibling in our session and
 * EPERM once it left it; setsid's
 * rules; setpgid's errors.
 */
#define CHECK_NAME "pgrp"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

static volatile int usr1;

static void on_usr1(int s)
{
	(void)s;
	usr1++;
}

/* A child that sleeps until a signal ends it (after fn, if any). */
static pid_t sleeper(void (*fn)(void))
{
	pid_t c = fork();
	if (c == 0) {
		if (fn)
			fn();
		for (;;)
			usleep(1000);
	}
	CHECK(c > 0);
	return c;
}

static int sig_of(pid_t c)
{
	int st = 0;
	return waitpid(c, &st, 0) == c && WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}

static int alive(pid_t c)
{
	int st;
	return waitpid(c, &st, WNOHANG) == 0;
}

static void own_group(void)
{
	CHECK(setpgid(0, 0) == 0 && getpgrp() == getpid());
}

/* In a child: the rules of setsid and of a sibling's kill. */
static void sess(void)
{
	pid_t me = getpid(), pg = getpgrp();
	int ok = pg != me && getppid() > 0;
	ok &= setsid() == me && getsid(0) == me && getpgrp() == me;
	errno = 0;
	ok &= setsid() == -1 && errno == EPERM;           /* a group leader now */
	errno = 0;
	ok &= kill(getppid(), 0) == 0;                    /* the parent: allowed */
	_exit(ok ? 0 : 1);
}

int main(void)
{
	struct result r;
	pid_t me = getpid();
	CHECK(getpgrp() == me && getpgid(0) == me && getsid(0) == 0 && getppid() == 0);
	errno = 0;
	CHECK(kill(999999, 0) == -1 && errno == ESRCH);
	errno = 0;
	CHECK(getpgid(999999) == -1 && errno == ESRCH);
	errno = 0;
	CHECK(setpgid(999999, 0) == -1 && errno == ESRCH);
	errno = 0;
	CHECK(setpgid(0, 999999) == -1 && errno == EPERM);
	errno = 0;
	CHECK(setsid() == -1 && errno == EPERM);          /* we lead our group */

	/* A group of two: a's own (set by the parent), b joins it. */
	pid_t a = sleeper(0), b = sleeper(0), c = sleeper(0);
	CHECK(getpgid(a) == me && setpgid(a, a) == 0 && getpgid(a) == a);
	CHECK(setpgid(b, a) == 0 && getpgid(b) == a && getpgid(c) == me);
	usleep(20000);
	CHECK(kill(-a, SIGTERM) == 0);
	CHECK(sig_of(a) == SIGTERM && sig_of(b) == SIGTERM && alive(c));
	errno = 0;
	CHECK(kill(-a, 0) == -1 && errno == ESRCH);        /* the group is gone */

	/* kill(0): c (our group) ends, and our own handler runs once. */
	signal(SIGUSR1, on_usr1);
	CHECK(kill(0, SIGUSR1) == 0 && usr1 == 1 && sig_of(c) == SIGUSR1);
	signal(SIGUSR1, SIG_DFL);        /* (a child would inherit the handler, and catch it) */

	/* kill(-1): every child, whatever its group, never us. */
	pid_t d = sleeper(own_group), e = sleeper(0);
	usleep(20000);
	CHECK(getpgid(d) == d);
	CHECK(kill(-1, SIGUSR1) == 0 && usr1 == 1);
	CHECK(sig_of(d) == SIGUSR1 && sig_of(e) == SIGUSR1);
	errno = 0;
	CHECK(kill(-1, SIGUSR1) == -1 && errno == ESRCH && usr1 == 1);

	/* setsid in a child; a sibling in our session may be signalled, one
	   that left it may not; our parent may. */
	pid_t s = fork();
	if (s == 0)
		sess();
	int st = -1;
	CHECK(waitpid(s, &st, 0) == s && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pid_t f = sleeper(0);
	pid_t g = fork();
	if (g == 0) {
		if (kill(f, 0) != 0 || setsid() < 0)
			_exit(2);
		errno = 0;
		_exit(kill(f, 0) == -1 && errno == EPERM ? 0 : 1);
	}
	CHECK(waitpid(g, &st, 0) == g && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pid_t h = sleeper(own_group);
	usleep(20000);
	errno = 0;
	CHECK(setpgid(h, me) == 0 && getpgid(h) == me);   /* back into ours */
	CHECK(kill(f, SIGKILL) == 0 && sig_of(f) == SIGKILL);
	CHECK(kill(h, SIGKILL) == 0 && sig_of(h) == SIGKILL);

	result_begin(&r, "pgrp");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
