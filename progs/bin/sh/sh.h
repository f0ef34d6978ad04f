/* The shell (progs/bin/sh): a small POSIX sh for `system`, `popen`,
   scripts and `sh -c`. The command text is read in whole, then parsed one
   complete command at a time (lex.c, parse.c) into a tree that run.c
   walks; words are expanded only when their command runs (expand.c). */
#ifndef SH_H
#define SH_H
#include <stddef.h>

enum { T_WORD, T_NL, T_SEMI, T_AMP, T_AND, T_OR, T_PIPE, T_LP, T_RP, T_REDIR, T_END, T_ERR };

struct tok {
	int t;
	char *w;         /* T_WORD: the raw word (quotes kept) */
	int fd, op;      /* T_REDIR: its fd (-1: the default) and '<' '>' 'A'(>>) 'G'(>&) 'L'(<&) 'B'(<>) */
};

struct lex {
	const char *s;
	size_t i;
	struct tok peek;
	int have;
	const char *err;  /* a syntax error's message */
};

struct redir {
	int fd, op;
	char *word;
	struct redir *next;
};

enum { N_CMD, N_PIPE, N_AND, N_OR, N_SEQ, N_BG, N_NOT, N_IF, N_WHILE, N_UNTIL, N_FOR, N_SUB, N_BRACE };

struct node {
	int kind;
	char **w;            /* N_CMD: its words; N_FOR: the name, then the list */
	int nw;
	struct redir *r;     /* redirections (of any command) */
	struct node *a, *b, *c;   /* children: if a then b else c; while a do b; a | b; a && b */
};

/* lex.c */
void lex_init(struct lex *l, const char *s);
struct tok *lex_peek(struct lex *l);
struct tok lex_next(struct lex *l);

/* parse.c: the next complete command, 0 at the end; *err on a syntax error */
struct node *parse_command(struct lex *l, const char **err);

/* expand.c */
struct words { char **v; int n, cap; };
int expand(char **raw, int n, struct words *out);    /* 0, or -1 (message printed) */
char *expand_one(const char *raw);                    /* no splitting, no globbing */
void words_free(struct words *w);
int is_name(const char *s, size_t n);

/* run.c */
extern int last_status, sh_argc;
extern char **sh_argv;
extern int last_bg;
int run(struct node *n);
int run_string(const char *s);    /* parse and run s: its status (2: syntax error) */
char *capture(const char *cmd);    /* $(cmd)'s output without its trailing newlines */

/* builtin.c */
typedef int (*builtin_fn)(int argc, char **argv);
builtin_fn builtin_find(const char *name);
int sh_exec(int argc, char **argv);   /* run.c: exec's builtin */
int sh_test(int argc, char **argv);    /* test.c */
long arith(const char *s, int *err);   /* arith.c */

char *read_all(int fd, size_t *n);   /* main.c */
void *xmalloc(size_t n);
char *xstrndup(const char *s, size_t n);
#endif
