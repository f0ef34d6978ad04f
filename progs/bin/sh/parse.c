/* The grammar, by recursive descent (POSIX's):
     list     := and_or ((';' | '&' | newline) and_or)*
     and_or   := pipeline (('&&' | '||') newline* pipeline)*
     pipeline := ['!'] command ('|' newline* command)*
     command  := if | while | until | for | case | '{' list '}' | '(' list ')'
                 | name '(' ')' newline* command | simple,
                 each with redirections after it
     case     := 'case' word newline* 'in' newline*
                 (['('] word ('|' word)* ')' [list] ';;' newline*)* 'esac'
                 (the last item's ';;' may be left out)
   A reserved word counts only where a command starts. At the top level
   a newline ends a complete command, which runs before the next is read
   (a later syntax error does not stop the commands before it). */
#include <string.h>
#include <stdlib.h>
#include "sh.h"

static struct node *list(struct lex *l, int top);

static struct node *mk(int kind, struct node *a, struct node *b)
{
	struct node *n = xmalloc(sizeof *n);
	memset(n, 0, sizeof *n);
	n->kind = kind, n->a = a, n->b = b;
	return n;
}

static int is_word(struct lex *l, const char *w)
{
	struct tok *t = lex_peek(l);
	return t->t == T_WORD && !strcmp(t->w, w);
}

/* A word that ends a list: it may not start a command. */
static int closer(struct lex *l)
{
	static const char *const w[] = { "then", "elif", "else", "fi", "do", "done", "}", "in", "esac", 0 };
	for (int i = 0; w[i]; i++)
		if (is_word(l, w[i]))
			return 1;
	return 0;
}

static int starts_command(struct lex *l)
{
	int t = lex_peek(l)->t;
	return (t == T_WORD && !closer(l)) || t == T_LP || t == T_REDIR;
}

static int fail(struct lex *l, const char *msg)
{
	if (!l->err)
		l->err = msg;
	return 0;
}

static int expect(struct lex *l, const char *w)
{
	if (!is_word(l, w)) {
		static char m[64];
		strcpy(m, "expected '");
		strcat(m, w);
		strcat(m, "'");
		return fail(l, m);
	}
	lex_next(l);
	return 1;
}

static void newlines(struct lex *l)
{
	while (lex_peek(l)->t == T_NL)
		lex_next(l);
}

static int redirs(struct lex *l, struct redir ***tail)
{
	while (lex_peek(l)->t == T_REDIR) {
		struct tok t = lex_next(l);
		struct tok w = lex_next(l);
		if (w.t != T_WORD)
			return fail(l, "a redirection wants a word");
		struct redir *r = xmalloc(sizeof *r);
		r->fd = t.fd >= 0 ? t.fd : strchr("<LBHS", t.op) ? 0 : 1;
		r->op = t.op, r->word = w.w, r->next = 0;
		if (t.op == 'H' || t.op == 'S') {
			if (l->nhd == 16)
				return fail(l, "too many here-documents on a line");
			heredoc_add(l, r);
		}
		**tail = r;
		*tail = &r->next;
	}
	return 1;
}

static struct node *command(struct lex *l);

/* name() body: after the name, the body as a node N_FUNC (defined when it runs). */
static struct node *func_rest(struct lex *l, struct node *n)
{
	lex_next(l);
	if (lex_next(l).t != T_RP)
		return fail(l, "expected ')'"), (struct node *)0;
	newlines(l);
	n->kind = N_FUNC;
	return (n->a = command(l)) ? n : 0;
}

static struct node *simple(struct lex *l)
{
	struct node *n = mk(N_CMD, 0, 0);
	struct redir **tail = &n->r;
	int cap = 0;
	for (;;) {
		struct tok *t = lex_peek(l);
		if (t->t == T_REDIR) {
			if (!redirs(l, &tail))
				return 0;
		} else if (t->t == T_WORD) {
			if (n->nw + 2 > cap) {
				cap = cap ? 2 * cap : 8;
				char **v = xmalloc((size_t)cap * sizeof *v);
				if (n->nw)
					memcpy(v, n->w, (size_t)n->nw * sizeof *v);
				free(n->w);
				n->w = v;
			}
			n->w[n->nw++] = lex_next(l).w;
			n->w[n->nw] = 0;
			if (n->nw == 1 && !n->r && lex_peek(l)->t == T_LP && is_name(n->w[0], strlen(n->w[0])))
				return func_rest(l, n);
		} else
			break;
	}
	if (!n->nw && !n->r)
		return fail(l, "a command was expected"), (struct node *)0;
	return n;
}

