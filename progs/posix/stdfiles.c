/*
 * stdfiles DIR: stdio on files (ulib/libc/ffile.c, fio.c), the working
 * directory (cwd.c) and preadv/readv, on the tree the harness put at DIR
 * (harness/tests/test_stdio_files.py): DIR/text.txt (lines of many
 * lengths, some longer than fgets' buffer, no final newline),
 * DIR/bin.dat (binary, an odd size), DIR/sub/inner.txt ("inner\n").
 *
 * Prints @result lines the harness compares with the host's bytes:
 *   {"name": "stdfiles", "part": "lines", "pieces", "newlines", "hash", "getlines", "getline_hash"}
 *   {"name": "stdfiles", "part": "fread", "size", "hash"}
 *   {"name": "stdfiles", "part": "seek", "checked", "bad"}
 *   {"name": "stdfiles", "part": "shared", "bytes", "sum"}   (threads on one FILE)
 * and last {"name": "stdfiles", "checks": N, "failures": F}: every other
 * check (ungetc, ftell, relative paths, realpath, openat, modes and their
 * errors, the write path through pipes, setvbuf, frees at fclose). Then
 * exit flushes the line "stdfiles: written at exit", left in a stream on
 * descriptor 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <animalib/result.h>
#include <avail.h>

#define CHECK_NAME "stdfiles"
#include <check.h>

static char text[PATH_MAX], bin[PATH_MAX];
static struct result R;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}
#define FNV0 0xcbf29ce484222325ULL

static void hex(const char *key, uint64_t h)
{
	char s[20];
	snprintf(s, sizeof s, "%016llx", (unsigned long long)h);
	result_str(&R, key, s);
}

/* fgets with a 100-byte buffer (longer lines come in pieces), then getline. */
static void lines(void)
{
	FILE *f = fopen(text, "r");
	CHECK(f != 0);
	if (!f)
		return;
	char buf[100];
	uint64_t h = FNV0, pieces = 0, nl = 0;
	while (fgets(buf, sizeof buf, f)) {
		size_t n = strlen(buf);
		CHECK(n > 0 && n < sizeof buf);
		h = fnv(h, buf, n);
		pieces++;
		nl += buf[n - 1] == '\n';
	}
	CHECK(feof(f) && !ferror(f));
	CHECK(fgets(buf, sizeof buf, f) == 0);           /* end of file sticks */
	rewind(f);
	CHECK(!feof(f) && ftell(f) == 0);
	char *line = 0;
	size_t cap = 0;
	ssize_t n;
	uint64_t gh = FNV0, gl = 0;
	while ((n = getline(&line, &cap, f)) > 0) {
		gh = fnv(gh, line, (size_t)n);
		gl++;
	}
	free(line);
	CHECK(fclose(f) == 0);
	result_begin(&R, "stdfiles");
	result_str(&R, "part", "lines");
	result_uint(&R, "pieces", pieces);
	result_uint(&R, "newlines", nl);
	hex("hash", h);
	result_uint(&R, "getlines", gl);
	hex("getline_hash", gh);
	result_end(&R);
}

/* fread in odd-sized pieces, small and past the buffer. */
static void pieces(void)
{
	static char buf[70000];
	static const size_t sizes[] = { 1, 7, 333, 4095, 4097, 65537, 3, 2048, 12345 };
	FILE *f = fopen(bin, "rb");
	CHECK(f != 0);
	if (!f)
		return;
	uint64_t h = FNV0, size = 0;
	for (int i = 0;; i++) {
		size_t want = sizes[i % 9], got = fread(buf, 1, want, f);
		h = fnv(h, buf, got);
		size += got;
		CHECK(ftell(f) == (long)size);
		if (got < want)
			break;
	}
	CHECK(feof(f) && !ferror(f) && fread(buf, 1, 1, f) == 0);
	CHECK(fgetc(f) == EOF);
	/* items of 3 bytes: a partial last item is not counted */
	rewind(f);
	size_t items = 0, k;
	while ((k = fread(buf, 3, 1000, f)) > 0)
		items += k;
	CHECK(items == size / 3);
	CHECK(fclose(f) == 0);
	result_begin(&R, "stdfiles");
	result_str(&R, "part", "fread");
	result_uint(&R, "size", size);
	hex("hash", h);
	result_end(&R);
}

