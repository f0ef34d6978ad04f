/*
 * libcposix: the libc a POSIX program sees (docs/libc.md), exercised the
 * way ordinary programs use it, with standard headers only.
 *
 *   libcposix [-c NCPU] [-v] [-n N] [--] [WORDS...]
 *
 * -c: the CPU count sysconf must report. Each CHECK counts; failures print
 * a line. Prints @result {"name": "libcposix", "checks": N, "failures": F,
 * ...}, then lines the harness checks: to stderr, perror, write(1)/(2),
 * atexit functions (last registered first) and, from the last of them, a
 * partial line that only exit's flush writes out. Exits 0 iff F == 0.
 */
#include <alloca.h>
#include <assert.h>
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/signal.h>     /* old code's name for it */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/param.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>

#define CHECK_NAME "libcposix"
#include <check.h>
#define STREQ(a, b) check(strcmp((a), (b)) == 0, #a " == " #b, __LINE__)
#define NEAR(a, b) check(fabs((a) - (b)) <= 1e-12 * (fabs(b) > 1 ? fabs(b) : 1), #a " ~ " #b, __LINE__)

static char buf[256];
#define F(...) (snprintf(buf, sizeof buf, __VA_ARGS__), buf)

static void test_printf(void)
{
	STREQ(F("%zu %lld %x %X %o", (size_t)42, -5LL, 255u, 255u, 8u), "42 -5 ff FF 10");
	STREQ(F("%g %g %e %.3f", 0.5, 1e20, 12345.678, 2.0 / 3), "0.5 1e+20 1.234568e+04 0.667");
	STREQ(F("[%s] [%c] [%*d] [%-*d] [%05.1f]", "ab", 'z', 4, 7, 3, 1, -2.25), "[ab] [z] [   7] [1  ] [-02.2]");
	STREQ(F("%" PRIu64 " %" PRId64 " %" PRIx32, UINT64_MAX, INT64_MIN, (uint32_t)0xdead),
	      "18446744073709551615 -9223372036854775808 dead");
	STREQ(F("%p", (void *)0x10), "0x10");
	STREQ(F("%Lf", 1.5L), "1.500000");
	STREQ(F("%'d", 1234567), "1234567");            /* the C locale groups nothing */
	CHECK(snprintf(buf, 4, "%s", "abcdef") == 6 && !strcmp(buf, "abc"));
	char *s = 0;
	CHECK(asprintf(&s, "%d-%s", 7, "x") == 3 && s && !strcmp(s, "7-x"));
	free(s);
}

static void test_scanf(void)
{
	int d, n = -1;
	long l;
	unsigned u, x;
	char w[16], set[16], c;
	float f;
	double lf;
	CHECK(sscanf("42 -7 3000000000 hello 3.5 2.25 ff", "%d %ld %u %15s %f %lf %x",
		     &d, &l, &u, w, &f, &lf, &x) == 7);
	CHECK(d == 42 && l == -7 && u == 3000000000u && !strcmp(w, "hello") && f == 3.5f &&
	      lf == 2.25 && x == 0xff);
	CHECK(sscanf("key=value;", "%15[a-z]=%15[^;]%n", w, set, &n) == 2);
	CHECK(!strcmp(w, "key") && !strcmp(set, "value") && n == 9);
	CHECK(sscanf("12 34", "%*d %d", &d) == 1 && d == 34);
	CHECK(sscanf("12345", "%2d%c", &d, &c) == 2 && d == 12 && c == '3');
	CHECK(sscanf("abc", "%d", &d) == 0);
	CHECK(sscanf("", "%d", &d) == EOF);
	CHECK(sscanf("0x1A 017 -0", "%i %i %i", &d, &n, (int *)&u) == 3 && d == 26 && n == 15 && u == 0);
	CHECK(sscanf("1e3 x", "%lf %c", &lf, &c) == 2 && lf == 1000 && c == 'x');
}

