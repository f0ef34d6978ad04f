/*
 * wordcount (Phoenix's word count): how often each word of a text
 * occurs, most frequent first. Each thread hashes the words of its part
 * of the text (cut at word boundaries) into a private table; main merges
 * the tables and sorts. The check: every vocabulary word's count is the
 * number of times the generator wrote it, or with -i FILE (any text; a
 * word is a run of a-z) every word's count is a sequential pass's.
 */
#define WL_INPUT 1
#include "wl.h"

#define VOCAB 4096
#define WORDS (256u << 10)            /* times SCALE */
#define TABLE 16384                   /* slots, a power of two > 2 VOCAB */

struct ent { const char *w; int len; uint64_t n; };

static char *text, vocab[VOCAB][12];
static int vlen[VOCAB];
static uint64_t want[VOCAB];
static size_t tlen, words;
static int nthr;
static struct ent *tab[WL_MAXT];

static uint64_t hash(const char *w, int len)
{
	uint64_t h = 1469598103934665603ull;
	for (int i = 0; i < len; i++)
		h = (h ^ (unsigned char)w[i]) * 1099511628211ull;
	return h;
}

static struct ent *slot(struct ent *t, const char *w, int len)
{
	for (uint64_t i = hash(w, len);; i++) {
		struct ent *e = &t[i & (TABLE - 1)];
		if (!e->w || (e->len == len && !memcmp(e->w, w, len)))
			return e;
	}
}

static int isword(char c) { return c >= 'a' && c <= 'z'; }

static void *count(void *arg)
{
	size_t lo, hi;
	wl_part(tlen, (long)arg, nthr, &lo, &hi);
	while (lo > 0 && lo < tlen && isword(text[lo - 1]))   /* a word is its starter's */
		lo++;
	while (hi > 0 && hi < tlen && isword(text[hi - 1]))
		hi++;
	struct ent *t = calloc(TABLE, sizeof *t);
	int distinct = 0;
	for (size_t i = lo; i < hi;) {
		while (i < hi && !isword(text[i]))
			i++;
		size_t j = i;
		while (j < hi && isword(text[j]))
			j++;
		if (j > i) {
			struct ent *e = slot(t, text + i, (int)(j - i));
			if (!e->w && ++distinct > TABLE / 2) {
				/* only an input file can have so many (slot
				   needs a free one to end) */
				printf("wordcount: more than %d distinct words\n", TABLE / 2);
				exit(2);
			}
			e->w = text + i, e->len = (int)(j - i), e->n++;
		}
		i = j;
	}
	tab[(long)arg] = t;
	return 0;
}

static int bycount(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	int c = memcmp(x->w, y->w, x->len < y->len ? x->len : y->len);
	return c ? c : x->len - y->len;
}

/* The text: words of a random vocabulary, skewed (-o saves it). */
static void generate(int scale)
{
	uint64_t s = 5;
	for (int v = 0; v < VOCAB; v++) {
		vlen[v] = 3 + (int)(wl_rand(&s) % 9);
		for (int i = 0; i < vlen[v]; i++)
			vocab[v][i] = (char)('a' + wl_rand(&s) % 26);
	}
	words = (size_t)WORDS * scale;
	text = wl_alloc(words * 13);
	for (size_t k = 0; k < words; k++) {
		uint64_t r = wl_rand(&s);
		int v = (int)((r & 0xffffffff) % ((r >> 32) % VOCAB + 1));   /* skewed */
		memcpy(text + tlen, vocab[v], vlen[v]);
		tlen += vlen[v];
		text[tlen++] = (r >> 20) % 12 ? ' ' : '\n';
		want[v]++;
	}
	wl_save("", 0, text, tlen);
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	size_t flen;
	text = (char *)wl_load(&flen);
	struct ent *ref = 0;
	if (text) {
		tlen = flen;
		int n = nthr;                 /* the reference: one part, the whole */
		nthr = 1;
		count(0);
		ref = tab[0];
		nthr = n;
	} else {
		generate(scale);
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, count);
	struct ent *all = calloc(TABLE, sizeof *all);
	for (int i = 0; i < nthr; i++)
		for (int k = 0; k < TABLE; k++)
			if (tab[i][k].w) {
				struct ent *e = slot(all, tab[i][k].w, tab[i][k].len);
				e->w = tab[i][k].w, e->len = tab[i][k].len, e->n += tab[i][k].n;
			}
	struct ent *list = wl_alloc(TABLE * sizeof *list);
	int distinct = 0;
	for (int k = 0; k < TABLE; k++)
		if (all[k].w)
			list[distinct++] = all[k];
	qsort(list, distinct, sizeof *list, bycount);
	uint64_t ns = wl_now() - t0;
	int ok = 1, expect = 0;
	for (int k = 0; ref && k < TABLE; k++)
		if (ref[k].w) {
			ok &= slot(all, ref[k].w, ref[k].len)->n == ref[k].n;
			expect++;
			words += ref[k].n;
		}
	for (int v = 0; !ref && v < VOCAB; v++) {
		int dup = 0;                  /* two vocabulary entries may be equal */
		for (int u = 0; u < v && !dup; u++)
			dup = vlen[u] == vlen[v] && !memcmp(vocab[u], vocab[v], vlen[v]);
		uint64_t n = 0;
		for (int u = 0; u < VOCAB; u++)
			if (vlen[u] == vlen[v] && !memcmp(vocab[u], vocab[v], vlen[v]))
				n += want[u];
		struct ent *e = slot(all, vocab[v], vlen[v]);
		ok &= n ? e->n == n : !e->w;
		expect += n && !dup;
	}
	ok &= distinct == expect;
	for (int k = 1; k < distinct; k++)
		ok &= list[k - 1].n >= list[k].n;
	char extra[96];
	snprintf(extra, sizeof extra, ", \"words\": %zu, \"distinct\": %d, \"top\": \"%.*s\"",
		 words, distinct, distinct ? list[0].len : 0, distinct ? list[0].w : "");
	return wl_report("wordcount", nthr, ns, ok, extra);
}
