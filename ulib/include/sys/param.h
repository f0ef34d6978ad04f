/* BSD's <sys/param.h> helpers that portable code uses. */
#ifndef ULIB_SYS_PARAM_H
#define ULIB_SYS_PARAM_H
#include <limits.h>
#include <sys/types.h>
#include <endian.h>
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#define howmany(x, y)  (((x) + ((y) - 1)) / (y))
#define roundup(x, y)  (howmany(x, y) * (y))
#define rounddown(x, y) (((x) / (y)) * (y))
#define powerof2(x)    ((((x) - 1) & (x)) == 0)
#define nitems(a)      (sizeof(a) / sizeof((a)[0]))
#define NBBY           CHAR_BIT          /* bits in a byte */
#define setbit(a, i)   (((unsigned char *)(a))[(i) / NBBY] |= 1 << ((i) % NBBY))
#define clrbit(a, i)   (((unsigned char *)(a))[(i) / NBBY] &= ~(1 << ((i) % NBBY)))
#define isset(a, i)    (((const unsigned char *)(a))[(i) / NBBY] & (1 << ((i) % NBBY)))
#define isclr(a, i)    (!isset(a, i))
#define MAXPATHLEN     PATH_MAX
#define MAXHOSTNAMELEN 64
#define MAXSYMLINKS    20
#define NOFILE         3                 /* fds a program has open at most (0-2) */
#define NGROUPS        NGROUPS_MAX
#define DEV_BSIZE      512
#define EXEC_PAGESIZE  4096
#endif
