/* The shell's options (set -e -u -x -f -C, +e..., -o NAME; sh -e ...; $-),
   and the builtins that read the command line or the command table:
   getopts, command -v/-V and type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sh.h"

int opt_e, opt_u, opt_x, opt_f, opt_C;

static int *flag(char c)
{
	return c == 'e' ? &opt_e : c == 'u' ? &opt_u : c == 'x' ? &opt_x : c == 'f' ? &opt_f :
	       c == 'C' ? &opt_C : 0;
}

/* -eufxC or +...; other letters POSIX names are taken and not followed. */
int set_options(const char *arg)
{
	int on = arg[0] == '-';
	for (const char *c = arg + 1; *c; c++) {
		int *f = flag(*c);
		if (f)
			*f = on;
		else if (!strchr("abhmnv", *c)) {
			fprintf(stderr, "sh: set: -%c: bad option\n", *c);
			return -1;
		}
	}
	return 0;
}

int set_o(const char *name, int on)
{
	static const struct { const char *n; char c; } names[] = {
		{ "errexit", 'e' }, { "nounset", 'u' }, { "xtrace", 'x' }, { "noglob", 'f' },
		{ "noclobber", 'C' },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(names[i].n, name)) {
			*flag(names[i].c) = on;
			return 0;
		}
	fprintf(stderr, "sh: set: %s: bad option name\n", name);
	return -1;
}

/* The leading -eux / +eux / -o NAME words of `set` and of `sh` itself
   (which stops at -c too): the index of the first other word, a "--"
   left for the caller, or -1 after a bad one (reported). */
int take_options(int argc, char **argv, int stop_at_c)
{
	int i = 1;
	for (; i < argc && (argv[i][0] == '-' || argv[i][0] == '+') && argv[i][1] &&
	       strcmp(argv[i], "--") && !(stop_at_c && !strcmp(argv[i], "-c")); i++)
		if (!strcmp(argv[i] + 1, "o") && i + 1 < argc) {
			if (set_o(argv[i + 1], argv[i][0] == '-') < 0)
				return -1;
			i++;
		} else if (set_options(argv[i]) < 0)
			return -1;
	return i;
}

const char *opt_string(void)
{
	static char s[8];
	int n = 0;
	for (const char *c = "uCxfe"; *c; c++)     /* dash's order */
		if (*flag(*c))
			s[n++] = *c;
	s[n] = 0;
	return s;
}

/* set -x: the command's words, after expansion, on stderr. */
void trace(char **w, int n)
{
	if (!n)
		return;
	fflush(stdout);
	fputc('+', stderr);
	for (int i = 0; i < n; i++)
		fprintf(stderr, " %s", w[i]);
	fputc('\n', stderr);
}

/* getopts OPTSTRING NAME [ARG...]: the next option of ARG (or of the
   positional parameters) in NAME, its argument in OPTARG, the index of
   the next argument in OPTIND. A leading : in OPTSTRING: errors are
   silent, NAME is ? or : and OPTARG the option. Status 1 at the end. */
int b_getopts(int argc, char **argv)
{
	static int pos = 1, last = -1;     /* in the current argument; the OPTIND we set */
	if (argc < 3) {
		fprintf(stderr, "sh: getopts: usage: getopts optstring name [arg...]\n");
		return 2;
	}
	const char *opts = argv[1], *name = argv[2];
	char **args = argc > 3 ? argv + 3 : sh_argv + 1;
	int n = argc > 3 ? argc - 3 : sh_argc - 1;
	const char *e = getenv("OPTIND");
	int ind = e ? atoi(e) : 1;
	if (ind != last)
		pos = 1;                          /* OPTIND set by the script: start over */
	if (ind < 1)
		ind = 1;
	int silent = opts[0] == ':';
	char res[2] = { '?', 0 }, buf[16];
	int st = 0;
	const char *arg = ind <= n ? args[ind - 1] : 0;
	if (!arg || (pos == 1 && (arg[0] != '-' || !arg[1]))) {
		st = 1;
	} else if (pos == 1 && !strcmp(arg, "--")) {
		ind++;
		st = 1;
	} else {
		char c = arg[pos];
		const char *p = c == ':' ? 0 : strchr(opts + silent, c);
		unsetenv("OPTARG");
		if (!p) {
			if (silent)
				setenv("OPTARG", (char[]){ c, 0 }, 1);
			else
				fprintf(stderr, "Illegal option -%c\n", c);     /* dash's words */
		} else if (p[1] == ':') {
			if (arg[pos + 1]) {
				setenv("OPTARG", arg + pos + 1, 1);
				res[0] = c;
			} else if (ind < n) {
				setenv("OPTARG", args[ind], 1);
				res[0] = c;
				ind++;
			} else if (silent) {
				setenv("OPTARG", (char[]){ c, 0 }, 1);
				res[0] = ':';
			} else
				fprintf(stderr, "No arg for -%c option\n", c);
			pos = (int)strlen(arg) - 1;          /* the rest of arg is used */
		} else
			res[0] = c;
		if (!arg[++pos]) {
			ind++;
			pos = 1;
		}
	}
	if (st)
		pos = 1;
	setenv(name, res, 1);
	snprintf(buf, sizeof buf, "%d", ind);
	setenv("OPTIND", buf, 1);
	last = ind;
	return st;
}

static int keyword(const char *s)
{
	static const char *const k[] = { "if", "then", "else", "elif", "fi", "case", "esac", "for",
		"while", "until", "do", "done", "in", "{", "}", "!", 0 };
	for (int i = 0; k[i]; i++)
		if (!strcmp(k[i], s))
			return 1;
	return 0;
}

/* What NAME is, as type says it (verbose) or command -v does; 0 if found. */
static int describe(const char *name, int verbose)
{
	const char *what = keyword(name) ? "a shell keyword" : func_find(name) ? "a shell function" :
			   builtin_special(name) ? "a special shell builtin" :
			   builtin_find(name) ? "a shell builtin" : 0;
	if (what) {
		if (verbose)
			printf("%s is %s\n", name, what);
		else
			printf("%s\n", name);
		return 0;
	}
	char *p = path_search(name, X_OK);
	if (p) {
		if (verbose)
			printf("%s is %s\n", name, p);
		else
			printf("%s\n", p);
		free(p);
		return 0;
	}
	if (verbose)
		printf("%s: not found\n", name);
	return 127;
}

/* command -v NAME / -V NAME (command NAME ARG... is run.c's: no function). */
int b_command(int argc, char **argv)
{
	int i = 1, v = 0;
	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		v = strchr(argv[i], 'V') ? 2 : strchr(argv[i], 'v') ? 1 : v;
	}
	int st = 0;
	for (; i < argc && v; i++)
		if (describe(argv[i], v == 2))
			st = 127;
	fflush(stdout);
	return st;
}

int b_type(int argc, char **argv)
{
	int st = 0;
	for (int i = 1; i < argc; i++)
		if (describe(argv[i], 1))
			st = 127;
	fflush(stdout);
	return st;
}
