/* The builtins: those that must change the shell itself (cd, exit,
   export, unset, set, shift, wait, exec, break, continue; and
   func.c's, trap.c's, read.c's and opts.c's) and a
   few cheap ones that save a program (echo, printf, test, true, false,
   kill, pwd). echo is dash's (Debian's /bin/sh): -n, and the escapes
   \n \t \c \\ \0nnn in its words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
#include "sh.h"
#include "escapes.h"

extern int loop_break, loop_cont;

static int b_echo(int argc, char **argv)
{
	int i = 1, nl = 1;
	if (argc > 1 && !strcmp(argv[1], "-n"))
		nl = 0, i++;
	for (; i < argc; i++) {
		if (put_escapes(argv[i], 0))
			return fflush(stdout), 0;
		if (i + 1 < argc)
			putchar(' ');
	}
	if (nl)
		putchar('\n');
	return fflush(stdout) ? 1 : 0;
}

/* printf FORMAT [ARG...]: %s %b %c %d %i %u %o %x %X %% with flags and
   width; the format is reused while arguments remain. */
static int b_printf(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "printf: usage: printf format [arg...]\n");
		return 2;
	}
	const char *fmt = argv[1];
	int a = 2, st = 0;
	do {
		for (const char *p = fmt; *p; p++) {
			if (*p == '\\') {
				char one[3] = { '\\', p[1], 0 };
				if (!p[1])
					break;
				if (put_escapes(one, 0))
					return fflush(stdout), st;
				p++;
				continue;
			}
			if (*p != '%') {
				putchar(*p);
				continue;
			}
			if (p[1] == '%') {
				putchar('%');
				p++;
				continue;
			}
			char spec[32];
			size_t k = 0;
			spec[k++] = *p++;
			while (*p && strchr("-+ #0123456789.", *p) && k < 20)
				spec[k++] = *p++;
			const char *arg = a < argc ? argv[a++] : 0;
			char c = *p;
			if (!c)
				break;
			if (c == 's' || c == 'b' || c == 'c') {
				if (c == 'b') {
					if (arg && put_escapes(arg, 0))
						return fflush(stdout), st;
					continue;
				}
				spec[k++] = c, spec[k] = 0;
				if (c == 'c')
					printf(spec, arg && *arg ? *arg : 0);
				else
					printf(spec, arg ? arg : "");
			} else if (strchr("diouxX", c)) {
				char *end;
				long long v = arg ? strtoll(arg, &end, 0) : 0;
				if (arg && *arg == '\'')
					v = (unsigned char)arg[1];
				else if (arg && (*end || !*arg)) {
					fprintf(stderr, "printf: %s: invalid number\n", arg);
					st = 1;
				}
				spec[k++] = 'l', spec[k++] = 'l', spec[k++] = c, spec[k] = 0;
				printf(spec, v);
			} else {
				fprintf(stderr, "printf: %%%c: invalid directive\n", c);
				return 1;
			}
		}
	} while (a < argc && a > 2);
	fflush(stdout);
	return st;
}

static int b_true(int argc, char **argv) { (void)argc, (void)argv; return 0; }
static int b_false(int argc, char **argv) { (void)argc, (void)argv; return 1; }

static int b_exit(int argc, char **argv)
{
	sh_exit(argc > 1 ? (int)(strtol(argv[1], 0, 10) & 255) : last_status);
	return 0;
}

static int b_cd(int argc, char **argv)
{
	const char *d = argc > 1 ? argv[1] : getenv("HOME");
	if (!d || chdir(d) < 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", d ? d : "", d ? strerror(errno) : "HOME not set");
		return 1;
	}
	char buf[4096];
	if (getcwd(buf, sizeof buf))
		setenv("PWD", buf, 1);
	return 0;
}

static int b_pwd(int argc, char **argv)
{
	(void)argc, (void)argv;
	char buf[4096];
	if (!getcwd(buf, sizeof buf)) {
		fprintf(stderr, "sh: pwd: %s\n", strerror(errno));
		return 1;
	}
	puts(buf);
	return 0;
}

void put_quoted(const char *s)
{
	putchar('\'');
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*s);
	putchar('\'');
}

/* Every variable is in the environment (exported): export only sets;
   export -p lists them as commands that would set them again. */
static int b_export(int argc, char **argv)
{
	extern char **environ;
	if (argc == 1 || (argc == 2 && !strcmp(argv[1], "-p")))
		for (char **e = environ; *e; e++) {
			const char *eq = strchr(*e, '=');
			printf("export %.*s=", eq ? (int)(eq - *e) : (int)strlen(*e), *e);
			put_quoted(eq ? eq + 1 : "");
			putchar('\n');
		}
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!strcmp(argv[i], "-p"))
			continue;
		if (!is_name(argv[i], eq ? (size_t)(eq - argv[i]) : strlen(argv[i]))) {
			fprintf(stderr, "sh: export: %s: bad variable name\n", argv[i]);
			return 1;
		}
		if (eq) {
			*eq = 0;
			setenv(argv[i], eq + 1, 1);
			*eq = '=';
		}
	}
	return 0;
}

