/* Word expansion, in POSIX's order: tilde, parameters ($name, ${...} and
   its forms, $? $$ $# $! $0-$9 $@ $*), command substitution ($(...) and
   `...`), arithmetic ($((...))), then field splitting of what unquoted
   expansions gave (at IFS) and pathname expansion (glob) of fields with
   an unquoted * ? or [, then quote removal. Fields are built directly:
   each has its text and a pattern (the text with its quoted characters
   escaped) for glob. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include <glob.h>
#include <fnmatch.h>
#include "sh.h"

struct str { char *s; size_t n, cap; };

struct fields {
	struct words *out;
	struct str lit, pat;
	int exists;          /* the field is there, even if empty ("") */
	int glob;            /* it holds an unquoted pattern character */
	int one;             /* one string (expand_one): "$@" joins too */
	int pattern;         /* a pattern (expand_pat): never split, pat kept */
	int err;
};

static void put(struct str *b, char c)
{
	if (b->n + 2 > b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		char *s = xmalloc(b->cap);
		if (b->n)
			memcpy(s, b->s, b->n);
		free(b->s);
		b->s = s;
	}
	b->s[b->n++] = c;
	b->s[b->n] = 0;
}

static void add(struct words *w, char *s)
{
	if (w->n + 2 > w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		char **v = xmalloc((size_t)w->cap * sizeof *v);
		if (w->n)
			memcpy(v, w->v, (size_t)w->n * sizeof *v);
		free(w->v);
		w->v = v;
	}
	w->v[w->n++] = s;
	w->v[w->n] = 0;
}

void words_free(struct words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	w->v = 0, w->n = w->cap = 0;
}

