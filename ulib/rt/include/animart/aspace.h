/*
 * The program's address space as RLIMIT_AS counts it (ulib/rt/aspace.c):
 * the image and initial stack, plus what the runtime and the libc map
 * for it (mmap, malloc's slabs and blocks, thread stacks), demand-zero
 * and PROT_NONE ranges included, as Linux counts them. The kernel
 * charges resident pages only (its quota), so the count lives here.
 */
#ifndef ANIMART_ASPACE_H
#define ANIMART_ASPACE_H
#include <stdint.h>

/* Count len bytes (rounded up to pages) before mapping them: 0, or
   -ENOMEM (nothing counted) if they would pass the soft RLIMIT_AS. */
long as_charge(uint64_t len);
/* They were not mapped after all, or are unmapped now. */
void as_uncharge(uint64_t len);
/* The bytes of the page-aligned range [a, a+len) mapped now: what an
   unmap of a range that may hold holes takes out of the count. */
uint64_t as_held(uint64_t a, uint64_t len);
/* The address space counted now, bytes. */
uint64_t as_used(void);
/* The soft RLIMIT_AS (~0: none). Lowering it below as_used() is allowed,
   as on Linux: only growth fails. */
void as_set_limit(uint64_t max);

#endif
