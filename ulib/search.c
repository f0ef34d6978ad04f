/*
 * <search.h>: linear search, AVL trees (a node's first word is its key
 * pointer, so the pointer tsearch returns reads as `*(void **)node`), a
 * hash table with open addressing that grows as it fills (as musl's), and
 * insque/remque.
 */
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>

/* ---- linear ---- */

void *lfind(const void *key, const void *base, size_t *nelp, size_t width,
	    int (*compar)(const void *, const void *))
{
	const char *p = base;
	for (size_t i = 0; i < *nelp; i++, p += width)
		if (compar(key, p) == 0)
			return (void *)p;
	return 0;
}

void *lsearch(const void *key, void *base, size_t *nelp, size_t width,
	      int (*compar)(const void *, const void *))
{
	void *p = lfind(key, base, nelp, width, compar);
	if (p)
		return p;
	p = (char *)base + *nelp * width;
	memcpy(p, key, width);
	++*nelp;
	return p;
}

/* ---- queues ---- */

struct qelem {
	struct qelem *next, *prev;
};

void insque(void *elem, void *prev)
{
	struct qelem *e = elem, *p = prev;
	if (!p) {
		e->next = e->prev = 0;
		return;
	}
	e->next = p->next;
	e->prev = p;
	p->next = e;
	if (e->next)
		e->next->prev = e;
}

void remque(void *elem)
{
	struct qelem *e = elem;
	if (e->next)
		e->next->prev = e->prev;
	if (e->prev)
		e->prev->next = e->next;
}

/* ---- AVL trees ---- */

struct node {
	const void *key;
	struct node *a[2];
	int h;
};

#define MAXH (sizeof(void *) * 8 * 3 / 2)

static int height(struct node *n) { return n ? n->h : 0; }

static int rot(struct node **p, struct node *x, int dir /* deeper side */)
{
	struct node *y = x->a[dir];
	struct node *z = y->a[!dir];
	int hx = x->h, hz = height(z);
	if (hz > height(y->a[dir])) {
		/*   x          z
		    / \       /   \
		   A   y     x     y
		      / \ -> / \   / \
		     z   D  A  B  C   D
		    / \
		   B   C  */
		x->a[dir] = z->a[!dir];
		y->a[!dir] = z->a[dir];
		z->a[!dir] = x;
		z->a[dir] = y;
		x->h = hz;
		y->h = hz;
		z->h = hz + 1;
	} else {
		x->a[dir] = z;
		y->a[!dir] = x;
		x->h = hz + 1;
		y->h = hz + 2;
		z = y;
	}
	*p = z;
	return z->h - hx;
}

/* Rebalance *p; returns how its height changed. */
static int balance(struct node **p)
{
	struct node *n = *p;
	int h0 = height(n->a[0]), h1 = height(n->a[1]);
	if (h0 - h1 + 1u < 3u) {
		int old = n->h;
		n->h = h0 < h1 ? h1 + 1 : h0 + 1;
		return n->h - old;
	}
	return rot(p, n, h0 < h1);
}

void *tfind(const void *key, void *const *rootp, int (*cmp)(const void *, const void *))
{
	if (!rootp)
		return 0;
	struct node *n = *rootp;
	while (n) {
		int c = cmp(key, n->key);
		if (!c)
			return n;
		n = n->a[c > 0];
	}
	return 0;
}

void *tsearch(const void *key, void **rootp, int (*cmp)(const void *, const void *))
{
	if (!rootp)
		return 0;
	void **a[MAXH];
	struct node *n = *rootp, *r;
	int i = 0;
	a[i++] = rootp;
	for (;;) {
		if (!n)
			break;
		int c = cmp(key, n->key);
		if (!c)
			return n;
		a[i++] = (void **)&n->a[c > 0];
		n = n->a[c > 0];
	}
	r = malloc(sizeof *r);
	if (!r)
		return 0;
	r->key = key;
	r->a[0] = r->a[1] = 0;
	r->h = 1;
	/* insert and rebalance on the way back up */
	*a[--i] = r;
	while (i && balance((struct node **)a[--i]))
		;
	return r;
}

void *tdelete(const void *key, void **rootp, int (*cmp)(const void *, const void *))
{
	if (!rootp)
		return 0;
	void **a[MAXH + 1];
	struct node *n = *rootp, *parent, *child;
	int i = 0;
	/* a[0] is an arbitrary non-null pointer returned when the root is deleted */
	a[i++] = rootp;
	a[i++] = rootp;
	for (;;) {
		if (!n)
			return 0;
		int c = cmp(key, n->key);
		if (!c)
			break;
		a[i++] = (void **)&n->a[c > 0];
		n = n->a[c > 0];
	}
	parent = *a[i - 2];
	if (n->a[0]) {
		/* the in-order predecessor takes n's place */
		struct node *deleted = n;
		a[i++] = (void **)&n->a[0];
		n = n->a[0];
		while (n->a[1]) {
			a[i++] = (void **)&n->a[1];
			n = n->a[1];
		}
		deleted->key = n->key;
		child = n->a[0];
	} else {
		child = n->a[1];
	}
	free(n);
	*a[--i] = child;
	while (--i && balance((struct node **)a[i]))
		;
	return parent;
}

