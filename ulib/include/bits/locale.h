/*
 * locale_t, shared by <locale.h> and <langinfo.h> (POSIX has both
 * define it). There is one locale, "C", so a locale_t names nothing:
 * functions taking one answer for the C locale whatever it is.
 */
#ifndef ULIB_BITS_LOCALE_H
#define ULIB_BITS_LOCALE_H

typedef struct __locale_struct *locale_t;

#endif
