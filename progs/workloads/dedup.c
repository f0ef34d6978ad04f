/*
 * dedup (PARSEC style): compress a stream by removing repeated chunks.
 * A pipeline of stages joined by bounded queues (queue.h): one thread
 * cuts the input into content-defined chunks (a rolling hash picks the
 * boundaries, so repeated data gives repeated chunks), T threads hash
 * each chunk and look it up in a shared table (a mutex per bucket
 * stripe), T threads compress the chunks seen for the first time (a
 * small LZ77), and one thread writes the chunks out in order: a
 * compressed chunk, or a reference to the earlier one. The check: the
 * output, decoded alone, is the input.
 */
#define WL_INPUT 1
#include "wl.h"
#include "queue.h"

#define INPUT (2u << 20)              /* bytes, times SCALE */
#define MINC 512
#define MAXC 8192
#define BUCKETS 4096
#define STRIPES 64

struct chunk {
	long seq, ref;                /* ref: seq of the first copy, or -1 */
	const unsigned char *p;
	int len, clen;
	uint64_t h;
	unsigned char *z;             /* compressed bytes */
	struct chunk *next;           /* in its hash bucket */
};

static unsigned char *in, *out;
static size_t inlen, outlen;
static int nthr;
static struct queue q1, q2, q3;
static struct chunk *bucket[BUCKETS];
static pthread_mutex_t stripe[STRIPES];
static uint64_t gear[256];
static long nchunks, ndup;

static void *chunker(void *arg)
{
	(void)arg;
	long seq = 0;
	for (size_t at = 0; at < inlen;) {
		size_t i = at + MINC;
		uint64_t h = 0;
		for (; i < inlen && i < at + MAXC; i++) {
			h = (h << 1) + gear[in[i]];
			if (!(h & 0x7ff00000000ull))   /* about 1 in 2048: 2.5 KiB chunks */
				break;
		}
		if (i > inlen)
			i = inlen;
		struct chunk *c = calloc(1, sizeof *c);
		c->seq = seq++, c->p = in + at, c->len = (int)(i - at), c->ref = -1;
		q_put(&q1, c);
		at = i;
	}
	nchunks = seq;
	q_close(&q1);
	return 0;
}

