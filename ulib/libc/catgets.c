/*
 * Message catalogs (<nl_types.h>), as glibc's: catopen, catgets,
 * catclose over the binary files glibc's gencat writes. The format (as
 * glibc's catgets/catgetsinfo.h describes it; checked against gencat's
 * output): three 32-bit words, the magic 0x960408de, plane_size and
 * plane_depth; then a table of plane_size * plane_depth entries of three
 * words (set + 1, message, the string's offset; 0 0 0 empty) in the
 * writer's byte order, the same table again in the other byte order,
 * and the NUL-ended strings. Message m of set s is looked for at entry
 * ((s + 1) * m) % plane_size, then every plane_size entries after, at
 * most plane_depth times. The whole file is read into memory (it is the
 * process's; a fork's child has its copy, as glibc's mapping).
 *
 * catopen's name is a path if it holds a '/'; else each of NLSPATH's
 * ':'-separated templates (glibc's default ones without it) with %N the
 * name, %L the locale (LANG's, or LC_MESSAGES's with NL_CAT_LOCALE; "C"
 * if unset), %l %t %c its language, territory, codeset, %% a '%'; an
 * empty template is the name itself. No file: (nl_catd) -1, ENOENT.
 */
#include <nl_types.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define MAGIC 0x960408deu
#define DEFAULT_NLSPATH "/usr/share/locale/%L/%N:/usr/share/locale/%L/LC_MESSAGES/%N:" \
	"/usr/share/locale/%l/%N:/usr/share/locale/%l/LC_MESSAGES/%N"
#define MAXCAT (16 << 20)        /* a larger file is not taken as a catalog */

struct catalog {
	uint32_t size, depth;        /* plane_size, plane_depth */
	const uint32_t *tab;         /* in our byte order */
	const char *str;
	size_t nstr;                 /* bytes of strings */
	char *file;
};

static uint32_t swap(uint32_t v)
{
	return __builtin_bswap32(v);
}

/* The catalog in the file at path, or 0 (errno set). */
static struct catalog *load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0)
		return 0;
	struct catalog *c = 0;
	char *f = 0;
	int e = ENOENT;
	if (fstat(fd, &st) || st.st_size < 12 || st.st_size > MAXCAT || !(f = malloc((size_t)st.st_size)))
		goto out;
	size_t n = 0;
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, f + n, (size_t)st.st_size - n);
		if (r <= 0)
			goto out;
		n += (size_t)r;
	}
	uint32_t w[3];
	memcpy(w, f, sizeof w);
	int other = w[0] != MAGIC;   /* written in the other byte order: its second table is ours */
	if (other && swap(w[0]) != MAGIC)
		goto out;
	uint32_t size = other ? swap(w[1]) : w[1], depth = other ? swap(w[2]) : w[2];
	uint64_t tab = (uint64_t)size * depth * 3 * 4;
	if (!size || !depth || 12 + 2 * tab > n || !(c = malloc(sizeof *c)))
		goto out;
	c->size = size;
	c->depth = depth;
	c->tab = (const uint32_t *)(f + 12 + (other ? tab : 0));
	c->str = f + 12 + 2 * tab;
	c->nstr = n - 12 - 2 * tab;
	c->file = f;
	f = 0;
	e = 0;
out:
	close(fd);
	free(f);
	errno = e ? e : errno;
	return c;
}

/* Template t with name and locale filled in, into buf (0 if too long). */
static char *fill(const char *t, size_t tn, const char *name, const char *loc, char *buf, size_t cap)
{
	size_t o = 0, ll = strcspn(loc, "_.@"), tl = strcspn(loc, ".@");
	const char *dot = strchr(loc, '.');
	for (size_t i = 0; i < tn; i++) {
		const char *s = t + i;
		size_t k = 1;
		if (t[i] == '%' && i + 1 < tn) {
			char x = t[++i];
			if (x == 'N')
				s = name, k = strlen(name);
			else if (x == 'L')
				s = loc, k = strlen(loc);
			else if (x == 'l')
				s = loc, k = ll;
			else if (x == 't')
				s = loc + ll + (loc[ll] == '_'), k = loc[ll] == '_' ? tl - ll - 1 : 0;
			else if (x == 'c')
				s = dot ? dot + 1 : "", k = dot ? strcspn(dot + 1, "@") : 0;
			else
				s = t + i, k = 1;       /* %% and unknown ones: the character */
		}
		if (o + k >= cap)
			return 0;
		memcpy(buf + o, s, k);
		o += k;
	}
	buf[o] = 0;
	return buf;
}

nl_catd catopen(const char *name, int flag)
{
	if (!name || !*name) {
		errno = ENOENT;
		return (nl_catd)-1;
	}
	if (strchr(name, '/')) {
		struct catalog *c = load(name);
		return c ? (nl_catd)c : (nl_catd)-1;
	}
	const char *loc = flag == NL_CAT_LOCALE ? setlocale(LC_MESSAGES, 0) : getenv("LANG");
	if (!loc || !*loc)
		loc = "C";
	const char *path = getenv("NLSPATH");
	if (!path || !*path)
		path = DEFAULT_NLSPATH;
	char buf[4096];
	for (const char *p = path;; p++) {
		size_t n = strcspn(p, ":");
		const char *f = n ? fill(p, n, name, loc, buf, sizeof buf) : name;
		struct catalog *c = f ? load(f) : 0;
		if (c)
			return (nl_catd)c;
		p += n;
		if (!*p)
			break;
	}
	errno = ENOENT;
	return (nl_catd)-1;
}

char *catgets(nl_catd catd, int set, int msg, const char *s)
{
	struct catalog *c = catd;
	if (catd == (nl_catd)-1 || !catd || set < 0 || set == INT32_MAX || msg < 0)
		return (char *)s;        /* (errno as it was: glibc's) */
	uint32_t key = (uint32_t)set + 1;
	uint64_t at = ((uint64_t)key * (uint32_t)msg) % c->size * 3;
	for (uint32_t d = 0; d < c->depth; d++, at += (uint64_t)c->size * 3) {
		const uint32_t *e = c->tab + at;
		if (e[0] == key && e[1] == (uint32_t)msg) {
			if (e[2] >= c->nstr || !memchr(c->str + e[2], 0, c->nstr - e[2]))
				break;       /* (a damaged file: not a string of it) */
			return (char *)(c->str + e[2]);
		}
	}
	errno = ENOMSG;
	return (char *)s;
}

int catclose(nl_catd catd)
{
	struct catalog *c = catd;
	if (catd == (nl_catd)-1 || !catd) {
		errno = EBADF;
		return -1;
	}
	free(c->file);
	free(c);
	return 0;
}
