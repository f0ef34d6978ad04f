/* Here-documents: <<WORD and <<-WORD. The parser hands each to the lexer
   (heredoc_add), which reads their bodies, in order, after the newline
   that ends their line (heredoc_bodies): the lines up to one that is
   WORD (with <<-, leading tabs stripped first). A body is expanded when
   its command runs ($, ` and \ as inside "") unless WORD had a quote in
   it. The command reads it from a pipe, or from an unlinked file in /tmp
   when it is larger than a pipe holds without a reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include "sh.h"

void heredoc_add(struct lex *l, struct redir *r)
{
	l->hd[l->nhd++] = r;
}

/* The delimiter without its quotes; *quoted when it had any. */
static char *unquote(const char *w, int *quoted)
{
	char *d = xstrndup(w, strlen(w));
	size_t k = 0;
	*quoted = 0;
	for (size_t i = 0; w[i]; i++) {
		if (w[i] == '\'' || w[i] == '"') {
			*quoted = 1;
			continue;
		}
		if (w[i] == '\\' && w[i + 1]) {
			*quoted = 1;
			i++;
		}
		d[k++] = w[i];
	}
	d[k] = 0;
	return d;
}

/* The body line at s[*i] (its leading tabs passed with strip) in
   *line, *len; 0 when it is delim, or at the end of s. */
static int line(const char *s, size_t *i, int strip, const char *delim, const char **line, size_t *len)
{
	if (!s[*i])
		return 0;
	if (strip)
		while (s[*i] == '\t')
			(*i)++;
	const char *nl = strchr(s + *i, '\n');
	*line = s + *i;
	*len = nl ? (size_t)(nl - *line) : strlen(*line);
	*i += *len + (nl ? 1 : 0);
	return !(*len == strlen(delim) && !strncmp(*line, delim, *len));
}

static void body(struct lex *l, struct redir *r)
{
	int quoted, strip = r->op == 'S';
	char *delim = unquote(r->word, &quoted);
	size_t cap = 256, n = 0, len;
	char *b = xmalloc(cap);
	const char *ln;
	while (line(l->s, &l->i, strip, delim, &ln, &len)) {
		if (n + len + 2 > cap) {
			char *g = xmalloc(cap = 2 * (n + len + 2));
			memcpy(g, b, n);
			free(b);
			b = g;
		}
		memcpy(b + n, ln, len);
		n += len;
		b[n++] = '\n';
	}
	b[n] = 0;
	free(delim);
	free(r->word);
	r->word = b;
	r->op = quoted ? 'h' : 'H';
}

void heredoc_bodies(struct lex *l)
{
	for (int k = 0; k < l->nhd; k++)
		body(l, l->hd[k]);
	l->nhd = 0;
}

/* In $(...)'s text (lex.c's lex_skip), the here-document whose << is
   at s[i]: its delimiter and <<- noted in *n; the index after its word. */
long heredoc_note(const char *s, long i, struct hdnote *n)
{
	i += 2;
	n->strip = s[i] == '-';
	i += n->strip;
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	long w = i;
	for (; s[i] && !strchr(" \t\n;&|<>()", s[i]); i++)
		if (s[i] == '\'' || s[i] == '"') {
			const char *e = strchr(s + i + 1, s[i]);
			i = e ? e - s : (long)strlen(s) - 1;
		} else if (s[i] == '\\' && s[i + 1])
			i++;
	int q;
	char *raw = xstrndup(s + w, (size_t)(i - w));
	char *d = unquote(raw, &q);
	snprintf(n->delim, sizeof n->delim, "%s", d);
	free(raw);
	free(d);
	return i;
}

/* Past the bodies of the k here-documents noted, from the line at s[i]. */
long heredoc_pass(const char *s, long i, struct hdnote *n, int k)
{
	size_t at = (size_t)i, len;
	const char *ln;
	for (int j = 0; j < k; j++)
		while (line(s, &at, n[j].strip, n[j].delim, &ln, &len))
			;
	return (long)at;
}

int heredoc_fd(struct redir *r)
{
	char *text = r->op == 'H' ? expand_body(r->word) : r->word;
	size_t n = strlen(text);
	int fd[2] = { -1, -1 };
	if (n <= 4096) {
		if (pipe(fd) == 0 && write(fd[1], text, n) != (ssize_t)n) {
			close(fd[0]);
			fd[0] = -1;
		}
		if (fd[1] >= 0)
			close(fd[1]);
	} else {
		char path[64];
		static int seq;
		snprintf(path, sizeof path, "/tmp/sh-heredoc-%d-%d", (int)getpid(), seq++);
		fd[0] = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
		if (fd[0] >= 0) {
			unlink(path);
			if (write(fd[0], text, n) != (ssize_t)n || lseek(fd[0], 0, SEEK_SET) != 0) {
				close(fd[0]);
				fd[0] = -1;
			}
		}
	}
	if (fd[0] < 0)
		perror("sh: here-document");
	if (text != r->word)
		free(text);
	return fd[0];
}
