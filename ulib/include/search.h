/* <search.h>: POSIX's searching (ulib/search.c): linear search, binary
   trees (AVL-balanced), one hash table (hcreate; plus GNU's _r forms), and
   queues (insque/remque). */
#ifndef ULIB_SEARCH_H
#define ULIB_SEARCH_H

#include <stddef.h>

typedef enum { FIND, ENTER } ACTION;
typedef enum { preorder, postorder, endorder, leaf } VISIT;

typedef struct entry {
	char *key;
	void *data;
} ENTRY;

struct hsearch_data {
	struct __tab *__tab;
	unsigned int __unused1, __unused2;
};

int hcreate(size_t nel);
void hdestroy(void);
ENTRY *hsearch(ENTRY item, ACTION action);
int hcreate_r(size_t nel, struct hsearch_data *htab);
void hdestroy_r(struct hsearch_data *htab);
int hsearch_r(ENTRY item, ACTION action, ENTRY **retval, struct hsearch_data *htab);

void insque(void *elem, void *prev);
void remque(void *elem);

void *lsearch(const void *key, void *base, size_t *nelp, size_t width,
	      int (*compar)(const void *, const void *));
void *lfind(const void *key, const void *base, size_t *nelp, size_t width,
	    int (*compar)(const void *, const void *));

typedef int (*__compar_fn_t)(const void *, const void *);
typedef void (*__action_fn_t)(const void *nodep, VISIT which, int depth);
void *tsearch(const void *key, void **rootp, int (*compar)(const void *, const void *));
void *tfind(const void *key, void *const *rootp, int (*compar)(const void *, const void *));
void *tdelete(const void *key, void **rootp, int (*compar)(const void *, const void *));
void twalk(const void *root, void (*action)(const void *nodep, VISIT which, int depth));
void tdestroy(void *root, void (*free_node)(void *nodep));     /* GNU */

#endif
