/*
 * libcxfs: the file-system calls of issue 34's list, on a disk whose
 * /t/tree test_libcx.py built. First statvfs before and after writing
 * 1 MiB to /t/big and sync ("vfs"). Then, in /t, glob with each flag
 * ("glob"), nftw with each flag set and ftw ("walk", one line a visit),
 * scandir with alphasort and versionsort ("scan"), raw, for the test to
 * compare with the host's glibc in its copy of the tree. Then checks in
 * /t/scratch (removed after): mkdirat, unlinkat, renameat, renameat2,
 * faccessat relative to a directory descriptor; chown and the rest (any
 * owner: every process is root). Last @result {"name": "libcxfs_checks",
 * "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <animalib/result.h>

static int checks, failures;

#define CHECK(c) do { checks++; if (!(c)) { failures++; \
	printf("libcxfs: FAIL line %d: %s (errno %d)\n", __LINE__, #c, errno); } } while (0)

static const struct { const char *p; int fl; } globs[] = {
	{ "tree/*", 0 }, { "tree/*", GLOB_MARK }, { "tree/*", GLOB_NOSORT }, { "tree/*.c", 0 },
	{ "tree/*/*.c", 0 }, { "tree/dir1/*", GLOB_PERIOD }, { "tree/dir1/.*", 0 },
	{ "tree/[ab]*", 0 }, { "tree/file?", 0 }, { "tree/nomatch*", 0 },
	{ "tree/nomatch*", GLOB_NOCHECK }, { "tree/a.txt", 0 }, { "tree/nothere", 0 },
	{ "tree/nothere", GLOB_NOMAGIC }, { "tree/*/", 0 }, { "tree/*/", GLOB_MARK },
	{ "tree/dir\\1/x.c", 0 }, { "tree/dir\\1/x.c", GLOB_NOESCAPE }, { "tree/nodir/*", GLOB_ERR },
	{ "tree/nodir/*", 0 }, { "tree/a.txt/*", GLOB_ERR }, { "tree/dang*", 0 }, { "tree/dangling", 0 },
	{ "tree/sub/*/*/*", 0 }, { "tree/*/.dot/*", 0 }, { "tree/[!ad]*", GLOB_MARK },
	{ "tree//dir1//x.c", 0 }, { "tree/dir1/*", GLOB_MARK | GLOB_PERIOD }, { "tree/v*", 0 },
};

static void one_glob(const char *name, const char *p, int fl, glob_t *g)
{
	int r = glob(p, fl, 0, g);
	struct result res;
	result_begin(&res, name);
	result_str(&res, "p", p);
	result_int(&res, "fl", fl);
	result_int(&res, "r", r);
	result_int(&res, "magchar", !!(g->gl_flags & GLOB_MAGCHAR));
	result_array(&res, "v");
	size_t offs = fl & GLOB_DOOFFS ? g->gl_offs : 0;
	if (r == 0 || r == GLOB_NOMATCH || (fl & GLOB_APPEND))
		for (size_t i = 0; g->gl_pathv && i < offs + g->gl_pathc; i++)
			result_str(&res, 0, g->gl_pathv[i] ? g->gl_pathv[i] : "(null)");
	result_close(&res);
	result_end(&res);
}

static void globbing(void)
{
	for (unsigned i = 0; i < sizeof globs / sizeof globs[0]; i++) {
		glob_t g;
		memset(&g, 0, sizeof g);
		one_glob("glob", globs[i].p, globs[i].fl, &g);
		globfree(&g);
	}
	glob_t g;
	memset(&g, 0, sizeof g);
	g.gl_offs = 2;
	one_glob("glob", "tree/*.c", GLOB_DOOFFS, &g);
	one_glob("glob", "tree/dir1/*", GLOB_DOOFFS | GLOB_APPEND, &g);
	globfree(&g);
}

static int walk_fl;

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
	struct result r;
	char cwd[256];
	result_begin(&r, "walk");
	result_int(&r, "fl", walk_fl);
	result_str(&r, "path", path);
	result_int(&r, "type", type);
	result_int(&r, "level", f->level);
	result_int(&r, "base", f->base);
	result_int(&r, "dir", type == FTW_NS ? -1 : S_ISDIR(st->st_mode));
	result_str(&r, "cwd", getcwd(cwd, sizeof cwd) ? cwd : "?");
	result_end(&r);
	return 0;
}

static int old_visit(const char *path, const struct stat *st, int type)
{
	struct FTW f = { -1, -1 };
	return visit(path, st, type, &f);
}

static int stop_at;                      /* visits before a nonzero result */

