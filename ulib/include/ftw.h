/* <ftw.h>: walking a file tree (ulib/libc/ftw.c). Values are glibc's. */
#ifndef ULIB_FTW_H
#define ULIB_FTW_H

#include <sys/stat.h>

/* The type of the object given to the function */
#define FTW_F   0    /* a file that is not a directory */
#define FTW_D   1    /* a directory, before its entries */
#define FTW_DNR 2    /* a directory that cannot be read */
#define FTW_NS  3    /* stat failed */
#define FTW_SL  4    /* a symbolic link (FTW_PHYS) */
#define FTW_DP  5    /* a directory, after its entries (FTW_DEPTH) */
#define FTW_SLN 6    /* a symbolic link to nothing */

/* nftw's flags */
#define FTW_PHYS  1    /* do not follow symbolic links */
#define FTW_MOUNT 2    /* stay on one file system (there is one) */
#define FTW_CHDIR 4    /* call the function in the object's directory */
#define FTW_DEPTH 8    /* a directory after its entries */
#define FTW_ACTIONRETVAL 16   /* the function's result steers the walk (GNU) */

/* Its results with FTW_ACTIONRETVAL */
#define FTW_CONTINUE      0
#define FTW_STOP          1
#define FTW_SKIP_SUBTREE  2
#define FTW_SKIP_SIBLINGS 3

struct FTW {
	int base;     /* where the object's name starts in the path */
	int level;    /* its depth below the starting path (0) */
};

int ftw(const char *path, int (*fn)(const char *path, const struct stat *st, int type), int nfd);
int nftw(const char *path, int (*fn)(const char *path, const struct stat *st, int type, struct FTW *f),
	 int nfd, int flags);

#endif
