#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <unistd.h>
#include "table.h"

static const char *text =
	"The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs.\n"
	"A fox, a dog and THE end.";

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-t TOP] [-V]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int top = 3, c, i;
	int unused_counter;              /* third-party code: a warning, not an error */
	while ((c = getopt(argc, argv, "t:V")) != -1) {
		switch (c) {
		case 't': top = atoi(optarg); break;
		case 'V': printf("wordfreq %s\n", WF_VERSION); return 0;
		default: usage(argv[0]);
		}
	}
	char *copy = strdup(text), *save, *w;
	int words = 0;
	for (w = strtok_r(copy, " .,;\n", &save); w; w = strtok_r(NULL, " .,;\n", &save)) {
		for (char *p = w; *p; p++)
			*p = tolower((unsigned char)*p);
		if (table_add(w) < 0) {
			fprintf(stderr, "wordfreq: table full\n");
			return 1;
		}
		words++;
	}
	printf("wordfreq: %d words, %d distinct\n", words, table_distinct());
	struct entry *e = table_sorted();
	for (i = 0; i < top && i < table_distinct(); i++)
		printf("top %d: %s %d\n", i + 1, e[i].word, e[i].count);
	free(e);
	free(copy);
	return 0;
}
