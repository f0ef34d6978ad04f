/*
 * <search.h>: linear search, queues (insque/remque), binary search trees
 * (tsearch and friends, kept balanced as AVL trees) and one hash table
 * (hcreate and friends).
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

/* ---- binary search trees (tsearch and friends) ----
 *
 * An AVL tree, written recursively: each call handles one node and
 * rebalances it on the way back, so no path stack is kept. A node's first
 * word is its key pointer: what tsearch and tfind return reads as
 * `*(void **)node`, as POSIX programs expect.
 */

struct tnode {
	const void *key;
	struct tnode *kid[2];        /* smaller, larger */
	int height;                  /* of the subtree; a leaf is 1 */
};

typedef int (*tcmp)(const void *, const void *);

static int theight(const struct tnode *n)
{
	return n ? n->height : 0;
}

static void refresh(struct tnode *n)
{
	int l = theight(n->kid[0]), r = theight(n->kid[1]);
	n->height = (l > r ? l : r) + 1;
}

/* Lift n's child on side s into n's place. */
static struct tnode *lift(struct tnode *n, int s)
{
	struct tnode *c = n->kid[s];
	n->kid[s] = c->kid[!s];
	c->kid[!s] = n;
	refresh(n);
	refresh(c);
	return c;
}

/* n with its heights fixed and, if its sides differ by two, rotated back
   into balance (a double rotation when the taller side leans inward). */
static struct tnode *rebalance(struct tnode *n)
{
	refresh(n);
	int d = theight(n->kid[1]) - theight(n->kid[0]);
	if (d > -2 && d < 2)
		return n;
	int s = d > 0;               /* the taller side */
	struct tnode *c = n->kid[s];
	if (theight(c->kid[!s]) > theight(c->kid[s]))
		n->kid[s] = lift(c, !s);
	return lift(n, s);
}

/* Insert key under *t unless present; *found gets its node (0: no memory). */
static struct tnode *insert(struct tnode *t, const void *key, tcmp cmp, struct tnode **found)
{
	if (!t) {
		struct tnode *n = malloc(sizeof *n);
		if (n) {
			n->key = key;
			n->kid[0] = n->kid[1] = 0;
			n->height = 1;
		}
		*found = n;
		return n;
	}
	int c = cmp(key, t->key);
	if (!c) {
		*found = t;
		return t;
	}
	t->kid[c > 0] = insert(t->kid[c > 0], key, cmp, found);
	return rebalance(t);
}

void *tsearch(const void *key, void **rootp, tcmp cmp)
{
	if (!rootp)
		return 0;
	struct tnode *found = 0;
	struct tnode *root = insert(*rootp, key, cmp, &found);
	if (root)
		*rootp = root;
	return found;
}

void *tfind(const void *key, void *const *rootp, tcmp cmp)
{
	if (!rootp)
		return 0;
	for (struct tnode *n = *rootp; n;) {
		int c = cmp(key, n->key);
		if (!c)
			return n;
		n = n->kid[c > 0];
	}
	return 0;
}

/* Take the smallest node out of t; it goes to *min. */
static struct tnode *take_min(struct tnode *t, struct tnode **min)
{
	if (!t->kid[0]) {
		*min = t;
		return t->kid[1];
	}
	t->kid[0] = take_min(t->kid[0], min);
	return rebalance(t);
}

/* Remove key from t. *parent: the node above the removed one at call
   time (the caller's t), kept as the walk goes down; *gone set if found. */
static struct tnode *delete(struct tnode *t, const void *key, tcmp cmp, struct tnode *above,
			    struct tnode **parent, int *gone)
{
	if (!t)
		return 0;
	int c = cmp(key, t->key);
	if (c) {
		t->kid[c > 0] = delete(t->kid[c > 0], key, cmp, t, parent, gone);
		return *gone ? rebalance(t) : t;
	}
	*gone = 1;
	*parent = above;
	struct tnode *l = t->kid[0], *r = t->kid[1];
	free(t);
	if (!r)
		return l;
	struct tnode *m;
	r = take_min(r, &m);         /* its successor takes its place */
	m->kid[0] = l;
	m->kid[1] = r;
	return rebalance(m);
}

/* POSIX: the deleted node's parent, or (the root was deleted) some other
   non-null pointer: here rootp itself; 0 if key is not in the tree. */