static void walk(const struct node *r, void (*action)(const void *, VISIT, int), int d)
{
	if (!r)
		return;
	if (r->h == 1)
		action(r, leaf, d);
	else {
		action(r, preorder, d);
		walk(r->a[0], action, d + 1);
		action(r, postorder, d);
		walk(r->a[1], action, d + 1);
		action(r, endorder, d);
	}
}

void twalk(const void *root, void (*action)(const void *, VISIT, int))
{
	walk(root, action, 0);
}

void tdestroy(void *root, void (*free_node)(void *))
{
	struct node *r = root;
	if (!r)
		return;
	tdestroy(r->a[0], free_node);
	tdestroy(r->a[1], free_node);
	if (free_node)
		free_node((void *)r->key);
	free(r);
}

/* ---- hash tables ---- */

struct __tab {
	ENTRY *entries;
	size_t mask;
	size_t used;
};

#define MINSIZE 8
#define MAXSIZE ((size_t)-1 / 2 + 1)

static size_t keyhash(const char *k)
{
	const unsigned char *p = (const void *)k;
	size_t h = 0;
	while (*p)
		h = 31 * h + *p++;
	return h;
}

static int resize(size_t nel, struct hsearch_data *htab)
{
	size_t newsize;
	size_t oldsize = htab->__tab->mask + 1;
	ENTRY *e, *newe;
	ENTRY *oldtab = htab->__tab->entries;
	ENTRY *oldend = htab->__tab->entries + oldsize;

	if (nel > MAXSIZE)
		nel = MAXSIZE;
	for (newsize = MINSIZE; newsize < nel; newsize *= 2)
		;
	htab->__tab->entries = calloc(newsize, sizeof *htab->__tab->entries);
	if (!htab->__tab->entries) {
		htab->__tab->entries = oldtab;
		return 0;
	}
	htab->__tab->mask = newsize - 1;
	if (!oldtab)
		return 1;
	for (e = oldtab; e < oldend; e++)
		if (e->key) {
			size_t i, j;
			for (i = keyhash(e->key), j = 1;; i += j++) {
				newe = htab->__tab->entries + (i & htab->__tab->mask);
				if (!newe->key)
					break;
			}
			*newe = *e;
		}
	free(oldtab);
	return 1;
}

static ENTRY *lookup(const char *key, size_t hash, struct hsearch_data *htab)
{
	size_t i, j;
	ENTRY *e;
	for (i = hash, j = 1;; i += j++) {
		e = htab->__tab->entries + (i & htab->__tab->mask);
		if (!e->key || strcmp(e->key, key) == 0)
			break;
	}
	return e;
}

int hcreate_r(size_t nel, struct hsearch_data *htab)
{
	htab->__tab = calloc(1, sizeof *htab->__tab);
	if (!htab->__tab)
		return 0;
	if (!resize(nel, htab)) {
		free(htab->__tab);
		htab->__tab = 0;
		return 0;
	}
	return 1;
}

void hdestroy_r(struct hsearch_data *htab)
{
	if (htab->__tab)
		free(htab->__tab->entries);
	free(htab->__tab);
	htab->__tab = 0;
}

int hsearch_r(ENTRY item, ACTION action, ENTRY **retval, struct hsearch_data *htab)
{
	if (!htab->__tab) {
		*retval = 0;
		errno = EINVAL;
		return 0;
	}
	size_t hash = keyhash(item.key);
	ENTRY *e = lookup(item.key, hash, htab);
	if (e->key) {
		*retval = e;
		return 1;
	}
	if (action == FIND) {
		*retval = 0;
		errno = ESRCH;
		return 0;
	}
	*e = item;
	if (++htab->__tab->used > htab->__tab->mask - htab->__tab->mask / 4) {
		if (!resize(2 * htab->__tab->used, htab)) {
			htab->__tab->used--;
			e->key = 0;
			*retval = 0;
			errno = ENOMEM;
			return 0;
		}
		e = lookup(item.key, hash, htab);
	}
	*retval = e;
	return 1;
}

static struct hsearch_data htab;

int hcreate(size_t nel)
{
	if (htab.__tab) {          /* one table at a time (glibc: keeps the old one) */
		errno = EINVAL;
		return 0;
	}
	return hcreate_r(nel, &htab);
}

void hdestroy(void)
{
	hdestroy_r(&htab);
}

ENTRY *hsearch(ENTRY item, ACTION action)
{
	ENTRY *e;
	hsearch_r(item, action, &e, &htab);
	return e;
}