/* fseek/ftell/fgetpos at many offsets (each whence), each read checked
   against pread at the same offset; ungetc in between. */
static void seeks(void)
{
	FILE *f = fopen(bin, "r");
	int fd = open(bin, O_RDONLY);
	struct stat st;
	CHECK(f && fd >= 0 && fstat(fd, &st) == 0);
	if (!f || fd < 0)
		return;
	long size = st.st_size, checked = 0, bad = 0;
	uint64_t x = 31;
	for (int i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		long to = (long)((x >> 20) % (uint64_t)(size + 1)), cur = ftell(f);
		int how = i % 3, r;
		if (how == 0)
			r = fseek(f, to, SEEK_SET);
		else if (how == 1)
			r = fseek(f, to - cur, SEEK_CUR);
		else
			r = fseeko(f, to - size, SEEK_END);
		unsigned char a[9] = { 0 }, b[9] = { 0 };
		size_t n = r == 0 ? fread(a, 1, i % 9 + 1, f) : 0;
		ssize_t m = pread(fd, b, i % 9 + 1, to);
		bad += r != 0 || m < 0 || n != (size_t)m || memcmp(a, b, n) != 0 ||
		       ftell(f) != to + (long)n;
		if (n && i % 5 == 0) {       /* push the last byte back: read it again */
			bad += ungetc(a[n - 1], f) != a[n - 1] || ftell(f) != to + (long)n - 1 ||
			       fgetc(f) != a[n - 1];
		}
		checked++;
	}
	fpos_t p;
	CHECK(fseek(f, 1000, SEEK_SET) == 0 && fgetpos(f, &p) == 0 && fgetc(f) != EOF);
	CHECK(fsetpos(f, &p) == 0 && ftell(f) == 1000);
	CHECK(fseek(f, -1, SEEK_SET) == -1 && errno == EINVAL);
	CHECK(fseek(f, 0, 9) == -1 && errno == EINVAL);
	CHECK(fseek(f, 0, SEEK_END) == 0 && fgetc(f) == EOF && feof(f));
	CHECK(fseek(f, 0, SEEK_END) == 0 && !feof(f));   /* a seek clears it */
	/* ungetc: several, any byte, then read back in reverse */
	rewind(f);
	int c0 = fgetc(f);
	CHECK(ungetc('x', f) == 'x' && ungetc('y', f) == 'y');
	CHECK(fgetc(f) == 'y' && fgetc(f) == 'x' && ftell(f) == 1);
	CHECK(ungetc(EOF, f) == EOF);
	CHECK(fseek(f, 0, SEEK_SET) == 0 && fgetc(f) == c0);
	CHECK(fileno(f) >= 3);
	close(fd);
	CHECK(fclose(f) == 0);
	result_begin(&R, "stdfiles");
	result_str(&R, "part", "seek");
	result_int(&R, "checked", checked);
	result_int(&R, "bad", bad);
	result_end(&R);
}

/* Threads reading one FILE with fgetc and fread: each byte once. */
static FILE *shared;
static uint64_t sbytes, ssum;

static void *reader(void *arg)
{
	uint64_t n = 0, sum = 0;
	unsigned char b[37];
	for (int c, i = 0;; i++) {
		if (arg && i % 2) {
			size_t k = fread(b, 1, sizeof b, shared);
			for (size_t j = 0; j < k; j++)
				sum += b[j];
			n += k;
			if (!k)
				break;
		} else {
			if ((c = getc(shared)) == EOF)
				break;
			sum += (unsigned)c, n++;
		}
	}
	__atomic_add_fetch(&sbytes, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&ssum, sum, __ATOMIC_RELAXED);
	return 0;
}

