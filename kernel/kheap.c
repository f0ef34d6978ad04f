/*
 * Kernel heap: power-of-two size classes from 32 to 2048 bytes carved from
 * slab pages, larger requests straight from the page allocator.
 *
 * Each slab page starts with a header: its class, a bitmap of the blocks
 * in use and their count. kfree finds the header by rounding the pointer
 * down, so it needs no size, and the bitmap catches a double free. A page
 * whose count drops to zero goes back to the page allocator, except one
 * empty page per class, which stays on its class's list as it is (so a
 * kmalloc/kfree pair at the edge of a page, like a blocking call's kop,
 * costs no page-allocator call and no re-initialisation).
 * INFO_MEM_AVAIL counts those kept pages as available.
 *
 * A large allocation is a page run with a 16-byte tag in front; its
 * pointer is 16 bytes past a page boundary, a slab block never is.
 * Freeing something that is neither is a kernel bug: panic with the
 * address. With `memcheck`, freed blocks are poisoned and the poison is
 * checked when the block is handed out again.
 */
#include "kernel.h"

#define NCLASS     7            /* 32, 64, ..., 2048 */
#define MINBLOCK   32
#define SLAB_HDR   64           /* bytes before the first block */
#define SLAB_MAGIC 0x534c4142u
#define RUN_MAGIC  0x52554e00u  /* page run: low byte unused, count in n */
#define RUN_HDR    16
#define KPOISON    0x6b

struct slab {
	uint32_t magic;             /* SLAB_MAGIC while the page is a slab */
	uint16_t class, inuse;
	uint16_t nblocks, pad;
	struct slab *next, *prev;   /* partial list of the class */
	uint64_t used[2];           /* one bit per block (at most 126) */
};
_Static_assert(sizeof(struct slab) <= SLAB_HDR, "slab header");

struct run {
	uint32_t magic;
	uint32_t pad;
	uint64_t npages;
};

static struct slab *partial[NCLASS];   /* pages with a free block */
static struct slab *spare[NCLASS];     /* the one empty page kept per class (on partial) */
static int nspare;
static struct spinlock heap_lock = SPINLOCK_INIT("kheap");

static size_t bsize(int c)
{
	return (size_t)MINBLOCK << c;
}

static int bshift(int c)
{
	return 5 + c;               /* log2(bsize(c)) */
}

static uint8_t *block(struct slab *s, int i)
{
	return (uint8_t *)s + SLAB_HDR + ((size_t)i << bshift(s->class));
}

static void list_add(struct slab *s)
{
	s->prev = 0;
	s->next = partial[s->class];
	if (s->next)
		s->next->prev = s;
	partial[s->class] = s;
}

static void list_del(struct slab *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		partial[s->class] = s->next;
	if (s->next)
		s->next->prev = s->prev;
}

/* A fresh slab page of class c (for a user's object: only above the
   reserve); heap_lock held. */
static struct slab *slab_new(int c, int user)
{
	struct slab *s = user ? pages_alloc_user(1) : page_alloc();
	if (!s)
		return 0;
	s->magic = SLAB_MAGIC;
	s->class = c;
	s->nblocks = (PGSIZE - SLAB_HDR) / bsize(c);
	if (memcheck)
		memset(block(s, 0), KPOISON, PGSIZE - SLAB_HDR);
	list_add(s);
	return s;
}

/* A word at a time (blocks are 32-byte aligned multiples of 32): under
   TCG a byte loop over every block handed out was most of a memcheck
   boot's heap cost. The first byte that differs is named. */
static void poison_check(struct slab *s, uint8_t *b)
{
	const uint64_t *w = (const uint64_t *)b;
	for (size_t i = 0; i < bsize(s->class) / 8; i++)
		if (w[i] != KPOISON * 0x0101010101010101UL)
			for (size_t j = i * 8; j < i * 8 + 8; j++)
				if (b[j] != KPOISON)
					panic("kheap: block %p written after free (byte %lu = %#x)", b, j, b[j]);
}

static size_t run_pages(size_t n)
{
	return (n + RUN_HDR + PGSIZE - 1) / PGSIZE;
}

static void *run_alloc(size_t n, int user)
{
	size_t np = run_pages(n);
	struct run *r = user ? pages_alloc_user(np) : pages_alloc(np);
	if (!r)
		return 0;
	r->magic = RUN_MAGIC;
	r->npages = np;
	return (uint8_t *)r + RUN_HDR;
}

/* The smallest class that fits n (<= 2048): log2 of n rounded up, less 5. */
static int class_of(size_t n)
{
	return n <= MINBLOCK ? 0 : 64 - __builtin_clzl(n - 1) - bshift(0);
}

