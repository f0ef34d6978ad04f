/* Functions (name() command), which run with their own positional
   parameters and end at `return`; `local` names whose values come back
   when the function returns; `eval` and `.` (dot), which run text in
   this shell. A function is defined when its definition runs, and
   stays (its tree is never freed); it is found after the special
   builtins and before the others and the programs along PATH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "sh.h"

struct func { char *name; struct node *body; struct func *next; };
static struct func *funcs;

struct local { char *name, *old; int depth; struct local *next; };
static struct local *locals;
static int depth;              /* functions running */

struct node *func_find(const char *name)
{
	for (struct func *f = funcs; f; f = f->next)
		if (!strcmp(f->name, name))
			return f->body;
	return 0;
}

void func_define(struct node *n)
{
	for (struct func *f = funcs; f; f = f->next)
		if (!strcmp(f->name, n->w[0])) {
			f->body = n->a;
			return;
		}
	struct func *f = xmalloc(sizeof *f);
	f->name = n->w[0], f->body = n->a, f->next = funcs;
	funcs = f;
}

void func_unset(const char *name)
{
	for (struct func **p = &funcs; *p; p = &(*p)->next)
		if (!strcmp((*p)->name, name)) {
			*p = (*p)->next;      /* its tree may still be running: kept */
			return;
		}
}

int func_call(struct node *body, int argc, char **argv)
{
	char **old_argv = sh_argv;
	int old_argc = sh_argc;
	char **v = xmalloc((size_t)(argc + 1) * sizeof *v);
	v[0] = sh_argv[0];
	for (int i = 1; i <= argc; i++)
		v[i] = argv[i];
	sh_argv = v, sh_argc = argc;
	depth++;
	int st = run(body);
	returning = 0;
	while (locals && locals->depth == depth) {
		struct local *l = locals;
		if (l->old)
			setenv(l->name, l->old, 1);
		else
			unsetenv(l->name);
		locals = l->next;
		free(l->name);
		free(l->old);
		free(l);
	}
	depth--;
	sh_argv = old_argv, sh_argc = old_argc;
	free(v);
	return st;
}

/* return [N]: the function (or dot script) ends with status N, or with
   the last command's. */
int b_return(int argc, char **argv)
{
	returning = 1;
	return argc > 1 ? (int)(strtol(argv[1], 0, 10) & 255) : last_status;
}

/* local NAME[=VALUE]...: NAME's value is restored when the function returns. */
int b_local(int argc, char **argv)
{
	if (!depth) {
		fprintf(stderr, "sh: local: not in a function\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t n = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		if (!is_name(argv[i], n)) {
			fprintf(stderr, "sh: local: %s: bad variable name\n", argv[i]);
			return 1;
		}
		struct local *l = xmalloc(sizeof *l);
		l->name = xstrndup(argv[i], n);
		const char *old = getenv(l->name);
		l->old = old ? xstrndup(old, strlen(old)) : 0;
		l->depth = depth, l->next = locals;
		locals = l;
		if (eq)
			setenv(l->name, eq + 1, 1);
	}
	return 0;
}

/* eval ARG...: the arguments joined by blanks, run as commands. */
int b_eval(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 1; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = xmalloc(n);
	s[0] = 0;
	for (int i = 1; i < argc; i++) {
		if (i > 1)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	last_status = 0;
	int st = run_string(s);
	free(s);
	return st;
}

/* . FILE: FILE's commands run in this shell (found along PATH when it
   has no /); `return` ends it. It cannot be read: the shell ends (2). */
int b_dot(int argc, char **argv)
{
	if (argc < 2)
		return 0;
	char *path = path_search(argv[1], R_OK);
	int fd = path ? open(path, O_RDONLY) : -1;
	free(path);
	if (fd < 0) {
		fprintf(stderr, "sh: .: can't open %s\n", argv[1]);
		sh_exit(2);
	}
	size_t n;
	char *text = read_all(fd, &n);
	close(fd);
	last_status = 0;
	int st = run_string(text);
	returning = 0;
	return st;
}
