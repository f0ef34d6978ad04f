/*
 * libcextra: headers and functions portable Linux code expects beyond
 * libcposix's: <malloc.h>, <features.h>, <sys/cdefs.h>, <endian.h>,
 * <byteswap.h>, <sys/times.h>, <sysexits.h>, <sys/param.h>, <search.h>,
 * <execinfo.h>, madvise, named semaphores, the
 * drand48 family (glibc's values), get_nprocs, on_exit.
 *
 *   libcextra NCPU [STATUS]
 *
 * NCPU: what get_nprocs must say. Each CHECK counts; a failure prints a
 * line. Prints @result {"name": "libcextra", "checks": N, "failures": F},
 * a backtrace through backtrace_symbols_fd ("bt [0x...]" lines come from
 * backtrace_symbols), then exits with STATUS (default 0; 1 if any check
 * failed) through exit functions that print "atexit 2", "on_exit S hello",
 * "atexit 1" in that order.
 */
#include <features.h>
#include <sys/cdefs.h>
#include <byteswap.h>
#include <endian.h>
#include <sys/endian.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <search.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

__BEGIN_DECLS
static int declared_in_cdefs(int x) __attribute_const__;
__END_DECLS
static int declared_in_cdefs(int x) { return x + 1; }

#define CHECK_NAME "libcextra"
#include <check.h>

static void test_headers(void)
{
	void *p = malloc(100);
	CHECK(p && malloc_usable_size(p) >= 100);
	free(p);
	CHECK(malloc_usable_size(0) == 0);
	p = memalign(256, 100);
	CHECK(p && (uintptr_t)p % 256 == 0 && malloc_usable_size(p) >= 100);
	free(p);
	CHECK(mallopt(M_ARENA_MAX, 1) == 0);           /* no such parameter here */
	CHECK(malloc_trim(0) == 0);

	CHECK(__GNUC_PREREQ(4, 0));
	CHECK(!__GNUC_PREREQ(999, 0));
	CHECK(declared_in_cdefs(1) == 2);
	CHECK(__glibc_likely(1) && !__glibc_unlikely(0));
#ifdef __GLIBC__
	CHECK(!"__GLIBC__ defined");
#endif

	CHECK(BYTE_ORDER == LITTLE_ENDIAN && __BYTE_ORDER == __LITTLE_ENDIAN);
	CHECK(htole32(0x11223344) == 0x11223344);
	CHECK(htobe32(0x11223344) == 0x44332211);
	CHECK(be16toh(0x1234) == 0x3412 && le16toh(0x1234) == 0x1234);
	CHECK(be64toh(0x0102030405060708ULL) == 0x0807060504030201ULL);
	CHECK(htole64(0x0102030405060708ULL) == 0x0102030405060708ULL);
	uint32_t w = htobe32(0x01020304);
	unsigned char *b = (unsigned char *)&w;
	CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4);
	CHECK(bswap_16(0xabcd) == 0xcdab);
	CHECK(bswap_32(0x12345678) == 0x78563412);
	CHECK(bswap_64(0x1122334455667788ULL) == 0x8877665544332211ULL);

	CHECK(EX_OK == 0 && EX_USAGE == 64 && EX_SOFTWARE == 70 && EX_CONFIG == 78 && EX__MAX == 78);

	CHECK(MIN(3, 4) == 3 && MAX(3, 4) == 4);
	CHECK(howmany(10, 4) == 3 && roundup(10, 4) == 12 && rounddown(10, 4) == 8);
	unsigned char bits[4] = { 0 };
	setbit(bits, 9);
	CHECK(isset(bits, 9) && bits[1] == 2 && isclr(bits, 8));
	clrbit(bits, 9);
	CHECK(bits[1] == 0 && NBBY == 8);
}

