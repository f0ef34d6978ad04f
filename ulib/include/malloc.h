/* <malloc.h>: glibc's allocator header (ulib/malloc.c, ulib/memalign.c). */
#ifndef ULIB_MALLOC_H
#define ULIB_MALLOC_H

#include <stdlib.h>             /* malloc free calloc realloc memalign valloc pvalloc ... */

/* The bytes the block at p can hold (at least what was asked); 0 for null. */
size_t malloc_usable_size(void *p);

/* glibc's tuning calls (ulib/mallocx.c). ulib's allocator has no
   parameters: mallopt answers 0 (failure) for every one. malloc_trim
   returns 0, no memory released: blocks larger than 64 KiB go back to
   the kernel when freed already, and the small-block slabs are never
   returned. */
#define M_MXFAST         1
#define M_TRIM_THRESHOLD (-1)
#define M_TOP_PAD        (-2)
#define M_MMAP_THRESHOLD (-3)
#define M_MMAP_MAX       (-4)
#define M_CHECK_ACTION   (-5)
#define M_PERTURB        (-6)
#define M_ARENA_TEST     (-7)
#define M_ARENA_MAX      (-8)
int mallopt(int param, int value);
int malloc_trim(size_t pad);

#endif
