/*
 * ELF64 loader for user programs. The image is a GRUB module or a file
 * (execfile.c reads it through the block cache); either way it is
 * checked field by field: a bad program must fail to load, never hurt
 * the kernel.
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
#define PT_PHDR 6
#define ELF_PF_X 1
#define ELF_PF_W 2

static int seg_ok(const struct phdr *ph, uint64_t size)
{
	return ph->filesz <= ph->memsz && ph->offset <= size && ph->filesz <= size - ph->offset &&
	       ph->vaddr >= USER_BASE && ph->memsz < USER_TOP && ph->vaddr <= USER_TOP - ph->memsz;
}

/* A module's bytes, in memory. */
static long mem_read(const struct elfsrc *s, uint64_t off, void *dst, uint64_t n)
{
	memcpy(dst, s->img + off, n);
	return 0;
}

void elf_module_src(struct elfsrc *s, const uint8_t *img, uint64_t size)
{
	*s = (struct elfsrc){ .size = size, .read = mem_read, .img = img };
}

static int ehdr_ok(const struct ehdr *eh, uint64_t size)
{
	return !memcmp(eh->ident, "\177ELF", 4) && eh->ident[4] == 2 && eh->machine == 62 &&
	       eh->type == 2 && eh->phentsize == sizeof(struct phdr) && eh->phoff <= size &&
	       (uint64_t)eh->phnum * sizeof(struct phdr) <= size - eh->phoff &&
	       eh->entry >= USER_BASE && eh->entry < USER_TOP;
}

/* Map and fill one PT_LOAD segment's pages. */
static long load_seg(struct space *sp, const struct elfsrc *s, const struct phdr *ph)
{
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
		long r = lo < hi ? s->read(s, ph->offset + (lo - ph->vaddr),
					   (uint8_t *)P2V(*pte & PTE_ADDR) + (lo - va), hi - lo) : 0;
		if (r)
			return r;
	}
	return 0;
}

/* Walk s's headers: with sp, load each PT_LOAD segment into it; without,
   only read (dst 0) each segment's file bytes, so that a file's blocks
   are in the cache before a space is built (execfile.c). 0, or -EINVAL
   (not a valid program), -ENOMEM, or the source's read error. */
static long walk(struct space *sp, const struct elfsrc *s, struct auxinfo *ai, uint64_t *bytes)
{
	struct ehdr eh;
	if (s->size < sizeof eh)
		return -EINVAL;
	long r = s->read(s, 0, &eh, sizeof eh);
	if (r)
		return r;
	if (!ehdr_ok(&eh, s->size))
		return -EINVAL;
	*bytes = 0;
	uint64_t phdr = 0, phend = eh.phoff + (uint64_t)eh.phnum * sizeof(struct phdr);
	for (int i = 0; i < eh.phnum; i++) {
		struct phdr ph;
		if ((r = s->read(s, eh.phoff + i * sizeof ph, &ph, sizeof ph)))
			return r;
		if (ph.type == PT_PHDR)
			phdr = ph.vaddr;         /* (the program says where they are) */
		if (ph.type != PT_LOAD || !ph.memsz)
			continue;
		if (!phdr && ph.offset <= eh.phoff && phend <= ph.offset + ph.filesz)
			phdr = ph.vaddr + (eh.phoff - ph.offset);   /* loaded with this segment */
		if (!seg_ok(&ph, s->size))
			return -EINVAL;
		*bytes += ph.filesz;
		if (s->maxload && *bytes > s->maxload)
			return -EFBIG;           /* (checked before reading: a bound on the work too) */
		r = sp ? load_seg(sp, s, &ph) : ph.filesz ? s->read(s, ph.offset, 0, ph.filesz) : 0;
		if (r)
			return r;
	}
	ai->entry = eh.entry;
	ai->phdr = phdr;
	ai->phnum = eh.phnum;
	return 0;
}

/* Load the program s into sp: 0 and its entry and program headers in
   *ai (the auxiliary vector's: auxv.c), or an error (walk). */
int elf_load_src(struct space *sp, const struct elfsrc *s, struct auxinfo *ai)
{
	uint64_t bytes;
	return (int)walk(sp, s, ai, &bytes);
}

/* Check s and read every byte a load takes from it: the bytes (the sum
   of the segments' file sizes), or an error (walk). */
long elf_prepare(const struct elfsrc *s)
{
	uint64_t bytes;
	struct auxinfo ai;
	long r = walk(0, s, &ai, &bytes);
	return r ? r : (long)bytes;
}
