/*
 * libcstd: behaviours a C library test suite checks that ulib got wrong
 * (found by running one, issue 34), each from the standard's text:
 * fscanf and vfscanf on a stream (a pipe: no disk needed), where a
 * matching failure leaves the offending character unread, an input item
 * that only begins a number ("0x", "2.5e+") is a matching failure whose
 * characters are read, and end of input before the first conversion is
 * EOF (C11 7.21.6.2); stat and lstat of /dev/null (a character device)
 * and ENOTDIR for a path beneath it; a robust mutex its holder destroys
 * (0, as glibc), after which its holder's exit leaves that memory alone;
 * a fork from a thread other than main, whose child must find its own
 * thread-local storage (the kernel gave it the FS base its VP had when
 * it last left a CPU: another thread's, or none); printf's '#' flag on a
 * zero (no "0x"; one octal 0) and precisions past 40 digits (clamped);
 * strtof's rounding of a number whose nearest double is a float
 * midpoint (it rounded twice); setrlimit lowering a limit (EPERM) and
 * RLIMIT_NOFILE bounding new descriptors (it bounded nothing);
 * wcsstr, wcsspn & co., wcstol & co., mbsrtowcs and wcsrtombs, and
 * <wctype.h> (missing).
 * One @result {"name": "libcstd", "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>
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

static int same(const char *fmt, double d, int i, const char *want)
{
	char b[1200];
	int n = fmt[strlen(fmt) - 1] == 'f' ? snprintf(b, sizeof b, fmt, d) : snprintf(b, sizeof b, fmt, i);
	return n == (int)strlen(want) && !strcmp(b, want);
}

static void formats(void)
{
	CHECK(same("%#x", 0, 0, "0"));
	CHECK(same("%#.0x", 0, 0, ""));
	CHECK(same("%#X", 0, 255, "0XFF"));
	CHECK(same("%#o", 0, 0, "0"));
	CHECK(same("%#.0o", 0, 0, "0"));
	CHECK(same("%#o", 0, 8, "010"));
	CHECK(same("%#.4o", 0, 8, "0010"));
	/* 0.1 as a double is exactly this 55-digit fraction */
	CHECK(same("%.60f", 0.1, 0, "0.100000000000000005551115123125782702118158340454101562500000"));
	char b[1200];
	CHECK(snprintf(b, sizeof b, "%.1074f", 0x1p-1074) == 1076 && b[1075] != '0');
}

/* A thread forks; the child checks its TLS (a __thread variable and
   errno) and says what it found in its exit status. */
static __thread int mine = 40;

