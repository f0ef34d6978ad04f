/* wordfreq: a tiny third-party-style word counter (the build's test of a
   multi-file ported program with its own flags and a warning in it). */
#ifndef TABLE_H
#define TABLE_H

#ifndef TABLE_SIZE
#error "TABLE_SIZE comes from flags.mk"
#endif

struct entry {
	char *word;
	int count;
};

int table_add(const char *word);
int table_distinct(void);
struct entry *table_sorted(void);

#endif