static struct node *if_rest(struct lex *l)
{
	struct node *n = mk(N_IF, 0, 0);
	if (!(n->a = list(l, 0)) || !expect(l, "then") || !(n->b = list(l, 0)))
		return 0;
	if (is_word(l, "elif")) {
		lex_next(l);
		return (n->c = if_rest(l)) ? n : 0;   /* its own fi ends both */
	}
	if (is_word(l, "else")) {
		lex_next(l);
		if (!(n->c = list(l, 0)))
			return 0;
	}
	return expect(l, "fi") ? n : 0;
}

static struct node *for_rest(struct lex *l)
{
	struct tok t = lex_next(l);
	if (t.t != T_WORD || !is_name(t.w, strlen(t.w)))
		return fail(l, "for wants a name"), (struct node *)0;
	struct node *n = mk(N_FOR, 0, 0);
	int cap = 8;
	n->w = xmalloc((size_t)cap * sizeof *n->w);
	n->w[n->nw++] = t.w;
	newlines(l);
	if (is_word(l, "in")) {
		lex_next(l);
		while (lex_peek(l)->t == T_WORD) {
			if (n->nw + 2 > cap) {
				char **v = xmalloc((size_t)(cap *= 2) * sizeof *v);
				memcpy(v, n->w, (size_t)n->nw * sizeof *v);
				free(n->w);
				n->w = v;
			}
			n->w[n->nw++] = lex_next(l).w;
		}
	} else {
		n->w[n->nw++] = xstrndup("\"$@\"", 4);
	}
	n->w[n->nw] = 0;
	if (lex_peek(l)->t == T_SEMI)
		lex_next(l);
	newlines(l);
	if (!expect(l, "do") || !(n->a = list(l, 0)) || !expect(l, "done"))
		return 0;
	return n;
}

/* One item: its patterns, then its list up to ';;' or 'esac'. */
static struct node *item(struct lex *l)
{
	struct node *it = mk(N_ITEM, 0, 0);
	int cap = 0;
	if (lex_peek(l)->t == T_LP)
		lex_next(l);
	for (;;) {
		struct tok t = lex_next(l);
		if (t.t != T_WORD)
			return fail(l, "case wants a pattern"), (struct node *)0;
		if (it->nw + 2 > cap) {
			char **v = xmalloc((size_t)(cap = cap ? 2 * cap : 4) * sizeof *v);
			if (it->nw)
				memcpy(v, it->w, (size_t)it->nw * sizeof *v);
			free(it->w);
			it->w = v;
		}
		it->w[it->nw++] = t.w;
		it->w[it->nw] = 0;
		t = lex_next(l);
		if (t.t == T_RP)
			break;
		if (t.t != T_PIPE)
			return fail(l, "expected ')' after a pattern"), (struct node *)0;
	}
	newlines(l);
	if (lex_peek(l)->t != T_DSEMI && !is_word(l, "esac") && !(it->a = list(l, 0)))
		return 0;
	if (lex_peek(l)->t == T_DSEMI) {
		lex_next(l);
		newlines(l);
	} else if (!is_word(l, "esac"))
		return fail(l, "expected ';;' or 'esac'"), (struct node *)0;
	return it;
}

static struct node *case_rest(struct lex *l)
{
	struct tok t = lex_next(l);
	if (t.t != T_WORD)
		return fail(l, "case wants a word"), (struct node *)0;
	struct node *n = mk(N_CASE, 0, 0), **tail = &n->a;
	n->w = xmalloc(2 * sizeof *n->w);
	n->w[0] = t.w, n->w[1] = 0, n->nw = 1;
	newlines(l);
	if (!expect(l, "in"))
		return 0;
	newlines(l);
	while (!is_word(l, "esac")) {
		if (lex_peek(l)->t == T_END)
			return fail(l, "expected 'esac'"), (struct node *)0;
		if (!(*tail = item(l)))
			return 0;
		tail = &(*tail)->b;
	}
	lex_next(l);
	return n;
}

