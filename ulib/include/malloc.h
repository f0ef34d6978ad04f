/* <malloc.h>: glibc's allocator header (ulib/malloc.c, ulib/memalign.c). */
#ifndef ULIB_MALLOC_H
#define ULIB_MALLOC_H

#include <stddef.h>

void *malloc(size_t n);
void free(void *p);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void *reallocarray(void *p, size_t n, size_t size);
void *aligned_alloc(size_t align, size_t n);
void *memalign(size_t align, size_t n);
void *valloc(size_t n);
void *pvalloc(size_t n);
/* The bytes the block at p can hold (at least what was asked); 0 for null. */
size_t malloc_usable_size(void *p);

#endif
