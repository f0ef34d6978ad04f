/* <fnmatch.h>: shell wildcard matching of one name (ulib/libc/fnmatch.c).
   Flag values are glibc's. */
#ifndef ULIB_FNMATCH_H
#define ULIB_FNMATCH_H

#define FNM_PATHNAME    1    /* '/' only by a '/' of the pattern */
#define FNM_NOESCAPE    2    /* '\\' is an ordinary character */
#define FNM_PERIOD      4    /* a leading '.' only by a '.' of the pattern */
#define FNM_LEADING_DIR 8    /* the pattern may match a leading part ended by '/' */
#define FNM_CASEFOLD    16   /* letters of either case */
#define FNM_FILE_NAME   FNM_PATHNAME
#define FNM_IGNORECASE  FNM_CASEFOLD
#define FNM_NOMATCH     1

int fnmatch(const char *pattern, const char *name, int flags);

#endif
