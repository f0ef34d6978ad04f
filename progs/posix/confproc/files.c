/*
 * Files: open's flags and errors, lseek and holes, round trips of many
 * sizes, ftruncate, rename, unlink of an open file, directories, stat.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "conf.h"

#define D "/conf.d"

static char pat(long i) { return (char)(i * 7 + (i >> 9) + 1); }

static void roundtrip(long size)
{
	static char buf[1 << 20];
	int fd = open(D "/rt", O_RDWR | O_CREAT | O_TRUNC, 0644);
	for (long i = 0; i < size; i++)
		buf[i] = pat(i);
	long w = write(fd, buf, size);
	memset(buf, 0, size);
	struct stat st;
	K(w == size && fstat(fd, &st) == 0 && st.st_size == size);
	K(lseek(fd, 0, SEEK_SET) == 0 && conf_readall(fd, buf, size) == size);
	long bad = 0;
	for (long i = 0; i < size; i++)
		bad += buf[i] != pat(i);
	K(bad == 0 && read(fd, buf, 1) == 0);
	close(fd);
}

static void appenders(void)
{
	int fd = open(D "/app", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	close(fd);
	pid_t p = fork();
	char rec[100];
	int me = p == 0;
	fd = open(D "/app", O_WRONLY | O_APPEND);
	memset(rec, me ? 'c' : 'p', sizeof rec);
	int bad = 0;
	for (int i = 0; i < 100; i++)
		bad += write(fd, rec, sizeof rec) != sizeof rec;
	close(fd);
	if (me)
		_exit(bad);
	K(bad == 0 && conf_status(p) == 0);
	struct stat st;
	K(stat(D "/app", &st) == 0 && st.st_size == 200 * 100);
	static char all[200 * 100];
	fd = open(D "/app", O_RDONLY);
	K(conf_readall(fd, all, sizeof all) == sizeof all);
	close(fd);
	/* every record whole, past a block boundary too (appendrace.c
	   stresses it) */
	int c = 0, q = 0;
	for (int r = 0; r < 200; r++) {
		c += all[r * 100] == 'c';
		q += all[r * 100] == 'p';
		for (int k = 1; k < 100; k++)
			bad += all[r * 100 + k] != all[r * 100];
	}
	K(bad == 0 && c == 100 && q == 100);
}

