/* <error.h>, glibc's semantics: stdout is flushed, then on stderr the
   program's name (argv[0], or what error_print_progname prints), ": ",
   for error_at_line "file:line: ", the message, ": strerror(errnum)"
   when errnum is nonzero, and a newline; the message is counted
   (error_message_count), and a nonzero status ends the program with it. */
#include <error.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animalib/ulib.h>

unsigned int error_message_count;
int error_one_per_line;
void (*error_print_progname)(void);

static void say(int status, int errnum, int at, const char *file, unsigned lineno, const char *fmt,
		va_list ap)
{
	char line[1024];
	int n = 0;
	fflush(stdout);
	if (error_print_progname)
		error_print_progname();
	else
		n = snprintf(line, sizeof line, "%s:%s", prog_argc > 0 && prog_argv[0] ? prog_argv[0] : "?",
			     at ? "" : " ");
	if (at && n < (int)sizeof line)   /* (glibc: " " for a null file) */
		n += file ? snprintf(line + n, sizeof line - (size_t)n, "%s:%u: ", file, lineno)
			  : snprintf(line + n, sizeof line - (size_t)n, " ");
	if (n < (int)sizeof line)
		n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	if (errnum && n < (int)sizeof line)
		n += snprintf(line + n, sizeof line - (size_t)n, ": %s", strerror(errnum));
	if (n >= (int)sizeof line)
		n = (int)sizeof line - 1;
	fprintf(stderr, "%.*s\n", n, line);
	fflush(stderr);
	error_message_count++;
	if (status)
		exit(status);
}

/* Weak, as the extensions programs often define themselves (docs/libc.md):
   a program's own `error` wins. */
__attribute__((weak)) void error(int status, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(status, errnum, 0, 0, 0, fmt, ap);
	va_end(ap);
}

__attribute__((weak)) void error_at_line(int status, int errnum, const char *file, unsigned lineno,
					 const char *fmt, ...)
{
	static const char *last_file;
	static unsigned last_line;
	if (error_one_per_line) {
		if (last_line == lineno && last_file &&
		    (last_file == file || (file && !strcmp(last_file, file))))
			return;      /* (glibc: not counted, status ignored too) */
		last_file = file;
		last_line = lineno;
	}
	va_list ap;
	va_start(ap, fmt);
	say(status, errnum, 1, file, lineno, fmt, ap);
	va_end(ap);
}
