/* BSD's <sys/param.h> helpers that portable code uses. */
#ifndef ULIB_SYS_PARAM_H
#define ULIB_SYS_PARAM_H
#include <limits.h>
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#define howmany(x, y)  (((x) + ((y) - 1)) / (y))
#define roundup(x, y)  (howmany(x, y) * (y))
#define powerof2(x)    ((((x) - 1) & (x)) == 0)
#define nitems(a)      (sizeof(a) / sizeof((a)[0]))
#define MAXPATHLEN     PATH_MAX
#define MAXHOSTNAMELEN 64
#endif
