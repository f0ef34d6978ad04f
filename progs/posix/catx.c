/*
 * catx: message catalogs (<nl_types.h>, ulib/libc/catgets.c;
 * harness/tests/test_catx.py). The program writes catalogs in glibc's
 * gencat format itself (on the RAM disk's /tmp), one in our byte order
 * and one in the other, then: catopen by path and by NLSPATH's templates
 * (%N, %L, %l, %t, %c, an empty one for the name itself) with LANG's
 * locale; catgets finds each message, and gives back the default with
 * ENOMSG for a missing one; a fork's child reads the parent's open
 * catalog (the Open POSIX suite's fork 7-1); catclose. Without a catalog
 * catopen fails with ENOENT, and catgets on its (nl_catd) -1 gives the
 * default with errno untouched, as glibc's.
 *   catx gencat   reads /gencat.cat, which the host's gencat made
 */
#define CHECK_NAME "catx"
#include <errno.h>
#include <fcntl.h>
#include <nl_types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <animalib/result.h>
#include <check.h>

#define P 3                          /* plane_size */
#define D 4                          /* plane_depth */
#define NMSG 8

static const int sets[NMSG] = { 1, 1, 1, 2, 2, 7, 7, 7 };
static const int msgs[NMSG] = { 1, 2, 5, 1, 3, 4, 9, 10 };

static uint32_t order(uint32_t v, int swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

/* A catalog of sets[i]/msgs[i] -> "s<set>m<msg>" at path, written in the
   other byte order if `swap` (its second table is then ours). */
static void write_cat(const char *path, int swap)
{
	uint32_t tab[P * D * 3] = { 0 };
	char str[NMSG * 16];
	size_t off = 0;
	for (int i = 0; i < NMSG; i++) {
		uint32_t key = (uint32_t)sets[i] + 1, at = key * (uint32_t)msgs[i] % P * 3;
		while (tab[at])
			at += P * 3;                 /* (the next plane: D is enough for these) */
		tab[at] = key;
		tab[at + 1] = (uint32_t)msgs[i];
		tab[at + 2] = (uint32_t)off;
		off += (size_t)sprintf(str + off, "s%dm%d", sets[i], msgs[i]) + 1;
	}
	uint32_t head[3] = { order(0x960408de, swap), order(P, swap), order(D, swap) }, t1[P * D * 3], t2[P * D * 3];
	for (int i = 0; i < P * D * 3; i++) {
		t1[i] = order(tab[i], swap);     /* the writer's order */
		t2[i] = order(tab[i], !swap);    /* the other */
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, head, sizeof head) == sizeof head && write(fd, t1, sizeof t1) == sizeof t1 &&
	      write(fd, t2, sizeof t2) == sizeof t2 && write(fd, str, off) == (ssize_t)off);
	close(fd);
}

/* Every message of cat, and the default for others. */
static int reads_all(nl_catd cat)
{
	int ok = 1;
	char want[16];
	for (int i = 0; i < NMSG; i++) {
		snprintf(want, sizeof want, "s%dm%d", sets[i], msgs[i]);
		errno = 0;
		ok &= !strcmp(catgets(cat, sets[i], msgs[i], "none"), want) && errno == 0;
	}
	errno = 0;
	ok &= !strcmp(catgets(cat, 2, 2, "none"), "none") && errno == ENOMSG;
	errno = 0;
	ok &= !strcmp(catgets(cat, 9, 1, "none"), "none") && errno == ENOMSG;
	return ok;
}

static void by_path(void)
{
	mkdir("/tmp", 0777);
	write_cat("/tmp/catx.cat", 0);
	write_cat("/tmp/catx_swapped.cat", 1);
	nl_catd c = catopen("/tmp/catx.cat", 0), s = catopen("/tmp/catx_swapped.cat", NL_CAT_LOCALE);
	CHECK(c != (nl_catd)-1 && s != (nl_catd)-1);
	if (c == (nl_catd)-1 || s == (nl_catd)-1)
		return;
	CHECK(reads_all(c) && reads_all(s));
	fflush(stdout);
	pid_t kid = fork();
	if (kid == 0)
		_exit(reads_all(c) ? 0 : 1);     /* fork 7-1: the child's copy reads */
	int st = -1;
	CHECK(waitpid(kid, &st, 0) == kid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK(catclose(c) == 0 && catclose(s) == 0);
}

static void by_nlspath(void)
{
	mkdir("/tmp/xx_YY.UTF-8", 0777);
	write_cat("/tmp/xx_YY.UTF-8/catx", 0);
	write_cat("/tmp/xx.cat", 1);
	setenv("LANG", "xx_YY.UTF-8", 1);
	struct { const char *path, *name; int found; } t[] = {
		{ "/tmp/%N.cat", "catx", 1 },
		{ "/nope/%N:/tmp/%L/%N", "catx", 1 },
		{ "/tmp/%l_%t.%c/%N", "catx", 1 },
		{ "/tmp/%l.cat", "whatever", 1 },
		{ "/nope/%N:", "catx", 0 },          /* (the empty one: "catx" in the working directory) */
		{ "/tmp/%N%%", "catx", 0 },
	};
	for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
		setenv("NLSPATH", t[i].path, 1);
		errno = 0;
		nl_catd c = catopen(t[i].name, 0);
		if ((c != (nl_catd)-1) != t[i].found)
			printf("catx: NLSPATH %s name %s: %s\n", t[i].path, t[i].name, c == (nl_catd)-1 ? "none" : "found");
		CHECK((c != (nl_catd)-1) == t[i].found);
		CHECK(c == (nl_catd)-1 ? errno == ENOENT : reads_all(c) && catclose(c) == 0);
	}
	unsetenv("NLSPATH");
	unsetenv("LANG");
}

static void no_catalog(void)
{
	errno = 0;
	nl_catd c = catopen("nonesuch", 0);
	CHECK(c == (nl_catd)-1 && errno == ENOENT);
	errno = 0;
	c = catopen("/tmp/nonesuch.cat", 0);
	CHECK(c == (nl_catd)-1 && errno == ENOENT);
	errno = 0;
	CHECK(!strcmp(catgets(c, 1, 1, "default"), "default") && errno == 0);
	CHECK(catclose(c) == -1 && errno == EBADF);
	int fd = open("/tmp/notcat", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, "not a catalog at all", 20) == 20);
	close(fd);
	CHECK(catopen("/tmp/notcat", 0) == (nl_catd)-1);
}

/* A catalog the host's gencat made (harness/tests/test_catx.py): set s
   message m is "gencat s m" for s, m in 1..3. */
static void from_gencat(void)
{
	nl_catd c = catopen("/gencat.cat", 0);
	char want[32];
	CHECK(c != (nl_catd)-1);
	for (int s = 1; c != (nl_catd)-1 && s <= 3; s++)
		for (int m = 1; m <= 3; m++) {
			snprintf(want, sizeof want, "gencat %d %d", s, m);
			CHECK(!strcmp(catgets(c, s, m, "none"), want));
		}
	CHECK(c != (nl_catd)-1 && catclose(c) == 0);
}

int main(int argc, char **argv)
{
	struct result r;
	if (argc > 1 && !strcmp(argv[1], "gencat"))
		from_gencat();
	else {
		no_catalog();
		by_path();
		by_nlspath();
	}
	result_begin(&r, "catx");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
