/*
 * mlock and munlock answer ENOMEM for a range that is not all mapped, as
 * POSIX requires and Linux does: a hole made by munmap, a range that
 * runs past a mapping's end, an address past the program's; a mapped
 * range works wherever it starts in its page (heap, stack, an anonymous
 * private or shared mapping). Linux's arithmetic: a length of 0 still
 * names the page an unaligned address is in; a count of pages that wraps
 * past 2^64 is none.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHECK_NAME "mlockmap"
#include "check.h"

static int enomem(int r)
{
	return r == -1 && errno == ENOMEM;
}

int main(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *heap = malloc(100), local[64];
	CHECK(mlock(heap + 3, 90) == 0 && munlock(heap + 3, 90) == 0);
	CHECK(mlock(local, sizeof local) == 0 && munlock(local, sizeof local) == 0);
	CHECK(enomem(mlock((void *)8, 0)));              /* no length: still its page */

	char *p = mmap(0, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(p != MAP_FAILED);
	CHECK(mlock(p, 4 * pg) == 0);
	CHECK(mlock(p + 5, 2 * pg) == 0);                /* unaligned: its pages */
	CHECK(mlock(p + 5, 0) == 0 && mlock(p + 4 * pg, 0) == 0);   /* none at a page start */
	CHECK(munmap(p + pg, pg) == 0);                  /* a hole in the middle */
	CHECK(enomem(mlock(p, 4 * pg)));
	CHECK(enomem(munlock(p + pg, 1)));
	CHECK(mlock(p + 2 * pg, 2 * pg) == 0);           /* around the hole */
	CHECK(enomem(mlock(p + 3 * pg, 2 * pg)));        /* past the end */
	CHECK(munmap(p, 4 * pg) == 0);
	CHECK(enomem(mlock(p, pg)));                     /* all gone */

	long top = LONG_MAX - LONG_MAX % pg;
	CHECK(enomem(mlock((void *)top, 8)));            /* past the program's */
	CHECK(mlock(p, (size_t)-1) == 0);                /* wraps to no pages, as Linux */

	char *s = mmap(0, 2 * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(s != MAP_FAILED && mlock(s, 2 * pg) == 0 && munlock(s, 2 * pg) == 0);
	CHECK(mlockall(MCL_CURRENT) == 0 && munlockall() == 0);

	printf("@result {\"name\": \"mlockmap\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
