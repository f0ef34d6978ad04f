/*
 * Symbolic links (kernel/ext2link.c, ulib/libc/link.c): for each path in
 * argv, what lstat, readlink, stat, open+read and opendir say, one
 * @result line each, for test_symlink.py to check against the host's
 * os.lstat/os.readlink/os.stat of the tree the image was made from.
 * Then chdir through each argument that stat calls a directory and a
 * relative stat of "." there. A failing call reports its errno.
 * With first argument "-make": symlink(argv[i], argv[i+1]) for each pair
 * after it, each outcome reported, then the paths described as above.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* The file's bytes hashed, or -errno. */
static long long content(const char *path, uint64_t *h)
{
	static char buf[8192];
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	long long n = 0, k;
	*h = 0xcbf29ce484222325ULL;
	while ((k = read(fd, buf, sizeof buf)) > 0) {
		*h = fnv(*h, buf, (size_t)k);
		n += k;
	}
	close(fd);
	return k < 0 ? -errno : n;
}

/* Entries in the directory, or -errno. */
static long entries(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return -errno;
	long n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static void one(const char *p)
{
	struct stat l, s;
	static char t[5000];
	int lr = lstat(p, &l) < 0 ? -errno : 0;
	long n = readlink(p, t, sizeof t);
	int rl = n < 0 ? -errno : 0;
	uint64_t th = fnv(0xcbf29ce484222325ULL, t, n < 0 ? 0 : (size_t)n);
	int sr = stat(p, &s) < 0 ? -errno : 0;
	uint64_t h = 0;
	long long c = content(p, &h);
	long e = entries(p);
	printf("@result {\"name\":\"symlinks\",\"path\":\"%s\",\"lstat\":%d,\"lmode\":%u,\"lsize\":%lld,"
	       "\"lino\":%llu,\"readlink\":%d,\"tlen\":%ld,\"target\":\"%016llx\",\"stat\":%d,\"mode\":%u,\"size\":%lld,"
	       "\"ino\":%llu,\"read\":%lld,\"hash\":\"%016llx\",\"dir\":%ld}\n",
	       p, lr, lr ? 0 : (unsigned)l.st_mode, lr ? 0LL : (long long)l.st_size,
	       lr ? 0ULL : (unsigned long long)l.st_ino, rl, n, (unsigned long long)th, sr,
	       sr ? 0 : (unsigned)s.st_mode, sr ? 0LL : (long long)s.st_size,
	       sr ? 0ULL : (unsigned long long)s.st_ino, c, (unsigned long long)h, e);
}

#define FLINK 4097
static char big[FLINK];

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-make")) {
		memset(big, 'x', sizeof big - 1);      /* 4096 bytes: too long */
		int e = symlink(big, "/t/toolong") < 0 ? errno : 0;
		int z = symlink("", "/t/empty") < 0 ? errno : 0;
		printf("@result {\"name\":\"symlinks_bad\",\"toolong\":%d,\"empty\":%d}\n", e, z);
		for (int i = 2; i + 1 < argc; i += 2) {
			int r = symlink(argv[i], argv[i + 1]) < 0 ? errno : 0;
			printf("@result {\"name\":\"symlinks_made\",\"path\":\"%s\",\"r\":%d}\n",
			       argv[i + 1], r);
		}
		for (int i = 3; i < argc; i += 2)
			one(argv[i]);
		printf("@result {\"name\":\"symlinks_done\"}\n");
		return 0;
	}
	for (int i = 1; i < argc; i++)
		one(argv[i]);
	for (int i = 1; i < argc; i++) {
		struct stat s, d;
		if (stat(argv[i], &s) < 0 || !S_ISDIR(s.st_mode))
			continue;
		int r = chdir(argv[i]) < 0 ? -errno : stat(".", &d) < 0 ? -errno : 0;
		printf("@result {\"name\":\"symlinks_cd\",\"path\":\"%s\",\"r\":%d,\"ino\":%llu,\"dir\":%ld}\n",
		       argv[i], r, r ? 0ULL : (unsigned long long)d.st_ino, entries("."));
		chdir("/");
	}
	printf("@result {\"name\":\"symlinks_done\"}\n");
	return 0;
}
