/* FILE, private to ulib's stdio (stdio.c, stdfile.c, ffile.c, fio.c). */
#ifndef ULIB_FILE_H
#define ULIB_FILE_H

#include <stdio.h>
#include <animart/sync.h>

#define FS_RD  1          /* open for reading */
#define FS_WR  2          /* open for writing */
#define FS_APP 4          /* append: every write at the end (O_APPEND) */
#define FS_OWN 8          /* buf is malloc'd here (else setvbuf's, or tiny) */
#define NBACK  4          /* ungetc's pushed-back bytes at most */

struct __file {
	int fd;
	int eof, err;
	/* flockfile's recursive lock: the owning thread (0: none) and its
	   depth, over a mutex other threads wait on (stdio.c) */
	struct thread *volatile owner;
	int depth;
	struct mutex lock;
	/* Streams on descriptors (ffile.c, fio.c); stdout and stderr are
	   the console's (stdio.c) and use none of this. One buffer for
	   both ways: dir 'r', buf[pos..len) is read ahead of the
	   descriptor's offset; dir 'w', buf[0..len) waits to be written;
	   dir 0, it is empty. */
	int flags;            /* FS_* */
	int bmode;            /* _IOFBF, _IOLBF, _IONBF */
	int dir;
	unsigned char *buf;   /* 0 until the first read or write */
	size_t size, pos, len;
	unsigned char back[NBACK], tiny;   /* ungetc's bytes (last pushed last); _IONBF's buffer */
	int nback;
	struct __file *next;  /* ffile.c's list of open streams */
};

/* fio.c: for ffile.c and stdio.c; f locked by the caller. */
int __ff_write(FILE *f, const char *s, size_t n);   /* 0, or EOF (err set) */
int __ff_flush(FILE *f);     /* write out what waits, give back what was read ahead */
/* ffile.c: every open stream flushed (fflush(0), exit) */
void __ff_flushall(void);
int __ff_setvbuf(FILE *f, char *buf, int mode, size_t size);

#endif