static void test_strtod(void)
{
	char *end;
	CHECK(strtod("3.14159", 0) == 3.14159);
	CHECK(strtod("0.1", 0) == 0.1);
	CHECK(strtod("1e-5", 0) == 1e-5);
	CHECK(strtod("-0x1.8p1", 0) == -3.0);
	CHECK(strtod("123456789012345678901234567890", 0) == 1.2345678901234568e+29);
	CHECK(strtod("1.7976931348623157e308", 0) == DBL_MAX);
	CHECK(strtod("2.2250738585072014e-308", 0) == DBL_MIN);
	CHECK(strtod("4.9e-324", 0) == 5e-324);
	/* Correct rounding, ties to even, however many digits. */
	CHECK(strtod("9007199254740993", 0) == 9007199254740992.0);
	CHECK(strtod("9007199254740993.000000000000000000000000000001", 0) == 9007199254740994.0);
	CHECK(strtod("1.00000000000000011102230246251565404236316680908203125", 0) == 1.0);
	CHECK(strtod("1.00000000000000011102230246251565404236316680908203126", 0) == 1.0 + DBL_EPSILON);
	CHECK(strtod("1.7976931348623158e308", 0) == DBL_MAX && isinf(strtod("1.7976931348623159e308", 0)));
	CHECK(strtod("2.4703282292062328e-324", 0) == 5e-324 && strtod("2.4703282292062327e-324", 0) == 0);
	static char many[1100] = "0.1";
	memset(many + 3, '0', 1000);
	many[1003] = '1';
	CHECK(strtod(many, 0) == 0.1);
	CHECK(isinf(strtod("-inf", 0)) && strtod("-inf", 0) < 0 && isnan(strtod("nan", 0)));
	CHECK(strtod("  12abc", &end) == 12 && !strcmp(end, "abc"));
	CHECK(strtod("x", &end) == 0 && !strcmp(end, "x"));
	errno = 0;
	CHECK(isinf(strtod("1e400", 0)) && errno == ERANGE);
	errno = 0;
	CHECK(strtod("1e-400", 0) == 0 && errno == ERANGE);
	CHECK(atof("2.5") == 2.5 && atoi(" -17x") == -17 && atol("99") == 99 && atoll("-1") == -1);
	CHECK(strtol("ff", &end, 16) == 255 && *end == 0);
	CHECK(strtoul("0x10", 0, 0) == 16 && strtoll("-010", 0, 0) == -8);
	errno = 0;
	CHECK(strtol("99999999999999999999", 0, 10) == LONG_MAX && errno == ERANGE);
	CHECK(strtof("0.5", 0) == 0.5f);
}

static void test_math(void)
{
	NEAR(sqrt(2.0), M_SQRT2);
	CHECK(sqrt(16.0) == 4.0 && fabs(-3.5) == 3.5);
	CHECK(floor(-1.5) == -2 && ceil(1.2) == 2 && floor(3.0) == 3 && ceil(-0.5) == 0);
	NEAR(exp(1.0), 2.718281828459045);
	NEAR(log(10.0), 2.302585092994046);
	NEAR(log(M_E), 1.0);
	CHECK(pow(2.0, 10.0) == 1024.0);
	NEAR(pow(2.0, 0.5), 1.4142135623730951);
	NEAR(sin(M_PI / 6), 0.5);
	NEAR(cos(M_PI / 3), 0.5);
	NEAR(sin(1e6), -0.34999350217129294);
	NEAR(sin(1e22), -0.8522008497671888);      /* the large-argument reduction */
	NEAR(cos(1e22), 0.523214785395139);
	NEAR(tan(1e10), -0.5583496378112418);
	NEAR(atan2(1.0, 1.0), M_PI_4);
	CHECK(fmod(7.5, 2.0) == 1.5 && round(2.5) == 3 && trunc(-2.7) == -2);
	CHECK(isnan(sqrt(-1.0)) && isinf(log(0.0)) && log(0.0) < 0);
	CHECK(fabsf(-1.5f) == 1.5f && sqrtf(9.0f) == 3.0f);
	CHECK(fabs(sinf(1.0f) - 0.84147098f) < 1e-6);
}

