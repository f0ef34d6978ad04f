/* test and [ (POSIX's rules by argument count, and -a -o ! ( ) beyond):
   the file tests -e -f -d -r -w -x -s -h -L -p -c -b -S, the string tests
   -n -z = !=, the integer comparisons -eq -ne -lt -le -gt -ge. Status 0
   true, 1 false, 2 a usage error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "sh.h"

struct args { char **v; int n, i, bad; };

static int num(struct args *a, const char *s, long *v)
{
	char *end;
	*v = strtol(s, &end, 10);
	if (!*s || *end) {
		fprintf(stderr, "test: %s: integer expected\n", s);
		a->bad = 1;
		return 0;
	}
	return 1;
}

static int unary(const char *op, const char *s)
{
	struct stat st;
	char c = op[1];
	if (c == 'n' || c == 'z')
		return (*s != 0) == (c == 'n');
	if (c == 'h' || c == 'L')
		return !lstat(s, &st) && S_ISLNK(st.st_mode);
	if (c == 'r' || c == 'w' || c == 'x')
		return !access(s, c == 'r' ? R_OK : c == 'w' ? W_OK : X_OK);
	if (stat(s, &st) < 0)
		return 0;
	switch (c) {
	case 'e': return 1;
	case 'f': return S_ISREG(st.st_mode);
	case 'd': return S_ISDIR(st.st_mode);
	case 's': return st.st_size > 0;
	case 'p': return S_ISFIFO(st.st_mode);
	case 'c': return S_ISCHR(st.st_mode);
	case 'b': return S_ISBLK(st.st_mode);
	case 'S': return S_ISSOCK(st.st_mode);
	}
	return 0;
}

static int is_unary(const char *s)
{
	return s[0] == '-' && s[1] && !s[2] && strchr("nzhLrwxefdspcbS", s[1]);
}

static const char *const binops[] = { "=", "!=", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", 0 };

static int is_binary(const char *s)
{
	for (int i = 0; binops[i]; i++)
		if (!strcmp(s, binops[i]))
			return 1;
	return 0;
}

static int binary(struct args *a, const char *l, const char *op, const char *r)
{
	if (!strcmp(op, "="))
		return !strcmp(l, r);
	if (!strcmp(op, "!="))
		return strcmp(l, r) != 0;
	long x, y;
	if (!num(a, l, &x) || !num(a, r, &y))
		return 0;
	switch (op[1] * 256 + op[2]) {
	case 'e' * 256 + 'q': return x == y;
	case 'n' * 256 + 'e': return x != y;
	case 'l' * 256 + 't': return x < y;
	case 'l' * 256 + 'e': return x <= y;
	case 'g' * 256 + 't': return x > y;
	}
	return x >= y;
}

static int expr_or(struct args *a);

static int primary(struct args *a)
{
	char **v = a->v + a->i;
	int left = a->n - a->i;
	if (left <= 0) {
		a->bad = 1;
		return 0;
	}
	if (!strcmp(v[0], "!")) {
		a->i++;
		return !primary(a);
	}
	if (left >= 3 && is_binary(v[1])) {
		a->i += 3;
		return binary(a, v[0], v[1], v[2]);
	}
	if (!strcmp(v[0], "(") ) {
		a->i++;
		int r = expr_or(a);
		if (a->i >= a->n || strcmp(a->v[a->i], ")"))
			a->bad = 1;
		a->i++;
		return r;
	}
	if (left >= 2 && is_unary(v[0])) {
		a->i += 2;
		return unary(v[0], v[1]);
	}
	a->i++;
	return *v[0] != 0;
}

static int expr_and(struct args *a)
{
	int r = primary(a);
	while (a->i < a->n && !strcmp(a->v[a->i], "-a")) {
		a->i++;
		r = primary(a) && r;
	}
	return r;
}

static int expr_or(struct args *a)
{
	int r = expr_and(a);
	while (a->i < a->n && !strcmp(a->v[a->i], "-o")) {
		a->i++;
		r = expr_and(a) || r;
	}
	return r;
}

int sh_test(int argc, char **argv)
{
	if (!strcmp(argv[0], "[")) {
		if (strcmp(argv[argc - 1], "]")) {
			fprintf(stderr, "[: missing ]\n");
			return 2;
		}
		argc--;
	}
	struct args a = { argv + 1, argc - 1, 0, 0 };
	if (a.n == 0)
		return 1;
	int r;
	if (a.n == 1)
		r = *a.v[0] != 0;                               /* one argument: not empty */
	else if (a.n == 2 && !strcmp(a.v[0], "!"))
		r = !*a.v[1];
	else if (a.n == 2 && is_unary(a.v[0]))
		r = unary(a.v[0], a.v[1]);
	else if (a.n == 3 && is_binary(a.v[1]))
		r = binary(&a, a.v[0], a.v[1], a.v[2]);
	else {
		r = expr_or(&a);
		if (a.i != a.n)
			a.bad = 1;
	}
	if (a.bad) {
		if (a.i != a.n)
			fprintf(stderr, "test: syntax error\n");
		return 2;
	}
	return !r;
}
