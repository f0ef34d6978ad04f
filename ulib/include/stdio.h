/*
 * Standard I/O on Anima: the console is the only device. See docs/libc.md.
 *
 * stdout is line-buffered: text accumulates in one shared line buffer and
 * goes out with ONE sys_cputs per complete line (or when the buffer fills,
 * on fflush, and at exit), so a line never splits across syscalls. A
 * printf call is formatted privately and then appended under a lock, so
 * threads printing whole lines with one call each never interleave within
 * a line; partial lines from different threads can still meet.
 * stderr is unbuffered: each call's text goes out before it returns.
 * stdin is descriptor 0's stream: at end of file while that is the
 * console's input. Streams on files (fopen) are buffered (ulib/libc/ffile.c,
 * fio.c; docs/libc.md).
 */
#ifndef ULIB_STDIO_H
#define ULIB_STDIO_H

#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>

typedef struct __file FILE;
typedef long fpos_t;

extern FILE *stdin, *stdout, *stderr;
#define stdin  stdin
#define stdout stdout
#define stderr stderr

#define EOF       (-1)
#define BUFSIZ    2048
#define FILENAME_MAX 4096
#define FOPEN_MAX 16
#define L_tmpnam  20
#define TMP_MAX   10000
#define _IOFBF    0
#define _IOLBF    1
#define _IONBF    2
#define SEEK_SET  0
#define SEEK_CUR  1
#define SEEK_END  2

#define __PRINTF(f, a) __attribute__((format(printf, f, a)))
#define __SCANF(f, a)  __attribute__((format(scanf, f, a)))
int printf(const char *fmt, ...) __PRINTF(1, 2);
int fprintf(FILE *f, const char *fmt, ...) __PRINTF(2, 3);
int dprintf(int fd, const char *fmt, ...) __PRINTF(2, 3);
int sprintf(char *buf, const char *fmt, ...) __PRINTF(2, 3);
int snprintf(char *buf, size_t n, const char *fmt, ...) __PRINTF(3, 4);
int asprintf(char **out, const char *fmt, ...) __PRINTF(2, 3);
int vprintf(const char *fmt, va_list ap);
int vfprintf(FILE *f, const char *fmt, va_list ap);
int vdprintf(int fd, const char *fmt, va_list ap);
int vsprintf(char *buf, const char *fmt, va_list ap);
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int vasprintf(char **out, const char *fmt, va_list ap);

int sscanf(const char *s, const char *fmt, ...) __SCANF(2, 3);
int vsscanf(const char *s, const char *fmt, va_list ap);
int scanf(const char *fmt, ...) __SCANF(1, 2);
int fscanf(FILE *f, const char *fmt, ...) __SCANF(2, 3);
int vscanf(const char *fmt, va_list ap);
int vfscanf(FILE *f, const char *fmt, va_list ap);
#undef __PRINTF
#undef __SCANF

int puts(const char *s);          /* s and a newline */
int fputs(const char *s, FILE *f);
int fputc(int c, FILE *f);
int putc(int c, FILE *f);
int putchar(int c);
size_t fwrite(const void *p, size_t size, size_t n, FILE *f);
void perror(const char *s);       /* "s: strerror(errno)" on stderr */
int fflush(FILE *f);              /* NULL: every stream */
int setvbuf(FILE *f, char *buf, int mode, size_t size);
void setbuf(FILE *f, char *buf);
void setlinebuf(FILE *f);

/* Input: stdin is at end of file while descriptor 0 is the console's. */
int fgetc(FILE *f);
int getc(FILE *f);
int getchar(void);
int ungetc(int c, FILE *f);
char *fgets(char *s, int n, FILE *f);
size_t fread(void *p, size_t size, size_t n, FILE *f);
ssize_t getline(char **line, size_t *cap, FILE *f);
ssize_t getdelim(char **line, size_t *cap, int delim, FILE *f);

int feof(FILE *f);
int ferror(FILE *f);
void clearerr(FILE *f);
int fileno(FILE *f);

/* Streams' locks (POSIX): a recursive per-stream owner, so a thread's
   several calls between flockfile and funlockfile come out together;
   ftrylockfile returns 0 when it took it. The _unlocked forms are the
   plain calls (docs/libc.md). */
void flockfile(FILE *f);
int ftrylockfile(FILE *f);
void funlockfile(FILE *f);
int getc_unlocked(FILE *f);
int getchar_unlocked(void);
int fgetc_unlocked(FILE *f);
int putc_unlocked(int c, FILE *f);
int putchar_unlocked(int c);
int fputc_unlocked(int c, FILE *f);
int fputs_unlocked(const char *s, FILE *f);
size_t fwrite_unlocked(const void *p, size_t size, size_t n, FILE *f);
size_t fread_unlocked(void *p, size_t size, size_t n, FILE *f);
char *fgets_unlocked(char *s, int n, FILE *f);
int fflush_unlocked(FILE *f);
int feof_unlocked(FILE *f);
int ferror_unlocked(FILE *f);
void clearerr_unlocked(FILE *f);
int fileno_unlocked(FILE *f);

/* Files: modes r w a, with + b e x. stdout and stderr are the console's:
   they do not seek (ESPIPE) and freopen cannot move them (EBADF). */
FILE *fopen(const char *path, const char *mode);
FILE *fdopen(int fd, const char *mode);
/* Streams on memory (ulib/libc/memstream.c) and on the caller's functions
   (GNU's fopencookie, ulib/libc/fcookie.c) */
FILE *fmemopen(void *buf, size_t size, const char *mode);
FILE *open_memstream(char **ptr, size_t *sizeloc);
typedef struct {
	ssize_t (*read)(void *cookie, char *buf, size_t n);
	ssize_t (*write)(void *cookie, const char *buf, size_t n);
	int (*seek)(void *cookie, off_t *off, int whence);
	int (*close)(void *cookie);
} cookie_io_functions_t;
FILE *fopencookie(void *cookie, const char *mode, cookie_io_functions_t io);
FILE *freopen(const char *path, const char *mode, FILE *f);
int fclose(FILE *f);
int fseek(FILE *f, long off, int whence);
long ftell(FILE *f);
int fseeko(FILE *f, off_t off, int whence);
off_t ftello(FILE *f);
int fgetpos(FILE *f, fpos_t *pos);
int fsetpos(FILE *f, const fpos_t *pos);
void rewind(FILE *f);
int remove(const char *path);
int rename(const char *from, const char *to);
int renameat(int fromfd, const char *from, int tofd, const char *to);   /* ulib/libc/atcalls.c */
int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags);
#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE  2
FILE *tmpfile(void);

/* popen, pclose and system run /bin/sh -c (ulib/libc/popen.c); pclose of
   a stream popen did not give is -1 with ECHILD. */
FILE *popen(const char *cmd, const char *mode);
int pclose(FILE *f);

#endif
