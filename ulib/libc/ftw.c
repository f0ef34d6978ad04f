/*
 * ftw and nftw: depth first, a directory's entries in readdir's order
 * ("." and ".." left out). Each directory's names are read whole and its
 * descriptor closed before going down, so a walk holds no descriptor
 * while the function runs and any depth works (nfd is not needed). A
 * nonzero result of the function ends the walk and is its result.
 * FTW_CHDIR: the working directory is the directory holding the object
 * while the function runs (the function still gets the whole path: its
 * name is at path + base), the starting one again after the walk.
 * FTW_MOUNT changes nothing (one file system). A directory reached a
 * second time (through a symbolic link) is not walked again.
 */
#include <ftw.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*nfn)(const char *, const struct stat *, int, struct FTW *);

struct walk {
	nfn fn;
	int (*old)(const char *, const struct stat *, int);   /* ftw's function */
	int fl;
	char path[PATH_MAX];
	char home[PATH_MAX];     /* the working directory at the start (FTW_CHDIR) */
	ino_t *seen;             /* directories entered (one file system: inodes) */
	size_t nseen, capseen;
};

/* Following links, a directory reached again (through a link) is left
   out, as glibc does: each is walked once, and a loop ends. 1 if ino was
   seen, else it is added (0; -1 without memory). */
static int again(struct walk *w, ino_t ino)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i] == ino)
			return 1;
	if (w->nseen == w->capseen) {
		ino_t *n = realloc(w->seen, (w->capseen = 2 * w->capseen + 16) * sizeof *n);
		if (!n)
			return -1;
		w->seen = n;
	}
	w->seen[w->nseen++] = ino;
	return 0;
}

/* The type of p, stat into st. */
static int kind(struct walk *w, const char *p, struct stat *st)
{
	if (w->fl & FTW_PHYS) {
		if (lstat(p, st) < 0)
			return FTW_NS;
		return S_ISLNK(st->st_mode) ? FTW_SL : S_ISDIR(st->st_mode) ? FTW_D : FTW_F;
	}
	if (stat(p, st) < 0)             /* (ftw has no FTW_SLN: glibc's gives FTW_NS) */
		return !w->old && errno == ENOENT && !lstat(p, st) && S_ISLNK(st->st_mode) ? FTW_SLN : FTW_NS;
	return S_ISDIR(st->st_mode) ? FTW_D : FTW_F;
}

/* FTW_CHDIR: into the directory holding the name at base. */
static int enter(struct walk *w, int base)
{
	if (!(w->fl & FTW_CHDIR))
		return 0;
	if (chdir(w->home) < 0)
		return -1;
	if (!base)
		return 0;
	char c = w->path[base];
	w->path[base] = 0;
	int r = chdir(w->path);
	w->path[base] = c;
	return r;
}

static int call(struct walk *w, const struct stat *st, int type, int base, int level)
{
	struct FTW f = { base, level };
	if (enter(w, base) < 0)
		return -1;               /* (the function may have moved: FTW_CHDIR) */
	if (w->old)
		return w->old(w->path, st, type);
	return w->fn(w->path, st, type, &f);
}

/* The names of the directory p, each NUL-ended, in one block (its size
   in *n); 0 if it cannot be read. */
static char *names(const char *p, size_t *n)
{
	DIR *d = opendir(p);
	if (!d)
		return 0;
	size_t cap = 256, len = 0;
	char *v = malloc(cap);
	struct dirent *e;
	while (v && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		size_t k = strlen(e->d_name) + 1;
		if (len + k > cap) {
			char *nv = realloc(v, cap = 2 * cap + k);
			if (!nv)
				free(v);
			v = nv;
			if (!v)
				break;
		}
		memcpy(v + len, e->d_name, k);
		len += k;
	}
	closedir(d);
	*n = len;
	return v;
}

static int go(struct walk *w, size_t len, int base, int level);

static int entries(struct walk *w, size_t len, int level, const char *v, size_t n)
{
	for (size_t i = 0; i < n; i += strlen(v + i) + 1) {
		size_t k = strlen(v + i);
		size_t at = len - (len == 1 && w->path[0] == '/');   /* "/x", not "//x" */
		if (at + 1 + k >= PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		w->path[at] = '/';
		memcpy(w->path + at + 1, v + i, k + 1);
		int r = go(w, at + 1 + k, (int)at + 1, level + 1);
		w->path[len] = 0;
		if (w->fl & FTW_ACTIONRETVAL) {
			if (r == FTW_SKIP_SIBLINGS)
				break;
			if (r == FTW_SKIP_SUBTREE)
				continue;
		}
		if (r)
			return r;
	}
	return 0;
}

static int go(struct walk *w, size_t len, int base, int level)
{
	struct stat st;
	const char *here = w->path;          /* the object, from the working directory */
	if (w->fl & FTW_CHDIR) {
		if (enter(w, base) < 0)
			return -1;
		if (w->path[base])
			here += base;
	}
	int t = kind(w, here, &st), act = w->fl & FTW_ACTIONRETVAL;
	if (t != FTW_D)
		return call(w, &st, t, base, level);
	int seen = again(w, st.st_ino);
	if (seen)
		return seen < 0 ? -1 : 0;
	size_t n = 0;
	char *v = names(here, &n);
	if (!v)
		return call(w, &st, FTW_DNR, base, level);
	int r = 0;
	if (!(w->fl & FTW_DEPTH))
		r = call(w, &st, FTW_D, base, level);
	if (act && r == FTW_SKIP_SUBTREE)
		r = 0;
	else if (!r)
		r = entries(w, len, level, v, n);
	free(v);
	if (!r && (w->fl & FTW_DEPTH))
		r = call(w, &st, FTW_DP, base, level);
	return r;
}

static int start(struct walk *w, const char *path)
{
	size_t len = strlen(path);
	if (!len) {
		errno = ENOENT;
		return -1;
	}
	if (len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(w->path, path, len + 1);
	while (len > 1 && w->path[len - 1] == '/')
		w->path[--len] = 0;              /* "dir/": children are "dir/x" */
	struct stat st;
	if ((w->fl & FTW_PHYS ? lstat(path, &st) : stat(path, &st)) < 0 &&
	    (errno != ENOENT || lstat(path, &st) < 0))
		return -1;                       /* the start itself is missing */
	if ((w->fl & FTW_CHDIR) && !getcwd(w->home, sizeof w->home))
		return -1;
	int base = len;
	while (base > 0 && w->path[base - 1] != '/')
		base--;
	int r = go(w, len, base, 0);
	if (w->fl & FTW_CHDIR)
		chdir(w->home);
	return r;
}

/* A walk from path set up as `how` says (nftw's function and flags, or
   ftw's function), its memory freed after. */
static int walk(const char *path, struct walk how)
{
	struct walk *w = malloc(sizeof *w);
	if (!w)
		return -1;
	*w = how;
	int r = start(w, path);
	free(w->seen);
	free(w);
	return r;
}

int nftw(const char *path, nfn fn, int nfd, int flags)
{
	(void)nfd;
	return walk(path, (struct walk){ .fn = fn, .fl = flags });
}

int ftw(const char *path, int (*fn)(const char *, const struct stat *, int), int nfd)
{
	(void)nfd;
	return walk(path, (struct walk){ .old = fn });
}