int is_name(const char *s, size_t n)
{
	if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* c: quoted (no splitting or globbing), or from an unquoted expansion
   (split: may end the field at IFS), or a literal of the word. */
enum { Q_QUOTED, Q_SPLIT, Q_LIT };

static void end_field(struct fields *f)
{
	if (!f->exists || f->pattern)
		return;
	glob_t g;
	if (f->glob && !opt_f && !glob(f->pat.s ? f->pat.s : "", 0, 0, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++)
			add(f->out, xstrndup(g.gl_pathv[i], strlen(g.gl_pathv[i])));
		globfree(&g);
	} else
		add(f->out, xstrndup(f->lit.s ? f->lit.s : "", f->lit.n));
	f->lit.n = f->pat.n = 0;
	if (f->lit.s)
		f->lit.s[0] = f->pat.s[0] = 0;
	f->exists = f->glob = 0;
}

static void emit(struct fields *f, char c, int how)
{
	if (how == Q_SPLIT && f->pattern)
		how = Q_LIT;
	if (how == Q_SPLIT) {
		const char *ifs = getenv("IFS");
		if (!ifs)
			ifs = " \t\n";
		if (c && strchr(ifs, c)) {
			if (!isspace((unsigned char)c))
				f->exists = 1;       /* a non-blank IFS char ends a field, even an empty one */
			end_field(f);
			return;
		}
	}
	put(&f->lit, c);
	if (how == Q_QUOTED && strchr("*?[]\\", c))
		put(&f->pat, '\\');
	put(&f->pat, c);
	if (how != Q_QUOTED && strchr("*?[", c))
		f->glob = 1;
	f->exists = 1;
}

static void emits(struct fields *f, const char *s, int how)
{
	for (; s && *s; s++)
		emit(f, *s, how);
}

/* The value of parameter name[0..n): 0 when unset; a number in buf. */
static const char *param(const char *name, size_t n, char *buf)
{
	if (n == 1 && strchr("?$#!-", name[0])) {
		long v = name[0] == '?' ? last_status : name[0] == '$' ? (long)sh_pid :
			 name[0] == '#' ? (long)(sh_argc - 1) : name[0] == '!' ? (long)last_bg : 0;
		if (name[0] == '!' && !last_bg)
			return 0;
		if (name[0] == '-')
			return opt_string();
		snprintf(buf, 32, "%ld", v);
		return buf;
	}
	if (isdigit((unsigned char)name[0])) {
		long k = strtol(name, 0, 10);
		return k < sh_argc ? sh_argv[k] : 0;
	}
	char key[256];
	if (n >= sizeof key)
		return 0;
	memcpy(key, name, n);
	key[n] = 0;
	return getenv(key);
}

/* set -u: expanding an unset parameter ends the shell. */
static const char *need(const char *v, const char *name, size_t n)
{
	if (!v && opt_u) {
		fprintf(stderr, "sh: %.*s: parameter not set\n", (int)n, name);
		sh_exit(2);
	}
	return v;
}

/* $@ or $*: the positional parameters, one field each when quoted "$@". */
static void params(struct fields *f, char which, int quoted)
{
	for (int i = 1; i < sh_argc; i++) {
		if (i > 1) {
			if (quoted && which == '@' && !f->one) {
				f->exists = 1;
				end_field(f);
			} else
				emit(f, ' ', quoted ? Q_QUOTED : Q_SPLIT);
		}
		emits(f, sh_argv[i], quoted ? Q_QUOTED : Q_SPLIT);
		if (quoted)
			f->exists = 1;
	}
}

/* ${name#pat} and its forms: v with the shortest/longest matching prefix
   or suffix removed. */
static char *trim(const char *v, const char *pat, int suffix, int longest)
{
	size_t n = strlen(v);
	char *s = xstrndup(v, n);
	for (size_t k = 0; k <= n; k++) {
		size_t len = longest ? n - k : k;      /* the part tried */
		char *part = suffix ? xstrndup(v + n - len, len) : xstrndup(v, len);
		int m = !fnmatch(pat, part, 0);
		free(part);
		if (m) {
			free(s);
			return suffix ? xstrndup(v, n - len) : xstrndup(v + len, n - len);
		}
	}
	return s;
}

static int braced(struct fields *f, const char *in, size_t n, int quoted)
{
	char buf[32];
	int len = n > 0 && in[0] == '#' && n > 1;
	if (len)
		in++, n--;
	size_t k = 0;
	if (n && strchr("?$#!-@*", in[0]))
		k = 1;
	else if (n && isdigit((unsigned char)in[0]))
		while (k < n && isdigit((unsigned char)in[k]))
			k++;
	else
		while (k < n && (isalnum((unsigned char)in[k]) || in[k] == '_'))
			k++;
	if (!k) {
		fprintf(stderr, "sh: bad substitution\n");
		return -1;
	}
	const char *v = (in[0] == '@' || in[0] == '*') && k == 1 ? 0 : param(in, k, buf);
	if ((len || k == n) && !(k == 1 && strchr("@*", in[0])))
		need(v, in, k);
	if (len) {
		snprintf(buf, sizeof buf, "%zu", v ? strlen(v) : in[0] == '@' || in[0] == '*' ? (size_t)(sh_argc - 1) : 0);
		emits(f, buf, quoted ? Q_QUOTED : Q_SPLIT);
		return 0;
	}
	if (k == n) {
		if (!v && (in[0] == '@' || in[0] == '*'))
			params(f, in[0], quoted);
		else
			emits(f, v, quoted ? Q_QUOTED : Q_SPLIT);
		return 0;
	}
	const char *op = in + k, *w = op + 1;
	int colon = op[0] == ':';
	if (colon)
		w++;
	char *raw = xstrndup(w, (size_t)(in + n - w));
	char *word = expand_one(raw);
	free(raw);
	char c = op[colon];
	int set = v && (!colon || *v);
	int r = 0;
	if (c == '-')
		emits(f, set ? v : word, quoted ? Q_QUOTED : Q_SPLIT);
	else if (c == '+')
		emits(f, set ? word : "", quoted ? Q_QUOTED : Q_SPLIT);
	else if (c == '=') {
		if (!set) {
			char key[256];
			if (!is_name(in, k) || k >= sizeof key) {
				fprintf(stderr, "sh: cannot assign to this parameter\n");
				r = -1;
			} else {
				memcpy(key, in, k);
				key[k] = 0;
				setenv(key, word, 1);
			}
		}
		emits(f, set ? v : word, quoted ? Q_QUOTED : Q_SPLIT);
	} else if (c == '?') {
		if (!set) {
			fprintf(stderr, "sh: %.*s: %s\n", (int)k, in, *word ? word : "parameter not set");
			sh_exit(2);
		} else
			emits(f, v, quoted ? Q_QUOTED : Q_SPLIT);
	} else if (c == '#' || c == '%') {
		int longest = op[1] == c;
		char *praw = xstrndup(op + 1 + longest, (size_t)(in + n - op - 1 - longest));
		char *p = expand_pat(praw);
		free(praw);
		char *t = trim(v ? v : "", p, c == '%', longest);
		emits(f, t, quoted ? Q_QUOTED : Q_SPLIT);
		free(p);
		free(t);
	} else {
		fprintf(stderr, "sh: bad substitution\n");
		r = -1;
	}
	free(word);
	return r;
}

/* The end of the ( or { group that starts at s[i] (lex.c's rules). */
static size_t close_of(const char *s, size_t i)
{
	long j = lex_skip(s, (long)i);
	return j < 0 ? strlen(s) : (size_t)j - 1;
}

/* A $ at s[i]: expand it into f; the index after it. */
static size_t dollar(struct fields *f, const char *s, size_t i, int quoted)
{
	char buf[32];
	int how = quoted ? Q_QUOTED : Q_SPLIT;
	char c = s[i + 1];
	if (c == '(' && s[i + 2] == '(') {
		size_t e = close_of(s, i + 1);
		char *raw = xstrndup(s + i + 3, e > i + 4 ? e - i - 4 : 0);
		char *ex = expand_one(raw);
		free(raw);
		int err = 0;
		long v = arith(ex, &err);
		free(ex);
		if (err) {
			fprintf(stderr, "sh: arithmetic: syntax error\n");
			f->err = 1;
		}
		snprintf(buf, sizeof buf, "%ld", v);
		emits(f, buf, how);
		return e + 1;
	}
	if (c == '(') {
		size_t e = close_of(s, i + 1);
		char *cmd = xstrndup(s + i + 2, e - i - 2);
		char *out = capture(cmd);
		emits(f, out, how);
		free(cmd);
		free(out);
		return e + (s[e] ? 1 : 0);
	}
	if (c == '{') {
		size_t e = close_of(s, i + 1);
		if (braced(f, s + i + 2, e - i - 2, quoted) < 0)
			f->err = 1;
		return e + (s[e] ? 1 : 0);
	}
	if (c == '@' || c == '*') {
		params(f, c, quoted);
		return i + 2;
	}
	if (c && (strchr("?$#!-", c) || isdigit((unsigned char)c))) {
		emits(f, need(param(s + i + 1, 1, buf), s + i + 1, 1), how);
		return i + 2;
	}
	size_t k = i + 1;
	while (isalnum((unsigned char)s[k]) || s[k] == '_')
		k++;
	if (k == i + 1 || isdigit((unsigned char)s[i + 1])) {
		emit(f, '$', quoted ? Q_QUOTED : Q_LIT);   /* a lone $ is itself */
		return i + 1;
	}
	emits(f, need(param(s + i + 1, k - i - 1, buf), s + i + 1, k - i - 1), how);
	return k;
}

/* `cmd`: its inner text, \$ \` \\ unescaped. */
static size_t backquote(struct fields *f, const char *s, size_t i, int quoted)
{
	struct str cmd = { 0 };
	size_t k = i + 1;
	for (; s[k] && s[k] != '`'; k++) {
		if (s[k] == '\\' && s[k + 1] && strchr("$`\\", s[k + 1]))
			k++;
		put(&cmd, s[k]);
	}
	char *out = capture(cmd.s ? cmd.s : "");
	emits(f, out, quoted ? Q_QUOTED : Q_SPLIT);
	free(out);
	free(cmd.s);
	return s[k] ? k + 1 : k;
}

/* The inside of "..." from s[i] to its closing quote (end '"'), or all
   of a here-document's body (end 0): $, ` and \ work; the index after. */
static size_t dq(struct fields *f, const char *s, size_t i, char end)
{
	while (s[i] && s[i] != end && !f->err) {
		if (s[i] == '\\' && s[i + 1] && strchr(end ? "$`\"\\\n" : "$`\\\n", s[i + 1])) {
			if (s[i + 1] != '\n')
				emit(f, s[i + 1], Q_QUOTED);
			i += 2;
		} else if (s[i] == '$')
			i = dollar(f, s, i, 1);
		else if (s[i] == '`')
			i = backquote(f, s, i, 1);
		else
			emit(f, s[i++], Q_QUOTED);
	}
	return s[i] ? i + 1 : i;
}

/* One word into f's fields; whole: as one string, all of it as if
   quoted (expand_one), no tilde and no field ended. */
static void word(struct fields *f, const char *s, int whole)
{
	size_t i = 0;
	if (!whole && s[0] == '~' && (s[1] == '/' || !s[1])) {
		const char *h = getenv("HOME");
		emits(f, h ? h : "~", Q_QUOTED);
		i = 1;
	}
	while (s[i] && !f->err) {
		char c = s[i];
		if (c == '\'') {
			f->exists = 1;
			for (i++; s[i] && s[i] != '\''; i++)
				emit(f, s[i], Q_QUOTED);
			i += s[i] ? 1 : 0;
		} else if (c == '"') {
			if (strncmp(s + i, "\"$@\"", 4) || sh_argc > 1)
				f->exists = 1;
			i = dq(f, s, i + 1, '"');
		} else if (c == '\\') {
			if (s[i + 1] && s[i + 1] != '\n')
				emit(f, s[i + 1], Q_QUOTED);
			i += s[i + 1] ? 2 : 1;
		} else if (c == '$')
			i = dollar(f, s, i, whole);
		else if (c == '`')
			i = backquote(f, s, i, whole);
		else
			emit(f, s[i++], whole ? Q_QUOTED : Q_LIT);
	}
	if (!whole)
		end_field(f);
}

int expand(char **raw, int n, struct words *out)
{
	struct fields f = { .out = out };
	for (int i = 0; i < n && !f.err; i++)
		word(&f, raw[i], 0);
	free(f.lit.s);
	free(f.pat.s);
	return f.err ? -1 : 0;
}

/* f's text (or its pattern), freed with f. */
static char *result(struct fields *f, int pat)
{
	struct str *b = pat ? &f->pat : &f->lit;
	char *r = xstrndup(b->s ? b->s : "", b->n);
	free(f->lit.s);
	free(f->pat.s);
	words_free(f->out);
	return r;
}

/* raw as one string: expanded, quotes removed, never split or globbed
   (assignments, redirection targets, the ${...} words). */
char *expand_one(const char *raw)
{
	struct words w = { 0 };
	struct fields f = { .out = &w, .one = 1 };
	word(&f, raw, 1);
	return result(&f, 0);
}

/* raw as a pattern for fnmatch (case, ${x#...}): expanded, its quoted
   characters escaped with \ and the rest left to match. */
char *expand_pat(const char *raw)
{
	struct words w = { 0 };
	struct fields f = { .out = &w, .one = 1, .pattern = 1 };
	word(&f, raw, 0);
	return result(&f, 1);
}

char *expand_body(const char *raw)
{
	struct words w = { 0 };
	struct fields f = { .out = &w, .one = 1 };
	dq(&f, raw, 0, 0);
	return result(&f, 0);
}
