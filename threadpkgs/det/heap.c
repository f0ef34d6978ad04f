/*
 * det=par's heap: DTHREADS's per-thread sub-heaps, in an isolated range.
 *
 * The heap is one demand-zero range at a fixed address (HEAP_BASE, as
 * long as a view allows beside the program's data), which every det VP
 * enters into its view beside __prog_data..: so malloc'd memory is
 * versioned like the globals (a thread's stores there are its own until
 * its next fence, and commits merge by bytes in the token's order), and
 * a racy program's heap gives the same result every run.
 *
 * Each thread allocates from an arena of its own: size classes about
 * 1.4x apart (16, 24, 32, 48, ... 128 KiB, header included) carved from
 * 1 MiB chunks, and spans of whole pages above that. An arena's records
 * live in its first chunk (in the view: only its thread writes them). A
 * block freed goes to the freeing thread's arena, whoever made it, so
 * no arena is ever written by two threads. So a malloc or free between
 * fences is the thread's own business and needs no turn of the token,
 * and threads never share a page through the allocator (DTHREADS: no
 * false sharing). Only a new chunk or span from the range, and a new
 * arena, take a turn (grab): the range is handed out in the token's
 * order, so every address is a function of the program and its argv
 * alone, at any -smp. An exited thread's arena goes to a list that the
 * next thread needing one adopts.
 *
 * A malloc inside a serial operation (the runtime's own: a new thread's
 * records, stack and TLS, which other VPs read outside any view) or from
 * a thread of no det VP is not served here: the library's central lists
 * serve it, in the token's order. So does one the range cannot hold any
 * more (counted: `fallback`); such blocks are shared directly. Memory is
 * not given back to the kernel before the space ends; its pages are
 * charged to the space when first touched, as any demand-zero page.
 * RLIMIT_AS (<animart/aspace.h>) counts the range as it is handed out,
 * not as reserved, and never less (as a heap that never shrinks): past
 * the limit a grab fails, and the library's malloc, failing too, says
 * ENOMEM.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/fence.h>
#include <animart/aspace.h>
#include <anima/view.h>
#include "heap.h"

#define HEAP_BASE  0x0000040000000000UL   /* 4 TiB: below the segment window */
#define CHUNK      (1UL << 20)
#define HDR        16
#define NCL        27                     /* class 26: 128 KiB */
#define BIGC       0xffffffffu            /* cls of a span */
#define MAGIC_USED 0xde7a110cu
#define MAGIC_FREE 0xde7f4ee0u

extern char __prog_data[], __prog_data_end[];

struct hblk {
	uint32_t magic, cls;                    /* cls: a class, or BIGC */
	union {
		struct { uint32_t off, pages; } u;  /* used: header - block start
						       (aligned), a span's pages */
		struct hblk *next;              /* free: on its arena's list */
	};
};

struct arena {
	struct hblk *free[NCL];
	struct hblk *spans;                     /* freed spans, first fit */
	char *bump, *end;                       /* the rest of its newest chunk */
	struct arena *next;                     /* on the orphans' list */
};

/* Changed only by the token's holder (outside every view); fallback and
   stray by anyone, atomically (a sum: the same whatever the order). */
static char *top, *lim;                         /* the range not handed out */
static struct arena *orphans;
static struct { uint64_t turns, chunks, spans, arenas, fallback, stray; } hs;

static size_t csize(int c)
{
	return (size_t)(c & 1 ? 24 : 16) << (c >> 1);
}

static int cls_of(size_t total)          /* 0 < total <= csize(NCL - 1) */
{
	if (total <= 16)
		return 0;
	int k = 63 - __builtin_clzll(total - 1);       /* 2^k < total <= 2^(k+1) */
	return total <= (size_t)3 << (k - 1) ? 2 * (k - 4) + 1 : 2 * (k - 3);
}

static int mine(void *p)
{
	return (char *)p >= (char *)HEAP_BASE && (char *)p < lim;
}

/* par.c: whether [p, p+n) meets the heap's range (in every view). */
int heap_meets(const void *p, uint64_t n)
{
	return (const char *)p < lim && (const char *)p + n > (char *)HEAP_BASE;
}

__attribute__((noreturn)) static void corrupt(const char *what, void *p)
{
	printf("det heap: %s %p\n", what, p);
	abort();
}

/* n bytes of the range in a turn of the token (whoever holds it: a
   serial operation, or before the threads), counted in *what: 0 when it
   is used up. */
