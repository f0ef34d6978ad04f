/*
 * libctest: a self-test of ulib. Each CHECK counts; failures print a line.
 * Ends with @result {"name": "libctest", "checks": N, "failures": F} and
 * exits 0 iff F == 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animalib/ulib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <animalib/rng.h>
#include <animart/clock.h>
#include <animart/sys.h>
#include <animalib/result.h>

#define CHECK_NAME "libctest"
#include <check.h>

static void check_str(const char *got, const char *want, const char *what, int line)
{
	checks++;
	if (strcmp(got, want)) {
		failures++;
		printf("libctest: FAIL line %d: %s: got \"%s\", want \"%s\"\n", line, what, got, want);
	}
}
#define CHECK_STR(got, want) check_str((got), (want), #got, __LINE__)

/* snprintf into a static buffer, for one-line format checks. */
static char fbuf[512];
#define F(...) (snprintf(fbuf, sizeof fbuf, __VA_ARGS__), fbuf)

static void test_printf(void)
{
	CHECK_STR(F("%d %i %u", -42, 7, 3000000000u), "-42 7 3000000000");
	CHECK_STR(F("%llu", ULLONG_MAX), "18446744073709551615");
	CHECK_STR(F("%lld", LLONG_MIN), "-9223372036854775808");
	CHECK_STR(F("%ld %lu", LONG_MAX, 0UL), "9223372036854775807 0");
	CHECK_STR(F("%hhd %hu", 300, 70000), "44 4464");
	CHECK_STR(F("%zu %zd", (size_t)123, (ptrdiff_t)-5), "123 -5");
	CHECK_STR(F("[%-5s]", "ab"), "[ab   ]");
	CHECK_STR(F("[%5s]", "ab"), "[   ab]");
	CHECK_STR(F("[%.2s]", "abc"), "[ab]");
	const char *volatile nul = 0;   /* volatile: GCC would warn about it */
	CHECK_STR(F("%s", nul), "(null)");
	CHECK_STR(F("%08x", 0xbeef), "0000beef");
	CHECK_STR(F("%#x %#X %#o", 255, 255, 8), "0xff 0XFF 010");
	CHECK_STR(F("%p", (void *)0x1234), "0x1234");
	CHECK_STR(F("[%+d] [% d] [%.5d] [%8.5d] [%-8d]", 5, 5, 42, -42, -42),
		  "[+5] [ 5] [00042] [  -00042] [-42     ]");
	CHECK_STR(F("[%*d] [%-*d]", 4, 1, 4, 2), "[   1] [2   ]");
	CHECK_STR(F("%c%c%%", 'o', 'k'), "ok%");
	CHECK_STR(F("%f", 3.14159), "3.141590");
	CHECK_STR(F("%.2f", 2.675), "2.67");          /* 2.675 is 2.67499.. in binary */
	CHECK_STR(F("%.0f %.0f %.0f", 0.5, 1.5, 2.5), "0 2 2");   /* ties to even */
	CHECK_STR(F("%5.1f|%-7.2f|%07.2f", -2.25, 1.0, -1.5), " -2.2|1.00   |-001.50");
	CHECK_STR(F("%e", 12345.678), "1.234568e+04");
	CHECK_STR(F("%.3E", 0.00012345), "1.234E-04");
	CHECK_STR(F("%+.3e", 0.0), "+0.000e+00");
	CHECK_STR(F("%e", 1e-300), "1.000000e-300");
	CHECK_STR(F("%g %g %g", 0.0001, 1e-5, 123456789.0), "0.0001 1e-05 1.23457e+08");
	CHECK_STR(F("%g %g %g", 100.0, 0.5, 999999.5), "100 0.5 1e+06");
	CHECK_STR(F("%.3g %#.3g %G", 2.0, 2.0, 1e-10), "2 2.00 1E-10");
	CHECK_STR(F("%.15g", 0.1), "0.1");
	CHECK_STR(F("%.17g", 0.1), "0.10000000000000001");
	CHECK_STR(F("%f", 1e20), "100000000000000000000.000000");
	/* x86's 0/0 is the NaN with the sign bit set: glibc prints -nan */
	CHECK_STR(F("%f %f %f", 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0), "inf -inf -nan");
	CHECK_STR(F("%f", -0.0), "-0.000000");

	/* snprintf truncation and return values. */
	char b[8];
	CHECK(snprintf(b, 5, "hello world") == 11);
	CHECK_STR(b, "hell");
	CHECK(snprintf(b, 1, "abc") == 3 && b[0] == 0);
	CHECK(snprintf(0, 0, "%d", 12345) == 5);
	memset(b, 'x', sizeof b);
	CHECK(snprintf(b, 6, "%s", "12345") == 5 && !strcmp(b, "12345"));
	CHECK(sprintf(b, "%03d", 7) == 3 && !strcmp(b, "007"));

	/* And for real, through stdout (printed in pieces, one line out). */
	int n = printf("libctest: printf %s %d %.1f ", "works:", 1, 2.0);
	n += printf("(one line)\n");
	CHECK(n == 41);
	/* A line longer than printf's private piece buffer. */
	char longline[1200];
	memset(longline, '=', sizeof longline - 1);
	longline[sizeof longline - 1] = 0;
	CHECK(printf("libctest: %s\n", longline) == 10 + 1199 + 1);
}

