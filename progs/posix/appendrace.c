/*
 * appendrace: two processes append records to one file at once and the
 * file is checked whole (issue 34; harness/tests/test_appendrace.py).
 *   appendrace MODE ROUNDS RECS SIZE [CSIZE]
 *   MODE sep:    parent and child each open the file with O_APPEND
 *                (two open files, two offsets: confproc's check);
 *   MODE shared: one O_APPEND descriptor opened before the fork, so both
 *                write through one open file and its one offset.
 * Each round the file is emptied; the parent appends RECS records of
 * SIZE bytes, all 'p', and the child as many bytes in records of CSIZE
 * (default SIZE), all 'c'. O_APPEND writes are atomic, so the file must
 * be those records one after the other, each one letter throughout, and
 * all of them. A record with any other byte (a zero: room reserved and
 * never written) is bad, and ends that round's scan (what follows it
 * cannot be told apart); the @result line counts bad records and the
 * rounds that had any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/pkg.h>

#define F "/tmp/app"
#define MAXFILE (1L << 20)

static char file[MAXFILE], rec[MAXFILE / 2];

/* Append n records of size bytes of `ch` through fd: the count short. */
static long appends(int fd, long n, long size, char ch)
{
	long bad = 0;
	memset(rec, ch, size);
	for (long i = 0; i < n; i++)
		bad += write(fd, rec, size) != size;
	return bad;
}

/* The file's bad records (any byte not its first, or a first neither
   'p' nor 'c', or not n of each), or -1 if it has the wrong size. */
static long check(long n, long size, long csize, long *zeros)
{
	int fd = open(F, O_RDONLY);
	long got = 0, r;
	while (got < MAXFILE && (r = read(fd, file + got, MAXFILE - got)) > 0)
		got += r;
	close(fd);
	for (long i = 0; i < got; i++)
		*zeros += file[i] == 0;
	if (got != 2 * n * size)
		return -1;
	long c = 0, p = 0;
	for (long i = 0; i < got;) {
		const char *x = file + i;
		long len = x[0] == 'p' ? size : csize, wrong = x[0] != 'p' && x[0] != 'c';
		for (long k = 0; k < len && !wrong; k++)
			wrong = i + k >= got || x[k] != x[0];
		if (wrong)
			return 1;
		c += x[0] == 'c';
		p += x[0] == 'p';
		i += len;
	}
	return c != n * size / csize || p != n;
}

static long round_(int shared, long n, long size, long csize, long *zeros)
{
	close(open(F, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	int fd = shared ? open(F, O_WRONLY | O_APPEND) : -1;
	pid_t pid = fork();
	if (pid < 0)
		return -2;
	if (!shared)
		fd = open(F, O_WRONLY | O_APPEND);
	long short_ = pid ? appends(fd, n, size, 'p') : appends(fd, n * size / csize, csize, 'c');
	close(fd);
	if (!pid)
		_exit(short_ ? 1 : 0);
	int st;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || short_)
		return -3;
	return check(n, size, csize, zeros);
}

int main(int argc, char **argv)
{
	int shared = argc > 1 && !strcmp(argv[1], "shared");
	long rounds = argc > 2 ? atol(argv[2]) : 20, n = argc > 3 ? atol(argv[3]) : 100;
	long size = argc > 4 ? atol(argv[4]) : 100, csize = argc > 5 ? atol(argv[5]) : size;
	if (size < 1 || n < 1 || csize < 1 || csize > size || size % csize || 2 * n * size > MAXFILE) {
		printf("appendrace: %ld records of %ld bytes do not fit\n", n, size);
		return 2;
	}
	mkdir("/tmp", 0777);
	long badrec = 0, badrounds = 0, failed = 0, zeros = 0;
	for (long i = 0; i < rounds; i++) {
		long b = round_(shared, n, size, csize, &zeros);
		if (b < 0)
			failed++;
		else
			badrec += b;
		badrounds += b != 0;
		if (b && badrounds <= 4)
			printf("appendrace: round %ld: %ld\n", i, b);
	}
	struct result R;
	result_begin(&R, "appendrace");
	result_str(&R, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	result_int(&R, "rounds", rounds);
	result_int(&R, "bad_records", badrec);
	result_int(&R, "bad_rounds", badrounds);
	result_int(&R, "failed_rounds", failed);
	result_int(&R, "zeros", zeros);
	result_end(&R);
	return badrounds != 0;
}
