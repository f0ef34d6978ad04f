/*
 * The search along PATH of execvp, execlp, execvpe and posix_spawnp, by
 * glibc's rules: a name with a '/' is not searched; PATH unset is
 * "/bin:/usr/bin" (glibc's default, confstr's _CS_PATH); an empty entry
 * is the working directory; each place is tried in order, and a place
 * that refuses with EACCES is remembered while the search goes on (the
 * call ends with EACCES if nothing ran), as do places that do not have
 * the program (ENOENT, ENOTDIR, ENODEV, ETIMEDOUT); any other
 * error (ENOEXEC, E2BIG, EFAULT, ...) ends the search with it.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <limits.h>
#include "path.h"

static int goes_on(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ENODEV || e == ETIMEDOUT;
}

int path_search(const char *file, int (*try)(const char *path, void *arg), void *arg)
{
	if (!file || !*file)
		return ENOENT;
	if (strchr(file, '/'))
		return try(file, arg);
	size_t fl = strlen(file);
	if (fl > NAME_MAX)
		return ENAMETOOLONG;
	const char *dirs = getenv("PATH");
	if (!dirs)
		dirs = "/bin:/usr/bin";
	int eacces = 0, e = ENOENT;
	for (const char *d = dirs;; d++) {
		const char *end = strchrnul(d, ':');
		size_t dl = (size_t)(end - d);
		char p[PATH_MAX];
		if (dl + 1 + fl < sizeof p) {
			memcpy(p, d, dl);
			p[dl] = '/';             /* ("" is the working directory: "/file" is not it) */
			memcpy(p + dl + 1, file, fl + 1);
			e = try(dl ? p : p + 1, arg);
			if (!e)
				return 0;
			if (e == EACCES)
				eacces = 1;
			else if (!goes_on(e))
				return e;
		}
		if (!*end)
			break;
		d = end;
	}
	return eacces ? EACCES : e;
}
