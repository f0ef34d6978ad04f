/* $((...)): C's integer expressions on longs, by precedence climbing:
   ( ) unary + - ! ~, * / %, + -, << >>, < <= > >=, == !=, &, ^, |, &&,
   ||, with names read as variables (unset or empty: 0). No assignment
   operators. *err on a syntax error or a division by zero. */
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "sh.h"

struct ar { const char *s; int err; };

static void blank(struct ar *a)
{
	while (isspace((unsigned char)*a->s))
		a->s++;
}

static long expr(struct ar *a, int prec);

static long atom(struct ar *a)
{
	blank(a);
	char c = *a->s;
	if (c == '(') {
		a->s++;
		long v = expr(a, 0);
		blank(a);
		if (*a->s != ')')
			a->err = 1;
		else
			a->s++;
		return v;
	}
	if (c == '-' || c == '+' || c == '!' || c == '~') {
		a->s++;
		long v = atom(a);
		return c == '-' ? -v : c == '!' ? !v : c == '~' ? ~v : v;
	}
	if (isdigit((unsigned char)c)) {
		char *end;
		long v = strtol(a->s, &end, 0);
		a->s = end;
		return v;
	}
	if (isalpha((unsigned char)c) || c == '_') {
		const char *b = a->s;
		while (isalnum((unsigned char)*a->s) || *a->s == '_')
			a->s++;
		char name[256];
		size_t n = (size_t)(a->s - b);
		if (n >= sizeof name) {
			a->err = 1;
			return 0;
		}
		memcpy(name, b, n);
		name[n] = 0;
		const char *v = getenv(name);
		return v && *v ? strtol(v, 0, 0) : 0;
	}
	a->err = 1;
	return 0;
}

static const struct { const char *op; int prec; } ops[] = {
	{ "||", 1 }, { "&&", 2 }, { "|", 3 }, { "^", 4 }, { "&", 5 }, { "==", 6 }, { "!=", 6 },
	{ "<=", 7 }, { ">=", 7 }, { "<<", 8 }, { ">>", 8 }, { "<", 7 }, { ">", 7 },
	{ "+", 9 }, { "-", 9 }, { "*", 10 }, { "/", 10 }, { "%", 10 },
};

static long apply(struct ar *a, const char *op, long x, long y)
{
	switch (op[0]) {
	case '|': return op[1] ? x || y : x | y;
	case '&': return op[1] ? x && y : x & y;
	case '^': return x ^ y;
	case '=': return x == y;
	case '!': return x != y;
	case '<': return op[1] == '=' ? x <= y : op[1] == '<' ? (long)((unsigned long)x << (y & 63)) : x < y;
	case '>': return op[1] == '=' ? x >= y : op[1] == '>' ? x >> (y & 63) : x > y;
	case '+': return (long)((unsigned long)x + (unsigned long)y);
	case '-': return (long)((unsigned long)x - (unsigned long)y);
	case '*': return (long)((unsigned long)x * (unsigned long)y);
	}
	if (y == 0 || (x == (-9223372036854775807L - 1) && y == -1)) {
		a->err = 1;
		return 0;
	}
	return op[0] == '/' ? x / y : x % y;
}

static long expr(struct ar *a, int prec)
{
	long x = atom(a);
	for (;;) {
		blank(a);
		size_t k = 0;
		for (; k < sizeof ops / sizeof ops[0]; k++)
			if (!strncmp(a->s, ops[k].op, strlen(ops[k].op)))
				break;
		if (a->err || k == sizeof ops / sizeof ops[0] || ops[k].prec <= prec)
			return x;
		a->s += strlen(ops[k].op);
		long y = expr(a, ops[k].prec);
		x = apply(a, ops[k].op, x, y);
	}
}

long arith(const char *s, int *err)
{
	struct ar a = { s, 0 };
	long v = expr(&a, 0);
	blank(&a);
	*err = a.err || *a.s;
	return *err ? 0 : v;
}
