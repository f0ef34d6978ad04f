/*
 * malloc: size classes over sys_map.
 *
 * Every block starts with a 16-byte header, so payloads are 16-byte
 * aligned and free() finds the size without a lookup. Blocks up to
 * SMALL_MAX bytes (header included) come from NCLASS size classes spaced
 * about 1.25x apart; each class has a central free list and carves fresh
 * blocks from slabs it maps as needed. Slabs are never returned. Larger
 * requests get their own mapping, unmapped again by free().
 *
 * Each class has its own lock and central free list. In front of them,
 * each VP keeps a cache per class: a short list of free blocks that only
 * code running on that VP touches, so most mallocs and frees take no lock
 * and write no memory another VP uses (the lecture seed's per-thread
 * heaps, per VP: a space has few VPs and many threads). A cache refills
 * from, and drains half of itself to, the central list in batches, one
 * lock round trip per batch. A block freed on another VP than the one it
 * came from simply joins that VP's cache.
 *
 * Two threads of one VP must not interleave on its cache. A cache
 * operation is a few instructions with the VP's software interrupts
 * disabled (the VP page's `disabled` flag): no upcall can switch threads
 * on the VP meanwhile, and the thread cannot move to another VP. Classic
 * VPs get no upcalls at all, so their threads switch only when they call
 * the package, which malloc does not do.
 */
#include <stdlib.h>
#include <animalib/ulib.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <errno.h>
#include <pthread.h>
#include <animart/sys.h>
#include <animart/spin.h>
#include <animart/upcall.h>
#include <animart/fence.h>
#include <animart/aspace.h>

#define HDR        16
#define SMALL_MAX  65536           /* largest class block, header included */
#define NCLASS     44
#define SLAB_MIN   (64 * 1024)
#define BIG        0xffffffffu     /* cls of a block with its own mapping */
#define MAGIC_USED 0xa110c8edu
#define MAGIC_FREE 0xf4eeb10cu

struct block {
	uint32_t magic;
	uint32_t cls;                   /* size class, or BIG */
	union {
		struct {
			uint32_t off;   /* header - block start (aligned_alloc) */
			uint32_t pages; /* BIG: length of the mapping */
		};
		struct block *next;     /* free: next on the class list */
	};
};

/* Memory for the heap, counted in RLIMIT_AS (<animart/aspace.h>): past
   the limit it fails as an out-of-memory map does (malloc returns 0,
   ENOMEM), as Linux's mmap and brk do. */
static void *heap_map(size_t len)
{
	if (as_charge(len))
		return (void *)-ENOMEM;
	void *m = sys_map(0, len, PROT_READ | PROT_WRITE);
	if (sys_failed((long)m))
		as_uncharge(len);
	return m;
}

struct sizeclass {
	struct spin lock;
	struct block *free;             /* central free list */
	char *bump, *end;               /* uncarved rest of the newest slab */
};

static struct sizeclass classes[NCLASS];

/* A VP's caches: the free blocks of each class, and how many. */
struct vcache {
	struct block *head[NCLASS];
	uint32_t n[NCLASS];
	uint32_t cap[NCLASS];           /* cache_cap(c), computed once */
};
static struct vcache *vcaches[MAXVP];    /* by VP index; mapped on first use */

/* det=par's own blocks (<animart/fence.h>): served, sized and freed by
   its heap, with no turn of the token. */
static int heap_alloc(size_t n, size_t align, void **out)
{
	const struct fence_heap *h = __fence_heap;
	return __builtin_expect(h != 0, 0) && h->alloc(n, align, out);
}

static int heap_mine(void *p)
{
	const struct fence_heap *h = __fence_heap;
	return __builtin_expect(h != 0, 0) && h->size(p) != FENCE_NOT_MINE;
}

/* Central trips, counted under the class locks (exact). */
struct malloc_stats malloc_counts;
/* Nonzero: bypass the caches (for progs/mallocbench's comparison). */
int malloc_central_only;

/* Classes 0..7 are 16..128 bytes in steps of 16; above that, each power
 * of two 2^p..2^(p+1) is split in four steps of 2^(p-2). */
static size_t class_size(int c)
{
	if (c < 8)
		return (size_t)(c + 1) * 16;
	int p = 7 + (c - 8) / 4, i = (c - 8) % 4;
	return ((size_t)1 << p) + (size_t)(i + 1) * ((size_t)1 << (p - 2));
}

static int size_class(size_t total)    /* 16 <= total <= SMALL_MAX */
{
	if (total <= 128)
		return (int)((total + 15) / 16) - 1;
	int p = 63 - __builtin_clzll(total - 1);     /* 2^p < total <= 2^(p+1) */
	int i = (int)((total - 1 - ((size_t)1 << p)) >> (p - 2));
	return 8 + (p - 7) * 4 + i;
}

__attribute__((noreturn)) static void corrupt(const char *what, void *p)
{
	printf("malloc: %s %p\n", what, p);
	abort();
}

/* One block of class c from the central list or a slab; sc->lock held.
   0 when memory is out. */