static void threads(void)
{
	shared = fopen(bin, "r");
	CHECK(shared != 0);
	if (!shared)
		return;
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&t[i], 0, reader, i % 2 ? (void *)1 : 0) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], 0);
	CHECK(fclose(shared) == 0);
	result_begin(&R, "stdfiles");
	result_str(&R, "part", "shared");
	result_uint(&R, "bytes", sbytes);
	result_uint(&R, "sum", ssum);
	result_end(&R);
}

/* Relative paths after chdir; realpath; openat and fstatat. */
static void paths(const char *dir)
{
	char b[PATH_MAX], *p;
	CHECK(chdir(dir) == 0 && getcwd(b, sizeof b) && !strcmp(b, dir));
	FILE *f = fopen("sub/inner.txt", "r");
	CHECK(f && fgets(b, sizeof b, f) && !strcmp(b, "inner\n"));
	if (f)
		fclose(f);
	CHECK(chdir("sub") == 0 && getcwd(b, sizeof b) && strlen(b) == strlen(dir) + 4);
	struct stat st, st2;
	CHECK(stat("inner.txt", &st) == 0 && st.st_size == 6);
	CHECK(stat("./../sub/./inner.txt", &st2) == 0 && st2.st_ino == st.st_ino);
	CHECK(access("../text.txt", R_OK) == 0);
	CHECK((p = realpath("../sub/../sub//inner.txt", 0)) && !strncmp(p, dir, strlen(dir)) &&
	      !strcmp(p + strlen(dir), "/sub/inner.txt"));
	free(p);
	CHECK(realpath("..", b) == b && !strcmp(b, dir));
	errno = 0;
	CHECK(realpath("nothing-here", b) == 0 && errno == ENOENT);
	CHECK(realpath("/..", b) && !strcmp(b, "/"));
	int d = open("..", O_RDONLY | O_DIRECTORY);
	CHECK(d >= 0);
	int fd = openat(d, "sub/inner.txt", O_RDONLY);
	CHECK(fd >= 0 && read(fd, b, 6) == 6 && !memcmp(b, "inner\n", 6));
	close(fd);
	CHECK(fstatat(d, "text.txt", &st, 0) == 0 && S_ISREG(st.st_mode));
	CHECK(fstatat(AT_FDCWD, "inner.txt", &st, 0) == 0 && st.st_size == 6);
	CHECK(fstatat(d, "", &st, AT_EMPTY_PATH) == 0 && S_ISDIR(st.st_mode));
	errno = 0;
	CHECK(openat(99, "x", O_RDONLY) == -1 && errno == EBADF);
	CHECK(openat(d, "/no/such", O_RDONLY) == -1 && errno == ENOENT);   /* absolute: dirfd unused */
	CHECK(fchdir(d) == 0 && getcwd(b, sizeof b) && !strcmp(b, dir));
	close(d);
	errno = 0;
	CHECK(chdir("text.txt") == -1 && errno == ENOTDIR);
	errno = 0;
	CHECK(chdir("missing") == -1 && errno == ENOENT);
	errno = 0;
	CHECK(chdir("") == -1 && errno == ENOENT);
	CHECK(getcwd(b, strlen(dir)) == 0 && errno == ERANGE);
	char *longp = malloc(PATH_MAX + 10);
	memset(longp, 'a', PATH_MAX + 9);
	longp[PATH_MAX + 9] = 0;
	errno = 0;
	CHECK(open(longp, O_RDONLY) == -1 && errno == ENAMETOOLONG);
	errno = 0;
	CHECK(stat(longp, &st) == -1 && errno == ENAMETOOLONG);
	for (int i = 0; i < PATH_MAX + 9; i += 2)      /* "a/a/a/...": long once joined */
		longp[i] = 'a', longp[i + 1] = '/';
	longp[PATH_MAX - 100] = 0;
	errno = 0;
	CHECK(chdir(longp) == -1 && errno == ENAMETOOLONG);
	free(longp);
	CHECK(chdir("/") == 0 && getcwd(b, sizeof b) && !strcmp(b, "/"));
	CHECK(chdir(dir + 1) == 0 && getcwd(b, sizeof b) && !strcmp(b, dir));   /* relative to "/" */
	CHECK(chdir("/") == 0);
}

