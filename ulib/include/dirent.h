/* Directories of the disk's file system (ulib/dirent.c; docs/files.md). */
#ifndef ULIB_DIRENT_H
#define ULIB_DIRENT_H

#include <sys/types.h>

struct dirent {
	ino_t d_ino;
	off_t d_off;                 /* (0: not kept) */
	unsigned short d_reclen;
	unsigned char d_type;        /* DT_* */
	char d_name[256];
};

#define DT_UNKNOWN 0
#define DT_FIFO    1
#define DT_CHR     2
#define DT_DIR     4
#define DT_BLK     6
#define DT_REG     8
#define DT_LNK     10
#define DT_SOCK    12

typedef struct __dir DIR;

DIR *opendir(const char *path);
DIR *fdopendir(int fd);
struct dirent *readdir(DIR *d);
int closedir(DIR *d);
void rewinddir(DIR *d);
int dirfd(DIR *d);

/* ulib/libc/scandir.c */
int scandir(const char *path, struct dirent ***list, int (*filter)(const struct dirent *),
	    int (*compar)(const struct dirent **, const struct dirent **));
int alphasort(const struct dirent **a, const struct dirent **b);
int versionsort(const struct dirent **a, const struct dirent **b);

#endif
