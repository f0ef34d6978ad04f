/*
 * mallocoom: malloc at the space's memory quota (boot with memquota=MB)
 * returns NULL with errno ENOMEM, never a kill, and memory freed can be
 * taken again (libc-test's setenv-oom and malloc-oom style). Phases:
 *   big     1 MiB blocks until NULL, each written whole; all freed
 *   calloc  and realloc growing one block until NULL (the old one kept)
 *   again   the big phase once more: as many blocks as the first time
 *           (within a few)
 *   small   100-byte blocks until NULL, each written, all freed, twice:
 *           as many the second time (late: malloc keeps a class's slabs
 *           for that class, so a big block after it would fail)
 *   setenv  1000-byte variables until setenv fails with ENOMEM, then
 *           unset (their strings stay allocated, as glibc's do)
 * Runs on a thread of the package besides main too (argv[1] "thread"),
 * so a package's thread stacks and caches are in the picture.
 */
#define CHECK_NAME "mallocoom"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>

#define MIB (1 << 20)
#define MAXB 100000

static void *blk[MAXB];
static long big1, big2, small, grown;

static long fill(size_t sz, int maxn)
{
	long n = 0;
	errno = 0;
	while (n < maxn) {
		void *p = malloc(sz);
		if (!p)
			break;
		memset(p, 0x5a, sz);
		blk[n++] = p;
	}
	CHECK(n < maxn && errno == ENOMEM);
	return n;
}

static void drop(long n)
{
	for (long i = 0; i < n; i++)
		free(blk[i]);
}

static void *run(void *arg)
{
	(void)arg;
	big1 = fill(MIB, MAXB);
	CHECK(big1 > 4);
	drop(big1);
	/* calloc and realloc */
	errno = 0;
	CHECK(calloc(1L << 40, 1) == 0 && errno == ENOMEM);
	char *g = malloc(MIB);
	size_t sz = MIB;
	CHECK(g != 0);
	for (;;) {
		char *h = realloc(g, sz * 2);
		if (!h)
			break;
		memset(h + sz, 1, sz);
		g = h;
		sz *= 2;
	}
	CHECK(errno == ENOMEM);
	CHECK(g[0] == 0 || g[0] == 1 || g[0] == 0x5a);  /* the old block still there */
	grown = (long)(sz / MIB);
	free(g);
	big2 = fill(MIB, MAXB);
	CHECK(big2 + 4 >= big1);
	drop(big2);
	/* Small blocks until NULL, freed, and again: the classes keep their
	   slabs (malloc.c never returns them), so as many come back. */
	for (int round = 0; round < 2; round++) {
		long n = 0;
		errno = 0;
		for (;;) {
			void **p = malloc(100);
			if (!p)
				break;
			memset(p, 0x33, 100);
			*p = n ? blk[0] : 0;     /* a chain through the blocks */
			blk[0] = p;
			n++;
		}
		CHECK(errno == ENOMEM && n > 1000);
		if (round == 0)
			small = n;
		else
			CHECK(n >= small);
		for (void **p = blk[0], **next; p; p = next) {
			next = *p;
			free(p);
		}
		blk[0] = 0;
	}
	/* setenv until ENOMEM */
	static char val[1000];
	memset(val, 'v', sizeof val - 1);
	int k, r = 0;
	char name[32];
	for (k = 0; k < 100000; k++) {
		snprintf(name, sizeof name, "OOM%d", k);
		if ((r = setenv(name, val, 1)) != 0)
			break;
	}
	CHECK(r == -1 && errno == ENOMEM);
	for (int i = 0; i < k; i++) {
		snprintf(name, sizeof name, "OOM%d", i);
		unsetenv(name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "thread")) {
		pthread_t t;
		CHECK(pthread_create(&t, 0, run, 0) == 0 && pthread_join(t, 0) == 0);
	} else
		run(0);
	struct result r;
	result_begin(&r, "mallocoom");
	result_str(&r, "pkg", posix_pkg->name);   /* what ran, whatever the command line said */
	result_int(&r, "big", big1);
	result_int(&r, "big_again", big2);
	result_int(&r, "small", small);
	result_int(&r, "grown_mib", grown);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