static uint64_t hash(const unsigned char *p, int len)
{
	uint64_t h = 0x6a09e667f3bcc909ull ^ (uint64_t)len;
	for (int i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull + (h >> 41);
	return h;
}

static void *hasher(void *arg)
{
	(void)arg;
	for (struct chunk *c; (c = q_get(&q1));) {
		c->h = hash(c->p, c->len);
		int b = (int)(c->h % BUCKETS);
		pthread_mutex_t *m = &stripe[b % STRIPES];
		pthread_mutex_lock(m);
		struct chunk *o = bucket[b];
		while (o && !(o->h == c->h && o->len == c->len && !memcmp(o->p, c->p, c->len)))
			o = o->next;
		if (o && o->seq < c->seq)
			c->ref = o->seq;
		else {                    /* first seen (or earlier in order than the one seen) */
			c->next = bucket[b];
			bucket[b] = c;
		}
		pthread_mutex_unlock(m);
		q_put(&q2, c);
	}
	q_close(&q2);
	return 0;
}

/* LZ77: a byte t < 128 is t+1 literals; t >= 128 a match of t-124 bytes
 * at the 16-bit distance that follows. */
static int lz(const unsigned char *p, int n, unsigned char *z)
{
	uint16_t last[4096];
	memset(last, 0xff, sizeof last);
	int o = 0, lit = -1;
	for (int i = 0; i < n;) {
		int best = 0, dist = 0;
		if (i + 4 <= n) {
			uint32_t k = (uint32_t)p[i] | p[i + 1] << 8 | p[i + 2] << 16 | (uint32_t)p[i + 3] << 24;
			int h = (int)((k * 2654435761u) >> 20), c = last[h];
			last[h] = (uint16_t)i;
			if (c != 0xffff && c < i)
				while (best < 131 && i + best < n && p[c + best] == p[i + best])
					best++;
			dist = i - c;
		}
		if (best >= 4) {
			z[o++] = (unsigned char)(best + 124);
			z[o++] = (unsigned char)dist, z[o++] = (unsigned char)(dist >> 8);
			i += best, lit = -1;
		} else {
			if (lit < 0 || z[lit] == 127)
				lit = o, z[o++] = 0xff;        /* becomes 0 on the first byte */
			z[lit]++;
			z[o++] = p[i++];
		}
	}
	return o;
}

static int unlz(const unsigned char *z, int zn, unsigned char *p)
{
	int o = 0;
	for (int i = 0; i < zn;) {
		int t = z[i++];
		if (t < 128) {
			memcpy(p + o, z + i, t + 1);
			i += t + 1, o += t + 1;
		} else {
			int len = t - 124, dist = z[i] | z[i + 1] << 8;
			i += 2;
			for (int k = 0; k < len; k++, o++)
				p[o] = p[o - dist];
		}
	}
	return o;
}

static void *compressor(void *arg)
{
	(void)arg;
	for (struct chunk *c; (c = q_get(&q2));) {
		if (c->ref < 0) {
			c->z = wl_alloc(c->len + c->len / 64 + 16);
			c->clen = lz(c->p, c->len, c->z);
		}
		q_put(&q3, c);
	}
	q_close(&q3);
	return 0;
}

/* Output records: 'Z' len32 bytes, or 'R' seq32. */
static void *writer(void *arg)
{
	(void)arg;
	struct chunk **wait = calloc(inlen / MINC + 2, sizeof *wait);
	long next = 0;
	for (struct chunk *c; (c = q_get(&q3));) {
		wait[c->seq] = c;
		for (; wait[next]; next++) {
			struct chunk *w = wait[next];
			uint32_t v = w->ref < 0 ? (uint32_t)w->clen : (uint32_t)w->ref;
			out[outlen++] = w->ref < 0 ? 'Z' : 'R';
			memcpy(out + outlen, &v, 4);
			outlen += 4;
			if (w->ref < 0) {
				memcpy(out + outlen, w->z, w->clen);
				outlen += w->clen;
			} else
				ndup++;
		}
	}
	free(wait);
	return 0;
}

static void *stage(void *arg)
{
	long i = (long)arg;
	if (i == 0)
		return chunker(0);
	if (i == 1)
		return writer(0);
	return i < 2 + nthr ? hasher(0) : compressor(0);
}

static int check(void)
{
	unsigned char *dec = wl_alloc(inlen + MAXC);
	size_t *start = wl_alloc((inlen / MINC + 2) * sizeof *start);
	int *len = wl_alloc((inlen / MINC + 2) * sizeof *len);
	size_t d = 0;
	long seq = 0;
	for (size_t i = 0; i < outlen; seq++) {
		uint32_t v;
		memcpy(&v, out + i + 1, 4);
		start[seq] = d;
		if (out[i] == 'Z') {
			len[seq] = unlz(out + i + 5, (int)v, dec + d);
			i += 5 + v;
		} else {
			memcpy(dec + d, dec + start[v], len[v]);
			len[seq] = len[v];
			i += 5;
		}
		d += len[seq];
	}
	return seq == nchunks && d == inlen && !memcmp(dec, in, inlen);
}

/* The input: pieces of a few text-like blocks, so chunks repeat and
   compress (-o saves it). */
static void generate(int scale, uint64_t s)
{
	inlen = (size_t)INPUT * scale;
	in = wl_alloc(inlen);
	/* 48 source blocks of 1-8 KiB of text-like bytes */
	enum { NB = 48 };
	unsigned char *blk[NB];
	int blen[NB];
	for (int b = 0; b < NB; b++) {
		blen[b] = 1024 + (int)(wl_rand(&s) % 7168);
		blk[b] = wl_alloc(blen[b]);
		for (int i = 0; i < blen[b]; i++) {
			uint64_t r = wl_rand(&s);   /* often a byte seen shortly before */
			blk[b][i] = i >= 16 && r % 4 ? blk[b][i - 1 - (int)((r >> 8) % 16)]
						     : (unsigned char)('a' + (r >> 16) % 26);
		}
	}
	for (size_t n = 0; n < inlen;) {
		uint64_t r = wl_rand(&s);
		int b = (int)(r % NB);
		size_t k = blen[b] < (int)(inlen - n) ? (size_t)blen[b] : inlen - n;
		memcpy(in + n, blk[b], k);
		if (r >> 60 == 0 && k)      /* now and then a changed byte */
			in[n + (r >> 32) % k] ^= 0x55;
		n += k;
	}
	wl_save("", 0, in, inlen);
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	if (nthr > (WL_MAXT - 2) / 2)
		nthr = (WL_MAXT - 2) / 2;
	uint64_t s = 10;
	for (int i = 0; i < 256; i++)
		gear[i] = wl_rand(&s);
	in = wl_load(&inlen);
	if (!in)
		generate(scale, s);
	out = wl_alloc(inlen + inlen / 8 + 1024);
	for (int i = 0; i < STRIPES; i++)
		pthread_mutex_init(&stripe[i], 0);
	q_init(&q1, 1), q_init(&q2, nthr), q_init(&q3, nthr);
	uint64_t t0 = wl_now();
	wl_par(2 + 2 * nthr, stage);
	uint64_t ns = wl_now() - t0;
	int ok = check();
	char extra[128];
	snprintf(extra, sizeof extra, ", \"bytes\": %zu, \"chunks\": %ld, \"dups\": %ld, \"out\": %zu",
		 inlen, nchunks, ndup, outlen);
	return wl_report("dedup", nthr, ns, ok, extra);
}
