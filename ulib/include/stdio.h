/*
 * Formatted output to the console (the only stream).
 *
 * stdout is line-buffered: text accumulates in one shared line buffer and
 * goes out with ONE sys_cputs per complete line (or when the buffer fills,
 * on flush(), and at exit), so a line never splits across syscalls. A
 * printf call is formatted privately and then appended under a lock, so
 * threads printing whole lines with one call each never interleave within
 * a line; partial lines from different threads can still meet.
 */
#ifndef ULIB_STDIO_H
#define ULIB_STDIO_H

#include <stddef.h>
#include <stdarg.h>

#define STDOUT_LINE 2048        /* longest line written in one piece */

#define PRINTF(f, a) __attribute__((format(printf, f, a)))
int printf(const char *fmt, ...) PRINTF(1, 2);
int vprintf(const char *fmt, va_list ap);
int snprintf(char *buf, size_t n, const char *fmt, ...) PRINTF(3, 4);
int vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int sprintf(char *buf, const char *fmt, ...) PRINTF(2, 3);
int puts(const char *s);          /* s and a newline */
int putchar(int c);
void flush(void);                 /* write out a pending partial line */
#undef PRINTF

/* Append n bytes to stdout (what printf does after formatting). */
void stdout_write(const char *s, size_t n);
/* Write a complete line (must end in '\n') with one sys_cputs, after
 * ending any pending partial line with a newline of its own. */
void stdout_line(const char *s, size_t n);

#endif