static void test_string(void)
{
	char s[32] = "a,b,,c";
	char *save, *tok;
	int n = 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(0, ",", &save))
		n++;
	CHECK(n == 3);
	char *d = strdup("hello");
	CHECK(d && !strcmp(d, "hello"));
	free(d);
	d = strndup("hello", 3);
	CHECK(d && !strcmp(d, "hel"));
	free(d);
	CHECK(strcasecmp("HeLLo", "hello") == 0 && strcasecmp("a", "B") < 0);
	CHECK(strncasecmp("ABCx", "abcy", 3) == 0 && strncasecmp("ABCx", "abcy", 4) < 0);
	CHECK(memcmp("abc", "abd", 3) < 0 && memcmp("abc", "abc", 3) == 0);
	char m[16] = "0123456789";
	memmove(m + 2, m, 5);
	STREQ(m, "0101234789");
	memmove(m, m + 2, 5);
	STREQ(m, "0123434789");
	STREQ(strerror(EINVAL), "Invalid argument");
	STREQ(strerror(ENOMEM), "Cannot allocate memory");
	CHECK(strncmp(strerror(9999), "Unknown error", 13) == 0);
	CHECK(strspn("abcde", "abc") == 3 && strcspn("abcde", "dx") == 3);
	CHECK(strpbrk("hello", "lo") == strchr("hello", 'l') || !strcmp(strpbrk("hello", "lo"), "llo"));
	char p[] = "x=1";
	char *q = p;
	STREQ(strsep(&q, "="), "x");
	STREQ(q, "1");
	CHECK(strstr("haystack", "st") && !strcmp(strstr("haystack", "st"), "stack"));
	CHECK(strrchr("a/b/c", '/') && !strcmp(strrchr("a/b/c", '/'), "/c"));
	char cat[16] = "ab";
	strncat(cat, "cdef", 2);
	STREQ(cat, "abcd");
	CHECK(isdigit('7') && isalpha('q') && isspace('\t') && ispunct('!') && !ispunct('a') &&
	      toupper('a') == 'A' && tolower('Z') == 'z' && isxdigit('F') && !isxdigit('g'));
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void test_stdlib(void)
{
	int v[] = { 5, -3, 9, 0, 2, 2, -8 };
	qsort(v, 7, sizeof v[0], cmp_int);
	CHECK(v[0] == -8 && v[3] == 2 && v[6] == 9);
	int key = 5;
	int *hit = bsearch(&key, v, 7, sizeof v[0], cmp_int);
	CHECK(hit && *hit == 5);
	key = 4;
	CHECK(!bsearch(&key, v, 7, sizeof v[0], cmp_int));
	srand(5);
	int r1 = rand(), r2 = rand();
	srand(5);
	CHECK(rand() == r1 && rand() == r2 && r1 >= 0 && r1 <= RAND_MAX && r1 != r2);
	unsigned seed = 1, seed2 = 1;
	CHECK(rand_r(&seed) == rand_r(&seed2));
	char *z = calloc(100, 1);
	CHECK(z && z[0] == 0 && z[99] == 0);
	z = realloc(z, 10000);
	CHECK(z && z[50] == 0);
	free(z);
	void *a = 0;
	CHECK(posix_memalign(&a, 64, 100) == 0 && a && (uintptr_t)a % 64 == 0);
	free(a);
	CHECK(posix_memalign(&a, 3, 100) == EINVAL);
	a = aligned_alloc(4096, 4096);
	CHECK(a && (uintptr_t)a % 4096 == 0);
	free(a);
	CHECK(getenv("ANIMA_NO_SUCH_VARIABLE") == 0 && getenv("PATH") != 0);
	CHECK(abs(-4) == 4 && labs(-5L) == 5 && div(7, 2).quot == 3 && div(7, 2).rem == 1);
	assert(checks > 0);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t slept_ns;
static long realtime_s;

static void test_time(void)
{
	int64_t t0 = mono_ns(), t1 = mono_ns();
	CHECK(t0 > 0 && t1 >= t0);
	struct timespec req = { 0, 20 * 1000 * 1000 }, rem = { 9, 9 };
	CHECK(nanosleep(&req, &rem) == 0 && rem.tv_sec == 0 && rem.tv_nsec == 0);
	int64_t t2 = mono_ns();
	slept_ns = t2 - t1;
	CHECK(slept_ns >= 20 * 1000 * 1000);
	req.tv_nsec = 1000000000;
	errno = 0;
	CHECK(nanosleep(&req, 0) == -1 && errno == EINVAL);
	struct timespec rt;
	CHECK(clock_gettime(CLOCK_REALTIME, &rt) == 0);
	realtime_s = rt.tv_sec;
	CHECK(rt.tv_sec > 1577836800);            /* after 2020-01-01 */
	CHECK(rt.tv_nsec >= 0 && rt.tv_nsec < 1000000000);
	time_t now = time(0);
	CHECK(now >= rt.tv_sec && now - rt.tv_sec <= 2);
	struct timeval tv;
	CHECK(gettimeofday(&tv, 0) == 0 && tv.tv_sec >= rt.tv_sec && tv.tv_usec < 1000000);
	/* the realtime clock can be set (as root on Linux), no other */
	errno = 0;
	CHECK(clock_settime(CLOCK_REALTIME, &rt) == 0);
	CHECK(clock_settime(CLOCK_MONOTONIC, &rt) == -1 && errno == EINVAL);
	CHECK(clock_settime(9999, &rt) == -1 && errno == EINVAL);
	struct timespec badns = { rt.tv_sec, 1000000000 };
	CHECK(clock_settime(CLOCK_REALTIME, &badns) == -1 && errno == EINVAL);
	CHECK(settimeofday(&tv, 0) == 0);
	struct timespec cv = { 0, 0 };
	struct timeval back = { 0, 0 };
	TIMEVAL_TO_TIMESPEC(&tv, &cv);
	CHECK(cv.tv_sec == tv.tv_sec && cv.tv_nsec == tv.tv_usec * 1000L);
	TIMESPEC_TO_TIMEVAL(&back, &cv);
	CHECK(back.tv_sec == tv.tv_sec && back.tv_usec == tv.tv_usec);
	CHECK(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &rt) == 0);
	clock_t c0 = clock();                     /* processor time: spend some */
	struct timespec m0, m1;
	clock_gettime(CLOCK_MONOTONIC, &m0);
	do
		clock_gettime(CLOCK_MONOTONIC, &m1);
	while ((m1.tv_sec - m0.tv_sec) * 1000000000L + m1.tv_nsec - m0.tv_nsec < 2000000);
	CHECK(clock() > c0);
	CHECK(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &rt) == 0);   /* (ptest's threadcpu area) */
	time_t zero = 0;
	struct tm tm;
	gmtime_r(&zero, &tm);
	CHECK(tm.tm_year == 70 && tm.tm_mon == 0 && tm.tm_mday == 1 && tm.tm_wday == 4);
	struct tm leap = { .tm_year = 124, .tm_mon = 1, .tm_mday = 29, .tm_hour = 12 };
	time_t lt = timegm(&leap);
	CHECK(lt == 1709208000);
	char out[64];
	CHECK(strftime(out, sizeof out, "%Y-%m-%d %H:%M:%S %a %j", gmtime(&lt)) > 0);
	STREQ(out, "2024-02-29 12:00:00 Thu 060");
}

