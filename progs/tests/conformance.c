/*
 * conformance PKG[+PKG2...] [vps=N] [TEST...]: the conformance suite
 * (threadpkgs/conformance.h) on any package of the build (a folder of
 * threadpkgs/). With several packages joined by '+', the first runs the
 * program and thread i of a test is created by package i % n, so threads
 * of different packages share mutexes, conditions, semaphores and
 * barriers, block and wake each other, and join each other.
 */
#include <conformance.h>
#include "apppkg.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: conformance PKG[+PKG...] [vps=N] [TEST...]\n");
		return 2;
	}
	const struct pkg *pkgs[CONF_MAXPKG];
	int n = 0;
	char names[64];
	snprintf(names, sizeof names, "%s", argv[1]);
	for (char *s = names, *e; s && n < CONF_MAXPKG; s = e) {
		if ((e = strchr(s, '+')))
			*e++ = 0;
		pkgs[n++] = app_pkg(s);
	}
	return conformance_main(pkgs, n, argc - 1, argv + 1);
}
