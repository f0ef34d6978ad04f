/* The read builtin: read [-r] NAME... takes one line of fd 0 and splits
   it into the NAMEs as POSIX's field splitting does. */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include "sh.h"

/* read's split (POSIX's field splitting): IFS white space around a
   field is dropped, another IFS character ends one field (with the white
   space beside it), an escaped character (esc[i]) never splits. */
struct line { char *c; char *esc; size_t n; const char *ifs; };

static int ifs_at(struct line *l, size_t i, int white)
{
	char c = l->c[i];
	if (l->esc[i] || !strchr(l->ifs, c))
		return 0;
	int w = c == ' ' || c == '\t' || c == '\n';
	return white < 0 || w == white;
}

/* Past the delimiter at i: white space, one other IFS character, white space. */
static size_t delim(struct line *l, size_t i)
{
	while (i < l->n && ifs_at(l, i, 1))
		i++;
	if (i < l->n && ifs_at(l, i, 0))
		i++;
	while (i < l->n && ifs_at(l, i, 1))
		i++;
	return i;
}

/* The field at *p for a name, or all the rest for the last name (one
   field and a delimiter: the field; else the rest less its IFS white
   space at the end). */
static void field(struct line *l, size_t *p, int last, const char *name)
{
	size_t s = *p, e = s;
	while (e < l->n && !ifs_at(l, e, -1))
		e++;
	size_t next = delim(l, e);
	if (last && next < l->n) {
		e = l->n;
		while (e > s && ifs_at(l, e - 1, 1))
			e--;
	}
	char save = l->c[e];
	l->c[e] = 0;
	setenv(name, l->c + s, 1);
	l->c[e] = save;
	*p = next;
}

/* One byte of fd 0, or 0 at its end; a trapped signal's action runs
   and the read goes on. */
static int byte(char *c)
{
	for (;;) {
		ssize_t r = read(0, c, 1);
		if (r >= 0 || errno != EINTR)
			return r == 1;
		trap_check();
	}
}

/* read [-r] NAME...: one line from fd 0, a byte at a time (what follows
   stays for the next reader); without -r a backslash escapes the next
   character and joins lines. Status 1 at the end of the input. */
int b_read(int argc, char **argv)
{
	int raw = 0, i = 1;
	if (i < argc && !strcmp(argv[i], "-r"))
		raw = 1, i++;
	static char c[4096], esc[4096];
	struct line l = { c, esc, 0, getenv("IFS") };
	if (!l.ifs)
		l.ifs = " \t\n";
	int eof = 1;
	char ch;
	while (byte(&ch)) {
		int e = 0;
		if (ch == '\n') {
			eof = 0;
			break;
		}
		if (ch == '\\' && !raw) {
			if (!byte(&ch))
				break;
			if (ch == '\n')
				continue;
			e = 1;
		}
		if (l.n + 1 < sizeof c)
			esc[l.n] = (char)e, c[l.n++] = ch;
	}
	c[l.n] = 0;
	size_t p = 0;
	while (p < l.n && ifs_at(&l, p, 1))
		p++;
	for (; i < argc; i++)
		field(&l, &p, i + 1 == argc, argv[i]);
	return eof ? 1 : 0;
}
