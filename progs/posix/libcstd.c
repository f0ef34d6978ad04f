/*
 * libcstd: behaviours a C library test suite checks that ulib got wrong
 * (found by running one, issue 34), each from the standard's text:
 * fscanf and vfscanf on a stream (a pipe: no disk needed), where a
 * matching failure leaves the offending character unread, an input item
 * that only begins a number ("0x", "2.5e+") is a matching failure whose
 * characters are read, and end of input before the first conversion is
 * EOF (C11 7.21.6.2); stat and lstat of /dev/null (a character device)
 * and ENOTDIR for a path beneath it; a robust mutex its holder destroys
 * (0, as glibc), after which its holder's exit leaves that memory alone.
 * One @result {"name": "libcstd", "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <animalib/result.h>
#define CHECK_NAME "libcstd"
#include <check.h>

/* A stream that reads text, then end of file: a pipe's read end. */
static FILE *feed(const char *text)
{
	int p[2];
	if (pipe(p) < 0)
		return 0;
	size_t n = strlen(text);
	if (write(p[1], text, n) != (ssize_t)n)
		return 0;
	close(p[1]);
	return fdopen(p[0], "r");
}

static int vscan(FILE *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vfscanf(f, fmt, ap);
	va_end(ap);
	return r;
}

static void streams(void)
{
	char a[32], b[32];
	int x = -1, y = -1, n = -1;
	double d = -1;
	FILE *f = feed("alpha cabbage\n");
	CHECK(f && fscanf(f, "%s %[a-c]", a, b) == 2);
	CHECK(!strcmp(a, "alpha") && !strcmp(b, "cabba"));
	CHECK(f && fgetc(f) == 'g');          /* the character that ended %[ is unread */
	fclose(f);

	f = feed("7 z");
	CHECK(fscanf(f, "%d %d", &x, &y) == 1 && x == 7 && y == -1);
	CHECK(fgetc(f) == 'z');               /* a matching failure leaves it unread */
	fclose(f);

	f = feed("  19 0xg");
	CHECK(fscanf(f, "%d%n %x", &x, &n, &y) == 1 && x == 19 && n == 4 && y == -1);
	CHECK(fgetc(f) == 'g');               /* "0x" read: only a number's beginning */
	fclose(f);

	f = feed("2.5e+q");
	CHECK(fscanf(f, "%lf", &d) == 0 && d == -1);
	CHECK(fgetc(f) == 'q');
	fclose(f);

	f = feed("0x1.8p1 -12 5");
	CHECK(vscan(f, "%lf %i %*d%n", &d, &x, &n) == 2 && d == 3.0 && x == -12 && n == 13);
	CHECK(fgetc(f) == EOF && feof(f));
	fclose(f);

	f = feed("xyz");
	CHECK(fscanf(f, "%2c%c", a, b) == 2 && !memcmp(a, "xy", 2) && b[0] == 'z');
	CHECK(fscanf(f, "%d", &x) == EOF);    /* at end of input: EOF */
	fclose(f);

	f = feed("   ");
	CHECK(fscanf(f, "%d", &x) == EOF);    /* only spaces, then the end */
	fclose(f);

	f = feed("");
	CHECK(fscanf(f, "%s", a) == EOF);
	fclose(f);

	/* The same rules for strings. */
	CHECK(sscanf("4e", "%lf", &d) == 0);
	CHECK(sscanf("0x", "%x", &x) == 0);
	CHECK(sscanf("", "%d", &x) == EOF);
	CHECK(sscanf("8 9", "%d%d", &x, &y) == 2 && x == 8 && y == 9);
	CHECK(sscanf("ab", "%[a]%n", a, &n) == 1 && n == 1);
}

static void devnull(void)
{
	struct stat st;
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	CHECK(lstat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));
	errno = 0;
	CHECK(stat("/dev/null/x", &st) == -1 && errno == ENOTDIR);
	errno = 0;
	CHECK(open("/dev/null/x", O_RDONLY) == -1 && errno == ENOTDIR);
}

/* The robust mutex a thread destroys while it holds it, then reuses. */
static union { pthread_mutex_t m; unsigned char b[sizeof(pthread_mutex_t)]; } spot;
static int destroyed = -1;

static void *holder(void *arg)
{
	(void)arg;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&spot.m, &a);
	pthread_mutex_lock(&spot.m);
	destroyed = pthread_mutex_destroy(&spot.m);
	memset(spot.b, 0x5a, sizeof spot.b);  /* the memory is the thread's again */
	return 0;
}

static void robust(void)
{
	pthread_t t;
	CHECK(pthread_create(&t, 0, holder, 0) == 0 && pthread_join(t, 0) == 0);
	CHECK(destroyed == 0);
	int same = 1;
	for (size_t i = 0; i < sizeof spot.b; i++)
		same &= spot.b[i] == 0x5a;
	CHECK(same);                          /* its exit did not unlock it as owner-dead */
}

int main(void)
{
	streams();
	devnull();
	robust();
	struct result r;
	result_begin(&r, "libcstd");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
