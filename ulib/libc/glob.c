/*
 * glob: the pattern is taken one component (between '/') at a time. A
 * component without wildcards is appended as it is (escapes undone); one
 * with wildcards reads its directory (opendir/readdir) and goes on with
 * each name fnmatch accepts, FNM_PERIOD unless GLOB_PERIOD. A path whose
 * last component has no wildcard is kept only if lstat finds it; a
 * pattern ending in '/' keeps directories only. Names are sorted by
 * strcmp (the C locale's strcoll) unless GLOB_NOSORT.
 */
#include <glob.h>
#include <fnmatch.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>

struct gctx {
	int fl;
	int (*errf)(const char *, int);
	char **v;                /* the names found by this call */
	size_t n, cap;
};

static int magic(const char *p, size_t len, int fl)
{
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\\' && !(fl & GLOB_NOESCAPE) && i + 1 < len)
			i++;
		else if (p[i] == '*' || p[i] == '?' || p[i] == '[')
			return 1;
	}
	return 0;
}

static int add(struct gctx *c, const char *path)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 16;
		char **nv = realloc(c->v, nc * sizeof *nv);
		if (!nv)
			return GLOB_NOSPACE;
		c->v = nv, c->cap = nc;
	}
	struct stat st;
	size_t len = strlen(path);
	int mark = (c->fl & GLOB_MARK) && len && path[len - 1] != '/' && !stat(path, &st) &&
		   S_ISDIR(st.st_mode);
	char *s = malloc(len + 2);
	if (!s)
		return GLOB_NOSPACE;
	memcpy(s, path, len);
	strcpy(s + len, mark ? "/" : "");
	c->v[c->n++] = s;
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static int walk(struct gctx *c, char *path, size_t len, const char *pat);

/* path[0..len) then name and the separators sep[0..k), then the rest. */
static int step(struct gctx *c, char *path, size_t len, const char *name, size_t nlen,
		const char *sep, size_t k, const char *rest)
{
	if (len + nlen + k >= PATH_MAX)
		return 0;                    /* (no such name can exist) */
	memcpy(path + len, name, nlen);
	memcpy(path + len + nlen, sep, k);
	path[len + nlen + k] = 0;
	if (*rest)
		return walk(c, path, len + nlen + k, rest);
	if (k && !is_dir(path))
		return 0;                    /* "pat/": directories only */
	return add(c, path);
}

/* The component at pat[0..e) has wildcards: each name of the directory. */
static int scan(struct gctx *c, char *path, size_t len, const char *pat, size_t e,
		const char *sep, size_t k, const char *rest)
{
	char comp[NAME_MAX + 2];
	if (e > NAME_MAX)
		return 0;
	memcpy(comp, pat, e);
	comp[e] = 0;
	DIR *d = opendir(len ? path : ".");
	if (!d) {
		if (errno != ENOTDIR && ((c->errf && c->errf(len ? path : ".", errno)) || (c->fl & GLOB_ERR)))
			return GLOB_ABORTED;
		return 0;
	}
	int fnfl = (c->fl & GLOB_PERIOD ? 0 : FNM_PERIOD) | (c->fl & GLOB_NOESCAPE ? FNM_NOESCAPE : 0);
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d)))
		if (!fnmatch(comp, de->d_name, fnfl))
			r = step(c, path, len, de->d_name, strlen(de->d_name), sep, k, rest);
	closedir(d);
	return r;
}

