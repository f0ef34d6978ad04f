/* popen, pclose and system without a shell: the command is a program and
   its arguments, split at spaces and tabs (no quoting, no redirection, no
   variables), found as posix_spawnp finds it (a path with '/', else
   along PATH), run with `environ`. popen spawns it with a pipe on its stdout ("r") or
   stdin ("w"; "e" makes our end FD_CLOEXEC) and gives our end as a
   stream; pclose closes the stream and waits for that child (its wait
   status). system runs the command and waits: its wait status, 127 in
   it if the program cannot be run; system(NULL) is 0, as there is no
   shell. (fork is ulib/pthread/pfork.c, the exec family exec.c,
   posix_spawn spawn.c.) */
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <animart/spin.h>

#define NWORD 32
#define NOPEN 16                 /* popen streams open at once */

static struct { FILE *f; pid_t pid; } open_[NOPEN];
static struct spin lk;

/* cmd split into argv (words in buf): the count, or -1 (EINVAL). */
static int split(const char *cmd, char *buf, size_t n, char **argv)
{
	if (strlen(cmd) >= n)
		return -1;
	strcpy(buf, cmd);
	int c = 0;
	for (char *s = strtok(buf, " \t\n"); s && c < NWORD - 1; s = strtok(0, " \t\n"))
		argv[c++] = s;
	argv[c] = 0;
	return c ? c : -1;
}

/* Spawn cmd with our descriptor `ours` of a pipe's other end on its
   `fd` (-1: none): its pid, or -1 (errno). */
static pid_t run(const char *cmd, int theirs, int fd, int ours)
{
	char buf[1024], *argv[NWORD];
	if (split(cmd, buf, sizeof buf, argv) < 0) {
		errno = EINVAL;
		return -1;
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (theirs >= 0) {
		posix_spawn_file_actions_adddup2(&fa, theirs, fd);
		posix_spawn_file_actions_addclose(&fa, ours);
		if (theirs != fd)
			posix_spawn_file_actions_addclose(&fa, theirs);
	}
	pid_t pid;
	int e = posix_spawnp(&pid, argv[0], &fa, 0, argv, environ);
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
	pid_t pid = run(cmd, theirs, rd ? 1 : 0, ours);
	close(theirs);
	FILE *f = pid < 0 ? 0 : fdopen(ours, rd ? "r" : "w");
	int slot = -1;
	spin_lock(&lk);
	for (int i = 0; f && slot < 0 && i < NOPEN; i++)
		if (!open_[i].f) {
			open_[i].f = f, open_[i].pid = pid;
			slot = i;
		}
	spin_unlock(&lk);
	if (slot >= 0)
		return f;
	int e = f ? EMFILE : errno;
	if (f)
		fclose(f);
	else
		close(ours);
	if (pid > 0)
		waitpid(pid, 0, 0);
	errno = e;
	return 0;
}

int pclose(FILE *f)
{
	pid_t pid = -1;
	spin_lock(&lk);
	for (int i = 0; i < NOPEN; i++)
		if (f && open_[i].f == f) {
			pid = open_[i].pid;
			open_[i].f = 0;
		}
	spin_unlock(&lk);
	if (pid < 0) {
		errno = ECHILD;
		return -1;
	}
	fclose(f);
	int st;
	return waitpid(pid, &st, 0) == pid ? st : -1;
}

int system(const char *cmd)
{
	if (!cmd)
		return 0;                /* no shell is available */
	pid_t pid = run(cmd, -1, -1, -1);
	int st;
	if (pid < 0)
		return errno == ENOENT || errno == EACCES ? 127 << 8 : -1;
	return waitpid(pid, &st, 0) == pid ? st : -1;
}