static void *forker(void *arg)
{
	(void)arg;
	mine = 41;
	pid_t p = fork();
	if (p == 0) {
		errno = 0;
		_exit(mine == 41 && !errno && ++mine == 42 ? 42 : 1);
	}
	int st = -1;
	return (void *)(intptr_t)(p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

static void forks(void)
{
	pthread_t t;
	void *r = 0;
	CHECK(pthread_create(&t, 0, forker, 0) == 0 && pthread_join(t, &r) == 0);
	CHECK((intptr_t)r == 42);
	CHECK(mine == 40);                    /* main's own copy */
}

/* strtof rounds the decimal once: a double that lands exactly between
   two floats must not be rounded again as if the number were there. */
static int sf(const char *s, float want, int erange)
{
	errno = 0;
	float f = strtof(s, 0);
	return f == want && (errno == ERANGE) == erange;
}

static void numbers(void)
{
	CHECK(sf("1.000000059604644775390625", 1.0f, 0));            /* 1 + 2^-24: a tie, to even */
	CHECK(sf("1.0000000596046447753906251", 0x1.000002p0f, 0));  /* just above it */
	CHECK(sf("1.0000000596046447753906249", 1.0f, 0));           /* just below */
	CHECK(sf("3.40282356779733661637539395458142568447e38", 0x1.fffffep127f, 0));
	CHECK(sf("340282356779733661637539395458142568448", __builtin_inff(), 1));
	CHECK(sf("7.006492321624085354618647916449580656401309709382578858785341419448955413429304e-46",
		 0x1p-149f, 1));                                     /* above half the least subnormal */
	CHECK(sf("7.006492321624085354618647916449580656401309709382578858785341419448955413429303e-46",
		 0.0f, 1));
	/* setrlimit records a lowered limit, as Linux (it said EPERM) */
	struct rlimit rl = { 100 * 1024, 100 * 1024 };
	CHECK(setrlimit(RLIMIT_STACK, &rl) == 0);
	CHECK(getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur == 100 * 1024 && rl.rlim_max == 100 * 1024);
	rl.rlim_max = RLIM_INFINITY;
	errno = 0;
	CHECK(setrlimit(RLIMIT_STACK, &rl) == -1 && errno == EPERM);
	/* RLIMIT_NOFILE bounds new descriptors (it bounded nothing) */
	struct rlimit was;
	CHECK(getrlimit(RLIMIT_NOFILE, &was) == 0);
	rl = (struct rlimit){ 12, was.rlim_max };
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0);
	int fd, top = -1;
	while ((fd = dup(1)) >= 0)
		top = fd;
	CHECK(errno == EMFILE && top == 11);
	errno = 0;
	CHECK(dup2(1, 12) == -1 && errno == EBADF);
	errno = 0;
	CHECK(fcntl(1, F_DUPFD, 12) == -1 && errno == EINVAL);
	CHECK(setrlimit(RLIMIT_NOFILE, &was) == 0 && dup2(1, 12) == 12 && close(12) == 0);
	for (fd = 3; fd <= top; fd++)
		close(fd);
}

/* Wide strings: search and numbers (they did not exist). */
static void wide(void)
{
	const wchar_t *h = L"banana split";
	wchar_t *e = 0;
	CHECK(wcsstr(h, L"nan") == h + 2 && wcsstr(h, L"") == h && !wcsstr(h, L"bandana"));
	CHECK(wcsspn(h, L"abn") == 6 && wcscspn(h, L" ") == 6 && wcspbrk(h, L"tp") == h + 8);
	CHECK(wcstol(L"  -0x1fz", &e, 0) == -31 && *e == L'z');
	errno = 0;
	CHECK(wcstoul(L"18446744073709551616", &e, 10) == ~0UL && errno == ERANGE && !*e);
	CHECK(wcstol(L"\x263a", &e, 10) == 0 && e && *e == 0x263a);  /* nothing read: end = start */
	CHECK(wcstod(L"0x1.8p1 rest", &e) == 3.0 && *e == L' ');
	CHECK(wcstoll(L"+077", 0, 0) == 63 && wcstoull(L"z", 0, 36) == 35);
	/* the restartable string conversions: where the source ends up */
	wchar_t ws[6] = L"#####";
	const char *src = "hey", *s0 = src;
	CHECK(mbsrtowcs(ws, &src, 2, 0) == 2 && src == s0 + 2 && ws[2] == L'#');
	CHECK(mbsrtowcs(ws, &src, 5, 0) == 1 && src == 0 && !wcscmp(ws, L"y"));
	src = "a\x80" "b";
	errno = 0;
	CHECK(mbsrtowcs(ws, &src, 5, 0) == (size_t)-1 && errno == EILSEQ && *src == '\x80');
	const wchar_t *wsrc = L"ok";
	char nb[4] = "###";
	CHECK(wcsrtombs(0, &wsrc, 0, 0) == 2 && wcsrtombs(nb, &wsrc, 4, 0) == 2 && !wsrc && !strcmp(nb, "ok"));
	/* <wctype.h> in the C locale: ASCII as <ctype.h>, nothing else */
	CHECK(iswalpha(L'q') && iswdigit(L'7') && iswspace(L'\t') && !iswspace(0) && !iswalpha(0xe9));
	CHECK(towupper(L'q') == L'Q' && towlower(L'Q') == L'q' && towupper(0xe9) == 0xe9 && towlower(WEOF) == WEOF);
	CHECK(iswctype(L'f', wctype("xdigit")) && !iswctype(L'g', wctype("xdigit")) && wctype("bogus") == 0);
	CHECK(towctrans(L'A', wctrans("tolower")) == L'a' && wctrans("bogus") == 0);
}

int main(void)
{
	forks();                              /* first: the fork comes before any VP left a CPU */
	streams();
	devnull();
	robust();
	formats();
	numbers();
	wide();
	struct result r;
	result_begin(&r, "libcstd");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
