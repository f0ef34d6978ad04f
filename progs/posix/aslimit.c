/*
 * aslimit: setrlimit(RLIMIT_AS) bounds the address space, as on Linux:
 * past the soft limit mmap fails with ENOMEM and malloc returns NULL
 * (errno ENOMEM) while the program runs on; what is unmapped or freed
 * can be taken again. Phases:
 *   use     the use now, found without /proc: the soft limit doubled
 *           from 1 MiB until a page can be mapped (L0, at most twice it)
 *   mmap    soft limit L0 + 16 MiB: 1 MiB mmaps until ENOMEM (at least
 *           15), one unmapped and taken again, then no more; no
 *           thread either (its stack: EAGAIN)
 *   count   munmap of a range with holes and MAP_FIXED over a mapping
 *           change the count by what was mapped only: as many 1 MiB
 *           mmaps as before
 *   malloc  1 MiB blocks until NULL, one freed and taken again
 *   raise   the soft limit back up to the hard one (RLIM_INFINITY): a
 *           64 MiB mmap works again
 *   child   a forked child keeps the limit (fork inherits it); as
 *           another user (setuid 1000) it lowers its hard limit, sets
 *           the soft one up to it, not above it (EINVAL), and may not
 *           raise the hard one (EPERM)
 * Runs on a thread of the package besides main too (argv[1] "thread").
 */
#define CHECK_NAME "aslimit"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <animart/pkg.h>
#include <check.h>

#define MIB (1UL << 20)
#define MAXN 4096

static void *blk[MAXN];
static long l0_mib, n_mmap, n_again, n_malloc;

static int set_soft(rlim_t cur)
{
	struct rlimit rl;
	return getrlimit(RLIMIT_AS, &rl) || (rl.rlim_cur = cur, setrlimit(RLIMIT_AS, &rl));
}

static void *map(size_t len)
{
	return mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static void *nothing(void *arg)
{
	return arg;
}

/* 1 MiB mmaps until one fails (with ENOMEM); each written. */
static long fill(void)
{
	long n = 0;
	void *p;
	errno = 0;
	while (n < MAXN && (p = map(MIB)) != MAP_FAILED) {
		memset(p, 0x5a, 4096);
		blk[n++] = p;
	}
	CHECK(n < MAXN && errno == ENOMEM);
	return n;
}

static void unmap_all(long n)
{
	for (long i = 0; i < n; i++)
		CHECK(munmap(blk[i], MIB) == 0);
}

/* The child: the limit inherited; then as another user, the hard limit. */
static void child(rlim_t lim)
{
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur == lim);
	void *p = map(64 * MIB);
	CHECK(p == MAP_FAILED && errno == ENOMEM);     /* fork kept the limit */
	CHECK(setuid(1000) == 0);
	rl = (struct rlimit){ lim, lim };              /* lowering the hard limit: anyone */
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
	rl = (struct rlimit){ lim / 2, lim };
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
	rl.rlim_cur = lim;                             /* soft up to hard */
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0);
	rl.rlim_cur = lim + 4096;                      /* soft above hard */
	errno = 0;
	CHECK(setrlimit(RLIMIT_AS, &rl) == -1 && errno == EINVAL);
	rl = (struct rlimit){ lim, lim + 4096 };       /* raising the hard limit */
	errno = 0;
	CHECK(setrlimit(RLIMIT_AS, &rl) == -1 && errno == EPERM);
	CHECK(getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur == lim && rl.rlim_max == lim);
}

static void *run(void *arg)
{
	(void)arg;
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur == RLIM_INFINITY && rl.rlim_max == RLIM_INFINITY);
	/* use: below it, a page is ENOMEM */
	rlim_t l0 = MIB;
	void *p;
	for (;;) {
		CHECK(set_soft(l0) == 0);
		errno = 0;
		if ((p = map(4096)) != MAP_FAILED)
			break;
		CHECK(errno == ENOMEM);
		if (l0 >= (1UL << 40))
			break;
		l0 *= 2;
	}
	CHECK(p != MAP_FAILED && munmap(p, 4096) == 0);
	l0_mib = (long)(l0 / MIB);
	/* mmap */
	rlim_t lim = l0 + 16 * MIB;
	CHECK(set_soft(lim) == 0);
	n_mmap = fill();
	CHECK(n_mmap >= 15 && n_mmap <= (long)(lim / MIB));
	CHECK(munmap(blk[n_mmap - 1], MIB) == 0);
	CHECK((blk[n_mmap - 1] = map(MIB)) != MAP_FAILED);
	errno = 0;
	CHECK(map(MIB) == MAP_FAILED && errno == ENOMEM);
	pthread_t t;                                   /* no room for its 8 MiB stack */
	CHECK(pthread_create(&t, 0, nothing, 0) == EAGAIN);
	/* count: a range with holes unmapped, a MAP_FIXED over a mapping */
	char *q = blk[0];
	CHECK(munmap(q + 4096, 2 * 4096) == 0);
	CHECK(munmap(q + 16 * 4096, 4096) == 0);
	CHECK(munmap(q, MIB) == 0);                    /* the holes are not taken back twice */
	blk[0] = map(MIB);
	CHECK(blk[0] != MAP_FAILED);
	for (int i = 0; i < 8; i++)
		CHECK(mmap(blk[1], MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			   -1, 0) == blk[1]);
	errno = 0;
	CHECK(map(MIB) == MAP_FAILED && errno == ENOMEM);
	unmap_all(n_mmap);
	n_again = fill();
	CHECK(n_again == n_mmap);
	unmap_all(n_again);
	/* malloc */
	long n = 0;
	errno = 0;
	while (n < MAXN && (blk[n] = malloc(MIB))) {
		memset(blk[n], 0x33, 4096);
		n++;
	}
	n_malloc = n;
	CHECK(n < MAXN && errno == ENOMEM && n >= 14 && n <= (long)(lim / MIB));
	free(blk[n - 1]);
	CHECK((blk[n - 1] = malloc(MIB)) != 0);
	errno = 0;
	CHECK(malloc(MIB) == 0 && errno == ENOMEM);
	for (long i = 0; i < n; i++)
		free(blk[i]);
	void *s = malloc(100);                         /* well under the limit */
	CHECK(s != 0);
	free(s);
	/* child: fork keeps the limit; the hard limit as another user */
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		failures = 0;
		child(lim);
		fflush(stdout);
		_exit(failures > 100 ? 100 : failures);
	}
	int st = -1;
	CHECK(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* raise: the soft limit back up to the hard one */
	CHECK(set_soft(RLIM_INFINITY) == 0);
	p = map(64 * MIB);
	CHECK(p != MAP_FAILED && munmap(p, 64 * MIB) == 0);
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
	result_begin(&r, "aslimit");
	result_str(&r, "pkg", posix_pkg->name);
	result_int(&r, "use_bound_mib", l0_mib);
	result_int(&r, "mmaps", n_mmap);
	result_int(&r, "mmaps_again", n_again);
	result_int(&r, "mallocs", n_malloc);
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
