/*
 * The kernel's available memory, for tests that check every frame a
 * space used comes back (segexhaust, xspace). Frames of a space that just
 * ended come back only once every CPU has switched away from it (and a
 * CPU may still hold a dead child's tables), so a test first waits for the
 * spaces it knows have ended to let go (avail_settled), or polls.
 */
#ifndef PROGS_AVAIL_H
#define PROGS_AVAIL_H

#include <animart/sys.h>

#define AVAIL_STEADY (-1L)      /* avail_wait: until it stops moving */

static inline long avail(void)
{
	return sys_getinfo(INFO_MEM_AVAIL);
}

/* Poll every `ms` milliseconds, at most 200 times, until available memory
   is `want` or, for AVAIL_STEADY, until it did not move between two polls.
   Returns it then: a caller that wanted a figure compares. */
static inline long avail_wait(long want, unsigned ms)
{
	long prev = AVAIL_STEADY, now = avail();
	for (int i = 0; i < 200 && now != (want == AVAIL_STEADY ? prev : want); i++) {
		sys_sleep(ms * 1000000UL);
		prev = now;
		now = avail();
	}
	return now;
}

static int avail_polls;          /* the polls the last avail_settled made */

/* Available memory once no more than `running` spaces of the caller's
   boot-program tree hold page tables (INFO_TREE_HELD: the caller's own
   and its running relatives; every ended one's tables and frames are
   then back). Other boot programs beside it do not count: one that runs
   for ever must not hold the wait up (INFO_SPACES_HELD, machine-wide,
   made each reading run out its 5,000 polls in test_lockcheck's boot).
   The figure is machine-wide all the same: a test that asserts on a
   delta of it boots alone. A vCPU the host has descheduled may hold a
   dead child's tables for milliseconds, so a fixed sleep is not enough;
   polls every 1 ms, at most 5,000 times. */
static inline long avail_settled(long running)
{
	int i = 0;
	for (; i < 5000 && sys_getinfo(INFO_TREE_HELD) > running; i++)
		sys_sleep(1000000UL);
	avail_polls = i;
	return avail();
}

/* Wait (1 ms polls, at most 5,000) until no other boot program holds a
   space: a delta of the machine-wide figure is honest only then. For a
   test that asserts on one in a boot it shares (imgwalk mem beside a
   short filetest: without it, the other program's frames coming back
   between the readings made avail_lost negative). 1 if alone. */
static inline int avail_alone(void)
{
	for (int i = 0; i < 5000; i++) {
		if (sys_getinfo(INFO_SPACES_HELD) == sys_getinfo(INFO_TREE_HELD))
			return 1;
		sys_sleep(1000000UL);
	}
	return 0;
}

#endif