static void test_getopt(void)
{
	char *a1[] = { "p", "-a", "-b", "val", "-cVAL", "--", "-d", 0 };
	optind = 1;
	CHECK(getopt(7, a1, "ab:c:d") == 'a');
	CHECK(getopt(7, a1, "ab:c:d") == 'b' && !strcmp(optarg, "val"));
	CHECK(getopt(7, a1, "ab:c:d") == 'c' && !strcmp(optarg, "VAL"));
	CHECK(getopt(7, a1, "ab:c:d") == -1 && optind == 6);
	char *a2[] = { "p", "-ab", "x", "file", "-a", 0 };
	optind = 1;
	CHECK(getopt(5, a2, "ab:") == 'a');
	CHECK(getopt(5, a2, "ab:") == 'b' && !strcmp(optarg, "x"));
	CHECK(getopt(5, a2, "ab:") == 'a');                 /* after an operand: GNU's order */
	CHECK(getopt(5, a2, "ab:") == -1 && optind == 4 && !strcmp(a2[4], "file"));   /* permuted */
	char *a2p[] = { "p", "-ab", "x", "file", "-a", 0 };
	optind = 0;
	CHECK(getopt(5, a2p, "+ab:") == 'a');
	CHECK(getopt(5, a2p, "+ab:") == 'b' && !strcmp(optarg, "x"));
	CHECK(getopt(5, a2p, "+ab:") == -1 && optind == 3);   /* '+': stops at the first operand */
	char *a3[] = { "p", "-z", "-b", 0 };
	optind = 1;
	opterr = 0;
	CHECK(getopt(3, a3, "ab:") == '?' && optopt == 'z');
	CHECK(getopt(3, a3, ":ab:") == ':' && optopt == 'b');
	opterr = 1;
	int flag = 0, idx = -1;
	struct option lo[] = {
		{ "name", required_argument, 0, 'N' },
		{ "flag", no_argument, &flag, 7 },
		{ "level", optional_argument, 0, 'L' },
		{ 0, 0, 0, 0 },
	};
	char *a4[] = { "p", "--name=foo", "--name", "bar", "--flag", "-v", "--level", "--lev=3", "rest", 0 };
	optind = 1;
	CHECK(getopt_long(9, a4, "v", lo, &idx) == 'N' && !strcmp(optarg, "foo") && idx == 0);
	CHECK(getopt_long(9, a4, "v", lo, &idx) == 'N' && !strcmp(optarg, "bar"));
	CHECK(getopt_long(9, a4, "v", lo, &idx) == 0 && flag == 7 && idx == 1);
	CHECK(getopt_long(9, a4, "v", lo, &idx) == 'v');
	CHECK(getopt_long(9, a4, "v", lo, &idx) == 'L' && optarg == 0);
	CHECK(getopt_long(9, a4, "v", lo, &idx) == 'L' && !strcmp(optarg, "3"));   /* a prefix */
	CHECK(getopt_long(9, a4, "v", lo, &idx) == -1 && optind == 8);
	optind = 1;
}

