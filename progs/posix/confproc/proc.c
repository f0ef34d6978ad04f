/*
 * Process groups and sessions, kill to pids and groups, SIGCHLD.
 */
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "conf.h"

static volatile int got_usr1, got_chld, chld_pid;

static void onusr1(int s) { (void)s; got_usr1++; }
static void onchld(int s, siginfo_t *si, void *u)
{
	(void)s, (void)u;
	got_chld++;
	chld_pid = si->si_pid;
}

/* a child that waits on the pipe (or dies), then exits with st */
static pid_t kid(int rfd, int st)
{
	pid_t p = fork();
	if (p == 0) {
		char c;
		read(rfd, &c, 1);
		_exit(st);
	}
	return p;
}

void conf_pgrp(void)
{
	conf_area = "pgrp";
	pid_t me = getpid();
	K(getpgrp() == getpgid(0) && getpgid(me) == getpgid(0));
	K(getsid(0) == getsid(me) && getsid(0) >= 0);
	KERR(getpgid(99999), ESRCH);
	KERR(getsid(99999), ESRCH);
	KERR(setpgid(99999, 0), ESRCH);
	KERR(setpgid(0, -1), EINVAL);
	int fds[2];
	pipe(fds);
	/* a child leaves the group, then the parent moves it back */
	pid_t p = kid(fds[0], 0);
	K(getpgid(p) == getpgrp());
	K(setpgid(p, p) == 0 && getpgid(p) == p);
	K(setpgid(p, getpgrp()) == 0 && getpgid(p) == getpgrp());
	KERR(setpgid(p, 99999), EPERM);       /* no such group in the session */
	write(fds[1], "x", 1);
	K(conf_status(p) == 0);
	/* a child in a new session: not movable, its own leader */
	int s2[2];
	pipe(s2);
	p = fork();
	if (p == 0) {
		pid_t s = setsid();
		char c = s == getpid() && getsid(0) == s && getpgrp() == s;
		KERR(setsid(), EPERM);             /* now a group leader */
		KERR(setpgid(0, me), EPERM);      /* another session's group */
		write(s2[1], &c, 1);
		read(fds[0], &c, 1);
		_exit(0);
	}
	char c = 0;
	K(read(s2[0], &c, 1) == 1 && c == 1);
	KERR(setpgid(p, p), EPERM);            /* a session leader */
	KERR(setpgid(p, getpgrp()), EPERM);
	write(fds[1], "x", 1);
	K(conf_status(p) == 0);
	/* a child that exec'd: EACCES (its new image says it runs on s2,
	   then waits for fds) */
	p = fork();
	if (p == 0) {
		char pkg[32];
		snprintf(pkg, sizeof pkg, "pkg=%s", conf_pkg);
		char *v[] = { "/bin/confproc", pkg, (char *)conf_pkg, "hold", 0 };
		dup2(s2[1], 1);
		dup2(fds[0], 0);
		execv(v[0], v);
		_exit(99);
	}
	K(read(s2[0], &c, 1) == 1 && c == 'h');
	KERR(setpgid(p, p), EACCES);
	write(fds[1], "x", 1);
	K(conf_status(p) == 0);
	/* a group leader's setsid */
	if (getpgrp() == me)
		KERR(setsid(), EPERM);
	close(s2[0]), close(s2[1]);
	close(fds[0]), close(fds[1]);

	conf_area = "kill";
	pipe(fds);
	K(kill(me, 0) == 0);
	KERR(kill(99999, 0), ESRCH);
	KERR(kill(me, 1000), EINVAL);
	KERR(kill(me, -1), EINVAL);
	p = kid(fds[0], 0);
	K(kill(p, 0) == 0);
	signal(SIGUSR1, onusr1);
	got_usr1 = 0;
	K(kill(0, SIGUSR1) == 0);           /* our group: the child too (dies) */
	K(got_usr1 == 1);
	int st = conf_wait(p);
	K(WIFSIGNALED(st) && WTERMSIG(st) == SIGUSR1);
	KERR(kill(p, 0), ESRCH);             /* reaped */
	/* -pgid reaches the group's every process, and nothing else */
	pid_t a = kid(fds[0], 0), b = kid(fds[0], 0), o = kid(fds[0], 7);
	setpgid(a, a), setpgid(b, a);
	K(getpgid(b) == a);
	got_usr1 = 0;
	K(kill(-a, SIGTERM) == 0);
	K(conf_status(a) == 128 + SIGTERM && conf_status(b) == 128 + SIGTERM);
	KERR(kill(-a, 0), ESRCH);
	K(killpg(getpgrp(), 0) == 0);
	K(got_usr1 == 0);
	write(fds[1], "x", 1);
	K(conf_status(o) == 7);
	/* -1: every process but the caller */
	a = kid(fds[0], 0), b = kid(fds[0], 0);
	setpgid(b, b);
	K(kill(-1, SIGTERM) == 0 && got_usr1 == 0);
	K(conf_status(a) == 128 + SIGTERM && conf_status(b) == 128 + SIGTERM);
	signal(SIGUSR1, SIG_DFL);
	close(fds[0]), close(fds[1]);
}

void conf_sigchld(void)
{
	conf_area = "sigchld";
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	/* default: a child's end leaves a zombie to wait for */
	pid_t p = fork();
	if (p == 0)
		_exit(3);
	usleep(50000);
	K(conf_status(p) == 3);
	/* a handler: SIGCHLD with si_pid */
	sa.sa_sigaction = onchld;
	sa.sa_flags = SA_SIGINFO | SA_NOCLDSTOP;
	K(sigaction(SIGCHLD, &sa, &old) == 0);
	got_chld = 0;
	p = fork();
	if (p == 0)
		_exit(4);
	for (int i = 0; i < 20000 && !got_chld; i++)
		usleep(5000);            /* (up to 100 s: the event, not a host's speed, ends it) */
	K(got_chld == 1 && chld_pid == p);
	K(conf_status(p) == 4);
	/* SIG_IGN: reaped at their end, wait says ECHILD */
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	K(sigaction(SIGCHLD, &sa, 0) == 0);
	p = fork();
	if (p == 0)
		_exit(5);
	int st;
	KERR(waitpid(p, &st, 0), ECHILD);
	/* SA_NOCLDWAIT with the default action: the same */
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDWAIT;
	K(sigaction(SIGCHLD, &sa, 0) == 0);
	p = fork();
	if (p == 0)
		_exit(6);
	KERR(waitpid(p, &st, 0), ECHILD);
	K(sigaction(SIGCHLD, &old, 0) == 0);
	p = fork();
	if (p == 0)
		_exit(7);
	K(conf_status(p) == 7);
}