/* Writing files through stdio (the disk's write side, kernel/ext2w.c):
   every mode, a read then a write with no seek between, appends, an
   exclusive create of an existing file, and a big file in odd pieces. */
static void file_writes(const char *dir)
{
	char p[PATH_MAX], b[64];
	snprintf(p, sizeof p, "%s/out.txt", dir);
	FILE *f = fopen(p, "w");
	CHECK(f && fprintf(f, "%d %s\n", 42, "abc") == 7 && fputs("two\n", f) >= 0);
	CHECK(f && fseek(f, 0, SEEK_SET) == 0 && fputc('X', f) == 'X' && fclose(f) == 0);
	CHECK((f = fopen(p, "r")) && fgets(b, sizeof b, f) && !strcmp(b, "X2 abc\n") && fclose(f) == 0);
	CHECK((f = fopen(p, "a")) && fputs("three\n", f) >= 0 && ftell(f) == 17 && fclose(f) == 0);
	CHECK((f = fopen(p, "r+")) && fgetc(f) == 'X' && fputc('Y', f) == 'Y');   /* read then write: no seek between */
	CHECK(f && fseek(f, 0, SEEK_SET) == 0 && fread(b, 1, 17, f) == 17 && !memcmp(b, "XY abc\ntwo\nthree\n", 17));
	CHECK(f && fclose(f) == 0);
	CHECK((f = fopen(p, "a+")) && fgetc(f) == 'X' && fputs("4\n", f) >= 0 && fseek(f, -2, SEEK_END) == 0 &&
	      fgetc(f) == '4' && fclose(f) == 0);             /* a+ reads anywhere, writes at the end */
	errno = 0;
	CHECK(fopen(p, "wx") == 0 && errno == EEXIST);
	CHECK((f = fopen(p, "w+")) && fgetc(f) == EOF && fwrite("0123456789", 1, 10, f) == 10);
	CHECK(f && fseek(f, 3, SEEK_SET) == 0 && fgetc(f) == '3' && ftell(f) == 4 && fclose(f) == 0);
	struct stat st;
	CHECK(stat(p, &st) == 0 && st.st_size == 10);
	/* a big file in odd pieces through fwrite, read back with fread */
	static char big[100000];
	for (int i = 0; i < (int)sizeof big; i++)
		big[i] = (char)(i * 7 + i / 251);
	CHECK((f = fopen(p, "wb")));
	for (size_t at = 0, k = 1; f && at < sizeof big; at += k, k = k * 3 % 9973 + 1)
		fwrite(big + at, 1, at + k <= sizeof big ? k : sizeof big - at, f);
	CHECK(f && fclose(f) == 0 && stat(p, &st) == 0 && st.st_size == sizeof big);
	static char back[sizeof big];
	CHECK((f = fopen(p, "rb")) && fread(back, 1, sizeof back, f) == sizeof back && !memcmp(big, back, sizeof big));
	if (f)
		fclose(f);
	CHECK(remove(p) == 0 && stat(p, &st) == -1 && errno == ENOENT);
}