static jmp_buf jb;
static int jumps;

static __attribute__((noinline)) void jump_back(int pad_bytes)
{
	volatile char pad[512];   /* a frame of its own below setjmp's */
	pad[pad_bytes % 512] = 1;
	longjmp(jb, jumps == 1 ? pad[0] * 0 : 7);   /* 0 the first time: setjmp returns 1 */
}

static void test_misc(void)
{
	volatile double kept = 1.25;   /* volatile: valid after longjmp */
	volatile int first = -1;
	int r = setjmp(jb);
	if (first < 0)
		first = r;
	else if (jumps == 1)
		CHECK(r == 1);          /* longjmp(jb, 0) makes setjmp return 1 */
	jumps++;
	if (jumps == 1)
		jump_back(0);
	if (jumps == 2)
		jump_back(500);
	CHECK(first == 0 && jumps == 3 && r == 7 && kept == 1.25);
	char p1[] = "/usr/lib/libc.a", p2[] = "/usr/lib/", p3[] = "file", p4[] = "/";
	STREQ(basename(p1), "libc.a");
	STREQ(dirname(p1), "/usr/lib");
	STREQ(basename(p2), "lib");
	STREQ(dirname(p3), ".");
	STREQ(basename(p4), "/");
	CHECK(MIN(3, 4) == 3 && MAX(3, 4) == 4 && nitems(p1) == 16);
	char *a = alloca(64);
	memset(a, 'x', 64);
	CHECK(a[63] == 'x');
}

static void on_sig(int sig);
static volatile int sig_seen;