static void test_strtol(void)
{
	char *end;
	const char *s;

	s = "  -42xyz";
	CHECK(strtol(s, &end, 10) == -42 && end == s + 5);
	CHECK(strtol("0x1f", 0, 0) == 31);
	CHECK(strtol("0X1F", 0, 16) == 31);
	s = "0x";
	CHECK(strtol(s, &end, 16) == 0 && end == s + 1);
	s = "  0xg";
	CHECK(strtol(s, &end, 0) == 0 && end == s + 3);
	CHECK(strtol("077", 0, 0) == 63);
	CHECK(strtol("089", &end, 0) == 0 && *end == '8');
	CHECK(strtol("z", 0, 36) == 35);
	CHECK(strtol("101", 0, 2) == 5);
	CHECK(strtol("ff", 0, 16) == 255 && strtol("FF", 0, 16) == 255);
	CHECK(strtol("+17", 0, 10) == 17);
	s = "";
	CHECK(strtol(s, &end, 10) == 0 && end == s);
	s = " +";
	CHECK(strtol(s, &end, 10) == 0 && end == s);
	s = "-x";
	CHECK(strtol(s, &end, 0) == 0 && end == s);

	errno = 0;
	CHECK(strtol("9223372036854775807", 0, 10) == LONG_MAX && errno == 0);
	CHECK(strtol("9223372036854775808", 0, 10) == LONG_MAX && errno == ERANGE);
	errno = 0;
	CHECK(strtol("-9223372036854775808", 0, 10) == LONG_MIN && errno == 0);
	CHECK(strtol("-9223372036854775809", 0, 10) == LONG_MIN && errno == ERANGE);
	errno = 0;
	s = "99999999999999999999999abc";
	CHECK(strtoll(s, &end, 10) == LLONG_MAX && errno == ERANGE && end == s + 23);
	errno = 0;
	CHECK(strtoul("-1", 0, 10) == ULONG_MAX && errno == 0);
	CHECK(strtoull("18446744073709551615", 0, 10) == ULLONG_MAX && errno == 0);
	CHECK(strtoull("18446744073709551616", 0, 10) == ULLONG_MAX && errno == ERANGE);
	CHECK(strtoull("0xffffffffffffffff", 0, 0) == ULLONG_MAX);
	errno = 0;
	s = "12";
	CHECK(strtol(s, &end, 1) == 0 && errno == EINVAL && end == s);
	CHECK(atoi("123abc") == 123 && atoi("  -7") == -7 && atoi("x") == 0);
	CHECK(atol("-1234567890123") == -1234567890123L);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

struct rec {           /* 12 bytes: exercises the unaligned swap path */
	int key;
	char tag[8];
};

static int cmp_rec(const void *a, const void *b)
{
	return cmp_int(&((const struct rec *)a)->key, &((const struct rec *)b)->key);
}

static int sorted_ok(const int *v, int n)
{
	for (int i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return 0;
	return 1;
}

static void test_qsort(void)
{
	enum { N = 10000 };
	int *v = malloc(N * sizeof *v);
	uint64_t st = 42, sum = 0, sum2 = 0;
	for (int i = 0; i < N; i++) {
		v[i] = (int)rand64(&st);
		sum += (uint64_t)v[i];
	}
	qsort(v, N, sizeof *v, cmp_int);
	for (int i = 0; i < N; i++)
		sum2 += (uint64_t)v[i];
	CHECK(sorted_ok(v, N) && sum == sum2);
	int key = v[1234];
	int *hit = bsearch(&key, v, N, sizeof *v, cmp_int);
	CHECK(hit && *hit == key);
	key = INT_MIN;
	CHECK(v[0] == INT_MIN || !bsearch(&key, v, N, sizeof *v, cmp_int));

	/* Shapes that break naive quicksorts. */
	qsort(v, N, sizeof *v, cmp_int);                       /* sorted */
	CHECK(sorted_ok(v, N));
	for (int i = 0; i < N; i++)
		v[i] = N - i;                                  /* reversed */
	qsort(v, N, sizeof *v, cmp_int);
	CHECK(sorted_ok(v, N) && v[0] == 1 && v[N - 1] == N);
	for (int i = 0; i < N; i++)
		v[i] = i % 3;                                  /* few keys */
	qsort(v, N, sizeof *v, cmp_int);
	CHECK(sorted_ok(v, N));
	for (int i = 0; i < N; i++)
		v[i] = (i & 1) ? i : N - i;                    /* organ pipe-ish */
	qsort(v, N, sizeof *v, cmp_int);
	CHECK(sorted_ok(v, N));
	free(v);

	struct rec r[500];
	for (int i = 0; i < 500; i++) {
		r[i].key = (int)rand_below(&st, 100);
		snprintf(r[i].tag, sizeof r[i].tag, "%d", r[i].key);
	}
	qsort(r, 500, sizeof r[0], cmp_rec);
	int ok = 1;
	for (int i = 0; i < 500; i++)
		ok &= (i == 0 || r[i - 1].key <= r[i].key) && atoi(r[i].tag) == r[i].key;
	CHECK(ok);
	int one = 5;
	qsort(&one, 1, sizeof one, cmp_int);
	qsort(0, 0, sizeof one, cmp_int);
	CHECK(one == 5);
}

/* Fill / verify a block with a pattern that depends on its owner. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed * 31 + i * 7);
}

static int verify(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed * 31 + i * 7))
			return 0;
	return 1;
}

static size_t random_size(uint64_t *st)
{
	uint64_t r = rand_below(st, 100);
	if (r < 70)
		return rand_below(st, 256);
	if (r < 95)
		return rand_below(st, 8192);
	if (r < 99)
		return rand_below(st, 70000);
	return rand_below(st, 300000);
}

static void test_malloc(void)
{
	enum { SLOTS = 512, OPS = 20000 };
	static unsigned char *slot[SLOTS];
	static size_t len[SLOTS];
	static unsigned tag[SLOTS];
	uint64_t st = 7;
	int bad = 0, nomem = 0, misaligned = 0;

	for (int op = 0; op < OPS; op++) {
		int i = (int)rand_below(&st, SLOTS);
		if (slot[i]) {
			bad += !verify(slot[i], len[i], tag[i]);
			if (rand_below(&st, 4) == 0) {
				/* Grow or shrink; the common prefix must survive. */
				size_t n = random_size(&st);
				unsigned char *q = realloc(slot[i], n);
				if (!q) {
					nomem++;
					continue;
				}
				bad += !verify(q, n < len[i] ? n : len[i], tag[i]);
				slot[i] = q;
				len[i] = n;
				fill(q, n, tag[i]);
			} else {
				free(slot[i]);
				slot[i] = 0;
			}
		} else {
			len[i] = random_size(&st);
			tag[i] = (unsigned)op;
			slot[i] = rand_below(&st, 8) ? malloc(len[i]) : calloc(1, len[i]);
			if (!slot[i]) {
				nomem++;
				continue;
			}
			misaligned += ((uintptr_t)slot[i] & 15) != 0;
			bad += malloc_usable_size(slot[i]) < len[i];
			fill(slot[i], len[i], tag[i]);
		}
	}
	for (int i = 0; i < SLOTS; i++) {
		if (slot[i])
			bad += !verify(slot[i], len[i], tag[i]);
		free(slot[i]);
		slot[i] = 0;
	}
	CHECK(bad == 0);
	CHECK(nomem == 0);
	CHECK(misaligned == 0);

	/* calloc must zero even reused memory. */
	unsigned char *p = malloc(100);
	memset(p, 0xff, 100);
	free(p);
	p = calloc(25, 4);
	int zero = 1;
	for (int i = 0; i < 100; i++)
		zero &= p[i] == 0;
	CHECK(zero);
	free(p);
	CHECK(calloc(SIZE_MAX / 2, 4) == 0);
	CHECK(malloc(SIZE_MAX - 8) == 0);

	/* aligned_alloc, small and big. */
	for (size_t a = 32; a <= (1 << 16); a <<= 1) {
		void *q = aligned_alloc(a, 100);
		CHECK(q && ((uintptr_t)q & (a - 1)) == 0 && malloc_usable_size(q) >= 100);
		memset(q, 1, 100);
		free(q);
	}
	void *q = aligned_alloc(4096, 200000);
	CHECK(q && ((uintptr_t)q & 4095) == 0);
	memset(q, 2, 200000);
	free(q);
	CHECK(aligned_alloc(3, 10) == 0);
	CHECK(malloc(0) != 0);     /* a unique pointer; free() takes it */
	free(0);
}