static int b_unset(int argc, char **argv)
{
	int f = argc > 1 && !strcmp(argv[1], "-f");
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "-f"))
			continue;
		else if (f)
			func_unset(argv[i]);
		else
			unsetenv(argv[i]);
	return 0;
}

/* set [-eux] [+eux] [-o NAME] [--] [ARG...]: options (opts.c), and the
   positional parameters when ARGs (or --) are given. The old ones are
   not freed: a function's caller still holds them. */
static int b_set(int argc, char **argv)
{
	int i = take_options(argc, argv, 0);
	if (i < 0)
		return 2;
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	else if (i == argc)
		return 0;
	int n = argc - i + 1;
	char **v = xmalloc((size_t)(n + 1) * sizeof *v);
	v[0] = sh_argv[0];
	for (int k = 1; k < n; k++)
		v[k] = xstrndup(argv[i + k - 1], strlen(argv[i + k - 1]));
	v[n] = 0;
	sh_argv = v, sh_argc = n;
	return 0;
}

static int b_shift(int argc, char **argv)
{
	int k = argc > 1 ? (int)strtol(argv[1], 0, 10) : 1;
	if (k < 0 || k > sh_argc - 1) {
		fprintf(stderr, "sh: shift: can't shift that many\n");
		sh_exit(2);      /* a special builtin's error ends the shell */
	}
	for (int i = 1; i + k <= sh_argc; i++)
		sh_argv[i] = sh_argv[i + k];
	sh_argc -= k;
	return 0;
}

/* wait [PID...]: a trapped signal ends it (128 + the signal) after its
   action ran, as POSIX says. */
static int b_wait(int argc, char **argv)
{
	int st = 0, s, sig;
	if (argc == 1) {
		while (wait(&s) > 0 || errno == EINTR)
			if (errno == EINTR && (sig = trap_check()))
				return 128 + sig;
		return 0;
	}
	for (int i = 1; i < argc; i++) {
		pid_t p = (pid_t)strtol(argv[i], 0, 10), r;
		errno = 0;
		while ((r = waitpid(p, &s, 0)) < 0 && errno == EINTR)
			if ((sig = trap_check()))
				return 128 + sig;
		if (r != p)
			st = 127;
		else
			st = WIFEXITED(s) ? WEXITSTATUS(s) : 128 + WTERMSIG(s);
	}
	return st;
}

static int b_break(int argc, char **argv)
{
	int k = argc > 1 ? (int)strtol(argv[1], 0, 10) : 1;
	if (k < 1)
		k = 1;
	if (!strcmp(argv[0], "break"))
		loop_break = k;
	else
		loop_cont = k;
	return 0;
}

static int b_kill(int argc, char **argv)
{
	int sig = SIGTERM, i = 1, st = 0;
	if (i < argc && !strcmp(argv[i], "-s") && i + 1 < argc) {
		sig = sig_number(argv[i + 1]);
		i += 2;
	} else if (i < argc && argv[i][0] == '-' && argv[i][1]) {
		sig = sig_number(argv[i] + 1);
		i++;
	}
	if (sig < 0) {
		fprintf(stderr, "sh: kill: bad signal\n");
		return 2;
	}
	for (; i < argc; i++)
		if (kill((pid_t)strtol(argv[i], 0, 10), sig) < 0) {
			fprintf(stderr, "sh: kill: %s: %s\n", argv[i], strerror(errno));
			st = 1;
		}
	return st;
}

static const struct { const char *name; builtin_fn fn; } table[] = {
	{ "echo", b_echo }, { "printf", b_printf }, { "true", b_true }, { ":", b_true },
	{ "false", b_false }, { "exit", b_exit }, { "cd", b_cd }, { "pwd", b_pwd },
	{ "export", b_export }, { "unset", b_unset }, { "set", b_set }, { "shift", b_shift },
	{ "read", b_read }, { "wait", b_wait }, { "break", b_break }, { "continue", b_break },
	{ "test", sh_test }, { "[", sh_test }, { "kill", b_kill }, { "exec", sh_exec },
	{ "return", b_return }, { "local", b_local }, { "eval", b_eval }, { ".", b_dot },
	{ "trap", b_trap }, { "getopts", b_getopts }, { "command", b_command }, { "type", b_type },
};

/* POSIX's special builtins: a function of their name does not hide them. */
int builtin_special(const char *name)
{
	static const char *const s[] = { "break", ":", "continue", ".", "eval", "exec", "exit",
		"export", "readonly", "return", "set", "shift", "trap", "unset", 0 };
	for (int i = 0; s[i]; i++)
		if (!strcmp(s[i], name))
			return 1;
	return 0;
}

builtin_fn builtin_find(const char *name)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (!strcmp(table[i].name, name))
			return table[i].fn;
	return 0;
}