static void test_unistd(long want_cpus)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	CHECK(ncpu >= 1 && sysconf(_SC_NPROCESSORS_CONF) == ncpu);
	if (want_cpus)
		CHECK(ncpu == want_cpus);
	CHECK(sysconf(_SC_PAGESIZE) == 4096 && getpagesize() == 4096);
	CHECK(get_nprocs() == ncpu);
	struct utsname u;
	CHECK(uname(&u) == 0 && !strcmp(u.machine, "x86_64"));
	errno = 0;
	CHECK(sysconf(-1) == -1 && errno == EINVAL);
	/* options: what <unistd.h> defines is there; an absent one is -1
	   with errno unchanged */
	CHECK(sysconf(_SC_CLOCK_SELECTION) == _POSIX_CLOCK_SELECTION);
	CHECK(sysconf(_SC_SPIN_LOCKS) == _POSIX_SPIN_LOCKS);
	CHECK(sysconf(_SC_THREAD_KEYS_MAX) == PTHREAD_KEYS_MAX);
	CHECK(sysconf(_SC_MAPPED_FILES) == _POSIX_MAPPED_FILES && _POSIX_MAPPED_FILES > 0);
	CHECK(sysconf(_SC_SHARED_MEMORY_OBJECTS) == _POSIX_SHARED_MEMORY_OBJECTS);
	CHECK(sysconf(_SC_MEMORY_PROTECTION) == _POSIX_MEMORY_PROTECTION);
	CHECK(sysconf(_SC_FSYNC) == _POSIX_FSYNC);
	CHECK(sysconf(_SC_MEMLOCK) == _POSIX_MEMLOCK && _POSIX_MEMLOCK > 0);   /* (memory is always resident) */
	CHECK(sysconf(_SC_MEMLOCK_RANGE) == _POSIX_MEMLOCK_RANGE && _POSIX_MEMLOCK_RANGE > 0);
	CHECK(sysconf(_SC_THREAD_PROCESS_SHARED) == _POSIX_THREAD_PROCESS_SHARED);
	/* an option the system lacks is -1 in <unistd.h> (a program may
	   test it with #if and stop at #error if it is not defined) and -1
	   from sysconf with errno unchanged: sporadic servers, tracing,
	   typed memory and prioritized I/O are not here (asynchronous I/O
	   is: aiox.c) */
#if defined(_POSIX_SPORADIC_SERVER) && _POSIX_SPORADIC_SERVER == -1 && \
    defined(_POSIX_THREAD_SPORADIC_SERVER) && _POSIX_THREAD_SPORADIC_SERVER == -1 && \
    defined(_POSIX_TRACE) && _POSIX_TRACE == -1 && \
    defined(_POSIX_TYPED_MEMORY_OBJECTS) && _POSIX_TYPED_MEMORY_OBJECTS == -1 && \
    defined(_POSIX_PRIORITIZED_IO) && _POSIX_PRIORITIZED_IO == -1 && defined(_SC_TRACE)
	errno = 0;
	CHECK(sysconf(_SC_SPORADIC_SERVER) == -1 && sysconf(_SC_TRACE_LOG) == -1 &&
	      sysconf(_SC_PRIORITIZED_IO) == -1 && errno == 0);
#else
	CHECK(!"absent options are -1 in <unistd.h>");
#endif
	/* <limits.h> names the least value POSIX allows for each limit
	   (fixed by the standard), and each limit here is at least that */
#if defined(_POSIX_NAME_MAX) && defined(_POSIX_OPEN_MAX) && defined(_POSIX_PIPE_BUF) && \
    defined(_POSIX_TIMER_MAX) && defined(_POSIX_SEM_VALUE_MAX) && defined(_POSIX_CLOCKRES_MIN) && \
    defined(_POSIX_THREAD_KEYS_MAX) && defined(_POSIX_RTSIG_MAX) && defined(_POSIX_SIGQUEUE_MAX)
	CHECK(_POSIX_NAME_MAX == 14 && _POSIX_PATH_MAX == 256 && _POSIX_OPEN_MAX == 20 &&
	      _POSIX_PIPE_BUF == 512 && _POSIX_TIMER_MAX == 32 && _POSIX_SEM_VALUE_MAX == 32767);
	CHECK(NAME_MAX >= _POSIX_NAME_MAX && PATH_MAX >= _POSIX_PATH_MAX && PIPE_BUF >= _POSIX_PIPE_BUF);
	CHECK(sysconf(_SC_TIMER_MAX) >= _POSIX_TIMER_MAX && sysconf(_SC_SEM_VALUE_MAX) >= _POSIX_SEM_VALUE_MAX &&
	      sysconf(_SC_THREAD_KEYS_MAX) >= _POSIX_THREAD_KEYS_MAX && sysconf(_SC_RTSIG_MAX) >= _POSIX_RTSIG_MAX &&
	      sysconf(_SC_SIGQUEUE_MAX) >= _POSIX_SIGQUEUE_MAX);
	struct timespec res;
	CHECK(clock_getres(CLOCK_REALTIME, &res) == 0 && res.tv_sec == 0 && res.tv_nsec <= _POSIX_CLOCKRES_MIN);
