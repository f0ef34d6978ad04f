/* alloca: stack memory freed when the calling function returns. */
#ifndef ULIB_ALLOCA_H
#define ULIB_ALLOCA_H
#include <stddef.h>
#define alloca(n) __builtin_alloca(n)
#endif