static char *grab(size_t n, uint64_t *what)
{
	int t = __fence_enter();
	char *p = 0;
	if (t)
		hs.turns++;
	if ((size_t)(lim - top) >= n && !as_charge(n)) {   /* (RLIMIT_AS: what is handed out) */
		p = top;
		top += n;
		(*what)++;
		par_cover();             /* before the caller touches it */
	}
	if (t)
		__fence_exit();
	return p;
}

/* A new arena: an orphan, else one in a fresh chunk; in a turn. */
static struct arena *arena_new(void)
{
	int t = __fence_enter();
	if (t)
		hs.turns++;
	struct arena *a = orphans;
	if (a)
		orphans = a->next;
	else if ((size_t)(lim - top) >= CHUNK && !as_charge(CHUNK)) {
		a = (struct arena *)top;
		top += CHUNK;
		par_cover();
		a->bump = (char *)a + ((sizeof *a + 63) & ~63UL);
		a->end = (char *)a + CHUNK;
		hs.arenas++;
		hs.chunks++;
	}
	if (t)
		__fence_exit();
	return a;
}

static struct arena *arena(void **slot)
{
	if (!*slot)
		*slot = arena_new();
	return *slot;
}

static struct hblk *small(struct arena *a, int c)
{
	struct hblk *b = a->free[c];
	if (b) {
		if (b->magic != MAGIC_FREE)
			corrupt("free list corrupted (write after free?) at", b);
		a->free[c] = b->next;
		return b;
	}
	/* Carved in multiples of 16 (class 24 takes 32): every block, and so
	   every payload malloc promises 16-byte aligned, stays so. */
	size_t sz = (csize(c) + HDR - 1) & ~(size_t)(HDR - 1);
	if ((size_t)(a->end - a->bump) < sz) {
		char *m = grab(CHUNK, &hs.chunks);   /* the old chunk's tail is abandoned */
		if (!m)
			return 0;
		a->bump = m;
		a->end = m + CHUNK;
	}
	b = (struct hblk *)a->bump;
	a->bump += sz;
	return b;
}

/* A span of whole pages: a freed one of the arena's that fits without
   wasting half, else a fresh one. (A free span keeps its length in cls:
   next shares its bytes with pages.) */
static struct hblk *span(struct arena *a, size_t total)
{
	size_t pages = (total + PAGE_SIZE - 1) / PAGE_SIZE;
	if (pages > 0xffffffffUL)
		return 0;
	for (struct hblk **pp = &a->spans; *pp; pp = &(*pp)->next)
		if ((*pp)->cls >= pages && (*pp)->cls <= 2 * pages) {
			struct hblk *b = *pp;
			*pp = b->next;
			b->u.pages = b->cls;
			return b;
		}
	struct hblk *b = (struct hblk *)grab(pages * PAGE_SIZE, &hs.spans);
	if (b)
		b->u.pages = (uint32_t)pages;
	return b;
}

/* The served block for n bytes aligned to align (a power of two), or
   0 for none: the library's malloc serves the caller. */
static int alloc(size_t n, size_t align, void **out)
{
	int between;
	void **slot = par_arena(&between);
	struct arena *a;
	if (slot && !between)
		par_central();           /* (a fence comes next) */
	if (!slot || !between || n > ((size_t)1 << 40) || !(a = arena(slot)))
		return 0;
	size_t total = n + HDR + (align > HDR ? align : 0);
	struct hblk *b;
	uint32_t c = BIGC;
	if (total <= csize(NCL - 1)) {
		c = (uint32_t)cls_of(total);
		if ((b = small(a, (int)c)))
			b->u.pages = 0;
	} else
		b = span(a, total);
	if (!b) {
		__atomic_fetch_add(&hs.fallback, 1, __ATOMIC_RELAXED);   /* (between fences) */
		return 0;
	}
	b->magic = MAGIC_USED;
	b->cls = c;
	b->u.off = 0;
	uintptr_t p = ((uintptr_t)b + HDR + align - 1) & ~(uintptr_t)(align - 1);
	struct hblk *h = (struct hblk *)(p - HDR);
	if (h != b) {                            /* a second header, as malloc.c's */
		*h = *b;
		h->u.off = (uint32_t)((char *)h - (char *)b);
	}
	*out = (void *)p;
	return 1;
}