static struct block *central_one(struct sizeclass *sc, int c)
{
	size_t size = class_size(c);
	struct block *b;
	if ((b = sc->free)) {
		if (b->magic != MAGIC_FREE)
			corrupt("free list corrupted (write after free?) at", b);
		sc->free = b->next;
		return b;
	}
	if (sc->bump + size > sc->end) {
		size_t slab = size * 4 > SLAB_MIN ? size * 4 : SLAB_MIN;
		char *m = heap_map(slab);
		if (sys_failed((long)m))
			return 0;
		sc->bump = m;     /* the old slab's tail is abandoned */
		sc->end = m + slab;
	}
	b = (struct block *)sc->bump;
	sc->bump += size;
	b->magic = MAGIC_FREE;
	return b;
}

/* How many blocks of class c a VP keeps at most: 64 KiB worth, within
   [2, 64]. A cache that overflows gives half back. */
static uint32_t cache_cap(int c)
{
	size_t k = 65536 / class_size(c);
	return k < 2 ? 2 : k > 64 ? 64 : (uint32_t)k;
}

/* Refill vc's list of class c (empty) with half a cache; 0 if not even
   one block could be had. */
static int refill(struct vcache *vc, int c)
{
	struct sizeclass *sc = &classes[c];
	uint32_t want = vc->cap[c] / 2, got = 0;
	spin_lock_by(&sc->lock, 0);
	malloc_counts.refills++;
	for (struct block *b; got < want && (b = central_one(sc, c)); got++) {
		b->next = vc->head[c];
		vc->head[c] = b;
	}
	spin_unlock_by(&sc->lock, 0);
	vc->n[c] = got;
	return got > 0;
}

/* vc's list of class c is over its cap: give all but half a cache back. */
static void drain(struct vcache *vc, int c)
{
	struct sizeclass *sc = &classes[c];
	uint32_t keep = vc->cap[c] / 2;
	struct block *first = vc->head[c], *last = first;
	for (uint32_t i = 1; i < vc->n[c] - keep; i++)
		last = last->next;
	vc->head[c] = last->next;
	vc->n[c] = keep;
	spin_lock_by(&sc->lock, 0);
	malloc_counts.drains++;
	last->next = sc->free;
	sc->free = first;
	spin_unlock_by(&sc->lock, 0);
}

/* fork (ulib/pthread/pfork.c): no central list is mid-change in the
   child's copy, as the forking thread holds every class lock across the
   fork; the child forgets the VP caches (another VP may have been in
   the middle of one; their blocks stay unused in the child), so its VP 0
   starts a cache of its own. Software interrupts stay off from prepare
   to parent or child, as around every use of these locks: a thread
   switched out holding one would leave the VP that wants it spinning
   with them off (at -smp 1, for ever: forkposix on fifo hung so). */
static int fork_was;

static void fork_prepare(void)
{
	vp_disable_save_self(&fork_was);
	for (int c = 0; c < NCLASS; c++)
		spin_lock_by(&classes[c].lock, 0);
}

static void fork_parent(void)
{
	for (int c = NCLASS - 1; c >= 0; c--)
		spin_unlock_by(&classes[c].lock, 0);
	vp_restore(vp_self(), fork_was);     /* (in the child, its own new VP page) */
}

/* Called by fork itself (not an atfork handler), so that the locks
   under which malloc is called (the environment's, popen's) are taken
   before these: 0 prepare, 1 parent, 2 child. A program that never called malloc
   is left alone (as when this was an atfork handler registered at the
   first call: a native program's VP page is its own). */
static volatile int used;
static int held;

void __malloc_fork(int phase);
void __malloc_fork(int phase)
{
	if (phase == 0) {
		held = used;
		if (held)
			fork_prepare();
	} else if (held) {
		if (phase == 2)
			memset(vcaches, 0, sizeof vcaches);
		fork_parent();
	}
}

/* The calling VP's caches (disabled), mapped on first use; 0 if out of
   memory, and then the central lists serve alone. */
static struct vcache *vcache(void)
{
	unsigned i = vp_index();
	if (i >= MAXVP)
		return 0;
	struct vcache *vc = vcaches[i];
	if (!vc) {
		used = 1;
		void *m = heap_map(sizeof *vc);
		if (!sys_failed((long)m)) {
			vc = m;
			for (int c = 0; c < NCLASS; c++)
				vc->cap[c] = cache_cap(c);
			vcaches[i] = vc;
		}
	}
	return vc;
}

/* A block of class c, or 0 when memory is out. */
static struct block *central_alloc(int c)
{
	spin_lock_by(&classes[c].lock, 0);
	struct block *b = central_one(&classes[c], c);
	spin_unlock_by(&classes[c].lock, 0);
	return b;
}

static void central_free(struct block *b, int c)
{
	spin_lock_by(&classes[c].lock, 0);
	b->next = classes[c].free;
	classes[c].free = b;
	spin_unlock_by(&classes[c].lock, 0);
}

