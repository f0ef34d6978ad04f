/*
 * posix_spawn and posix_spawnp (<spawn.h>): fork, then in the child the
 * attributes (signal mask, signals back to their defaults, the process
 * group: setpgid) and the file actions in order (open, close, dup2), then the
 * exec (exec.c). The child reports a failure of any step by ending with
 * status 127, as POSIX allows; before forking, the path is checked to be
 * an executable regular file (posix_spawnp: along PATH, pathsearch.c),
 * so a missing or unrunnable program is an error of the call itself
 * (ENOENT, EACCES) in the common case. The child runs with envp (a
 * null one is empty, as glibc's execve on Linux makes it). The
 * child's descriptors are those fork gives a child (fork.c: the kernel's
 * open files are not copied; files the actions open are the child's own).
 */
#include <anima/file.h>
#include <spawn.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include "path.h"
#include "nocancel.h"

#define NFD MAXFILE_SPACE   /* descriptors (fd.c) */

struct __spawn_action {
	enum { A_OPEN, A_CLOSE, A_DUP2 } op;
	int fd, fd2, oflag;
	mode_t mode;
	char *path;
};

static int add(posix_spawn_file_actions_t *fa, struct __spawn_action a)
{
	if (fa->n == fa->cap) {
		int cap = fa->cap ? fa->cap * 2 : 4;
		struct __spawn_action *n = realloc(fa->a, cap * sizeof *n);
		if (!n)
			return ENOMEM;
		fa->a = n;
		fa->cap = cap;
	}
	fa->a[fa->n++] = a;
	return 0;
}

int posix_spawn_file_actions_init(posix_spawn_file_actions_t *fa)
{
	memset(fa, 0, sizeof *fa);
	return 0;
}

int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *fa)
{
	for (int i = 0; i < fa->n; i++)
		free(fa->a[i].path);
	free(fa->a);
	memset(fa, 0, sizeof *fa);
	return 0;
}

int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd, const char *path,
				     int oflag, mode_t mode)
{
	if (fd < 0 || fd >= NFD)
		return EBADF;
	char *p = strdup(path);
	if (!p)
		return ENOMEM;
	int r = add(fa, (struct __spawn_action){ A_OPEN, fd, 0, oflag, mode, p });
	if (r)
		free(p);
	return r;
}

int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd)
{
	return fd < 0 || fd >= NFD ? EBADF : add(fa, (struct __spawn_action){ A_CLOSE, fd, 0, 0, 0, 0 });
}

int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int newfd)
{
	if (fd < 0 || fd >= NFD || newfd < 0 || newfd >= NFD)
		return EBADF;
	return add(fa, (struct __spawn_action){ A_DUP2, fd, newfd, 0, 0, 0 });
}

int posix_spawnattr_init(posix_spawnattr_t *a)
{
	memset(a, 0, sizeof *a);
	return 0;
}

int posix_spawnattr_destroy(posix_spawnattr_t *a)
{
	(void)a;
	return 0;
}

int posix_spawnattr_setflags(posix_spawnattr_t *a, short flags)
{
	if (flags & ~0x3f)
		return EINVAL;
	a->flags = flags;
	return 0;
}

int posix_spawnattr_getflags(const posix_spawnattr_t *a, short *flags) { *flags = a->flags; return 0; }
int posix_spawnattr_setpgroup(posix_spawnattr_t *a, pid_t pg) { a->pgroup = pg; return 0; }
int posix_spawnattr_getpgroup(const posix_spawnattr_t *a, pid_t *pg) { *pg = a->pgroup; return 0; }
int posix_spawnattr_setsigmask(posix_spawnattr_t *a, const sigset_t *m) { a->mask = *m; return 0; }
int posix_spawnattr_getsigmask(const posix_spawnattr_t *a, sigset_t *m) { *m = a->mask; return 0; }
int posix_spawnattr_setsigdefault(posix_spawnattr_t *a, const sigset_t *m) { a->def = *m; return 0; }
int posix_spawnattr_getsigdefault(const posix_spawnattr_t *a, sigset_t *m) { *m = a->def; return 0; }

/* One file action in the child: 0 or -1 (errno). */
static int act(const struct __spawn_action *a)
{
	if (a->op == A_CLOSE)
		return __close_nocancel(a->fd) < 0 && errno != EBADF ? -1 : 0;
	if (a->op == A_DUP2)
		return dup2(a->fd, a->fd2) < 0 ? -1 : 0;
	int fd = __open_nocancel(a->path, a->oflag, a->mode);
	if (fd < 0 || fd == a->fd)
		return fd < 0 ? -1 : 0;
	int r = dup2(fd, a->fd);
	__close_nocancel(fd);
	return r < 0 ? -1 : 0;
}

/* In the child: the attributes, the actions, the exec; never returns. */
static void child(const char *path, int search, const posix_spawn_file_actions_t *fa,
		  const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	int bad = 0;
	if (at && (at->flags & POSIX_SPAWN_SETSIGDEF))
		for (int s = 1; s < NSIG && !bad; s++)
			if (sigismember(&at->def, s) == 1 && s != SIGKILL && s != SIGSTOP)
				bad = signal(s, SIG_DFL) == SIG_ERR;
	if (!bad && at && (at->flags & POSIX_SPAWN_SETSIGMASK))
		bad = sigprocmask(SIG_SETMASK, &at->mask, 0) < 0;
	if (!bad && at && (at->flags & POSIX_SPAWN_SETPGROUP))
		bad = setpgid(0, at->pgroup) < 0;
	for (int i = 0; fa && !bad && i < fa->n; i++)
		bad = act(&fa->a[i]) < 0;
	if (!bad)
		search ? execvpe(path, argv, envp) : execve(path, argv, envp);
	_exit(127);
}

/* The program at path can be run: 0 or an errno. */
static int can_run(const char *path, void *arg)
{
	(void)arg;
	struct stat st;
	if (stat(path, &st) < 0)
		return errno;
	return S_ISREG(st.st_mode) && (st.st_mode & 0111) ? 0 : EACCES;
}

/* The check before the fork: the program can be run (for a search, a
   place along PATH has one, as the child's execvpe will find it). */
static int runnable(const char *path, int search)
{
	return search ? path_search(path, can_run, 0) : can_run(path, 0);
}

static int spawn(pid_t *pid, const char *path, int search, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	int e = runnable(path, search);
	if (e)
		return e;
	pid_t p = fork();
	if (p < 0)
		return errno;
	if (p == 0)
		child(path, search, fa, at, argv, envp);
	if (pid)
		*pid = p;
	return 0;
}

int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(pid, path, 0, fa, attr, argv, envp);
}

int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn(pid, file, 1, fa, attr, argv, envp);
}
