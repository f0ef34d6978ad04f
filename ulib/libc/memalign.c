/* The obsolete aligned allocators, over aligned_alloc (malloc.c), which
   asks det=par's heap first and fences itself: none fences here, or its
   block would come from the central lists in a turn of the token. */
#include <stdlib.h>
#include <errno.h>
#include <anima/layout.h>

void *memalign(size_t align, size_t n)
{
	return aligned_alloc(align, n);
}

void *valloc(size_t n)
{
	return aligned_alloc(PAGE_SIZE, n);
}

void *pvalloc(size_t n)
{
	if (n > ((size_t)1 << 46)) {
		errno = ENOMEM;
		return 0;
	}
	return aligned_alloc(PAGE_SIZE, n ? (n + PAGE_SIZE - 1) & ~(size_t)(PAGE_SIZE - 1) : PAGE_SIZE);
}
