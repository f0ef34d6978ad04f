/*
 * ELF64 loader for user programs. The image is a GRUB module, but it is
 * still checked field by field: a bad program must fail to load, never
 * hurt the kernel.
 */
#include "kernel.h"

struct ehdr {
	uint8_t ident[16];
	uint16_t type, machine;
	uint32_t version;
	uint64_t entry, phoff, shoff;
	uint32_t flags;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};
#define PT_LOAD 1
#define ELF_PF_X 1
#define ELF_PF_W 2

static int seg_ok(const struct phdr *ph, uint64_t size)
{
	return ph->filesz <= ph->memsz && ph->offset <= size && ph->filesz <= size - ph->offset &&
	       ph->vaddr >= USER_BASE && ph->memsz < USER_TOP && ph->vaddr <= USER_TOP - ph->memsz;
}

int elf_load(struct space *sp, const uint8_t *img, uint64_t size, uint64_t *entry)
{
	const struct ehdr *eh = (const void *)img;
	if (size < sizeof *eh || memcmp(eh->ident, "\177ELF", 4) || eh->ident[4] != 2 ||
	    eh->machine != 62 || eh->type != 2 || eh->phentsize != sizeof(struct phdr) ||
	    eh->phoff > size || (uint64_t)eh->phnum * sizeof(struct phdr) > size - eh->phoff ||
	    eh->entry < USER_BASE || eh->entry >= USER_TOP)
		return -EINVAL;
	const struct phdr *ph = (const void *)(img + eh->phoff);
	for (int i = 0; i < eh->phnum; i++, ph++) {
		if (ph->type != PT_LOAD || !ph->memsz)
			continue;
		if (!seg_ok(ph, size))
			return -EINVAL;
		uint64_t flags = PTE_U | (ph->flags & ELF_PF_W ? PTE_W : 0) | (ph->flags & ELF_PF_X ? 0 : PTE_NX);
		for (uint64_t va = PGROUNDDOWN(ph->vaddr); va < ph->vaddr + ph->memsz; va += PGSIZE) {
			uint64_t *pte = space_pte(sp, va);
			if (!pte)
				return -ENOMEM;
			if (!(*pte & PTE_P)) {
				void *pg = mem_user_ok(sp, 1) ? page_alloc() : 0;
				if (!pg)
					return -ENOMEM;
				*pte = V2P(pg) | PTE_P | flags;
				sp->pages++;
			} else {   /* page shared by two segments: union of rights */
				*pte |= flags & PTE_W;
				if (!(flags & PTE_NX))
					*pte &= ~PTE_NX;
			}
			/* Copy the part of the file image that falls in this page. */
			uint64_t lo = MAX(va, ph->vaddr), hi = MIN(va + PGSIZE, ph->vaddr + ph->filesz);
			if (lo < hi)
				memcpy((uint8_t *)P2V(*pte & PTE_ADDR) + (lo - va),
				       img + ph->offset + (lo - ph->vaddr), hi - lo);
		}
	}
	*entry = eh->entry;
	return 0;
}
