/*
 * settlewait: avail_settled waits for the caller's own tree only.
 * Forks a child that touches 1 MiB and exits, collects it, then takes
 * avail_settled(1) and counts the polls that made (avail.h). Booted
 * beside a program that runs on (harness/tests/test_settle.py), the
 * wait must end once the child's memory is back, not run out its 5,000
 * polls waiting for the other program to end (INFO_SPACES_HELD never
 * falls to 1 meanwhile). @result {"name": "settlewait", "child": status,
 * "polls": n, "held": INFO_SPACES_HELD, "tree": INFO_TREE_HELD (both at
 * the reading), "avail_lost": before - after (meaningful alone only)}.
 */
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include "avail.h"

#define CHILD_BYTES (1 << 20)

/* A child that touches CHILD_BYTES and ends; its status, or -1. */
static int child(void)
{
	long pid = sys_fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *p = malloc(CHILD_BYTES);
		if (p)
			memset(p, 1, CHILD_BYTES);
		sys_exit(p ? 0 : 1);
	}
	int st = -1;
	if (sys_waitpid((int)pid, &st, 0) != pid)
		return -1;
	return st;
}

int main(void)
{
	/* One child first, unaudited: a first fork's one-time setups (the
	   kernel heap's first blocks of a kind) are no loss (forkmany's
	   and kopflood's remedy; test_settled_alone[2] saw one once). */
	if (child() != 0)
		return 11;
	avail_settled(1);
	long before = avail_settled(1);
	int st = child();
	long after = avail_settled(1);
	struct result r;
	result_begin(&r, "settlewait");
	result_int(&r, "child", st);
	result_int(&r, "polls", avail_polls);
	result_int(&r, "held", sys_getinfo(INFO_SPACES_HELD));
	result_int(&r, "tree", sys_getinfo(INFO_TREE_HELD));
	result_int(&r, "avail_lost", before - after);
	result_end(&r);
	return 0;
}
