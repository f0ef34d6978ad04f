/* BSD error messages: "prog: message: strerror(errno)" on stderr. */
#ifndef ULIB_ERR_H
#define ULIB_ERR_H
#include <stdarg.h>

#define __ERRF(f, a) __attribute__((format(printf, f, a)))
__attribute__((noreturn)) void err(int status, const char *fmt, ...) __ERRF(2, 3);
__attribute__((noreturn)) void errx(int status, const char *fmt, ...) __ERRF(2, 3);
__attribute__((noreturn)) void verr(int status, const char *fmt, va_list ap);
__attribute__((noreturn)) void verrx(int status, const char *fmt, va_list ap);
void warn(const char *fmt, ...) __ERRF(1, 2);
void warnx(const char *fmt, ...) __ERRF(1, 2);
void vwarn(const char *fmt, va_list ap);
void vwarnx(const char *fmt, va_list ap);
#undef __ERRF

#endif