/* A tiny JSON checker: is s (length n) exactly one valid JSON value? */
static const char *js, *jend;
static void jspace(void) { while (js < jend && isspace(*js)) js++; }
static int jvalue(int depth);
static int jstring(void)
{
	if (js >= jend || *js++ != '"')
		return 0;
	while (js < jend && *js != '"') {
		if ((unsigned char)*js < 0x20)
			return 0;
		if (*js++ == '\\') {
			if (js >= jend)
				return 0;
			char c = *js++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (js >= jend || !isxdigit(*js++))
						return 0;
			} else if (!strchr("\"\\/bfnrt", c))
				return 0;
		}
	}
	return js++ < jend;
}
static int jvalue(int depth)
{
	jspace();
	if (js >= jend || depth > 20)
		return 0;
	if (*js == '"')
		return jstring();
	if (*js == '{' || *js == '[') {
		char close = *js++ == '{' ? '}' : ']';
		jspace();
		if (js < jend && *js == close)
			return js++, 1;
		for (;;) {
			if (close == '}') {
				jspace();
				if (!jstring())
					return 0;
				jspace();
				if (js >= jend || *js++ != ':')
					return 0;
			}
			if (!jvalue(depth + 1))
				return 0;
			jspace();
			if (js < jend && *js == ',') {
				js++;
				continue;
			}
			return js < jend && *js++ == close;
		}
	}
	for (const char *lit = "true\0false\0null\0"; *lit; lit += strlen(lit) + 1)
		if (!strncmp(js, lit, strlen(lit)))
			return js += strlen(lit), 1;
	const char *start = js;
	if (*js == '-')
		js++;
	while (js < jend && (isdigit(*js) || strchr(".eE+-", *js)))
		js++;
	return js > start && isdigit(js[-1]);
}
static int json_ok(const char *s, int n)
{
	js = s;
	jend = s + n;
	if (!jvalue(0))
		return 0;
	jspace();
	return js == jend;
}

