/* case WORD in PATTERN|PATTERN) LIST;; ... esac: the first item with a
   pattern that matches the expanded word runs (fnmatch: what was quoted
   in a pattern matches only itself). Its status is the list's; 0 when
   no item matched or the item's list is empty. */
#include <stdlib.h>
#include <fnmatch.h>
#include "sh.h"

int run_case(struct node *n)
{
	char *w = expand_one(n->w[0]);
	int st = 0, hit = 0;
	for (struct node *it = n->a; it && !hit; it = it->b)
		for (int i = 0; i < it->nw && !hit; i++) {
			char *p = expand_pat(it->w[i]);
			if (!fnmatch(p, w, 0)) {
				hit = 1;
				st = it->a ? run(it->a) : 0;
			}
			free(p);
		}
	free(w);
	return st;
}