static int walk(struct gctx *c, char *path, size_t len, const char *pat)
{
	size_t e = strcspn(pat, "/"), k = strspn(pat + e, "/");
	const char *rest = pat + e + k;
	if (magic(pat, e, c->fl))
		return scan(c, path, len, pat, e, pat + e, k, rest);
	char lit[NAME_MAX + 2];
	size_t n = 0;
	for (size_t i = 0; i < e && n <= NAME_MAX; i++) {
		if (pat[i] == '\\' && !(c->fl & GLOB_NOESCAPE) && i + 1 < e)
			i++;
		lit[n++] = pat[i];
	}
	if (n > NAME_MAX)
		return 0;
	if (*rest)
		return step(c, path, len, lit, n, pat + e, k, rest);
	struct stat st;
	if (len + n + k >= PATH_MAX)
		return 0;
	memcpy(path + len, lit, n);
	memcpy(path + len + n, pat + e, k);
	path[len + n + k] = 0;
	return lstat(path, &st) < 0 ? 0 : add(c, path);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "~" or "~/..." with GLOB_TILDE: $HOME (or "/") instead of the "~". */
static const char *tilde(const char *pat, int fl, char *buf)
{
	if (!(fl & (GLOB_TILDE | GLOB_TILDE_CHECK)) || pat[0] != '~' || (pat[1] && pat[1] != '/'))
		return pat;
	const char *home = getenv("HOME");
	if (!home || !*home)
		home = "/";
	if (strlen(home) + strlen(pat) >= PATH_MAX)
		return pat;
	strcpy(buf, home);
	strcat(buf, pat + 1);
	return buf;
}

/* The names found in c go after g's (and its gl_offs nulls). */
static int keep(glob_t *g, struct gctx *c, int fl)
{
	size_t offs = fl & GLOB_DOOFFS ? g->gl_offs : 0;
	size_t old = fl & GLOB_APPEND ? g->gl_pathc : 0;
	char **v = realloc(fl & GLOB_APPEND ? g->gl_pathv : 0, (offs + old + c->n + 1) * sizeof *v);
	if (!v)
		return GLOB_NOSPACE;
	if (!(fl & GLOB_APPEND))
		for (size_t i = 0; i < offs; i++)
			v[i] = 0;
	if (!(fl & GLOB_NOSORT))
		qsort(c->v, c->n, sizeof *c->v, cmp);
	memcpy(v + offs + old, c->v, c->n * sizeof *v);
	v[offs + old + c->n] = 0;
	g->gl_pathv = v;
	g->gl_pathc = old + c->n;
	c->n = 0;
	return 0;
}

int glob(const char *pattern, int flags, int (*errfunc)(const char *, int), glob_t *g)
{
	if (flags & (GLOB_ALTDIRFUNC | GLOB_BRACE))
		return GLOB_NOSYS;
	if (!(flags & GLOB_APPEND)) {
		g->gl_pathc = 0;
		g->gl_pathv = 0;
		if (!(flags & GLOB_DOOFFS))
			g->gl_offs = 0;
	}
	char path[PATH_MAX], home[PATH_MAX];
	const char *pat = tilde(pattern, flags, home);
	struct gctx c = { .fl = flags, .errf = errfunc };
	size_t k = strspn(pat, "/");             /* an absolute pattern's leading "/" */
	memcpy(path, pat, k);
	path[k] = 0;
	int r = *pat ? (pat[k] ? walk(&c, path, k, pat + k) : add(&c, path)) : 0;
	int mag = magic(pat, strlen(pat), flags);
	if (!r && !c.n && ((flags & GLOB_NOCHECK) || ((flags & GLOB_NOMAGIC) && !mag)))
		r = add(&c, pattern);
	if (!r && !c.n)
		r = GLOB_NOMATCH;
	g->gl_flags = flags | (mag && !r ? GLOB_MAGCHAR : 0);   /* (as glibc: only on success) */
	if (r != GLOB_NOMATCH && (c.n || !r)) {
		int e = keep(g, &c, flags);
		r = r ? r : e;
	}
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	return r;
}

void globfree(glob_t *g)
{
	if (!g->gl_pathv)
		return;
	for (size_t i = 0; i < g->gl_pathc; i++)
		free(g->gl_pathv[g->gl_offs + i]);
	free(g->gl_pathv);
	g->gl_pathv = 0;
	g->gl_pathc = 0;
}