void conf_files(void)
{
	conf_area = "files";
	char b[64];
	struct stat st;
	umask(022);
	K(mkdir(D, 0755) == 0);
	KERR(mkdir(D, 0755), EEXIST);
	int fd = open(D "/f", O_RDWR | O_CREAT | O_EXCL, 0666);
	K(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
	K((st.st_mode & 0777) == 0644 && st.st_size == 0 && st.st_nlink == 1);
	K(st.st_blksize > 0 && st.st_uid == getuid());
	KERR(open(D "/f", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
	KERR(open(D "/f", O_RDONLY | O_DIRECTORY), ENOTDIR);
	KERR(open(D "/f/x", O_RDONLY), ENOTDIR);
	KERR(open(D "/f/x", O_RDWR | O_CREAT, 0644), ENOTDIR);
	KERR(open(D, O_WRONLY), EISDIR);
	KERR(open(D, O_RDWR), EISDIR);
	KERR(open(D "/none", O_RDONLY), ENOENT);
	KERR(open(D "/none/x", O_RDWR | O_CREAT, 0644), ENOENT);
	KERR(open("", O_RDONLY), ENOENT);
	char lng[PATH_MAX + 16];
	memset(lng, 'n', NAME_MAX + 2);   /* "/" and 256 bytes of name */
	lng[0] = '/', lng[NAME_MAX + 2] = 0;
	KERR(open(lng, O_RDONLY), ENAMETOOLONG);
	lng[NAME_MAX + 1] = 0;               /* 255 bytes: a name that may exist */
	KERR(open(lng, O_RDONLY), ENOENT);
	for (int i = 0; i < PATH_MAX + 8; i += 2)
		lng[i] = '/', lng[i + 1] = 'a';
	lng[PATH_MAX + 8] = 0;
	KERR(open(lng, O_RDONLY), ENAMETOOLONG);
	int dfd = open(D, O_RDONLY | O_DIRECTORY);
	K(dfd >= 0 && fstat(dfd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_nlink >= 2);
	KERR(read(dfd, b, 1), EISDIR);
	close(dfd);

	/* lseek, SEEK_END, a hole reads as zeros */
	K(write(fd, "hello", 5) == 5);
	K(lseek(fd, 0, SEEK_END) == 5 && lseek(fd, -2, SEEK_END) == 3);
	K(read(fd, b, 10) == 2 && !memcmp(b, "lo", 2));
	KERR(lseek(fd, -6, SEEK_END), EINVAL);
	KERR(lseek(fd, 0, 7), EINVAL);
	K(lseek(fd, 10000, SEEK_SET) == 10000 && write(fd, "z", 1) == 1);
	K(fstat(fd, &st) == 0 && st.st_size == 10001);
	static char hole[10001];
	K(pread(fd, hole, sizeof hole, 0) == sizeof hole);
	int nz = 0;
	for (int i = 5; i < 10000; i++)
		nz += hole[i] != 0;
	K(nz == 0 && hole[10000] == 'z' && !memcmp(hole, "hello", 5));
	K(read(fd, b, 1) == 0);              /* at the end */
	/* ftruncate: shrink, then grow with zeros */
	K(ftruncate(fd, 3) == 0 && fstat(fd, &st) == 0 && st.st_size == 3);
	K(ftruncate(fd, 8192) == 0 && fstat(fd, &st) == 0 && st.st_size == 8192);
	K(pread(fd, hole, 8192, 0) == 8192 && !memcmp(hole, "hel", 3));
	nz = 0;
	for (int i = 3; i < 8192; i++)
		nz += hole[i] != 0;
	K(nz == 0);
	KERR(ftruncate(fd, -1), EINVAL);
	close(fd);
	fd = open(D "/f", O_RDONLY);
	KERR(ftruncate(fd, 0), EINVAL);
	KERR(write(fd, "x", 1), EBADF);
	close(fd);
	/* pread and pwrite leave the offset; truncate by path; access */
	fd = open(D "/f", O_RDWR);
	K(lseek(fd, 2, SEEK_SET) == 2 && pwrite(fd, "PQ", 2, 0) == 2 && lseek(fd, 0, SEEK_CUR) == 2);
	K(pread(fd, b, 2, 0) == 2 && !memcmp(b, "PQ", 2) && lseek(fd, 0, SEEK_CUR) == 2);
	KERR(pwrite(fd, "x", 1, -1), EINVAL);
	K(fsync(fd) == 0 && fdatasync(fd) == 0);
	close(fd);
	K(truncate(D "/f", 100) == 0 && stat(D "/f", &st) == 0 && st.st_size == 100);
	KERR(truncate(D "/none", 0), ENOENT);
	K(access(D "/f", F_OK) == 0 && access(D "/f", R_OK | W_OK) == 0);
	KERR(access(D "/none", F_OK), ENOENT);
	/* O_TRUNC */
	fd = open(D "/f", O_WRONLY | O_TRUNC);
	K(fd >= 0 && fstat(fd, &st) == 0 && st.st_size == 0);
	KERR(read(fd, b, 1), EBADF);
	close(fd);

	static const long sizes[] = { 0, 1, 511, 512, 513, 1023, 1024, 4095, 4096, 4097,
				      65535, 65536, 100000, 1 << 20 };
	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		roundtrip(sizes[i]);
	appenders();

	/* rename over an existing file; unlink of an open file */
	fd = open(D "/a", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	write(fd, "AAA", 3);
	close(fd);
	fd = open(D "/b", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	write(fd, "BB", 2);
	close(fd);
	int keep = open(D "/b", O_RDONLY);
	K(rename(D "/a", D "/b") == 0);
	KERR(stat(D "/a", &st), ENOENT);
	K(stat(D "/b", &st) == 0 && st.st_size == 3);
	K(read(keep, b, 8) == 2 && !memcmp(b, "BB", 2));   /* the old file, still open */
	close(keep);
	KERR(rename(D "/none", D "/c"), ENOENT);
	K(rename(D "/b", D "/b") == 0);
	K(mkdir(D "/sub", 0755) == 0);
	KERR(rename(D "/sub", D "/b"), ENOTDIR);
	KERR(rename(D "/b", D "/sub"), EISDIR);
	fd = open(D "/b", O_RDONLY);
	K(unlink(D "/b") == 0);
	KERR(stat(D "/b", &st), ENOENT);
	K(fstat(fd, &st) == 0 && st.st_size == 3 && st.st_nlink == 0);
	K(read(fd, b, 8) == 3 && !memcmp(b, "AAA", 3));
	close(fd);
	KERR(unlink(D "/b"), ENOENT);
	KERR(unlink(D "/sub"), EISDIR);
	/* a directory renamed over an empty one */
	K(mkdir(D "/e1", 0755) == 0 && mkdir(D "/e2", 0755) == 0);
	K(rename(D "/e1", D "/e2") == 0);
	KERR(stat(D "/e1", &st), ENOENT);
	K(stat(D "/e2", &st) == 0 && S_ISDIR(st.st_mode) && rmdir(D "/e2") == 0);

	/* directories */
	fd = open(D "/sub/x", O_WRONLY | O_CREAT, 0644);
	close(fd);
	KERR(rmdir(D "/sub"), ENOTEMPTY);
	KERR(rmdir(D "/f"), ENOTDIR);
	KERR(rmdir(D "/none"), ENOENT);
	DIR *dir = opendir(D "/sub");
	K(dir != 0);
	int dot = 0, dotdot = 0, x = 0, other = 0;
	struct dirent *e;
	while (dir && (e = readdir(dir))) {
		if (!strcmp(e->d_name, "."))
			dot++;
		else if (!strcmp(e->d_name, ".."))
			dotdot++;
		else if (!strcmp(e->d_name, "x"))
			x++;
		else
			other++;
	}
	K(dot == 1 && dotdot == 1 && x == 1 && other == 0);
	if (dir) {
		rewinddir(dir);                  /* from the start again */
		int n = 0;
		while (readdir(dir))
			n++;
		K(n == 3);
		K(closedir(dir) == 0);
	}
	KERR(opendir(D "/f") ? 0 : -1, ENOTDIR);
	K(unlink(D "/sub/x") == 0 && rmdir(D "/sub") == 0);
	unlink(D "/f"), unlink(D "/rt"), unlink(D "/app");
	K(rmdir(D) == 0);
}