static int stopper(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)path, (void)st, (void)type, (void)f;
	return --stop_at == 0 ? 42 : 0;
}

static void walking(void)
{
	static const int fls[] = { 0, FTW_PHYS, FTW_DEPTH, FTW_PHYS | FTW_DEPTH, FTW_CHDIR | FTW_PHYS,
				   FTW_MOUNT };
	for (unsigned i = 0; i < sizeof fls / sizeof fls[0]; i++) {
		walk_fl = fls[i];
		CHECK(nftw("tree", visit, 4, fls[i]) == 0);
	}
	char cwd[256];
	CHECK(getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/t"));   /* FTW_CHDIR went back */
	walk_fl = -1;
	CHECK(ftw("tree/", old_visit, 4) == 0);
	stop_at = 3;
	CHECK(nftw("tree", stopper, 4, 0) == 42);
	CHECK(nftw("tree/nothere", visit, 4, 0) == -1 && errno == ENOENT);
}

static void one_scan(const char *how, int (*cmp)(const struct dirent **, const struct dirent **))
{
	struct dirent **v;
	int n = scandir("tree", &v, 0, cmp);
	struct result r;
	result_begin(&r, "scan");
	result_str(&r, "how", how);
	result_int(&r, "n", n);
	result_array(&r, "v");
	for (int i = 0; i < n; i++) {
		result_str(&r, 0, v[i]->d_name);
		free(v[i]);
	}
	result_close(&r);
	result_end(&r);
	if (n >= 0)
		free(v);
}

static int no_dots(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static void scanning(void)
{
	one_scan("alpha", alphasort);
	one_scan("version", versionsort);
	struct dirent **v;
	int n = scandir("tree", &v, no_dots, alphasort);
	CHECK(n > 3 && strcmp(v[0]->d_name, v[1]->d_name) < 0);
	for (int i = 0; i < n; i++) {
		CHECK(v[i]->d_name[0] != '.');
		free(v[i]);
	}
	free(v);
	CHECK(scandir("tree/nothere", &v, 0, 0) == -1 && errno == ENOENT);
}

static void at_calls(void)
{
	struct stat st;
	CHECK(mkdir("scratch", 0755) == 0);
	int d = open("scratch", O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0);
	CHECK(mkdirat(d, "sub", 0700) == 0 && stat("/t/scratch/sub", &st) == 0 && S_ISDIR(st.st_mode));
	CHECK(mkdirat(d, "sub", 0700) == -1 && errno == EEXIST);
	int f = openat(d, "sub/f", O_CREAT | O_WRONLY, 0644);
	CHECK(f >= 0 && write(f, "abc", 3) == 3 && close(f) == 0);
	CHECK(faccessat(d, "sub/f", R_OK | W_OK, 0) == 0 && faccessat(d, "sub/nope", F_OK, 0) == -1 && errno == ENOENT);
	CHECK(faccessat(d, "sub/f", X_OK, AT_EACCESS) == -1 && errno == EACCES);
	CHECK(faccessat(d, "sub/f", R_OK, 0x4000) == -1 && errno == EINVAL);
	CHECK(symlink("nowhere", "/t/scratch/dl") == 0 && faccessat(d, "dl", F_OK, 0) == -1 && errno == ENOENT);
	CHECK(faccessat(d, "dl", F_OK, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(renameat(d, "sub/f", AT_FDCWD, "scratch/g") == 0 && stat("/t/scratch/g", &st) == 0 && st.st_size == 3);
	CHECK(renameat2(d, "g", d, "h", 0) == 0 && renameat2(d, "h", d, "i", RENAME_NOREPLACE) == -1 && errno == EINVAL);
	CHECK(unlinkat(d, "sub", 0) == -1 && (errno == EISDIR || errno == EPERM));
	CHECK(unlinkat(d, "h", AT_REMOVEDIR) == -1 && errno == ENOTDIR);
	CHECK(unlinkat(d, "h", 0x1) == -1 && errno == EINVAL);
	CHECK(unlinkat(d, "h", 0) == 0 && unlinkat(d, "sub", AT_REMOVEDIR) == 0 && unlinkat(d, "dl", 0) == 0);
	CHECK(stat("/t/scratch/sub", &st) == -1 && errno == ENOENT);
	CHECK(mkdirat(99, "x", 0700) == -1 && errno == EBADF);
	CHECK(mkdirat(AT_FDCWD, "scratch/viafdcwd", 0700) == 0 && unlinkat(AT_FDCWD, "scratch/viafdcwd", AT_REMOVEDIR) == 0);
	close(d);
	/* chown: every process is root, so any owner goes, and -1 keeps one
	   (the image's files are the host user's; those made here root's) */
	CHECK(stat("tree/a.txt", &st) == 0);
	uid_t u = st.st_uid;
	gid_t g = st.st_gid;
	CHECK(chown("tree/a.txt", u, g) == 0 && chown("tree/a.txt", -1, -1) == 0 && chown("tree/a.txt", -1, g) == 0);
	CHECK(chown("tree/a.txt", u + 1, -1) == 0 && stat("tree/a.txt", &st) == 0 && st.st_uid == u + 1 && st.st_gid == g);
	CHECK(chown("tree/a.txt", -1, g + 5) == 0 && stat("tree/a.txt", &st) == 0 && st.st_uid == u + 1 && st.st_gid == g + 5);
	CHECK(chown("tree/a.txt", u, g) == 0);
	CHECK(mkdirat(AT_FDCWD, "scratch/mine", 0700) == 0 && chown("scratch/mine", 0, 0) == 0);
	CHECK(stat("scratch/mine", &st) == 0 && st.st_uid == 0 && st.st_gid == 0 && rmdir("scratch/mine") == 0);
	CHECK(chown("tree/nothere", 0, 0) == -1 && errno == ENOENT);
	CHECK(lchown("tree/dangling", u, g) == 0 && chown("tree/dangling", u, g) == -1 && errno == ENOENT);
	f = open("tree/a.txt", O_RDONLY);
	CHECK(fchown(f, u, g) == 0 && fchown(f, u + 1, g + 1) == 0 && fstat(f, &st) == 0 && st.st_uid == u + 1);
	CHECK(fchown(f, u, g) == 0);
	close(f);
	CHECK(fchown(f, u, g) == -1 && errno == EBADF);
	CHECK(fchownat(AT_FDCWD, "tree/dangling", u, g, AT_SYMLINK_NOFOLLOW) == 0);
	CHECK(fchownat(AT_FDCWD, "tree/a.txt", u, g, 0x4) == -1 && errno == EINVAL);
	CHECK(rmdir("scratch") == 0);    /* the disk as space() left it */
}

static void vfs_line(const char *when, const struct statvfs *v)
{
	struct result r;
	result_begin(&r, "vfs");
	result_str(&r, "when", when);
	result_uint(&r, "bsize", v->f_bsize);
	result_uint(&r, "frsize", v->f_frsize);
	result_uint(&r, "blocks", v->f_blocks);
	result_uint(&r, "bfree", v->f_bfree);
	result_uint(&r, "bavail", v->f_bavail);
	result_uint(&r, "files", v->f_files);
	result_uint(&r, "ffree", v->f_ffree);
	result_uint(&r, "favail", v->f_favail);
	result_uint(&r, "namemax", v->f_namemax);
	result_uint(&r, "flag", v->f_flag);
	result_end(&r);
}

static void space(void)
{
	struct statvfs a, b;
	CHECK(statvfs("/t", &a) == 0);
	vfs_line("before", &a);
	static char buf[65536];
	memset(buf, 'w', sizeof buf);
	int f = open("/t/big", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CHECK(f >= 0);
	for (int i = 0; i < 16; i++)
		CHECK(write(f, buf, sizeof buf) == (ssize_t)sizeof buf);
	CHECK(fstatvfs(f, &b) == 0 && b.f_bfree <= a.f_bfree - 256 && b.f_ffree == a.f_ffree - 1);
	CHECK(syncfs(f) == 0);
	close(f);
	sync();
	CHECK(statvfs("big", &b) == 0);
	vfs_line("after", &b);
	CHECK(statvfs("/t/nothere", &b) == -1 && errno == ENOENT);
	int p[2];
	CHECK(pipe(p) == 0 && fstatvfs(p[0], &b) == 0 && b.f_blocks == 0 && b.f_bsize == 4096);
	CHECK(fstatvfs(1, &b) == 0 && b.f_blocks == 0);
	close(p[0]);
	CHECK(fstatvfs(p[0], &b) == -1 && errno == EBADF && syncfs(p[0]) == -1 && errno == EBADF);
}

int main(void)
{
	CHECK(chdir("/t") == 0);
	space();                 /* first: "before" is the image as the test made it */
	globbing();
	walking();
	scanning();
	at_calls();
	struct result r;
	result_begin(&r, "libcxfs_checks");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