/* The JSON part of a finished @result line. */
static int result_json_ok(struct result *r)
{
	int n = result_finish(r);
	return n > 9 && !strncmp(r->buf, "@result {", 9) && r->buf[n - 1] == '\n' &&
	       json_ok(r->buf + 8, n - 9);
}

static void test_result(void)
{
	static struct result r;
	result_begin(&r, "esc\"ape");
	result_str(&r, "s", "q\" b\\ n\n t\t c\x01 hi\xc3\xa9 del\x7f");
	result_int(&r, "i", -5);
	result_uint(&r, "u", ULLONG_MAX);
	result_double(&r, "d", 0.25);
	result_double(&r, "nan", 0.0 / 0.0);
	result_bool(&r, "b", 1);
	result_array(&r, "a");
	result_int(&r, 0, 1);
	result_object(&r, 0);
	result_str(&r, "k", "v");
	result_close(&r);
	result_array(&r, 0);
	result_close(&r);
	result_close(&r);
	result_raw(&r, "raw", "[1,2]");
	int n = result_finish(&r);
	const char *want = "@result {\"name\": \"esc\\\"ape\", "
		"\"s\": \"q\\\" b\\\\ n\\n t\\t c\\u0001 hi\\u00c3\\u00a9 del\\u007f\", "
		"\"i\": -5, \"u\": 18446744073709551615, \"d\": 0.25, \"nan\": null, "
		"\"b\": true, \"a\": [1, {\"k\": \"v\"}, []], \"raw\": [1,2]}\n";
	CHECK(n == (int)strlen(want) && !memcmp(r.buf, want, (size_t)n));
	if (memcmp(r.buf, want, (size_t)n))
		printf("libctest: result was: %.*s", n, r.buf);
	CHECK(json_ok(r.buf + 8, n - 9));

	/* Overflow: fields are dropped whole; the line stays valid JSON. */
	char big[300];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	result_begin(&r, "overflow");
	for (int i = 0; i < 20; i++)
		result_str(&r, "big", big);
	result_int(&r, "small", 1);
	CHECK(result_json_ok(&r) && r.len <= RESULT_MAX && strstr(r.buf, "\"dropped\": "));

	/* Overflow inside nested containers, and containers left open. */
	result_begin(&r, "nested");
	result_array(&r, "outer");
	for (int i = 0; i < 400; i++) {
		result_object(&r, 0);
		result_int(&r, "index", i);
		result_str(&r, "quote", "\"\"\"\"");
		result_close(&r);
	}
	result_array(&r, 0);
	result_array(&r, 0);
	CHECK(result_json_ok(&r) && r.len <= RESULT_MAX);

	/* Too deep: the innermost levels are dropped. */
	result_begin(&r, "deep");
	for (int i = 0; i < 12; i++)
		result_array(&r, i ? 0 : "d");
	result_int(&r, 0, 1);
	for (int i = 0; i < 12; i++)
		result_close(&r);
	result_int(&r, "after", 2);
	CHECK(result_json_ok(&r) && strstr(r.buf, "\"after\": 2"));
}

