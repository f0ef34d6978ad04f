/* <glob.h>: path names matching a pattern, found on the file system
   (ulib/libc/glob.c). Flag and error values and glob_t are glibc's. */
#ifndef ULIB_GLOB_H
#define ULIB_GLOB_H

#include <stddef.h>

#define GLOB_ERR      (1 << 0)    /* stop at a directory that cannot be read */
#define GLOB_MARK     (1 << 1)    /* a '/' after each directory */
#define GLOB_NOSORT   (1 << 2)    /* in the order found */
#define GLOB_DOOFFS   (1 << 3)    /* gl_offs null pointers first */
#define GLOB_NOCHECK  (1 << 4)    /* no match: the pattern itself */
#define GLOB_APPEND   (1 << 5)    /* after the previous call's names */
#define GLOB_NOESCAPE (1 << 6)    /* '\\' is an ordinary character */
#define GLOB_PERIOD   (1 << 7)    /* wildcards match a leading '.' */
#define GLOB_MAGCHAR  (1 << 8)    /* (set in gl_flags) the pattern had a wildcard */
#define GLOB_ALTDIRFUNC (1 << 9)  /* (not supported: GLOB_NOSYS) */
#define GLOB_BRACE    (1 << 10)   /* (not supported: GLOB_NOSYS) */
#define GLOB_NOMAGIC  (1 << 11)   /* no wildcard and no match: the pattern */
#define GLOB_TILDE    (1 << 12)   /* "~" and "~/..." are the home directory */
#define GLOB_ONLYDIR  (1 << 13)   /* a hint: directories are enough */
#define GLOB_TILDE_CHECK (1 << 14)

#define GLOB_NOSPACE 1
#define GLOB_ABORTED 2
#define GLOB_NOMATCH 3
#define GLOB_NOSYS   4

struct stat;
typedef struct {
	size_t gl_pathc;
	char **gl_pathv;
	size_t gl_offs;
	int gl_flags;
	/* GLOB_ALTDIRFUNC's functions: kept for glibc's layout, never called */
	void (*gl_closedir)(void *);
	void *(*gl_readdir)(void *);
	void *(*gl_opendir)(const char *);
	int (*gl_lstat)(const char *, struct stat *);
	int (*gl_stat)(const char *, struct stat *);
} glob_t;

int glob(const char *pattern, int flags, int (*errfunc)(const char *path, int err), glob_t *g);
void globfree(glob_t *g);

#endif