static int64_t mono_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void test_times(void)
{
	struct tms t0, t1;
	CHECK(sysconf(_SC_CLK_TCK) == 100);
	clock_t r0 = times(&t0);
	CHECK(r0 != (clock_t)-1);
	int64_t start = mono_ns();
	volatile unsigned long spin = 0;
	while (mono_ns() - start < 80 * 1000000)     /* 80 ms of processor time */
		spin++;
	struct timespec d = { 0, 50 * 1000000 };     /* and 50 ms asleep */
	nanosleep(&d, 0);
	clock_t r1 = times(&t1);
	clock_t c = clock();
	CHECK(r1 - r0 >= 13 && r1 - r0 < 13 + 100);  /* 130 ms real, in ticks */
	CHECK(t1.tms_utime - t0.tms_utime >= 6);      /* at least 60 of the 80 ms */
	CHECK(t1.tms_utime <= c / (CLOCKS_PER_SEC / 100) + 1);
	CHECK(t1.tms_stime == 0 && t1.tms_cutime == 0 && t1.tms_cstime == 0);
	CHECK(times(0) >= r1);
}

/* ---- search.h ---- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static int cmp_key(const void *a, const void *b)     /* tree keys are the ints as pointers */
{
	intptr_t x = (intptr_t)a, y = (intptr_t)b;
	return x < y ? -1 : x > y;
}

static int walk_prev, walk_count, walk_maxdepth, walk_sorted;
static void walker(const void *node, VISIT v, int depth)
{
	if (depth > walk_maxdepth)
		walk_maxdepth = depth;
	if (v == postorder || v == leaf) {           /* in order */
		int k = (int)(intptr_t) * (void *const *)node;
		if (k <= walk_prev)
			walk_sorted = 0;
		walk_prev = k;
		walk_count++;
	}
}

static int freed_nodes;
static void free_node(void *key)
{
	(void)key;
	freed_nodes++;
}

static void test_search(void)
{
	int arr[8] = { 5, 3, 9 };
	size_t n = 3;
	int k = 9, k2 = 7;
	CHECK(lfind(&k, arr, &n, sizeof(int), cmp_int) == &arr[2]);
	CHECK(lfind(&k2, arr, &n, sizeof(int), cmp_int) == 0 && n == 3);
	CHECK(lsearch(&k2, arr, &n, sizeof(int), cmp_int) == &arr[3] && n == 4 && arr[3] == 7);
	CHECK(lsearch(&k, arr, &n, sizeof(int), cmp_int) == &arr[2] && n == 4);

	void *root = 0;
	enum { N = 1000 };
	for (intptr_t i = 1; i <= N; i++) {            /* ascending: a plain tree would be a list */
		void *node = tsearch((void *)i, &root, cmp_key);
		CHECK(node && *(void **)node == (void *)i);
	}
	void *again = tsearch((void *)(intptr_t)500, &root, cmp_key);
	CHECK(again && again == tfind((void *)(intptr_t)500, &root, cmp_key));
	CHECK(tfind((void *)(intptr_t)(N + 1), &root, cmp_key) == 0);
	walk_prev = 0, walk_count = 0, walk_maxdepth = 0, walk_sorted = 1;
	twalk(root, walker);
	CHECK(walk_count == N && walk_sorted);
	CHECK(walk_maxdepth <= 14);                    /* AVL: 1.44 log2(1000) */
	for (intptr_t i = 2; i <= N; i += 2)
		CHECK(tdelete((void *)i, &root, cmp_key) != 0);
	CHECK(tdelete((void *)(intptr_t)2, &root, cmp_key) == 0);
	int found = 0;
	for (intptr_t i = 1; i <= N; i++)
		found += tfind((void *)i, &root, cmp_key) != 0;
	CHECK(found == N / 2);
	walk_prev = 0, walk_count = 0, walk_maxdepth = 0, walk_sorted = 1;
	twalk(root, walker);
	CHECK(walk_count == N / 2 && walk_sorted && walk_maxdepth <= 13);
	tdestroy(root, free_node);
	CHECK(freed_nodes == N / 2);
	root = 0;
	CHECK(tdelete((void *)(intptr_t)1, &root, cmp_key) == 0);
	CHECK(tfind((void *)(intptr_t)1, &root, cmp_key) == 0);

	static char keys[200][8];
	CHECK(hcreate(200));
	for (int i = 0; i < 200; i++) {
		snprintf(keys[i], sizeof keys[i], "k%d", i);
		ENTRY e = { keys[i], (void *)(intptr_t)(i * 3) };
		ENTRY *r = hsearch(e, ENTER);
		CHECK(r && r->data == (void *)(intptr_t)(i * 3));
	}
	ENTRY *k0 = hsearch((ENTRY){ "k0", 0 }, FIND);
	errno = 0;                                     /* full: glibc's ENOMEM */
	CHECK(hsearch((ENTRY){ "k200", 0 }, ENTER) == 0 && errno == ENOMEM);
	int hits = 0;
	for (int i = 0; i < 200; i++) {
		char name[8];
		snprintf(name, sizeof name, "k%d", i);
		ENTRY *r = hsearch((ENTRY){ name, 0 }, FIND);
		hits += r && r->data == (void *)(intptr_t)(i * 3) && strcmp(r->key, name) == 0;
	}
	CHECK(hits == 200);
	CHECK(k0 && k0 == hsearch((ENTRY){ "k0", 0 }, FIND));   /* entries never move */
	errno = 0;
	CHECK(hsearch((ENTRY){ "absent", 0 }, FIND) == 0 && errno == ESRCH);
	ENTRY *dup = hsearch((ENTRY){ "k5", (void *)1 }, ENTER);   /* there: kept as it was */
	CHECK(dup && dup->data == (void *)(intptr_t)15);
	CHECK(!hcreate(4));                            /* one table at a time */
	hdestroy();

	struct q { struct q *next, *prev; int v; } a = { 0, 0, 1 }, b = { 0, 0, 2 }, c = { 0, 0, 3 };
	insque(&a, 0);
	insque(&c, &a);
	insque(&b, &a);
	CHECK(a.next == &b && b.next == &c && c.prev == &b && b.prev == &a && !c.next);
	remque(&b);
	CHECK(a.next == &c && c.prev == &a);
}