#else
	CHECK(!"the POSIX minimum limits are in <limits.h>");
#endif
	/* pthread_attr_setstack and the CPU-time clocks are there */
	CHECK(sysconf(_SC_THREAD_ATTR_STACKADDR) == _POSIX_THREAD_ATTR_STACKADDR);
	CHECK(sysconf(_SC_CPUTIME) == _POSIX_CPUTIME);
	CHECK(sysconf(_SC_THREAD_CPUTIME) == _POSIX_THREAD_CPUTIME && _POSIX_THREAD_CPUTIME > 0);
	CHECK(getpid() > 0 && isatty(1) && isatty(2));
	errno = 0;
	CHECK(write(5, "x", 1) == -1 && errno == EBADF);
	char c;
	CHECK(read(0, &c, 1) == 0);
	char line[16];
	CHECK(fgets(line, sizeof line, stdin) == 0 && feof(stdin));
	CHECK(getchar() == EOF);
	CHECK(fopen("/etc/passwd", "r") == 0 && errno == ENOENT);
	CHECK(signal(SIGINT, SIG_IGN) == SIG_DFL && raise(SIGINT) == 0);
	CHECK(signal(SIGINT, on_sig) == SIG_IGN && raise(SIGINT) == 0 && sig_seen == SIGINT);
	CHECK(signal(SIGINT, SIG_DFL) == on_sig);
	CHECK(!strcmp(strsignal(SIGSEGV), "Segmentation fault"));
}

static void on_sig(int sig)
{
	sig_seen = sig;
}

static void at1(void)
{
	printf("atexit 1\n");
	printf("exit-flush-tail");   /* no newline: only exit's flush writes it */
}
static void at2(void) { printf("atexit 2\n"); }
static void at3(void) { printf("atexit 3\n"); }

int main(int argc, char **argv)
{
	long want_cpus = 0;
	int verbose = 0, n = 0, o;
	while ((o = getopt(argc, argv, "c:vn:")) != -1) {
		switch (o) {
		case 'c': want_cpus = strtol(optarg, 0, 10); break;
		case 'v': verbose = 1; break;
		case 'n': n = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-c NCPU] [-v] [-n N] [words...]\n", argv[0]);
			return 2;
		}
	}
	int operands = argc - optind;
	test_printf();
	test_scanf();
	test_strtod();
	test_math();
	test_string();
	test_stdlib();
	test_time();
	test_getopt();
	test_unistd(want_cpus);
	test_misc();

	printf("@result {\"name\": \"libcposix\", \"checks\": %d, \"failures\": %d, "
	       "\"ncpu\": %ld, \"verbose\": %d, \"n\": %d, \"operands\": %d, "
	       "\"slept_ns\": %lld, \"realtime_s\": %ld}\n", checks, failures,
	       sysconf(_SC_NPROCESSORS_ONLN), verbose, n, operands, (long long)slept_ns,
	       realtime_s);
	fprintf(stderr, "libcposix: to stderr %d\n", 42);
	errno = EINVAL;
	perror("libcposix perror");
	errno = ERANGE;
	warn("warn %d", 7);
	warnx("warnx");
	write(1, "libcposix: write 1\n", 19);
	write(2, "libcposix: write 2\n", 19);
	atexit(at1);
	atexit(at2);
	atexit(at3);
	return failures ? 1 : 0;
}