/* Opening: modes, errors. */
static void modes(const char *dir)
{
	file_writes(dir);
	errno = 0;
	CHECK(fopen(text, "q") == 0 && errno == EINVAL);
	errno = 0;
	CHECK(fopen(text, "rz") == 0 && errno == EINVAL);
	errno = 0;
	CHECK(fopen("/no/such/file", "r") == 0 && errno == ENOENT);
	FILE *f = fopen(text, "rbe");
	CHECK(f && fcntl(fileno(f), F_GETFD) == FD_CLOEXEC);
	errno = 0;
	CHECK(f && fputc('x', f) == EOF && ferror(f) && errno == EBADF);
	clearerr(f);
	CHECK(!ferror(f) && fwrite("ab", 1, 2, f) == 0 && ferror(f));
	clearerr(f);
	CHECK(fprintf(f, "%d", 5) < 0 && ferror(f));
	fclose(f);
	int fd = open(text, O_RDONLY);
	errno = 0;
	CHECK(fdopen(fd, "w") == 0 && errno == EINVAL);
	f = fdopen(fd, "r");
	CHECK(f && fileno(f) == fd && fgetc(f) != EOF);
	CHECK(f && fclose(f) == 0 && close(fd) == -1 && errno == EBADF);   /* fclose closed it */
	errno = 0;
	CHECK(fdopen(77, "r") == 0 && errno == EBADF);
	/* freopen: stdin from a file, then back at end of file */
	CHECK(freopen(text, "r", stdin) == stdin && fileno(stdin) == 0);
	char b[100];
	CHECK(fgets(b, sizeof b, stdin) != 0 && getchar() != EOF);
	CHECK(fclose(stdin) == 0);
	errno = 0;
	CHECK(freopen(text, "w", stdout) == 0 && errno == EBADF);
	/* stdout is the console's: no seeking */
	errno = 0;
	CHECK(fseek(stdout, 0, SEEK_SET) == -1 && errno == ESPIPE && ftell(stdout) == -1);
}

/* The write path, through pipes (they take writes now; files will):
   buffering modes, fprintf, fputs, fputc, fflush, mixed with reads. */
static void writes(void)
{
	int p[2];
	CHECK(pipe(p) == 0);
	FILE *w = fdopen(p[1], "w"), *r = fdopen(p[0], "r");
	CHECK(w && r);
	if (!w || !r)
		return;
	char b[200];
	/* fully buffered: nothing reaches the pipe until fflush */
	CHECK(fprintf(w, "%s %d\n", "one", 1) == 6 && fputs("two\n", w) >= 0 && fputc('3', w) == '3');
	int avail = -1;
	struct stat st;
	CHECK(fstat(p[0], &st) == 0 && st.st_size == 0);
	CHECK(fflush(w) == 0 && fstat(p[0], &st) == 0 && st.st_size == 11);
	CHECK(fgets(b, sizeof b, r) && !strcmp(b, "one 1\n"));
	CHECK(fgets(b, sizeof b, r) && !strcmp(b, "two\n"));
	CHECK(fgetc(r) == '3');
	(void)avail;
	/* line buffered: each line goes at its newline */
	CHECK(setvbuf(w, 0, _IOLBF, 0) == 0);
	CHECK(fputs("abc", w) >= 0 && fstat(p[0], &st) == 0 && st.st_size == 0);
	CHECK(fputs("d\nef", w) >= 0 && fstat(p[0], &st) == 0 && st.st_size == 5);
	CHECK(fflush(w) == 0 && fread(b, 1, 7, r) == 7 && !memcmp(b, "abcd\nef", 7));
	/* unbuffered: at once; with a program's own buffer */
	CHECK(setvbuf(w, 0, _IONBF, 0) == 0 && fputc('z', w) == 'z');
	CHECK(fstat(p[0], &st) == 0 && st.st_size == 1 && fgetc(r) == 'z');
	static char mine[64];
	CHECK(setvbuf(w, mine, _IOFBF, sizeof mine) == 0);
	CHECK(fwrite("0123456789", 1, 10, w) == 10 && fstat(p[0], &st) == 0 && st.st_size == 0);
	CHECK(!memcmp(mine, "0123456789", 10));
	for (int i = 0; i < 10; i++)     /* 100 bytes through 64: written as it fills */
		fwrite("0123456789", 1, 10, w);
	CHECK(fstat(p[0], &st) == 0 && st.st_size == 60);   /* the 7th would not fit: 60 went */
	CHECK(fflush(w) == 0 && fread(b, 1, 110, r) == 110 && !memcmp(b + 100, "0123456789", 10));
	/* big fprintf, larger than a piece */
	CHECK(setvbuf(w, 0, _IOFBF, 0) == 0);
	CHECK(fprintf(w, "%3000d|", 7) == 3001 && fflush(w) == 0);
	CHECK(fread(b, 1, 1, r) == 1 && fseek(r, 2998, SEEK_CUR) == -1 && errno == ESPIPE);
	size_t got = 1;
	while (got < 3001 && fread(b, 1, got + 100 <= 3001 ? 100 : 3001 - got, r) > 0)
		got += got + 100 <= 3001 ? 100 : 3001 - got;
	CHECK(got == 3001 && b[99] == '|');
	CHECK(fclose(w) == 0 && fgetc(r) == EOF && feof(r) && fclose(r) == 0);
	/* a write to a stream opened only for reading, a read from one only for writing */
	CHECK(pipe(p) == 0);
	w = fdopen(p[1], "w");
	errno = 0;
	CHECK(w && fgetc(w) == EOF && ferror(w) && errno == EBADF);
	fclose(w);
	close(p[0]);
	/* fdopen "a" sets O_APPEND; dprintf to a descriptor */
	CHECK(pipe(p) == 0 && (w = fdopen(p[1], "a")) && (fcntl(p[1], F_GETFL) & O_APPEND));
	CHECK(dprintf(p[1], "d%d", 42) == 3 && read(p[0], b, 3) == 3 && !memcmp(b, "d42", 3));
	fclose(w);
	close(p[0]);
}