/* n bytes; `user`: for something a user caused, so a page it needs from
   the page allocator must leave the reserve. A block from a page the
   heap already has takes nothing from it, and needs no check. */
static void *alloc(size_t n, int user)
{
	if (n > bsize(NCLASS - 1))
		return run_alloc(n, user);
	int c = class_of(n);
	spin_lock(&heap_lock);
	struct slab *s = partial[c];
	if (!s && !(s = slab_new(c, user))) {
		spin_unlock(&heap_lock);
		return 0;
	}
	int w = ~s->used[0] ? 0 : 1;
	int i = w * 64 + __builtin_ctzl(~s->used[w]);
	s->used[w] |= 1UL << (i % 64);
	if (s->inuse++ == 0 && spare[c] == s) {
		spare[c] = 0;           /* the kept empty page is in use again */
		nspare--;
	}
	if (s->inuse == s->nblocks)
		list_del(s);
	spin_unlock(&heap_lock);
	uint8_t *b = block(s, i);
	if (memcheck)
		poison_check(s, b);
	return b;
}

void *kmalloc(size_t n)
{
	return alloc(n, 0);
}

void *kzalloc(size_t n)
{
	void *p = kmalloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

_Static_assert(KHEAP_MAXBLOCK == (size_t)MINBLOCK << (NCLASS - 1) && KHEAP_RUNHDR == RUN_HDR,
	       "kheap_charge (kernel.h) sizes blocks as the heap does");

/*
 * A kernel object that user code caused and that outlives the
 * syscall (a VP, a segment): charged to sp (sp->kbytes, counted in its
 * quota), and refused (0) past the quota or when the heap would need a
 * page from the kernel's reserve. sp 0, or kmalloc_reserve: the reserve
 * rule only (a space being created charges itself once it exists; a kop
 * is charged through its space's nkops). Scratch buffers freed
 * before their syscall returns use kmalloc: at most one per CPU, they
 * are what the reserve is for.
 */
void *kmalloc_reserve(size_t n)
{
	return alloc(n, 1);
}

void *kmalloc_user(struct space *sp, size_t n)
{
	if (!sp)
		return alloc(n, 1);
	size_t charge = kheap_charge(n);
	if (sp && !mem_quota_ok(sp, charge))
		return 0;
	void *p = alloc(n, 1);
	if (p && sp)
		__atomic_add_fetch(&sp->kbytes, charge, __ATOMIC_RELAXED);
	return p;
}

void *kzalloc_user(struct space *sp, size_t n)
{
	void *p = kmalloc_user(sp, n);
	if (p)
		memset(p, 0, n);
	return p;
}

/* Free p, of n bytes, from k[mz]alloc_user(sp, n). */
void kfree_user(struct space *sp, void *p, size_t n)
{
	__atomic_sub_fetch(&sp->kbytes, kheap_charge(n), __ATOMIC_RELAXED);
	kfree(p);
}

static void run_free(void *p)
{
	struct run *r = (void *)((uint8_t *)p - RUN_HDR);
	if (r->magic != RUN_MAGIC || !r->npages || r->npages > (1UL << 20))
		panic("kfree: %p is not a heap block", p);
	r->magic = 0;               /* a second free finds no tag */
	pages_free(r, r->npages);
}

void kfree(void *p)
{
	if (!p)
		return;
	uint64_t a = (uint64_t)p;
	if (a % PGSIZE == RUN_HDR) {
		run_free(p);
		return;
	}
	struct slab *s = (void *)PGROUNDDOWN(a);
	uint64_t off = a % PGSIZE - SLAB_HDR;   /* wraps if below the header */
	int c = s->class;
	if (s->magic != SLAB_MAGIC || (off & (bsize(c) - 1)) ||
	    (off >> bshift(c)) >= s->nblocks)
		panic("kfree: %p is not a heap block", p);
	int i = off >> bshift(c);
	if (memcheck)
		memset(p, KPOISON, bsize(c));
	struct slab *give = 0;
	spin_lock(&heap_lock);
	if (!((s->used[i / 64] >> (i % 64)) & 1)) {
		spin_unlock(&heap_lock);
		panic("kfree: double free of %p", p);
	}
	s->used[i / 64] &= ~(1UL << (i % 64));
	if (s->inuse-- == s->nblocks)
		list_add(s);            /* was full: has a free block again */
	if (!s->inuse) {
		if (!spare[c]) {        /* keep it, where it is */
			spare[c] = s;
			nspare++;
		} else {
			list_del(s);
			s->magic = 0;
			give = s;
		}
	}
	spin_unlock(&heap_lock);
	if (give)
		page_free(give);
}

/* Empty pages the heap keeps for reuse: available memory all the same. */
uint64_t kheap_spare_pages(void)
{
	return __atomic_load_n(&nspare, __ATOMIC_RELAXED);
}
