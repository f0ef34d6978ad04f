/*
 * mallocstress PKG VPS THREADS OPS: malloc and free from many threads on
 * several VPs at once, with preemption, fifo's time slices and
 * migration, checking every block's contents and counting how often the
 * per-VP caches went to the central lists.
 *
 * Each thread keeps SLOTS live blocks of random sizes (16 B to 8 KiB,
 * and now and then 80 KiB: a block with its own mapping), each filled
 * with a pattern of (thread, slot, generation). An operation picks a slot:
 * an empty one gets a new block; a full one is checked, then either freed
 * by this thread or swapped into a shared mailbox, from which some thread
 * (most likely on another VP) takes the previous occupant, checks it and
 * frees it. So blocks often die on a VP other than their birth VP.
 *
 * Prints
 *   @result {"name": "mallocstress", "package", "vps", "threads", "ops",
 *            "bad": blocks whose contents were wrong,
 *            "refills", "drains": central trips of the per-VP caches,
 *            "small_ops": mallocs + frees of cached sizes}
 * and exits 0 iff bad == 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animalib/ulib.h>
#include <string.h>
#include <animalib/result.h>
#include <animalib/rng.h>
#include <animart/thread.h>
#include "apppkg.h"

#define SLOTS    32
#define MAILBOX  64
#define BIGSIZE  (80 * 1024)

static const struct pkg *P;
static int nvps, nthreads;
static long ops;
static volatile long bad, small_ops;

struct blk {
	uint64_t tag;            /* thread << 40 | slot << 32 | generation */
	size_t size;
};

static void *mailbox[MAILBOX];

static uint64_t word(uint64_t tag, size_t i)
{
	return tag * 0x9e3779b97f4a7c15ull + i;
}

static void *make(uint64_t tag, size_t size)
{
	struct blk *b = malloc(size);
	if (!b)
		return 0;
	b->tag = tag;
	b->size = size;
	uint64_t *w = (uint64_t *)(b + 1);
	for (size_t i = 0; i < (size - sizeof *b) / 8; i++)
		w[i] = word(tag, i);
	return b;
}

/* Check and free b; counts a bad block. */
static void kill(struct blk *b)
{
	uint64_t *w = (uint64_t *)(b + 1);
	int ok = b->size >= sizeof *b && malloc_usable_size(b) >= b->size;
	for (size_t i = 0; ok && i < (b->size - sizeof *b) / 8; i++)
		ok = w[i] == word(b->tag, i);
	if (!ok && __atomic_fetch_add(&bad, 1, __ATOMIC_RELAXED) < 5)
		printf("mallocstress: block %p (tag %#lx) was overwritten\n", (void *)b, b->tag);
	free(b);
}

static void *worker(void *arg)
{
	long me = (long)arg, n = ops / nthreads, small = 0;
	uint64_t rng = (uint64_t)me * 7919 + 1, gen = 0;
	struct blk *slot[SLOTS] = { 0 };
	for (long k = 0; k < n; k++) {
		int s = (int)rand_below(&rng, SLOTS);
		if (!slot[s]) {
			size_t size = rand_below(&rng, 64) ? 16 + rand_below(&rng, 8192) : BIGSIZE;
			size &= ~7UL;
			if (size < sizeof(struct blk))
				size = sizeof(struct blk);
			slot[s] = make((uint64_t)me << 40 | (uint64_t)s << 32 | gen++, size);
			if (!slot[s]) {
				printf("mallocstress: out of memory\n");
				exit(1);
			}
			small += size < 60000;
		} else if (rand_below(&rng, 2)) {
			small += slot[s]->size < 60000;
			kill(slot[s]);
			slot[s] = 0;
		} else {
			small += slot[s]->size < 60000;
			struct blk *old = __atomic_exchange_n((struct blk **)&mailbox[rand_below(&rng, MAILBOX)],
							      slot[s], __ATOMIC_ACQ_REL);
			slot[s] = 0;
			if (old)
				kill(old);
		}
		if (k % 64 == 0)
			thread_yield();
	}
	for (int s = 0; s < SLOTS; s++)
		if (slot[s]) {
			small += slot[s]->size < 60000;
			kill(slot[s]);
		}
	__atomic_fetch_add(&small_ops, small, __ATOMIC_RELAXED);
	return 0;
}

static void *main_fn(void *arg)
{
	struct thread **t = malloc(sizeof *t * (size_t)nthreads);
	struct malloc_stats s0 = malloc_counts;
	if (!t) {
		printf("mallocstress: out of memory\n");
		return (void *)1;
	}
	app_fork_join(P, nthreads, worker, t);
	for (int i = 0; i < MAILBOX; i++)
		if (mailbox[i])
			kill(mailbox[i]);
	struct result r;
	result_begin(&r, "mallocstress");
	result_str(&r, "package", P->name);
	result_int(&r, "vps", nvps);
	result_int(&r, "threads", nthreads);
	result_int(&r, "ops", ops);
	result_int(&r, "bad", bad);
	result_uint(&r, "refills", malloc_counts.refills - s0.refills);
	result_uint(&r, "drains", malloc_counts.drains - s0.drains);
	result_int(&r, "small_ops", small_ops);
	result_end(&r);
	return arg ? arg : (void *)(intptr_t)(bad ? 1 : 0);
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 5, "mallocstress PKG VPS THREADS OPS");
	nvps = app_vps(argv[2]);
	nthreads = atoi(argv[3]);
	ops = atol(argv[4]);
	if (nthreads < 1 || ops < nthreads) {
		printf("mallocstress: bad arguments\n");
		return 2;
	}
	P->run(nvps, main_fn, 0);
}
