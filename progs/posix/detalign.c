/*
 * detalign: threads that allocate aligned blocks in a loop, for det=par's
 * heap (threadpkgs/det/heap.c). Usage: detalign [THREADS [ITERS]] (4, 400).
 *
 * Each thread, with no synchronization in its loop, keeps a window of
 * WIN live blocks and replaces one per step with a block from
 * posix_memalign, aligned_alloc, memalign or valloc in turn (alignments
 * 16 to 4096, sizes up to 3 KiB), fills it, mallocs and frees blocks
 * of 1 to 8 and of 16 bytes (16-byte aligned too), and every fifth step grows
 * one with realloc. It checks that every block is aligned as asked,
 * that malloc_usable_size covers it and that its bytes survive until
 * free (`bad` counts failures), and hashes the blocks' addresses. It
 * ends with
 *   @result {"name":"detalign","threads":T,"iters":N,"calls":C,"bad":B,
 *   "sig":"<hash of the addresses and sizes>","lo":"<lowest block>",
 *   "hi":"<highest>"}
 * Under det=par the blocks come from the thread's arena, in the isolated
 * heap, without a turn of the token: `lo` and `hi` are in the heap's
 * range, and
 * sig is the same at any -smp.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 16
#define WIN  8

static int nthreads, iters;
static uint64_t sigs[MAXT], calls[MAXT], bads[MAXT];
static uintptr_t los[MAXT], his[MAXT];

static uint64_t fnv(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
	return h;
}

/* Block k of a thread: which call, how aligned, how long. */
static void *get(int k, size_t *align, size_t n)
{
	void *p = 0;
	*align = (size_t)16 << (k % 9);
	switch (k % 4) {
	case 0:
		if (posix_memalign(&p, *align, n))
			p = 0;
		break;
	case 1:
		p = aligned_alloc(*align, n);
		break;
	case 2:
		p = memalign(*align, n);
		break;
	default:
		*align = 4096;
		p = valloc(n);
	}
	return p;
}

static int intact(const unsigned char *p, size_t n, unsigned char v)
{
	return !n || (p[0] == v && p[n / 2] == v && p[n - 1] == v);
}

/* A small malloc'd block is 16-byte aligned and has the room asked
   (after one of the smallest class, det=par's heap gave neither). */
static int tiny(size_t n)
{
	void *p = malloc(n);
	int ok = p && !((uintptr_t)p & 15) && malloc_usable_size(p) >= n;
	free(p);
	return ok;
}

static void *worker(void *arg)
{
	int id = (int)(intptr_t)arg;
	unsigned char *blk[WIN] = { 0 };
	size_t len[WIN] = { 0 };
	uint64_t h = 0xcbf29ce484222325ULL, bad = 0, n_calls = 0;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int k = 0; k < iters; k++) {
		int w = k % WIN;
		unsigned char v = (unsigned char)(id * 16 + w + 1);
		if (blk[w]) {
			bad += !intact(blk[w], len[w], v);
			free(blk[w]);
		}
		size_t align, n = 1 + (size_t)(k * 37 + id * 101) % 3000;
		unsigned char *p = get(k + id, &align, n);
		n_calls++;
		if (!p || ((uintptr_t)p & (align - 1)) || malloc_usable_size(p) < n) {
			bad++;
			blk[w] = 0;
			continue;
		}
		memset(p, v, n);
		bad += !tiny(1 + (size_t)k % 8) + !tiny(16);
		if (k % 5 == 4) {              /* realloc keeps the bytes it had */
			unsigned char *q = realloc(p, n + 500);
			if (!q || !intact(q, n, v)) {
				bad++;
				blk[w] = 0;
				continue;
			}
			p = q;
			memset(p, v, n += 500);
		}
		blk[w] = p;
		len[w] = n;
		lo = (uintptr_t)p < lo ? (uintptr_t)p : lo;
		hi = (uintptr_t)p > hi ? (uintptr_t)p : hi;
		h = fnv(fnv(h, (uintptr_t)p), malloc_usable_size(p));
	}
	for (int w = 0; w < WIN; w++)
		free(blk[w]);
	sigs[id] = h;
	calls[id] = n_calls;
	bads[id] = bad;
	los[id] = lo;
	his[id] = hi;
	return 0;
}

int main(int argc, char **argv)
{
	nthreads = argc > 1 ? atoi(argv[1]) : 4;
	iters = argc > 2 ? atoi(argv[2]) : 400;
	if (nthreads < 1 || nthreads > MAXT || iters < 1) {
		printf("detalign: bad arguments (1-%d threads, iters >= 1)\n", MAXT);
		return 2;
	}
	pthread_t t[MAXT];
	for (int i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], 0, worker, (void *)(intptr_t)i)) {
			printf("detalign: pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], 0);
	uint64_t sig = 0xcbf29ce484222325ULL, c = 0, bad = 0;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < nthreads; i++) {
		sig = fnv(sig, sigs[i]);
		c += calls[i];
		bad += bads[i];
		lo = los[i] < lo ? los[i] : lo;
		hi = his[i] > hi ? his[i] : hi;
	}
	printf("@result {\"name\":\"detalign\",\"threads\":%d,\"iters\":%d,\"calls\":%llu,"
	       "\"bad\":%llu,\"sig\":\"%016llx\",\"lo\":\"%#lx\",\"hi\":\"%#lx\"}\n", nthreads, iters,
	       (unsigned long long)c, (unsigned long long)bad, (unsigned long long)sig,
	       (unsigned long)lo, (unsigned long)hi);
	return 0;
}