void *tdelete(const void *restrict key, void **restrict rootp, tcmp cmp)
{
	if (!rootp || !*rootp)
		return 0;
	struct tnode *parent = 0;
	int gone = 0;
	*rootp = delete(*rootp, key, cmp, 0, &parent, &gone);
	if (!gone)
		return 0;
	return parent ? (void *)parent : (void *)rootp;
}

static void walk(const struct tnode *n, void (*action)(const void *, VISIT, int), int depth)
{
	if (!n->kid[0] && !n->kid[1]) {
		action(n, leaf, depth);
		return;
	}
	action(n, preorder, depth);
	if (n->kid[0])
		walk(n->kid[0], action, depth + 1);
	action(n, postorder, depth);
	if (n->kid[1])
		walk(n->kid[1], action, depth + 1);
	action(n, endorder, depth);
}

void twalk(const void *root, void (*action)(const void *, VISIT, int))
{
	if (root && action)
		walk(root, action, 0);
}

void tdestroy(void *root, void (*free_key)(void *))
{
	struct tnode *n = root;
	if (!n)
		return;
	tdestroy(n->kid[0], free_key);
	tdestroy(n->kid[1], free_key);
	if (free_key)
		free_key((void *)n->key);
	free(n);
}

/* ---- hash tables (hcreate and friends) ----
 *
 * glibc's contract: the table holds at most the nel entries asked for at
 * creation (ENTER past that fails with ENOMEM), and an entry never moves,
 * so the pointers hsearch returns stay good until hdestroy. Slots are a
 * power of two at least 4/3 of nel, probed linearly from an FNV-1a hash;
 * nothing is ever removed, so a free slot ends every search.
 */

struct __tab {
	ENTRY *slot;
	size_t nslots;               /* a power of two > cap */
	size_t cap, used;
};

static size_t strhash(const char *s)
{
	size_t h = 14695981039346656037UL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h;
}

int hcreate_r(size_t nel, struct hsearch_data *htab)
{
	if (!htab) {
		errno = EINVAL;
		return 0;
	}
	if (nel == 0)
		nel = 1;
	if (nel > ((size_t)1 << 40)) {
		errno = ENOMEM;
		return 0;
	}
	size_t n = 8;
	while (n < nel + nel / 3 + 1)
		n *= 2;
	struct __tab *t = malloc(sizeof *t);
	ENTRY *slot = t ? calloc(n, sizeof *slot) : 0;
	if (!slot) {
		free(t);
		errno = ENOMEM;
		return 0;
	}
	t->slot = slot;
	t->nslots = n;
	t->cap = nel;
	t->used = 0;
	htab->__tab = t;
	return 1;
}

void hdestroy_r(struct hsearch_data *htab)
{
	if (!htab || !htab->__tab)
		return;
	free(htab->__tab->slot);
	free(htab->__tab);
	htab->__tab = 0;
}

int hsearch_r(ENTRY item, ACTION action, ENTRY **retval, struct hsearch_data *htab)
{
	struct __tab *t = htab ? htab->__tab : 0;
	*retval = 0;
	if (!t || !item.key) {
		errno = EINVAL;
		return 0;
	}
	size_t i = strhash(item.key) & (t->nslots - 1);
	for (; t->slot[i].key; i = (i + 1) & (t->nslots - 1))
		if (strcmp(t->slot[i].key, item.key) == 0) {
			*retval = &t->slot[i];   /* found: ENTER keeps the old data, as glibc */
			return 1;
		}
	if (action != ENTER) {
		errno = ESRCH;
		return 0;
	}
	if (t->used == t->cap) {
		errno = ENOMEM;
		return 0;
	}
	t->used++;
	t->slot[i] = item;
	*retval = &t->slot[i];
	return 1;
}

static struct hsearch_data global_tab;

int hcreate(size_t nel)
{
	if (global_tab.__tab)        /* one table at a time */
		return 0;
	return hcreate_r(nel, &global_tab);
}

void hdestroy(void)
{
	hdestroy_r(&global_tab);
}

ENTRY *hsearch(ENTRY item, ACTION action)
{
	ENTRY *e;
	hsearch_r(item, action, &e, &global_tab);
	return e;
}