static struct node *command(struct lex *l)
{
	struct node *n;
	struct tok *t = lex_peek(l);
	if (t->t == T_ERR)
		return 0;
	if (t->t == T_LP) {
		lex_next(l);
		n = mk(N_SUB, list(l, 0), 0);
		if (!n->a || lex_next(l).t != T_RP)
			return fail(l, "expected ')'"), (struct node *)0;
	} else if (is_word(l, "{")) {
		lex_next(l);
		n = mk(N_BRACE, list(l, 0), 0);
		if (!n->a || !expect(l, "}"))
			return 0;
	} else if (is_word(l, "if")) {
		lex_next(l);
		n = if_rest(l);
	} else if (is_word(l, "while") || is_word(l, "until")) {
		int k = is_word(l, "while") ? N_WHILE : N_UNTIL;
		lex_next(l);
		n = mk(k, list(l, 0), 0);
		if (!n->a || !expect(l, "do") || !(n->b = list(l, 0)) || !expect(l, "done"))
			return 0;
	} else if (is_word(l, "for")) {
		lex_next(l);
		n = for_rest(l);
	} else if (is_word(l, "case")) {
		lex_next(l);
		n = case_rest(l);
	} else if (closer(l)) {
		static char m[64];
		strcpy(m, "unexpected '");
		strncat(m, t->w, 40);
		strcat(m, "'");
		return fail(l, m), (struct node *)0;
	} else
		return simple(l);
	if (!n)
		return 0;
	struct redir **tail = &n->r;
	return redirs(l, &tail) ? n : 0;
}

static struct node *pipeline(struct lex *l)
{
	int not = 0;
	while (is_word(l, "!")) {
		lex_next(l);
		not = !not;
	}
	struct node *n = command(l);
	while (n && lex_peek(l)->t == T_PIPE) {
		lex_next(l);
		newlines(l);
		struct node *m = command(l);
		n = m ? mk(N_PIPE, n, m) : 0;
	}
	return n && not ? mk(N_NOT, n, 0) : n;
}

static struct node *and_or(struct lex *l)
{
	struct node *n = pipeline(l);
	for (;;) {
		int t = lex_peek(l)->t;
		if (!n || (t != T_AND && t != T_OR))
			return n;
		lex_next(l);
		newlines(l);
		struct node *m = pipeline(l);
		n = m ? mk(t == T_AND ? N_AND : N_OR, n, m) : 0;
	}
}

/* top: a complete command, ended by a newline (or the end); else a
   compound command's list, ended by a word or ')' that closes it. */
static struct node *list(struct lex *l, int top)
{
	if (!top)
		newlines(l);
	struct node *n = and_or(l);
	while (n) {
		int t = lex_peek(l)->t;
		if (t == T_SEMI || t == T_AMP) {
			lex_next(l);
			if (t == T_AMP)
				n = mk(N_BG, n, 0);
		} else if (t != T_NL || top)
			break;
		if (!top)
			newlines(l);
		if (!starts_command(l))
			break;
		struct node *m = and_or(l);
		n = m ? mk(N_SEQ, n, m) : 0;
	}
	return n;
}

struct node *parse_command(struct lex *l, const char **err)
{
	*err = 0;
	newlines(l);
	if (lex_peek(l)->t == T_END)
		return 0;
	struct node *n = list(l, 1);
	int t = lex_peek(l)->t;
	if (n && t != T_NL && t != T_END) {
		struct tok *p = lex_peek(l);
		fail(l, p->t == T_RP ? "unexpected ')'" : p->t == T_WORD ? "unexpected word" : "unexpected operator");
		n = 0;
	}
	if (!n) {
		*err = l->err ? l->err : "syntax error";
		return 0;
	}
	lex_next(l);
	return n;
}