/* ---- execinfo.h ---- */

static void *bt[32];
static int nbt;

static __attribute__((noinline)) void bt3(void)
{
	nbt = backtrace(bt, 32);
	__asm__ volatile("" ::: "memory");
}
static __attribute__((noinline)) void bt2(void) { bt3(); __asm__ volatile("" ::: "memory"); }
static __attribute__((noinline)) void bt1(void) { bt2(); __asm__ volatile("" ::: "memory"); }

static bool in_fn(void *ret, void (*fn)(void))
{
	uintptr_t r = (uintptr_t)ret, f = (uintptr_t)fn;
	return r > f && r < f + 128;
}

static void check_bt(void)
{
	CHECK(nbt >= 3);
	CHECK(nbt >= 1 && in_fn(bt[0], bt3));
	CHECK(nbt >= 2 && in_fn(bt[1], bt2));
	CHECK(nbt >= 3 && in_fn(bt[2], bt1));
}

static void *bt_thread(void *arg)
{
	(void)arg;
	nbt = 0;
	bt1();
	check_bt();
	return 0;
}

static void test_backtrace(void)
{
	bt1();
	check_bt();
	void *two[2];
	CHECK(backtrace(two, 2) == 2);
	CHECK(backtrace(two, 0) == 0);
	char **s = backtrace_symbols(bt, 3);
	CHECK(s != 0);
	if (s) {
		char want[32];
		snprintf(want, sizeof want, "[%p]", bt[1]);
		CHECK(strcmp(s[1], want) == 0);
		for (int i = 0; i < 3; i++)
			printf("bt %s\n", s[i]);
		free(s);
	}
	pthread_t t;
	CHECK(pthread_create(&t, 0, bt_thread, 0) == 0);
	CHECK(pthread_join(t, 0) == 0);
}

/* ---- resources, memory, semaphores, rand48 ---- */


