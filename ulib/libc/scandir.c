/*
 * scandir and its two orders: the directory's entries that `filter`
 * keeps (all without one), each a malloc'd copy, sorted by `compar`
 * (readdir's order without one). alphasort is strcoll (the C locale's
 * strcmp), versionsort strverscmp.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
	    int (*compar)(const struct dirent **, const struct dirent **))
{
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent **v = 0, *e;
	size_t n = 0, cap = 0;
	int err = 0;
	for (;;) {
		errno = 0;
		if (!(e = readdir(d))) {
			err = errno;            /* readdir's error, if any */
			break;
		}
		if (filter && !filter(e))
			continue;
		if (n == cap) {
			struct dirent **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof *v);
			if (!nv) {
				err = ENOMEM;
				break;
			}
			v = nv;
		}
		if (!(v[n] = malloc(sizeof *e))) {
			err = ENOMEM;
			break;
		}
		memcpy(v[n++], e, sizeof *e);
	}
	closedir(d);
	if (err) {
		while (n)
			free(v[--n]);
		free(v);
		errno = err;
		return -1;
	}
	if (compar)
		qsort(v, n, sizeof *v, (int (*)(const void *, const void *))compar);
	*list = v;
	return (int)n;
}

int alphasort(const struct dirent **a, const struct dirent **b)
{
	return strcoll((*a)->d_name, (*b)->d_name);
}

int versionsort(const struct dirent **a, const struct dirent **b)
{
	return strverscmp((*a)->d_name, (*b)->d_name);
}