static struct hblk *header(void *p)
{
	struct hblk *h = (struct hblk *)((char *)p - HDR);
	if (h->magic != MAGIC_USED)
		corrupt(h->magic == MAGIC_FREE ? "double free of" : "free of a bad pointer", p);
	if (h->cls != BIGC && h->cls >= NCL)
		corrupt("free of a bad pointer", p);
	return h;
}

static size_t size(void *p)
{
	if (!mine(p))
		return FENCE_NOT_MINE;
	struct hblk *h = header(p);
	size_t sz = h->cls == BIGC ? (size_t)h->u.pages * PAGE_SIZE : csize((int)h->cls);
	return sz - HDR - h->u.off;
}

/* p goes to the caller's arena (made if need be: in a turn), whoever's
   it was. A thread of no det VP (none in det=par's programs) drops it. */
static void hfree(void *p)
{
	struct hblk *h = header(p), *b = (struct hblk *)((char *)h - h->u.off);
	int between;
	void **slot = par_arena(&between);
	struct arena *a = slot ? arena(slot) : 0;
	h->magic = b->magic = MAGIC_FREE;
	if (!a) {
		__atomic_fetch_add(&hs.stray, 1, __ATOMIC_RELAXED);
		return;
	}
	if (h->cls == BIGC) {
		b->cls = h->u.pages;
		b->next = a->spans;
		a->spans = b;
		return;
	}
	b->next = a->free[h->cls];
	a->free[h->cls] = b;
}

static const struct fence_heap ops = { .alloc = alloc, .size = size, .free = hfree };

/* The thread's last turn: its arena for the next thread that needs one. */
void heap_exit(void **slot)
{
	struct arena *a = *slot;
	if (!a)
		return;
	a->next = orphans;
	orphans = a;
	*slot = 0;
}

static void heap_report(void)
{
	printf("@result {\"name\":\"det.heap\",\"base\":%lu,\"used\":%lu,\"turns\":%lu,"
	       "\"arenas\":%lu,\"chunks\":%lu,\"spans\":%lu,\"fallback\":%lu,\"stray\":%lu}\n",
	       HEAP_BASE, (unsigned long)(top - (char *)HEAP_BASE), (unsigned long)hs.turns,
	       (unsigned long)hs.arenas, (unsigned long)hs.chunks, (unsigned long)hs.spans,
	       (unsigned long)hs.fallback, (unsigned long)hs.stray);
}

/* The range: as long as a view holds beside the program's data. Without
   it (a map refused) det=par runs with the library's malloc alone. */
void heap_init(void)
{
	uint64_t pd = (uint64_t)(__prog_data_end - __prog_data);
	uint64_t len = VIEW_MAXLEN > pd ? VIEW_MAXLEN - pd : 0;
	if (!len || sys_failed(syscall4(SYS_map, HEAP_BASE, len,
					      PROT_READ | PROT_WRITE | MAP_LAZY, 0))) {
		printf("det: no heap range; malloc'd memory is not isolated\n");
		return;
	}
	top = (char *)HEAP_BASE;
	lim = top + len;
	__fence_heap = &ops;
	atexit(heap_report);
}

/*
 * A view takes the range in pieces, as it is handed out: 2, 4, 8, ...
 * MiB from HEAP_BASE (VIEW_MAXRANGES - 1 of them at most, the last up
 * to lim), each entered once the range handed out reaches it. A view's
 * tables (a PT and a twin index per 2 MiB of its ranges, built at
 * view_enter: kernel/view.c) then grow with the heap in use, not with
 * its reach: the whole range cost every VP's view 1 MiB, and 255 live
 * threads 300 MiB (bigstack).
 */
static char *piece(int i)            /* piece i's start */
{
	char *p = (char *)HEAP_BASE + VIEW_ALIGN * ((1UL << i) - 1);
	return p < lim ? p : lim;
}

/* The pieces the range handed out (up to top) reaches: as the holder of
   the token moves top (grab, arena_new), read by threads after a wait
   for the token or a parallel phase (or by the holder itself). */
int heap_pieces(void)
{
	int n = 0;
	while (n < VIEW_MAXRANGES - 1 && piece(n) < top)
		n++;
	return n;
}

void heap_enter(int i)
{
	char *end = i == VIEW_MAXRANGES - 2 ? lim : piece(i + 1);
	long r = syscall2(SYS_view_enter, (uint64_t)piece(i), (uint64_t)(end - piece(i)));
	if (r < 0) {
		printf("det: cannot enter a view of the heap (%ld)\n", r);
		exit(70);
	}
}
