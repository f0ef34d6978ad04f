/* The shell's tokens: words (their quotes kept for expand.c), the
   operators ; ;; & && || | ( ) and newlines (after which the bodies of
   the line's here-documents are read: heredoc.c), and redirections with their
   optional fd. A word ends at an unquoted blank or operator character;
   quotes, $(...), ${...} and `...` may hold any of those. */
#include <string.h>
#include <ctype.h>
#include "sh.h"

void lex_init(struct lex *l, const char *s)
{
	memset(l, 0, sizeof *l);
	l->s = s;
}

static int meta(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
	       c == '|' || c == '<' || c == '>' || c == '(' || c == ')' || c == 0;
}

/* The reserved word w (4 letters) as a word of its own at s[i]. */
static int word_at(const char *s, long i, const char *w)
{
	return (i == 0 || strchr(" \t\n;&|(", s[i - 1])) && !strncmp(s + i, w, 4) &&
	       strchr(" \t\n;&|)", s[i + 4]);
}

/* Past the quoted or nested part that starts at i (a quote, $( ${ or `):
   the index after it, or -1 when it is not closed. In $(...), a case's
   patterns end in a ) that closes nothing, and here-documents' bodies
   (after their line) are passed over whole (not a << inside $((...))). */
long lex_skip(const char *s, long i)
{
	char c = s[i];
	if (c == '\'') {
		const char *e = strchr(s + i + 1, '\'');
		return e ? e - s + 1 : -1;
	}
	if (c == '`' || c == '"') {
		for (i++; s[i] && s[i] != c; i++) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			else if (c == '"' && s[i] == '$' && (s[i + 1] == '(' || s[i + 1] == '{')) {
				long j = lex_skip(s, i + 1);
				if (j < 0)
					return -1;
				i = j - 1;
			} else if (c == '"' && s[i] == '`') {
				long j = lex_skip(s, i);
				if (j < 0)
					return -1;
				i = j - 1;
			}
		}
		return s[i] ? i + 1 : -1;
	}
	/* ( or { after a $: to the matching close, quotes skipped */
	char open = c, close = c == '(' ? ')' : '}';
	int depth = 0, cases[8], nc = 0;      /* the depths of the open cases */
	struct hdnote hd[4];
	int nh = 0;
	for (; s[i]; i++) {
		if (s[i] == '\\' && s[i + 1])
			i++;
		else if (open == '(' && depth == 1 && s[i] == '<' && s[i + 1] == '<' && nh < 4)
			i = heredoc_note(s, i, &hd[nh++]) - 1;
		else if (s[i] == '\n' && nh) {
			i = heredoc_pass(s, i + 1, hd, nh) - 1;
			nh = 0;
		}
		else if (open == '(' && word_at(s, i, "case") && nc < 8)
			cases[nc++] = depth, i += 3;
		else if (open == '(' && nc && word_at(s, i, "esac"))
			nc--, i += 3;
		else if (s[i] == close && nc && cases[nc - 1] == depth)
			;                                /* a pattern's ) */
		else if (s[i] == '\'' || s[i] == '"' || s[i] == '`') {
			long j = lex_skip(s, i);
			if (j < 0)
				return -1;
			i = j - 1;
		} else if (s[i] == open)
			depth++;
		else if (s[i] == close && --depth == 0)
			return i + 1;
	}
	return -1;
}

static struct tok scan(struct lex *l)
{
	const char *s = l->s;
	struct tok t = { .t = T_END, .fd = -1 };
	for (;;) {
		while (s[l->i] == ' ' || s[l->i] == '\t')
			l->i++;
		if (s[l->i] == '\\' && s[l->i + 1] == '\n')
			l->i += 2;                       /* a line continued */
		else if (s[l->i] == '#')
			while (s[l->i] && s[l->i] != '\n')
				l->i++;
		else
			break;
	}
	size_t i = l->i;
	char c = s[i];
	if (!c) {
		heredoc_bodies(l);     /* bodies cut off by the end: empty */
		return t;
	}
	size_t d = i;
	while (isdigit((unsigned char)s[d]))
		d++;
	if (d > i && (s[d] == '<' || s[d] == '>')) {
		t.fd = 0;
		for (; i < d; i++)
			t.fd = t.fd * 10 + (s[i] - '0') > 9999 ? 9999 : t.fd * 10 + (s[i] - '0');
		c = s[i];
	}
	if (c == '<' || c == '>') {
		t.t = T_REDIR;
		char n = s[i + 1];
		t.op = c;
		i++;
		if (c == '>' && n == '>')
			t.op = 'A', i++;
		else if (c == '>' && n == '&')
			t.op = 'G', i++;
		else if (c == '<' && n == '&')
			t.op = 'L', i++;
		else if (c == '<' && n == '>')
			t.op = 'B', i++;
		else if (c == '>' && n == '|')
			t.op = 'C', i++;
		else if (c == '<' && n == '<') {
			t.op = 'H', i++;
			if (s[i] == '-')
				t.op = 'S', i++;
		}
		l->i = i;
		return t;
	}
	static const struct { const char *s; int t; } ops[] = {
		{ "&&", T_AND }, { "||", T_OR }, { ";;", T_DSEMI }, { ";", T_SEMI }, { "&", T_AMP }, { "|", T_PIPE },
		{ "(", T_LP }, { ")", T_RP }, { "\n", T_NL },
	};
	for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
		if (!strncmp(s + i, ops[k].s, strlen(ops[k].s))) {
			l->i = i + strlen(ops[k].s);
			t.t = ops[k].t;
			if (t.t == T_NL)
				heredoc_bodies(l);
			return t;
		}
	while (!meta(s[i])) {
		if (s[i] == '\\') {
			i += s[i + 1] ? 2 : 1;
			continue;
		}
		long j = i;
		if (s[i] == '\'' || s[i] == '"' || s[i] == '`')
			j = lex_skip(s, (long)i);
		else if (s[i] == '$' && (s[i + 1] == '(' || s[i + 1] == '{'))
			j = lex_skip(s, (long)i + 1);
		else {
			i++;
			continue;
		}
		if (j < 0) {
			l->err = "unterminated quote or substitution";
			t.t = T_ERR;
			return t;
		}
		i = (size_t)j;
	}
	t.t = T_WORD;
	t.w = xstrndup(s + l->i, i - l->i);
	l->i = i;
	return t;
}

struct tok *lex_peek(struct lex *l)
{
	if (!l->have) {
		l->peek = scan(l);
		l->have = 1;
	}
	return &l->peek;
}

struct tok lex_next(struct lex *l)
{
	lex_peek(l);
	l->have = 0;
	return l->peek;
}
