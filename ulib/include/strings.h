/* BSD string functions (POSIX <strings.h>). */
#ifndef ULIB_STRINGS_H
#define ULIB_STRINGS_H
#include <stddef.h>

int strcasecmp(const char *a, const char *b);
int strncasecmp(const char *a, const char *b, size_t n);
int ffs(int x);
int ffsl(long x);
int ffsll(long long x);
void bzero(void *p, size_t n);
void bcopy(const void *src, void *dst, size_t n);
int bcmp(const void *a, const void *b, size_t n);
char *index(const char *s, int c);
char *rindex(const char *s, int c);

#endif
