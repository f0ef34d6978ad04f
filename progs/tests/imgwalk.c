/*
 * imgwalk MODE: use every part of a (possibly hostile) ext2 image, for the
 * image fuzzer (harness/imgfuzz.py). Every call's outcome is counted: "ok"
 * or "eN" for errno N; the harness checks the errnos are the ones a damaged
 * image may give (EIO, EUCLEAN, ENOENT, ...), never a fault or a hang.
 *
 *   walk   list the tree from / (opendir/readdir, depth at most 8, 1,000
 *          entries), lstat every entry (readlink and stat links), open
 *          and read every regular file (4 MiB at most, its last byte by pread, through
 *          whatever indirect blocks the map claims), then write: append
 *          to the first regular file found, unlink the second, mkdir /fz,
 *          create /fz/new with 20,000 bytes, read them back, unlink it,
 *          rmdir /fz. Prints @result {"name": "imgwalk", "mode": "walk",
 *          "ok": N, "e5": N, ...}.
 *   mem    run `walk` as a child, then report its wait status and whether
 *          available memory came back exactly (INFO_MEM_AVAIL,
 *          avail_settled): @result {"name": "imgwalk", "mode": "mem",
 *          "child": S, "avail_lost": B}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <dirent.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <avail.h>

#define MAXERR 128
#define FILECAP (4L << 20)

static long nok, nerr[MAXERR], nother;
static int entries;
static char first[1024], second[1024];
static char buf[16384];

/* Count one call's outcome: r < 0 is a failure with errno (a line names
   the call's source line, for whoever repeats a failing image). */
#define count(r) counted((r), __LINE__)
static long counted(long r, int line)
{
	if (r >= 0) {
		nok++;
		return r;
	}
	printf("imgwalk: line %d: errno %d\n", line, errno);
	if (errno > 0 && errno < MAXERR)
		nerr[errno]++;
	else
		nother++;
	return r;
}

static void readfile(const char *path, const struct stat *st)
{
	int fd = (int)count(open(path, O_RDONLY));
	if (fd < 0)
		return;
	long r, total = 0;
	while ((r = read(fd, buf, sizeof buf)) > 0 && (total += r) < FILECAP)
		;
	count(r);
	if (st->st_size > 0)
		count(pread(fd, buf, 1, st->st_size - 1));
	close(fd);
}

static void tree(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (count(d ? 0 : -1) < 0)
		return;
	struct dirent *e;
	errno = 0;
	while (entries < 1000 && (e = readdir(d))) {
		entries++;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
		struct stat st;
		if (count(lstat(path, &st)) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth < 8) {
			tree(path, depth + 1);
		} else if (S_ISLNK(st.st_mode)) {
			char t[256];
			count(readlink(path, t, sizeof t));   /* and follow it */
			count(stat(path, &st));
		} else if (S_ISREG(st.st_mode)) {
			readfile(path, &st);
			if (!first[0])
				snprintf(first, sizeof first, "%s", path);
			else if (!second[0])
				snprintf(second, sizeof second, "%s", path);
		}
		errno = 0;
	}
	if (errno)
		count(-1);
	closedir(d);
}

static void writes(void)
{
	if (first[0]) {
		int fd = (int)count(open(first, O_WRONLY | O_APPEND));
		if (fd >= 0) {
			count(write(fd, "appended\n", 9));
			close(fd);
		}
	}
	if (second[0])
		count(unlink(second));
	count(mkdir("/fz", 0755));
	int fd = (int)count(open("/fz/new", O_RDWR | O_CREAT | O_TRUNC, 0644));
	if (fd >= 0) {
		for (int i = 0; i < (int)sizeof buf; i++)
			buf[i] = (char)(i * 7);
		count(write(fd, buf, sizeof buf));
		count(write(fd, buf, 20000 - sizeof buf));
		count(pread(fd, buf, sizeof buf, 0));
		count(fsync(fd));
		close(fd);
	}
	count(unlink("/fz/new"));
	count(rmdir("/fz"));
	/* the base image's own files (harness/imgfuzz.py), wherever the
	   damage put them: writes through their block maps, frees of them */
	fd = (int)count(open("/large", O_WRONLY | O_APPEND));
	if (fd >= 0) {
		count(write(fd, buf, sizeof buf));
		count(ftruncate(fd, 150000));
		close(fd);
	}
	fd = (int)count(open("/sparse", O_RDWR));
	if (fd >= 0) {
		count(pwrite(fd, "mid", 3, 40L << 20));
		count(ftruncate(fd, 30L << 20));
		close(fd);
	}
	count(truncate("/a/one", 0));
	count(unlink("/link"));
	count(rename("/a/b/c/deep", "/many/deep"));
	count(rename("/a/b", "/b"));
	count(mkdir("/many/new", 0755));
	count(rmdir("/many/new"));
	count(rmdir("/b/c"));
	count(unlink("/sparse"));
	count(unlink("/large"));
}

int main(int argc, char **argv)
{
	struct result R;
	const char *mode = argc > 1 ? argv[1] : "";
	result_begin(&R, "imgwalk");
	result_str(&R, "mode", mode);
	if (!strcmp(mode, "walk")) {
		tree("/", 0);
		writes();
		result_int(&R, "entries", entries);
		result_int(&R, "ok", nok);
		for (int i = 1; i < MAXERR; i++)
			if (nerr[i]) {
				char k[8];
				snprintf(k, sizeof k, "e%d", i);
				result_int(&R, k, nerr[i]);
			}
		result_int(&R, "other", nother);
	} else if (!strcmp(mode, "mem")) {
		avail_alone();   /* (a boot's other programs: their frames too) */
		long before = avail_settled(1);
		argv[1] = "walk";
		long id = sys_spawn("imgwalk", argc, (const char *const *)argv);
		int st = -2;
		result_int(&R, "child", id < 0 ? id : sys_wait((int)id, &st) == id ? st : -999);
		result_int(&R, "avail_lost", before - avail_settled(1));
	} else {
		printf("imgwalk: unknown mode '%s'\n", mode);
		return 2;
	}
	result_end(&R);
	return 0;
}
