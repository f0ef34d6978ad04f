/* <error.h>: glibc's error messages, "prog: message[: strerror(errnum)]"
   on stderr (ulib/error.c). */
#ifndef ULIB_ERROR_H
#define ULIB_ERROR_H

/* Print the message (after flushing stdout); count it; exit(status) if
   status is nonzero. */
void error(int status, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same as "prog:file:line: message"; with error_one_per_line set, a
   second message in a row for the same file and line is not printed. */
void error_at_line(int status, int errnum, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

extern unsigned int error_message_count;    /* messages printed so far */
extern int error_one_per_line;
extern void (*error_print_progname)(void);  /* if set, prints the name instead */

#endif
