/* Strings and memory. How each differs from POSIX: docs/libc.md. */
#ifndef ULIB_STRING_H
#define ULIB_STRING_H
#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memchr(const void *s, int c, size_t n);
void *memrchr(const void *s, int c, size_t n);
void *memccpy(void *dst, const void *src, int c, size_t n);
void *memmem(const void *h, size_t hn, const void *n, size_t nn);
void *mempcpy(void *dst, const void *src, size_t n);      /* GNU: dst + n */
void *rawmemchr(const void *s, int c);                    /* GNU: c is known to be there */
void explicit_bzero(void *s, size_t n);                   /* a memset the compiler keeps */
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
int strcoll(const char *a, const char *b);                 /* the "C" locale: strcmp */
int strverscmp(const char *a, const char *b);             /* GNU: digit runs as numbers (strverscmp.c) */
size_t strxfrm(char *dst, const char *src, size_t n);
char *strchr(const char *s, int c);
char *strrchr(const char *s, int c);
char *strchrnul(const char *s, int c);
char *strcpy(char *dst, const char *src);
char *strncpy(char *dst, const char *src, size_t n);
char *stpcpy(char *dst, const char *src);
char *stpncpy(char *dst, const char *src, size_t n);
size_t strlcpy(char *dst, const char *src, size_t n);
size_t strlcat(char *dst, const char *src, size_t n);
char *strcat(char *dst, const char *src);
char *strncat(char *dst, const char *src, size_t n);
char *strstr(const char *h, const char *n);
char *strcasestr(const char *h, const char *n);
size_t strspn(const char *s, const char *accept);
size_t strcspn(const char *s, const char *reject);
char *strpbrk(const char *s, const char *accept);
char *strtok(char *s, const char *delim);                  /* one shared state */
char *strtok_r(char *s, const char *delim, char **save);
char *strsep(char **s, const char *delim);
char *strdup(const char *s);
char *strndup(const char *s, size_t n);
char *strerror(int e);                                     /* "Invalid argument" */
#ifdef _GNU_SOURCE
/* GNU's, as glibc declares it under _GNU_SOURCE: the message (a constant
   one, or "Unknown error N" cut to fit in buf). */
char *strerror_r(int e, char *buf, size_t n) __asm__("__gnu_strerror_r");
#else
int strerror_r(int e, char *buf, size_t n);                /* POSIX's, returns 0 or ERANGE */
#endif
char *strsignal(int sig);

/* <strings.h>'s, also here as glibc has them */
int strcasecmp(const char *a, const char *b);
int strncasecmp(const char *a, const char *b, size_t n);

#endif
