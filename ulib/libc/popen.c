/* popen, pclose and system: the command runs as `/bin/sh -c command`
   (progs/bin/sh, which exec and spawn find as a boot module when the
   file system has no /bin/sh: kernel/binpath.c), spawned with
   posix_spawn (spawn.c) and `environ`. popen gives our end of a pipe on
   the child's stdout ("r") or stdin ("w"; "e" makes it FD_CLOEXEC) as a
   stream, and the child closes the streams of earlier popens (POSIX);
   pclose closes the stream and waits for that child: its wait status.
   system ignores SIGINT and SIGQUIT and blocks SIGCHLD while it waits
   (POSIX), the child getting them back as they were; its status is the
   wait status, 127 in it if the shell cannot be run; system(NULL) says
   whether there is a shell. system is a cancellation point: a cancel in
   its wait kills the child; pclose is none. */
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <animart/spin.h>
#include <pthread.h>
#include "nocancel.h"
#include "../pthread/pwait.h"

#define NOPEN 16                 /* popen streams open at once */
#define SHELL "/bin/sh"

static struct { FILE *f; pid_t pid; } open_[NOPEN];
struct spin __popen_lk;       /* (fork holds it: ulib/pthread/pfork.c) */

/* Spawn the shell with cmd, our descriptor `ours` of a pipe's other end
   on its `fd` (-1: none): its pid, or -1 (errno). */
static pid_t run(const char *cmd, int theirs, int fd, int ours, const posix_spawnattr_t *at)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (theirs >= 0) {
		posix_spawn_file_actions_adddup2(&fa, theirs, fd);
		posix_spawn_file_actions_addclose(&fa, ours);
		if (theirs != fd)
			posix_spawn_file_actions_addclose(&fa, theirs);
		spin_lock(&__popen_lk);
		for (int i = 0; i < NOPEN; i++)
			if (open_[i].f && fileno(open_[i].f) != fd)
				posix_spawn_file_actions_addclose(&fa, fileno(open_[i].f));
		spin_unlock(&__popen_lk);
	}
	char *argv[] = { "sh", "-c", (char *)cmd, 0 };
	pid_t pid;
	int e = posix_spawn(&pid, SHELL, &fa, at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		errno = e;
		return -1;
	}
	return pid;
}

FILE *popen(const char *cmd, const char *mode)
{
	int rd = mode && mode[0] == 'r', p[2];
	if (!cmd || !mode || (mode[0] != 'r' && mode[0] != 'w')) {
		errno = EINVAL;
		return 0;
	}
	if (pipe2(p, strchr(mode, 'e') ? O_CLOEXEC : 0) < 0)
		return 0;
	int ours = rd ? p[0] : p[1], theirs = rd ? p[1] : p[0];
	fflush(0);
	pid_t pid = run(cmd, theirs, rd ? 1 : 0, ours, 0);
	__close_nocancel(theirs);
	FILE *f = pid < 0 ? 0 : fdopen(ours, rd ? "r" : "w");
	int slot = -1;
	spin_lock(&__popen_lk);
	for (int i = 0; f && slot < 0 && i < NOPEN; i++)
		if (!open_[i].f) {
			open_[i].f = f, open_[i].pid = pid;
			slot = i;
		}
	spin_unlock(&__popen_lk);
	if (slot >= 0)
		return f;
	int e = f ? EMFILE : errno;
	if (f)
		fclose(f);
	else
		__close_nocancel(ours);
	if (pid > 0)
		while (__waitpid_nocancel(pid, 0, 0) < 0 && errno == EINTR)
			;
	errno = e;
	return 0;
}

int pclose(FILE *f)
{
	pid_t pid = -1;
	spin_lock(&__popen_lk);
	for (int i = 0; i < NOPEN; i++)
		if (f && open_[i].f == f) {
			pid = open_[i].pid;
			open_[i].f = 0;
		}
	spin_unlock(&__popen_lk);
	if (pid < 0) {
		errno = ECHILD;
		return -1;
	}
	fclose(f);
	int st;
	while (__waitpid_nocancel(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}

/* What system changed, for its end or a cancel in its wait. */
struct sys_state {
	pid_t pid;
	struct sigaction oint, oquit;
	sigset_t old;
};

/* A cancel in system's wait (a cancellation point: POSIX): the child
   goes (SIGKILL, reaped, as glibc's) and the signals are as they were. */
static void sys_cancelled(void *arg)
{
	struct sys_state *s = arg;
	kill(s->pid, SIGKILL);
	while (__waitpid_nocancel(s->pid, 0, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &s->oint, 0);
	sigaction(SIGQUIT, &s->oquit, 0);
	sigprocmask(SIG_SETMASK, &s->old, 0);
}

int system(const char *cmd)
{
	pcancel_point();
	if (!cmd)
		return access(SHELL, X_OK) == 0;
	struct sys_state ss;
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	sigset_t chld, old;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	sigprocmask(SIG_BLOCK, &chld, &old);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t def;
	sigemptyset(&def);
	if (oint.sa_handler != SIG_IGN)
		sigaddset(&def, SIGINT);
	if (oquit.sa_handler != SIG_IGN)
		sigaddset(&def, SIGQUIT);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, &old);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	fflush(0);
	pid_t pid = run(cmd, -1, -1, -1, &at);
	posix_spawnattr_destroy(&at);
	int st = -1;
	if (pid < 0)
		st = errno == ENOENT || errno == EACCES ? 127 << 8 : -1;
	else {
		ss = (struct sys_state){ pid, oint, oquit, old };
		pthread_cleanup_push(sys_cancelled, &ss);
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR) {
				st = -1;
				break;
			}
		pthread_cleanup_pop(0);
	}
	sigaction(SIGINT, &oint, 0);
	sigaction(SIGQUIT, &oquit, 0);
	sigprocmask(SIG_SETMASK, &old, 0);
	return st;
}
