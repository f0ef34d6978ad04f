/*
 * The formatting core shared by the kernel's printf and ulib's printf
 * family (one source, compiled for each side). Supports %d %i %u %x %X
 * %o %c %s %p %% with flags '-', '0', '+', ' ', width, precision, and the
 * length modifiers hh h l ll z j t; %f %F %e %E %g %G %a %A only where built
 * with FMT_FLOAT (user side; the kernel has no floating point).
 * put() receives each output character; fmt returns the count written.
 */
#ifndef ULIB_FMT_H
#define ULIB_FMT_H

#include <stdarg.h>

typedef void (*fmt_put_fn)(char c, void *arg);
int fmt_format(fmt_put_fn put, void *arg, const char *f, va_list ap);

#endif
