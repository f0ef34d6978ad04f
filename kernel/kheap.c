/*
 * Kernel heap: power-of-two size classes from 32 to 2048 bytes carved from
 * pages, larger requests straight from the page allocator. A 16-byte
 * header before each block records its class (or page count) so kfree
 * needs no size, and keeps every block 16-byte aligned.
 */
#include "kernel.h"

#define NCLASS   7              /* 32, 64, ..., 2048 */
#define HDR      16

struct block {
	struct block *next;
};
static struct block *freelist[NCLASS];
static struct spinlock heap_lock = SPINLOCK_INIT("kheap");

void *kmalloc(size_t n)
{
	size_t total = n + HDR;
	if (total > 2048) {
		size_t np = (total + PGSIZE - 1) / PGSIZE;
		uint64_t *p = pages_alloc(np);
		if (!p)
			return 0;
		p[0] = 0x10000 | np;    /* tag: page run */
		return (uint8_t *)p + HDR;
	}
	int c = 0;
	while ((32UL << c) < total)
		c++;
	spin_lock(&heap_lock);
	if (!freelist[c]) {
		uint8_t *pg = page_alloc();
		if (!pg) {
			spin_unlock(&heap_lock);
			return 0;
		}
		for (size_t off = 0; off + (32UL << c) <= PGSIZE; off += 32UL << c) {
			struct block *b = (void *)(pg + off);
			b->next = freelist[c];
			freelist[c] = b;
		}
	}
	struct block *b = freelist[c];
	freelist[c] = b->next;
	spin_unlock(&heap_lock);
	uint64_t *h = (uint64_t *)b;
	h[0] = c;
	return (uint8_t *)h + HDR;
}

void *kzalloc(size_t n)
{
	void *p = kmalloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void kfree(void *p)
{
	if (!p)
		return;
	uint64_t *h = (uint64_t *)((uint8_t *)p - HDR);
	if (h[0] & 0x10000) {
		pages_free(h, h[0] & 0xffff);
		return;
	}
	uint64_t c = h[0];            /* read before b->next overwrites it */
	if (c >= NCLASS)
		panic("kfree: bad block %p", p);
	struct block *b = (void *)h;
	spin_lock(&heap_lock);
	b->next = freelist[c];
	freelist[c] = b;
	spin_unlock(&heap_lock);
}
