/* printf/scanf formats for <stdint.h>'s types (LP64), and intmax_t helpers. */
#ifndef ULIB_INTTYPES_H
#define ULIB_INTTYPES_H

#include <stdint.h>

#define __PRI64 "l"
#define PRId8  "d"
#define PRId16 "d"
#define PRId32 "d"
#define PRId64 __PRI64 "d"
#define PRIi8  "i"
#define PRIi16 "i"
#define PRIi32 "i"
#define PRIi64 __PRI64 "i"
#define PRIu8  "u"
#define PRIu16 "u"
#define PRIu32 "u"
#define PRIu64 __PRI64 "u"
#define PRIx8  "x"
#define PRIx16 "x"
#define PRIx32 "x"
#define PRIx64 __PRI64 "x"
#define PRIX8  "X"
#define PRIX16 "X"
#define PRIX32 "X"
#define PRIX64 __PRI64 "X"
#define PRIo32 "o"
#define PRIo64 __PRI64 "o"
#define PRIdMAX __PRI64 "d"
#define PRIuMAX __PRI64 "u"
#define PRIxMAX __PRI64 "x"
#define PRIdPTR __PRI64 "d"
#define PRIuPTR __PRI64 "u"
#define PRIxPTR __PRI64 "x"
#define PRIdFAST32 __PRI64 "d"
#define PRIuFAST32 __PRI64 "u"
#define PRIdFAST64 __PRI64 "d"
#define PRIuFAST64 __PRI64 "u"
#define PRIdLEAST32 "d"
#define PRIuLEAST32 "u"
#define PRIdLEAST64 __PRI64 "d"
#define PRIuLEAST64 __PRI64 "u"

#define SCNd8  "hhd"
#define SCNd16 "hd"
#define SCNd32 "d"
#define SCNd64 __PRI64 "d"
#define SCNi32 "i"
#define SCNi64 __PRI64 "i"
#define SCNu8  "hhu"
#define SCNu16 "hu"
#define SCNu32 "u"
#define SCNu64 __PRI64 "u"
#define SCNx32 "x"
#define SCNx64 __PRI64 "x"
#define SCNdMAX __PRI64 "d"
#define SCNuMAX __PRI64 "u"

typedef struct { intmax_t quot, rem; } imaxdiv_t;
intmax_t imaxabs(intmax_t x);
imaxdiv_t imaxdiv(intmax_t a, intmax_t b);
intmax_t strtoimax(const char *s, char **end, int base);
uintmax_t strtoumax(const char *s, char **end, int base);

#endif