static void test_misc(void)
{
	CHECK(isdigit('7') && !isdigit('a') && isspace('\t') && isspace(' ') && !isspace('x'));
	CHECK(isalpha('q') && isalnum('Q') && isalnum('5') && !isalnum('-'));
	CHECK(isupper('A') && islower('a') && isxdigit('F') && isxdigit('c') && !isxdigit('g'));
	CHECK(toupper('a') == 'A' && tolower('Z') == 'z' && toupper('1') == '1');
	CHECK(abs(-3) == 3 && labs(-4L) == 4 && llabs(5LL) == 5);

	srand(99);
	int a = rand(), b = rand();
	srand(99);
	CHECK(rand() == a && rand() == b && a >= 0 && a <= RAND_MAX);
	uint64_t st = 0;
	CHECK(rand64(&st) == 0xe220a8397b1dcdafull);

	char s[32] = "abcdef";
	memmove(s + 2, s, 6);
	CHECK(!strcmp(s, "ababcdef"));
	memmove(s, s + 2, 7);
	CHECK(!strcmp(s, "abcdef"));
	CHECK(strstr("hello world", "o w") && !strstr("abc", "abd"));
	CHECK(strrchr("a/b/c", '/')[1] == 'c' && strchr("abc", 0));
	CHECK(strncmp("abcx", "abcy", 3) == 0 && strcmp("a", "b") < 0);
	CHECK(strlcpy(s, "too long for it", 4) == 15 && !strcmp(s, "too"));
	CHECK(errname(-ENOSYS)[1] == 'N' && !strcmp(errname(EFAULT), "EFAULT"));

	uint64_t t0 = now_ns(), t1 = now_ns();
	CHECK(t0 > 0 && t1 >= t0);
	/* now_ns reads the TSC; the kernel's clock (sys_time) must agree. */
	for (int i = 0; i < 100; i++) {
		uint64_t k0 = sys_time(), u = now_ns(), k1 = sys_time();
		CHECK(k0 <= u && u <= k1);
	}
}

int main(void)
{
	test_printf();
	test_strtol();
	test_qsort();
	test_malloc();
	test_result();
	test_misc();

	struct result r;
	result_begin(&r, "libctest");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