/* preadv and readv on a file. */
static void vectors(void)
{
	int fd = open(bin, O_RDONLY);
	unsigned char a[10], b[3000], c[1], whole[3011];
	struct iovec v[3] = { { a, 10 }, { b, 3000 }, { c, 1 } };
	CHECK(pread(fd, whole, sizeof whole, 5000) == sizeof whole);
	CHECK(preadv(fd, v, 3, 5000) == 3011);
	CHECK(!memcmp(a, whole, 10) && !memcmp(b, whole + 10, 3000) && c[0] == whole[3010]);
	CHECK(lseek(fd, 0, SEEK_CUR) == 0);             /* preadv leaves the offset */
	CHECK(lseek(fd, 5000, SEEK_SET) == 5000 && readv(fd, v, 3) == 3011);
	CHECK(!memcmp(b, whole + 10, 3000) && lseek(fd, 0, SEEK_CUR) == 8011);
	errno = 0;
	CHECK(preadv(fd, v, 3, -1) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(pwritev(fd, v, 3, 0) == -1 && (errno == EBADF || errno == EROFS));
	int p[2];
	CHECK(pipe(p) == 0);
	errno = 0;
	CHECK(preadv(p[0], v, 3, 0) == -1 && errno == ESPIPE);
	close(p[0]), close(p[1]);
	close(fd);
}

/* fopen/fgetc/fclose 100 times, then 2,000 times more: the kernel's
   available memory stays within 64 KiB (a FILE lost each time would take
   about 240 KiB, its 4 KiB buffer 8 MiB). */
static int cycles(int n)
{
	for (int i = 0; i < n; i++) {
		FILE *f = fopen(bin, "r");
		if (!f || fgetc(f) == EOF || fclose(f) != 0)
			return 0;
	}
	return 1;
}

static void frees(void)
{
	CHECK(cycles(100));
	long a0 = avail();
	CHECK(cycles(2000));
	long a1 = avail();
	CHECK(a0 - a1 < (64L << 10));
	if (a0 - a1 >= (64L << 10))
		printf("stdfiles: %ld bytes gone in 2,000 fopen/fclose\n", a0 - a1);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/t";
	snprintf(text, sizeof text, "%s/text.txt", dir);
	snprintf(bin, sizeof bin, "%s/bin.dat", dir);
	lines();
	pieces();
	seeks();
	threads();
	paths(dir);
	modes(dir);
	writes();
	vectors();
	frees();
	/* a fully buffered stream on descriptor 1, left for exit to flush:
	   its line comes after the last @result */
	FILE *o = fdopen(1, "w");
	CHECK(o && setvbuf(o, 0, _IOFBF, 0) == 0 && fputs("stdfiles: written at exit\n", o) >= 0);
	result_begin(&R, "stdfiles");
	result_int(&R, "checks", checks);
	result_int(&R, "failures", failures);
	result_end(&R);
	return failures != 0;
}
