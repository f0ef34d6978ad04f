/*
 * strmatch (Phoenix's string match): which words of a text are one of a
 * few keys, found by hashing each word ("encrypting" it) and comparing
 * with the keys' hashes, then their bytes. Each thread scans its part of
 * the text. The check: each key's count is the number of times the
 * generator planted it (other words are shorter than any key), or with
 * -i FILE (any text; words end at a space or a newline) the count of a
 * sequential pass.
 */
#define WL_INPUT 1
#include "wl.h"

#define WORDS (512u << 10)            /* times SCALE */
#define NKEYS 4
#define KEYLEN 12

static char *text, keys[NKEYS][KEYLEN];
static uint64_t keyh[NKEYS], want[NKEYS], found[WL_MAXT][NKEYS];
static size_t tlen;
static int nthr;

static uint64_t crypt64(const char *w, size_t len)
{
	uint64_t h = 0x243f6a8885a308d3ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)w[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return h;
}

static void *scan(void *arg)
{
	size_t lo, hi;
	long me = (long)arg;
	wl_part(tlen, me, nthr, &lo, &hi);
	while (lo > 0 && lo < tlen && text[lo - 1] != ' ' && text[lo - 1] != '\n')
		lo++;
	while (hi > 0 && hi < tlen && text[hi - 1] != ' ' && text[hi - 1] != '\n')
		hi++;
	for (size_t i = lo; i < hi;) {
		size_t j = i;
		while (j < hi && text[j] != ' ' && text[j] != '\n')
			j++;
		uint64_t h = crypt64(text + i, j - i);
		for (int k = 0; k < NKEYS; k++)
			if (h == keyh[k] && j - i == KEYLEN && !memcmp(text + i, keys[k], KEYLEN))
				found[me][k]++;
		i = j + 1;
	}
	return 0;
}

/* The text: random short words, and now and then a key (-o saves it). */
static void plant(size_t words, uint64_t s)
{
	text = wl_alloc(words * (KEYLEN + 1));
	for (size_t n = 0; n < words; n++) {
		uint64_t r = wl_rand(&s);
		if (r % 64 == 0) {
			int k = (int)((r >> 8) % NKEYS);
			memcpy(text + tlen, keys[k], KEYLEN);
			tlen += KEYLEN;
			want[k]++;
		} else {
			int len = 2 + (int)((r >> 8) % 9);
			for (int i = 0; i < len; i++, r >>= 5)
				text[tlen++] = (char)('a' + (r & 31) % 26);
		}
		text[tlen++] = n % 10 == 9 ? '\n' : ' ';
	}
	wl_save("", 0, text, tlen);
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	uint64_t s = 6;
	for (int k = 0; k < NKEYS; k++) {
		for (int i = 0; i < KEYLEN; i++)
			keys[k][i] = (char)('a' + wl_rand(&s) % 26);
		keyh[k] = crypt64(keys[k], KEYLEN);
	}
	size_t words = (size_t)WORDS * scale;
	text = (char *)wl_load(&tlen);
	if (text) {
		int n = nthr;                 /* the reference: one part, the whole */
		nthr = 1;
		scan(0);
		memcpy(want, found[0], sizeof want);
		memset(found[0], 0, sizeof found[0]);
		nthr = n;
		words = 0;
		for (size_t i = 0; i < tlen; i++)
			words += text[i] == ' ' || text[i] == '\n';
	} else {
		plant(words, s);
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, scan);
	uint64_t got[NKEYS] = {0};
	for (int t = 0; t < nthr; t++)
		for (int k = 0; k < NKEYS; k++)
			got[k] += found[t][k];
	uint64_t ns = wl_now() - t0;
	int ok = !memcmp(got, want, sizeof got);
	char extra[64];
	snprintf(extra, sizeof extra, ", \"words\": %zu, \"matches\": %llu", words,
		 (unsigned long long)(got[0] + got[1] + got[2] + got[3]));
	return wl_report("strmatch", nthr, ns, ok, extra);
}
