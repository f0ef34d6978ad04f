/* The shell (progs/bin/sh): a small POSIX sh for `system`, `popen`,
   scripts and `sh -c`. The command text is read in whole, then parsed one
   complete command at a time (lex.c, parse.c) into a tree that run.c
   walks; words are expanded only when their command runs (expand.c).
   Beside them: case.c (case), func.c (functions, return, local, eval,
   dot), heredoc.c (<<), trap.c (trap, exit, signals), read.c (read),
   opts.c (set's options, getopts, command, type). */
#ifndef SH_H
#define SH_H
#include <stddef.h>
#include <sys/types.h>

enum { T_WORD, T_NL, T_SEMI, T_AMP, T_AND, T_OR, T_PIPE, T_LP, T_RP, T_DSEMI, T_REDIR, T_END, T_ERR };

struct tok {
	int t;
	char *w;         /* T_WORD: the raw word (quotes kept) */
	int fd, op;      /* T_REDIR: its fd (-1: the default) and '<' '>' 'A'(>>) 'G'(>&) 'L'(<&) 'B'(<>)
	                    'C'(>|) 'H'(<<) 'S'(<<-) */
};

struct lex {
	const char *s;
	size_t i;
	struct tok peek;
	int have;
	const char *err;  /* a syntax error's message */
	struct redir *hd[16];   /* here-documents whose bodies follow the next newline */
	int nhd;
};

struct redir {
	int fd, op;          /* op 'H': a here-document, word its body; 'h': one not expanded */
	char *word;
	struct redir *next;
};

enum { N_CMD, N_PIPE, N_AND, N_OR, N_SEQ, N_BG, N_NOT, N_IF, N_WHILE, N_UNTIL, N_FOR, N_SUB, N_BRACE,
       N_CASE, N_ITEM, N_FUNC };

struct node {
	int kind;
	char **w;            /* N_CMD: its words; N_FOR: the name, then the list */
	int nw;
	struct redir *r;     /* redirections (of any command) */
	struct node *a, *b, *c;   /* children: if a then b else c; while a do b; a | b; a && b */
	/* N_CASE: w[0] the word, a its first N_ITEM; N_ITEM: w the patterns,
	   a the list (or 0), b the next item; N_FUNC: w[0] the name, a the body */
};

/* lex.c */
void lex_init(struct lex *l, const char *s);
struct tok *lex_peek(struct lex *l);
struct tok lex_next(struct lex *l);
long lex_skip(const char *s, long i);   /* past a quote, $(...), ${...}: -1 if open */

/* parse.c: the next complete command, 0 at the end; *err on a syntax error */
struct node *parse_command(struct lex *l, const char **err);

/* heredoc.c */
void heredoc_add(struct lex *l, struct redir *r);
void heredoc_bodies(struct lex *l);
int heredoc_fd(struct redir *r);     /* a readable fd of its body, or -1 */
struct hdnote { char delim[64]; int strip; };
long heredoc_note(const char *s, long i, struct hdnote *n);
long heredoc_pass(const char *s, long i, struct hdnote *n, int k);

/* expand.c */
struct words { char **v; int n, cap; };
int expand(char **raw, int n, struct words *out);    /* 0, or -1 (message printed) */
char *expand_one(const char *raw);                    /* no splitting, no globbing */
char *expand_pat(const char *raw);     /* a pattern: its quoted characters escaped */
char *expand_body(const char *raw);    /* a here-document: $, ` and \ only */
void words_free(struct words *w);
int is_name(const char *s, size_t n);

/* run.c */
extern int last_status, sh_argc, sh_pid;   /* sh_pid: $$, the shell's, not a subshell's */
extern char **sh_argv;
extern int last_bg;
extern int loop_break, loop_cont, returning, cond_depth;
int run(struct node *n);
int unwinding(void);               /* break, continue or return in progress */
pid_t sh_fork(void);
int wait_for(pid_t p);
char *path_search(const char *name, int mode);   /* along PATH, access()ible by mode; or 0 */
int run_string(const char *s);    /* parse and run s: its status (2: syntax error) */
char *capture(const char *cmd);    /* $(cmd)'s output without its trailing newlines */

/* case.c */
int run_case(struct node *n);

/* func.c */
void func_define(struct node *n);
struct node *func_find(const char *name);
int func_call(struct node *body, int argc, char **argv);
int b_return(int argc, char **argv);
int b_local(int argc, char **argv);
int b_eval(int argc, char **argv);
int b_dot(int argc, char **argv);
void func_unset(const char *name);

/* trap.c */
void sh_exit(int st);                 /* the EXIT trap, then exit */
int trap_check(void);      /* run the actions of signals that came: the last one's, or 0 */
void trap_child(void);                /* a subshell: caught signals to default */
int b_trap(int argc, char **argv);
int sig_number(const char *s);        /* by number or name, or -1 */

/* opts.c */
extern int opt_e, opt_u, opt_x, opt_f, opt_C;
int set_options(const char *arg);     /* -eux / +eux: 0, or -1 for a bad one */
int set_o(const char *name, int on);
int take_options(int argc, char **argv, int stop_at_c);   /* index past them, -1 */
const char *opt_string(void);         /* $- */
void trace(char **w, int n);          /* set -x's line */
int b_getopts(int argc, char **argv);
int b_command(int argc, char **argv);
int b_type(int argc, char **argv);

/* builtin.c */
void put_quoted(const char *s);     /* s in '...' on stdout, its ' as '\'' */
typedef int (*builtin_fn)(int argc, char **argv);
builtin_fn builtin_find(const char *name);
int builtin_special(const char *name);   /* found before functions */
int sh_exec(int argc, char **argv);   /* run.c: exec's builtin */
int sh_test(int argc, char **argv);    /* test.c */
int b_read(int argc, char **argv);     /* read.c */
long arith(const char *s, int *err);   /* arith.c */

char *read_all(int fd, size_t *n);   /* main.c */
void *xmalloc(size_t n);
char *xstrndup(const char *s, size_t n);
#endif