static struct block *class_alloc(int c)
{
	if (malloc_central_only)
		return central_alloc(c);
	int was;
	struct vp_page *vpp = vp_disable_save_self(&was);   /* see the top */
	struct vcache *vc = vcache();
	struct block *b = 0;
	if (!vc)
		b = central_alloc(c);
	else if (vc->n[c] || refill(vc, c)) {
		b = vc->head[c];
		if (b->magic != MAGIC_FREE)
			corrupt("free list corrupted (write after free?) at", b);
		vc->head[c] = b->next;
		vc->n[c]--;
	}
	vp_restore(vpp, was);
	return b;
}

/* Return block b (marked free) of class c. */
static void class_free(struct block *b, int c)
{
	if (malloc_central_only) {
		central_free(b, c);
		return;
	}
	int was;
	struct vp_page *vpp = vp_disable_save_self(&was);   /* see the top */
	struct vcache *vc = vcache();
	if (!vc)
		central_free(b, c);
	else {
		b->next = vc->head[c];
		vc->head[c] = b;
		if (++vc->n[c] > vc->cap[c])
			drain(vc, c);
	}
	vp_restore(vpp, was);
}

static struct block *big_alloc(size_t n)
{
	if (n > ((size_t)1 << 46))
		return 0;
	size_t len = (n + HDR + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);
	struct block *b = heap_map(len);
	if (sys_failed((long)b))
		return 0;
	b->pages = (uint32_t)(len / PAGE_SIZE);
	return b;
}

/* A used block with room for n payload bytes; its header is filled in. */
static struct block *block_alloc(size_t n)
{
	struct block *b;
	uint32_t cls;
	if (n <= SMALL_MAX - HDR) {
		cls = (uint32_t)size_class(n + HDR);
		b = class_alloc((int)cls);
		if (b)
			b->pages = 0;
	} else {
		cls = BIG;
		b = big_alloc(n);
	}
	if (!b) {
		errno = ENOMEM;
		return 0;
	}
	b->magic = MAGIC_USED;
	b->cls = cls;
	b->off = 0;
	return b;
}

void *malloc(size_t n)
{
	void *p;
	if (heap_alloc(n, HDR, &p))
		return p;
	FENCED(malloc(n));
	struct block *b = block_alloc(n);
	return b ? (char *)b + HDR : 0;
}

void *aligned_alloc(size_t align, size_t n)
{
	void *q;
	if (align && !(align & (align - 1)) && heap_alloc(n, align, &q))
		return q;
	FENCED(aligned_alloc(align, n));
	if (align == 0 || (align & (align - 1))) {
		errno = EINVAL;
		return 0;
	}
	if (align <= HDR)
		return malloc(n);
	if (n > ((size_t)1 << 46))
		return 0;
	struct block *b = block_alloc(n + align);
	if (!b)
		return 0;
	/* Place a second header just below the aligned payload; it points
	 * back at the block's own header with off. */
	uintptr_t p = ((uintptr_t)b + HDR + align - 1) & ~(uintptr_t)(align - 1);
	struct block *h = (struct block *)(p - HDR);
	if (h != b) {
		h->magic = MAGIC_USED;
		h->cls = b->cls;
		h->off = (uint32_t)((char *)h - (char *)b);
		h->pages = b->pages;
	}
	return (void *)p;
}

static struct block *header(void *p)
{
	struct block *h = (struct block *)((char *)p - HDR);
	if (h->magic != MAGIC_USED)
		corrupt(h->magic == MAGIC_FREE ? "double free of" : "free of a bad pointer", p);
	return h;
}

void free(void *p)
{
	if (!p)
		return;              /* (no turn of det=par's token for nothing) */
	if (heap_mine(p)) {
		__fence_heap->free(p);
		return;
	}
	FENCED_VOID(free(p));
	struct block *h = header(p);
	struct block *b = (struct block *)((char *)h - h->off);
	h->magic = MAGIC_FREE;
	if (h->cls == BIG) {
		size_t len = (size_t)h->pages * PAGE_SIZE;   /* (the header goes with the unmap) */
		if (!sys_unmap(b, len))
			as_uncharge(len);
		return;
	}
	if (h->cls >= NCLASS)
		corrupt("free of a bad pointer", p);
	b->magic = MAGIC_FREE;
	class_free(b, (int)h->cls);
}

size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (heap_mine(p))
		return __fence_heap->size(p);
	struct block *h = header(p);
	size_t size = h->cls == BIG ? (size_t)h->pages * PAGE_SIZE : class_size((int)h->cls);
	return size - HDR - h->off;
}

void *calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return 0;
	}
	void *q;
	if (heap_alloc(n * size, HDR, &q)) {
		if (q)
			memset(q, 0, n * size);
		return q;
	}
	FENCED(calloc(n, size));
	void *p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

/* A block that already has room is kept (so is one for realloc(p, 0):
 * a minimal live block, as in musl). */
void *realloc(void *p, size_t n)
{
	if (!p)
		return malloc(n);
	if (!heap_mine(p))           /* (det=par's blocks: no turn) */
		FENCED(realloc(p, n));
	size_t have = malloc_usable_size(p);
	if (n <= have)
		return p;
	void *q = malloc(n);
	if (q) {
		memcpy(q, p, have);
		free(p);
	}
	return q;
}
