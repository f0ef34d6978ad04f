/*
 * revindex (Phoenix's reverse index): for every link target, the
 * documents that link to it, in order. Documents are HTML-like text
 * (words and <a href="lNNNN"> tags); each thread parses its range of
 * documents and appends each document once to the growing posting list
 * of every target it links to (lists grown with realloc, as a real
 * index does); then threads merge the per-thread lists, a range of
 * targets each. The check: each target's list is sorted, without
 * repeats, as long as the number of documents the generator made link
 * to it.
 */
#include "wl.h"

#define DOCS (2048u)                  /* times SCALE */
#define TARGETS 8192
#define TAGS 48                       /* links per document, about */

struct plist { int *d; int n, cap; };

static char **doc;
static int ndocs, nthr, *want;
static struct plist (*part)[TARGETS], *index_;

static void add(struct plist *l, int d)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		l->d = realloc(l->d, l->cap * sizeof *l->d);
		if (!l->d)
			exit(3);
	}
	l->d[l->n++] = d;
}

static void *parse(void *arg)
{
	long me = (long)arg;
	size_t lo, hi;
	wl_part((size_t)ndocs, me, nthr, &lo, &hi);
	for (size_t d = lo; d < hi; d++)
		for (const char *p = strstr(doc[d], "<a href=\""); p; p = strstr(p, "<a href=\"")) {
			p += 9;
			if (*p++ != 'l')
				continue;
			int t = (int)strtol(p, 0, 10);
			if (t < 0 || t >= TARGETS)
				continue;
			struct plist *l = &part[me][t];
			if (!l->n || l->d[l->n - 1] != (int)d)     /* once per document */
				add(l, (int)d);
		}
	return 0;
}

static void *merge(void *arg)
{
	size_t lo, hi;
	wl_part(TARGETS, (long)arg, nthr, &lo, &hi);
	for (size_t t = lo; t < hi; t++)
		for (int p = 0; p < nthr; p++) {
			for (int i = 0; i < part[p][t].n; i++)
				add(&index_[t], part[p][t].d[i]);
			free(part[p][t].d);
		}
	return 0;
}

static void makedoc(int d, uint64_t *s, char *stamp)
{
	size_t cap = 64 * TAGS + 1024, len = 0;
	char *b = wl_alloc(cap);
	len += (size_t)sprintf(b, "<html><title>doc %d</title><body>\n", d);
	for (int i = 0; i < TAGS; i++) {
		uint64_t r = wl_rand(s);
		int t = (int)((r & 0xffffffff) % ((r >> 32) % TARGETS + 1));
		len += (size_t)sprintf(b + len, "some words %c%c here <a href=\"l%d\">see %d</a>\n",
				       'a' + (int)(r >> 40) % 26, 'a' + (int)(r >> 50) % 26, t, t);
		if (stamp[t] != 1)
			stamp[t] = 1, want[t]++;
	}
	strcpy(b + len, "</body></html>\n");
	doc[d] = b;
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	ndocs = (int)DOCS * scale;
	doc = wl_alloc(ndocs * sizeof *doc);
	want = calloc(TARGETS, sizeof *want);
	part = calloc(nthr, sizeof *part);
	index_ = calloc(TARGETS, sizeof *index_);
	char *stamp = wl_alloc(TARGETS);
	uint64_t s = 9;
	for (int d = 0; d < ndocs; d++) {
		memset(stamp, 0, TARGETS);
		makedoc(d, &s, stamp);
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, parse);
	wl_par(nthr, merge);
	uint64_t ns = wl_now() - t0;
	int ok = 1;
	long links = 0;
	for (int t = 0; t < TARGETS; t++) {
		ok &= index_[t].n == want[t];
		for (int i = 1; i < index_[t].n; i++)
			ok &= index_[t].d[i - 1] < index_[t].d[i];
		links += index_[t].n;
	}
	char extra[64];
	snprintf(extra, sizeof extra, ", \"docs\": %d, \"postings\": %ld", ndocs, links);
	return wl_report("revindex", nthr, ns, ok, extra);
}