static void test_madvise(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned char *p = mmap(0, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	memset(p, 0xab, 3 * pg);
	CHECK(madvise(p + pg, pg, MADV_DONTNEED) == 0);
	int zero = 1, kept = 1;
	for (long i = 0; i < pg; i++) {
		zero &= p[pg + i] == 0;
		kept &= p[i] == 0xab && p[2 * pg + i] == 0xab;
	}
	CHECK(zero && kept);
	CHECK(madvise(p + 2 * pg, 100, MADV_DONTNEED) == 0);   /* the whole page goes */
	CHECK(p[2 * pg + 200] == 0 && p[3 * pg - 1] == 0 && p[0] == 0xab);
	CHECK(madvise(p, 3 * pg, MADV_WILLNEED) == 0 && madvise(p, pg, MADV_SEQUENTIAL) == 0 &&
	      madvise(p, pg, MADV_NORMAL) == 0 && madvise(p, pg, MADV_RANDOM) == 0);
	CHECK(p[0] == 0xab && p[pg - 1] == 0xab);
	errno = 0;
	CHECK(madvise(p + 1, pg, MADV_DONTNEED) == -1 && errno == EINVAL);
	CHECK(p[1] == 0xab);
	errno = 0;
	CHECK(madvise(p, pg, 12345) == -1 && errno == EINVAL);
	CHECK(madvise(p, 0, MADV_DONTNEED) == 0 && p[0] == 0xab);
	CHECK(posix_madvise(p, pg, POSIX_MADV_WILLNEED) == 0);
	CHECK(posix_madvise(p, pg, POSIX_MADV_DONTNEED) == 0 && p[0] == 0xab);
	CHECK(posix_madvise(p, pg, 77) == EINVAL);
	munmap(p, 3 * pg);
}

static void *sem_poster(void *arg)
{
	(void)arg;
	sem_t *s = sem_open("/libcextra-ping", O_CREAT, 0600, 0);
	if (s == SEM_FAILED)
		return (void *)1;
	sem_post(s);
	return (void *)(intptr_t)sem_close(s);
}

static void test_named_sem(void)
{
	sem_t *s = sem_open("/libcextra-a", O_CREAT | O_EXCL, 0600, 2);
	CHECK(s != SEM_FAILED);
	if (s == SEM_FAILED)
		return;
	CHECK(sem_trywait(s) == 0 && sem_trywait(s) == 0);
	errno = 0;
	CHECK(sem_trywait(s) == -1 && errno == EAGAIN);
	sem_t *s2 = sem_open("libcextra-a", 0);         /* the same name, without its slash */
	CHECK(s2 == s);
	errno = 0;
	CHECK(sem_open("/libcextra-a", O_CREAT | O_EXCL, 0600, 0) == SEM_FAILED && errno == EEXIST);
	CHECK(sem_open("/libcextra-a", O_CREAT, 0600, 9) == s);    /* exists: value ignored */
	int v = -1;
	CHECK(sem_getvalue(s, &v) == 0 && v == 0);
	errno = 0;
	CHECK(sem_open("/libcextra-none", 0) == SEM_FAILED && errno == ENOENT);
	errno = 0;
	CHECK(sem_open("/", O_CREAT, 0600, 0) == SEM_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(sem_open("/a/b", O_CREAT, 0600, 0) == SEM_FAILED && errno == EINVAL);
	errno = 0;
	CHECK(sem_open("/big", O_CREAT, 0600, (unsigned)SEM_VALUE_MAX + 1) == SEM_FAILED && errno == EINVAL);
	char longname[300];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = 0;
	errno = 0;
	CHECK(sem_open(longname, O_CREAT, 0600, 0) == SEM_FAILED && errno == ENAMETOOLONG);

	CHECK(sem_unlink("/libcextra-a") == 0);
	errno = 0;
	CHECK(sem_open("/libcextra-a", 0) == SEM_FAILED && errno == ENOENT);
	errno = 0;
	CHECK(sem_unlink("/libcextra-a") == -1 && errno == ENOENT);
	CHECK(sem_post(s) == 0 && sem_getvalue(s, &v) == 0 && v == 1);   /* still usable */
	sem_t *fresh = sem_open("/libcextra-a", O_CREAT | O_EXCL, 0600, 5);
	CHECK(fresh != SEM_FAILED && fresh != s);
	CHECK(sem_getvalue(fresh, &v) == 0 && v == 5);
	CHECK(sem_close(s) == 0 && sem_close(s) == 0 && sem_close(s) == 0);   /* three opens */
	errno = 0;
	CHECK(sem_close(s) == -1 && errno == EINVAL);
	CHECK(sem_close(fresh) == 0);
	CHECK(sem_open("/libcextra-a", 0) != SEM_FAILED);  /* a linked name outlives its closes */
	CHECK(sem_unlink("/libcextra-a") == 0);

	sem_t *ping = sem_open("/libcextra-ping", O_CREAT, 0600, 0);
	CHECK(ping != SEM_FAILED);
	pthread_t t;
	void *ret = (void *)9;
	CHECK(pthread_create(&t, 0, sem_poster, 0) == 0);
	CHECK(sem_wait(ping) == 0);                  /* the other thread's post, by name */
	CHECK(pthread_join(t, &ret) == 0 && ret == 0);
	CHECK(sem_close(ping) == 0 && sem_unlink("/libcextra-ping") == 0);
}

static void test_rand48(void)
{
	/* glibc 2.36 on the host gave each of these */
	double d1 = drand48(), d2 = drand48();          /* never seeded: the state starts at 0 */
	CHECK(d1 == 0x1.6p-45 && d2 == 0x1.0250b79ae8p-10);
	srand48(0);
	long a = lrand48(), b = lrand48(), c = lrand48();
	CHECK(a == 366850414 && b == 1610402240 && c == 206956554);
	srand48(12345);
	d1 = drand48(), d2 = drand48();
	a = mrand48(), b = mrand48();
	CHECK(d1 == 0x1.cd79090a8808p-3 && d2 == 0x1.d69f29c4c6fp-1);
	CHECK(a == 888376418 && b == -1182062101);
	srand48(-7L);
	a = lrand48(), b = mrand48();
	CHECK(a == 161516272 && b == -782677342);
	unsigned short x[3] = { 1, 2, 3 };
	d1 = erand48(x);
	a = nrand48(x);
	b = jrand48(x);
	CHECK(d1 == 0x1.c49aaf1b99ep-2 && a == 565063343 && b == -1485464893);
	CHECK(x[0] == 7666 && x[1] == 39619 && x[2] == 42869);
	srand48(99);
	unsigned short s[3] = { 0x1234, 0x5678, 0x9abc };
	unsigned short *o = seed48(s);
	CHECK(o[0] == 13070 && o[1] == 99 && o[2] == 0);
	a = lrand48(), b = lrand48();
	CHECK(a == 615467189 && b == 2006585297);
	unsigned short p[7] = { 1, 0, 0, 3, 0, 0, 5 };
	lcong48(p);
	a = lrand48(), b = mrand48(), d1 = drand48();
	CHECK(a == 0 && b == 0 && d1 == 0x1.7p-42);
	unsigned short p2[7] = { 0x1111, 0x2222, 0x3333, 0x4444, 0x5555, 0x6, 0x77 };
	lcong48(p2);
	a = lrand48(), b = lrand48();
	CHECK(a == 486749853 && b == 2073561754);
	unsigned short y[3] = { 9, 8, 7 };
	CHECK(jrand48(y) == -2000739809);
	srand48(1);                                      /* puts a and c back */
	CHECK(lrand48() == 89400484);
}

/* C99's other math functions (build/libm.a, musl's): values to the last
   bits (Python's math module for the doubles), the float and long double
   forms near them. */
#define CLOSE(a, b, tol) check(fabsl((long double)(a) - (long double)(b)) <= (tol), #a " ~ " #b, __LINE__)
static void test_math(void)
{
	CLOSE(erf(0.5), 0.5204998778130465, 1e-16);
	CLOSE(erfc(0.5), 0.4795001221869535, 1e-16);
	CLOSE(tgamma(5.0), 24.0, 1e-13);
	CLOSE(tgamma(0.5), 1.7724538509055159, 1e-15);
	CLOSE(lgamma(10.0), 12.801827480081467, 1e-14);
	CLOSE(asinh(1.0), 0.881373587019543, 1e-15);
	CLOSE(acosh(2.0), 1.3169578969248166, 1e-15);
	CLOSE(atanh(0.5), 0.5493061443340548, 1e-15);
	CHECK(fma(2.0, 3.0, 4.0) == 10.0 && fdim(5.0, 3.0) == 2.0 && fdim(3.0, 5.0) == 0.0);
	CHECK(lrint(2.5) == 2 && lrint(3.5) == 4 && llrint(-2.5) == -2);   /* to even */
	CHECK(llround(-2.5) == -3 && lroundf(2.5f) == 3);                  /* away from 0 */
	CHECK(ilogb(1024.0) == 10 && logb(0.75) == -1.0);
	CHECK(nextafter(1.0, 2.0) == 1.0 + 0x1p-52 && nextafterf(1.0f, 0.0f) == 1.0f - 0x1p-24f);
	int q;
	CHECK(remquo(10.0, 3.0, &q) == 1.0 && (q & 7) == 3);
	double sn, cs;
	sincos(1.0, &sn, &cs);
	CLOSE(sn, 0.8414709848078965, 1e-16);
	CLOSE(cs, 0.5403023058681398, 1e-16);
	CHECK(scalbln(1.0, 10) == 1024.0);
	CLOSE(tanf(0.5f), 0.5463024898437905, 1e-7);
	CLOSE(asinf(0.5f), 0.5235987755982989, 1e-7);
	CLOSE(atanf(1.0f), 0.7853981633974483, 1e-7);
	CLOSE(sinhf(1.0f), 1.1752011936438014, 1e-6);
	CLOSE(erff(0.5f), 0.5204998778130465, 1e-7);
	CLOSE(log1pf(1e-10f), 1e-10, 1e-16);
	CLOSE(expm1(1e-10), 1.00000000005e-10, 1e-25);
	CHECK(truncf(-2.7f) == -2.0f && rintf(2.5f) == 2.0f && cbrtf(27.0f) == 3.0f);
	CHECK(hypotf(3.0f, 4.0f) == 5.0f && fmaf(2.0f, 3.0f, 1.0f) == 7.0f);
	CHECK(sqrtl(4.0L) == 2.0L && powl(2.0L, 64.0L) == 18446744073709551616.0L);
	CLOSE(sqrtl(2.0L), 1.41421356237309504880168872420969808L, 1e-18L);
	CLOSE(expl(1.0L), 2.71828182845904523536028747135266250L, 1e-18L);
	CLOSE(atan2l(1.0L, 1.0L), 0.785398163397448309615660845819875721L, 1e-18L);
}

static void at1(void) { printf("atexit 1\n"); }
static void at2(void) { printf("atexit 2\n"); }
static void on_ex(int status, void *arg) { printf("on_exit %d %s\n", status, (char *)arg); }

int main(int argc, char **argv)
{
	int ncpu = argc > 1 ? atoi(argv[1]) : 1;
	int status = argc > 2 ? atoi(argv[2]) : 0;
	CHECK(atexit(at1) == 0);
	CHECK(on_exit(on_ex, "hello") == 0);
	CHECK(atexit(at2) == 0);

	test_headers();
	test_times();
	test_search();
	test_backtrace();
	test_madvise();
	test_named_sem();
	test_rand48();
	test_math();
	CHECK(get_nprocs() == ncpu && get_nprocs_conf() == ncpu);
	CHECK(get_nprocs() == sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(get_phys_pages() > 0 && get_avphys_pages() > 0);

	printf("@result {\"name\": \"libcextra\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	fflush(stdout);
	backtrace_symbols_fd(bt, 2, 1);
	exit(failures ? 1 : status);
}
