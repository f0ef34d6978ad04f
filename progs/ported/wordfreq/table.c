#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "table.h"

static struct entry table[TABLE_SIZE];
static int used;

static unsigned hash(const char *s)
{
	unsigned h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

int table_add(const char *word)
{
	unsigned i = hash(word) % TABLE_SIZE;
	int probes;
	for (probes = 0; probes < TABLE_SIZE; probes++, i = (i + 1) % TABLE_SIZE) {
		if (!table[i].word) {
			table[i].word = strdup(word);
			table[i].count = 1;
			used++;
			return 1;
		}
		if (strcasecmp(table[i].word, word) == 0) {
			table[i].count++;
			return 0;
		}
	}
	return -1;
}

int table_distinct(void)
{
	return used;
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->count != y->count)
		return y->count - x->count;
	return strcmp(x->word ? x->word : "", y->word ? y->word : "");
}

struct entry *table_sorted(void)
{
	struct entry *out = malloc(sizeof table);
	int i, n = 0;
	for (i = 0; i < TABLE_SIZE; i++)
		if (table[i].word)
			out[n++] = table[i];
	qsort(out, n, sizeof *out, by_count);
	return out;
}
