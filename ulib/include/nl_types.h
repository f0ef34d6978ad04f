/*
 * Message catalogs (POSIX <nl_types.h>; ulib/libc/catgets.c): catopen
 * finds a catalog file as glibc does (a name with a '/' is a path; else
 * NLSPATH's templates, or glibc's default ones, with the locale from
 * LANG or LC_MESSAGES), and reads glibc's gencat binary format. Without
 * a catalog catopen fails (errno ENOENT) and catgets gives back its
 * default string, as glibc's do.
 */
#ifndef _NL_TYPES_H
#define _NL_TYPES_H

#define NL_SETD       1          /* the set a catalog source without $set puts messages in */
#define NL_CAT_LOCALE 1          /* catopen's flag: the locale is LC_MESSAGES's, not LANG */

typedef void *nl_catd;
typedef int nl_item;

nl_catd catopen(const char *name, int flag);
char *catgets(nl_catd catd, int set, int msg, const char *s);
int catclose(nl_catd catd);

#endif
