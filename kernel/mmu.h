/*
 * Paging: constants, page-table bits and the kernel's memory layout.
 *
 *   0x0000000000400000 .. 0x00007fffffffffff   user (see <anima/layout.h>)
 *   0xffff800000000000 .. +max(RAM, 4 GiB)     direct map of physical memory
 *   0xffffffff80000000 .. +kernel image        kernel text/data (-mcmodel=kernel)
 */
#ifndef MMU_H
#define MMU_H

#define KERNBASE   0xffffffff80000000UL
#define PHYSMAP    0xffff800000000000UL
#define PGSIZE     4096UL
#define PGSHIFT    12

#define PTE_P      (1UL << 0)
#define PTE_W      (1UL << 1)
#define PTE_U      (1UL << 2)
#define PTE_PWT    (1UL << 3)
#define PTE_PCD    (1UL << 4)
#define PTE_A      (1UL << 5)
#define PTE_D      (1UL << 6)
#define PTE_PS     (1UL << 7)
#define PTE_G      (1UL << 8)
#define PTE_SHARED (1UL << 9)    /* software bit: frame not owned by the space */
#define PTE_KERNEL (1UL << 10)   /* software bit: a kernel-owned frame shared with the space
				    (a VP's pseudo or VP page): no unmap frees it; it goes
				    with the space's tables */
#define PTE_NONE   (1UL << 11)   /* software bit, with P clear: a PROT_NONE page (protect.c).
				    The frame stays the space's, but every access faults, the
				    kernel's own copies too (a page merely without the user
				    bit, the kernel could still read and write: SMAP stops
				    only user pages) */
#define PTE_COW    (1UL << 52)   /* software bit: writable, but its frame may be shared after
				    a fork: W stays off until a write fault copies the frame
				    or takes it back (cow.c) */
#define PTE_FDIRTY (1UL << 53)   /* software bit: a page of a shared file mapping whose D bit a
				    write-back took and which it has not written yet (fmap.c) */
#define PTE_NX     (1UL << 63)
#define PTE_ADDR   0x000ffffffffff000UL
#define PTE_MAPPED (PTE_P | PTE_NONE)   /* a level-0 entry that holds a frame */

/* Page-fault error code bits */
#define PF_P       (1u << 0)
#define PF_W       (1u << 1)
#define PF_U       (1u << 2)
#define PF_I       (1u << 4)

#ifndef __ASSEMBLER__
#include <stdint.h>
#define P2V(pa) ((void *)((uint64_t)(pa) + PHYSMAP))
#define V2P(va) ((uint64_t)(va) - PHYSMAP)
#define K2P(va) ((uint64_t)(va) - KERNBASE)   /* kernel image address -> physical */
#define PGROUNDUP(a)   (((uint64_t)(a) + PGSIZE - 1) & ~(PGSIZE - 1))
#define PGROUNDDOWN(a) ((uint64_t)(a) & ~(PGSIZE - 1))

/* A user page's entry for frame pa with protection flags fl (PTE_P
   apart): flags without the user bit are PROT_NONE's. */
static inline uint64_t pte_user(uint64_t pa, uint64_t fl)
{
	return pa | fl | (fl & PTE_U ? PTE_P : PTE_NONE);
}
#endif

#endif
