/* Running the tree: simple commands (builtins in the shell itself, other
   programs in a forked child that execs them), pipelines (a child each),
   lists, and the compound commands. Redirections of a builtin or a
   compound command are undone after it (their fds saved above 10). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>
#include "sh.h"

int last_status, sh_argc, last_bg, sh_pid;
char **sh_argv;
int loop_break, loop_cont;     /* set by break/continue: loops still to leave */
int returning;                 /* set by return: the function or dot script ends */
int cond_depth;                /* inside a condition: set -e does not end the shell */

int unwinding(void)
{
	return loop_break || loop_cont || returning;
}

struct saved { int fd, copy; };

static int status_of(int st)
{
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

pid_t sh_fork(void)
{
	fflush(0);               /* nothing buffered is written twice */
	pid_t p = fork();
	if (p == 0)
		trap_child();
	if (p < 0)
		fprintf(stderr, "sh: fork: %s\n", strerror(errno));
	return p;
}

int wait_for(pid_t p)
{
	int st;
	while (waitpid(p, &st, 0) < 0) {
		if (errno != EINTR)
			return 127;
		trap_check();
	}
	return status_of(st);
}

/* Apply r's redirections; with sv, each fd's former self is kept there
   (*n of them) for undo. 0, or -1 with a message. */
static int redirect(struct redir *r, struct saved *sv, int *n)
{
	for (; r; r = r->next) {
		char *w = r->op == 'H' || r->op == 'h' ? 0 : expand_one(r->word);
		int fd = -1, close_it = 0;
		if (r->op == 'H' || r->op == 'h') {
			if ((fd = heredoc_fd(r)) < 0) {
				free(w);
				return -1;
			}
		} else if (r->op == 'G' || r->op == 'L') {
			char *end;
			long k = strtol(w, &end, 10);
			if (!strcmp(w, "-"))
				close_it = 1;
			else if (!*w || *end || k < 0 || k > 9999 || fcntl((int)k, F_GETFD) < 0) {
				fprintf(stderr, "sh: %s: bad file descriptor\n", w);
				free(w);
				return -1;
			} else
				fd = (int)k;
		} else {
			int fl = r->op == '<' ? O_RDONLY : r->op == 'B' ? O_RDWR | O_CREAT :
				 r->op == 'A' ? O_WRONLY | O_CREAT | O_APPEND : O_WRONLY | O_CREAT | O_TRUNC;
			if (r->op == '>' && opt_C)
				fl |= O_EXCL;              /* set -C: > makes only a new file */
			if ((fd = open(w, fl, 0666)) < 0) {
				fprintf(stderr, "sh: %s: %s\n", w, strerror(errno));
				free(w);
				return -1;
			}
		}
		free(w);
		if (sv && *n < 16) {
			fflush(0);
			sv[*n].fd = r->fd;
			sv[*n].copy = fcntl(r->fd, F_DUPFD_CLOEXEC, 10);
			(*n)++;
		}
		if (close_it)
			close(r->fd);
		else if (fd != r->fd) {
			if (dup2(fd, r->fd) < 0) {
				fprintf(stderr, "sh: %d: %s\n", r->fd, strerror(errno));
				return -1;
			}
			if (r->op != 'G' && r->op != 'L')
				close(fd);
		}
	}
	return 0;
}

static void undo(struct saved *sv, int n)
{
	fflush(0);
	while (n-- > 0) {
		if (sv[n].copy >= 0) {
			dup2(sv[n].copy, sv[n].fd);
			close(sv[n].copy);
		} else
			close(sv[n].fd);
	}
}

/* NAME=... at the start of a command. */
static int assignment(const char *w)
{
	const char *eq = strchr(w, '=');
	return eq && is_name(w, (size_t)(eq - w));
}

static void assign(char *w)
{
	char *eq = strchr(w, '=');
	*eq = 0;
	char *v, *t = eq + 1;
	if (t[0] == '~' && (!t[1] || t[1] == '/') && getenv("HOME")) {
		char *raw = xmalloc(strlen(t) + 8);       /* NAME=~/x: $HOME's value, quoted */
		strcpy(raw, "\"$HOME\"");
		strcat(raw, t + 1);
		v = expand_one(raw);
		free(raw);
	} else
		v = expand_one(t);
	setenv(w, v, 1);
	*eq = '=';
	free(v);
}

/* name's file along PATH (as exec_search finds it) that access allows
   for mode (X_OK: command -v, type; R_OK: dot), malloc'd; or 0. */
char *path_search(const char *name, int mode)
{
	const char *dirs = getenv("PATH");
	if (strchr(name, '/'))
		return access(name, mode) ? 0 : xstrndup(name, strlen(name));
	for (const char *d = dirs ? dirs : "/bin:/usr/bin";; d++) {
		const char *end = strchrnul(d, ':');
		char path[4096];
		snprintf(path, sizeof path, "%.*s%s%s", (int)(end - d), d, end == d ? "" : "/", name);
		if (!access(path, mode))
			return xstrndup(path, strlen(path));
		if (!*end)
			return 0;
		d = end;
	}
}

/* Exec argv along PATH as execvp does, but a file that is no program
   (ENOEXEC) runs as a script of this shell, as POSIX's sh does. Returns
   only on failure: the status to exit with (126, 127). */
static int exec_search(char **argv)
{
	const char *name = argv[0];
	char path[4096];
	const char *dirs = strchr(name, '/') ? "" : getenv("PATH");
	if (!dirs)
		dirs = "/bin:/usr/bin";
	int eacces = 0;
	for (const char *d = dirs;; d++) {
		const char *end = strchrnul(d, ':');
		if (strchr(name, '/'))
			snprintf(path, sizeof path, "%s", name);
		else if (end == d)
			snprintf(path, sizeof path, "%s", name);
		else
			snprintf(path, sizeof path, "%.*s/%s", (int)(end - d), d, name);
		execv(path, argv);
		if (errno == ENOEXEC) {
			int n = 0;
			while (argv[n])
				n++;
			sh_argv = argv;
			sh_argc = n;
			sh_argv[0] = path;
			int fd = open(path, O_RDONLY);
			if (fd < 0)
				return 126;
			size_t len;
			char *text = read_all(fd, &len);
			close(fd);
			sh_exit(run_string(text));
		}
		if (errno == EACCES)
			eacces = 1;
		else if (errno != ENOENT && errno != ENOTDIR) {
			fprintf(stderr, "sh: %s: %s\n", name, strerror(errno));
			return 126;
		}
		if (!*end || strchr(name, '/'))
			break;
		d = end;
	}
	fprintf(stderr, "sh: %s: %s\n", name, eacces ? "Permission denied" : "not found");
	return eacces ? 126 : 127;
}

/* The exec builtin: with a command, this shell becomes it (and ends if
   it cannot); without, only its redirections, which stay. */
int sh_exec(int argc, char **argv)
{
	if (argc < 2)
		return 0;
	fflush(0);
	exit(exec_search(argv + 1));
}

/* A word of a simple command that names a function: the function runs. */
static int call(struct node *body, struct words *w, struct redir *r)
{
	struct saved sv[16];
	int ns = 0, st = 1;
	if (redirect(r, sv, &ns) == 0)
		st = func_call(body, w->n, w->v);
	undo(sv, ns);
	return st;
}

/* A simple command; forked: we are a child that may end in its exec. */
static int simple(struct node *n, int forked)
{
	int first = 0;
	while (first < n->nw && assignment(n->w[first]))
		first++;
	struct words w = { 0 };
	if (expand(n->w + first, n->nw - first, &w) < 0)
		return 1;
	struct saved sv[16];
	int ns = 0, st;
	if (opt_x) {
		trace(n->w, first);
		trace(w.v, w.n);
	}
	int plain = 0;                 /* command NAME ...: no function */
	while (w.n > 1 && !strcmp(w.v[0], "command") && w.v[1][0] != '-') {
		free(w.v[0]);
		memmove(w.v, w.v + 1, (size_t)w.n-- * sizeof *w.v);
		plain = 1;
	}
	builtin_fn b = w.n ? builtin_find(w.v[0]) : 0;
	struct node *fn = w.n && !plain && !builtin_special(w.v[0]) ? func_find(w.v[0]) : 0;
	if (fn) {
		for (int i = 0; i < first; i++)
			assign(n->w[i]);
		st = call(fn, &w, n->r);
	} else if (!w.n || b) {
		for (int i = 0; i < first; i++)
			assign(n->w[i]);
		int keep = b == sh_exec;             /* exec's redirections stay */
		if (redirect(n->r, keep ? 0 : sv, &ns) < 0)
			st = keep ? (exit(1), 1) : 1;
		else
			st = b ? b(w.n, w.v) : last_status;
		undo(sv, ns);
	} else {
		pid_t p = forked ? 0 : sh_fork();
		if (p == 0) {
			for (int i = 0; i < first; i++)
				assign(n->w[i]);
			if (redirect(n->r, 0, 0) < 0)
				exit(1);
			exit(exec_search(w.v));
		}
		st = p < 0 ? 2 : wait_for(p);
	}
	words_free(&w);
	return st;
}

/* n in a child: a simple command execs without another fork, and a
   ( ) runs in this child itself (so $! of `( ... ) &` is the process
   that runs it, and killing it ends the list). */
static int run_child(struct node *n)
{
	if (n->kind == N_SUB) {
		if (redirect(n->r, 0, 0) < 0)
			return 1;
		return run(n->a);
	}
	return n->kind == N_CMD ? simple(n, 1) : run(n);
}

static int pipeline(struct node *n)
{
	struct node *cmd[64];
	int k = 0;
	for (struct node *p = n; k < 64; p = p->a) {
		if (p->kind != N_PIPE) {
			cmd[k++] = p;
			break;
		}
		cmd[k++] = p->b;
	}
	pid_t pid[64];
	int in = -1, st = 0;
	for (int i = k - 1; i >= 0; i--) {          /* left to right */
		int fd[2] = { -1, -1 };
		if (i > 0 && pipe(fd) < 0) {
			fprintf(stderr, "sh: pipe: %s\n", strerror(errno));
			break;
		}
		pid[i] = sh_fork();
		if (pid[i] == 0) {
			if (in >= 0) {
				dup2(in, 0);
				close(in);
			}
			if (fd[1] >= 0) {
				dup2(fd[1], 1);
				close(fd[1]);
				close(fd[0]);
			}
			sh_exit(run_child(cmd[i]));
		}
		if (in >= 0)
			close(in);
		if (fd[1] >= 0)
			close(fd[1]);
		in = fd[0];
	}
	if (in >= 0)
		close(in);
	for (int i = k - 1; i >= 0; i--)
		if (pid[i] > 0)
			st = wait_for(pid[i]);
		else
			st = 2;
	return st;
}

/* A condition (if's, while's, the left of && and ||, under !): set -e
   does not end the shell when it fails. */
static int cond(struct node *n)
{
	cond_depth++;
	int st = run(n);
	cond_depth--;
	return st;
}

static int loop(struct node *n)
{
	int st = 0;
	for (;;) {
		int c = cond(n->a);
		if (unwinding() || (n->kind == N_WHILE ? c != 0 : c == 0))
			break;
		st = run(n->b);
		if (loop_cont && --loop_cont > 0)
			break;
		if (loop_break || returning)
			break;
	}
	if (loop_break)
		loop_break--;
	return st;
}

static int for_loop(struct node *n)
{
	struct words w = { 0 };
	if (expand(n->w + 1, n->nw - 1, &w) < 0)
		return 1;
	int st = 0;
	for (int i = 0; i < w.n && !loop_break && !returning; i++) {
		setenv(n->w[0], w.v[i], 1);
		st = run(n->a);
		if (loop_cont && --loop_cont > 0)
			break;
	}
	if (loop_break)
		loop_break--;
	words_free(&w);
	return st;
}

static int compound(struct node *n)
{
	switch (n->kind) {
	case N_PIPE:
		return pipeline(n);
	case N_AND:
		return cond(n->a) == 0 && !unwinding() ? run(n->b) : last_status;
	case N_OR:
		return cond(n->a) != 0 && !unwinding() ? run(n->b) : last_status;
	case N_SEQ:
		run(n->a);
		return unwinding() ? last_status : run(n->b);
	case N_NOT:
		return !cond(n->a);
	case N_BG: {
		pid_t p = sh_fork();
		if (p == 0) {
			int null = open("/dev/null", O_RDONLY);
			if (null >= 0 && null != 0) {
				dup2(null, 0);
				close(null);
			}
			sh_exit(run_child(n->a));
		}
		if (p > 0)
			last_bg = p;
		return p < 0 ? 2 : 0;
	}
	case N_IF:
		if (cond(n->a) == 0)
			return unwinding() ? last_status : run(n->b);
		return n->c && !unwinding() ? run(n->c) : 0;
	case N_CASE:
		return run_case(n);
	case N_FUNC:
		func_define(n);
		return 0;
	case N_WHILE:
	case N_UNTIL:
		return loop(n);
	case N_FOR:
		return for_loop(n);
	case N_BRACE:
		return run(n->a);
	case N_SUB: {
		pid_t p = sh_fork();
		if (p == 0)
			sh_exit(run_child(n->a));
		return p < 0 ? 2 : wait_for(p);
	}
	}
	return 0;
}

int run(struct node *n)
{
	if (n->kind == N_CMD)
		last_status = simple(n, 0);
	else {
		struct saved sv[16];
		int ns = 0;
		if (n->kind == N_FUNC || redirect(n->r, sv, &ns) == 0)
			last_status = compound(n);
		else
			last_status = 1;
		undo(sv, ns);
	}
	trap_check();
	if (opt_e && last_status && !cond_depth && !returning &&
	    (n->kind == N_CMD || n->kind == N_PIPE || n->kind == N_SUB))
		sh_exit(last_status);
	return last_status;
}

int run_string(const char *s)
{
	struct lex l;
	lex_init(&l, s);
	for (;;) {
		const char *err;
		struct node *n = parse_command(&l, &err);
		if (err) {
			fprintf(stderr, "sh: syntax error: %s\n", err);
			return last_status = 2;
		}
		if (!n)
			return last_status;
		run(n);
		if (unwinding())
			return last_status;     /* return, break or continue (eval, dot) */
	}
}

char *capture(const char *cmd)
{
	int fd[2];
	if (pipe(fd) < 0)
		return xstrndup("", 0);
	pid_t p = sh_fork();
	if (p == 0) {
		close(fd[0]);
		dup2(fd[1], 1);
		close(fd[1]);
		sh_exit(run_string(cmd));
	}
	close(fd[1]);
	size_t n;
	char *out = read_all(fd[0], &n);
	close(fd[0]);
	while (n && out[n - 1] == '\n')
		n--;
	out[n] = 0;
	last_status = p < 0 ? 2 : wait_for(p);
	return out;
}
