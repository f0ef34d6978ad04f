/*
 * Temporary files on the disk: mkstemp, mkostemp, mkstemps, mkdtemp and
 * tmpfile. The last six characters of a template ("XXXXXX", EINVAL
 * otherwise) become letters and digits from a generator seeded by the
 * time and the pid, tried again with new ones while the name exists
 * (EEXIST), at most 1,000 times. They are created with O_CREAT|O_EXCL
 * and mode 0600 (a directory 0700), so two programs never get one name.
 * Without a disk the creation fails as every write does (EROFS).
 *
 * tmpfile makes "/tmp/tmpfXXXXXX" (and /tmp, mode 01777, if it is
 * missing) and removes it when the stream is closed (fclose calls
 * __tmpfile_closed): the kernel frees an inode when its last link goes
 * even if it is open (docs/files.md), so the name cannot be removed
 * while the stream is used. A temporary file still open when the
 * program ends stays on the disk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animalib/rng.h>
#include "nocancel.h"

static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
static uint64_t seed;

/* Fill x (6 bytes) with fresh characters. */
static void fill(char *x)
{
	uint64_t s = __atomic_add_fetch(&seed, sys_time() ^ ((uint64_t)getpid() << 40), __ATOMIC_RELAXED);
	for (int i = 0; i < 6; i++)
		x[i] = chars[rand_below(&s, sizeof chars - 1)];
}

/* Make a name of t (its 6 X's before `suffix` bytes) that `make` can
   create: make's result, or -1 with errno. */
static int unique(char *t, int suffix, int (*make)(const char *, int), int arg)
{
	size_t n = t ? strlen(t) : 0;
	if (suffix < 0 || n < 6 + (size_t)suffix || memcmp(t + n - suffix - 6, "XXXXXX", 6)) {
		errno = EINVAL;
		return -1;
	}
	char *x = t + n - suffix - 6;
	for (int i = 0; i < 1000; i++) {
		fill(x);
		int r = make(t, arg);
		if (r >= 0 || errno != EEXIST)
			return r;
	}
	errno = EEXIST;
	return -1;
}

static int mkfile(const char *p, int flags)
{
	return __open_nocancel(p, O_RDWR | O_CREAT | O_EXCL | (flags & (O_APPEND | O_CLOEXEC)), 0600);
}

static int mkdirx(const char *p, int unused)
{
	(void)unused;
	return mkdir(p, 0700);
}

int mkostemps(char *t, int suffix, int flags)
{
	return unique(t, suffix, mkfile, flags);
}

int mkstemps(char *t, int suffix) { return mkostemps(t, suffix, 0); }
int mkostemp(char *t, int flags) { return mkostemps(t, 0, flags); }
int mkstemp(char *t) { return mkostemps(t, 0, 0); }

char *mkdtemp(char *t)
{
	return unique(t, 0, mkdirx, 0) < 0 ? 0 : t;
}

/* tmpfile's streams and their names, to remove at fclose. */
#define NTMP 64
static struct {
	FILE *f;
	char path[24];
} tmps[NTMP];
struct spin __tmpfile_lk;       /* (fork holds it: ulib/pthread/pfork.c) */

FILE *tmpfile(void)
{
	char p[24] = "/tmp/tmpfXXXXXX";
	struct stat st;
	if (stat("/tmp", &st) < 0 && errno == ENOENT && mkdir("/tmp", 01777) < 0 && errno != EEXIST)
		return 0;
	int fd = mkstemp(p);
	if (fd < 0)
		return 0;
	FILE *f = fdopen(fd, "w+");
	if (!f) {
		int e = errno;
		__close_nocancel(fd);
		unlink(p);
		errno = e;
		return 0;
	}
	int slot = -1;
	spin_lock(&__tmpfile_lk);
	for (int i = 0; i < NTMP && slot < 0; i++)
		if (!tmps[i].f) {
			slot = i;
			tmps[i].f = f;
			strcpy(tmps[i].path, p);
		}
	spin_unlock(&__tmpfile_lk);
	if (slot < 0) {                  /* (NTMP open already) */
		fclose(f);
		unlink(p);
		errno = EMFILE;
		return 0;
	}
	return f;
}

/* fclose (ffile.c): f is closed; if tmpfile made it, remove its name. */
void __tmpfile_closed(FILE *f);
void __tmpfile_closed(FILE *f)
{
	char p[24] = "";
	spin_lock(&__tmpfile_lk);
	for (int i = 0; i < NTMP; i++)
		if (tmps[i].f == f) {
			strcpy(p, tmps[i].path);
			tmps[i].f = 0;
		}
	spin_unlock(&__tmpfile_lk);
	if (p[0])
		unlink(p);
}
