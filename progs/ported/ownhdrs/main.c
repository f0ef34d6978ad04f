/*
 * A ported program whose own headers are called clock.h, thread.h and
 * sync.h, found through -I (flags.mk). Anima's runtime headers of those
 * names must not be taken in their place (they are <animart/...> now):
 * before, <clock.h> was ulib's, and this did not compile.
 */
#include <stdio.h>
#include <clock.h>
#include <thread.h>
#include <sync.h>

int thread_run(struct thread *t)
{
	while (t->done < t->ntasks)
		t->done++;
	return t->done;
}

int sync_sum(const struct clock *c, const struct thread *t)
{
	return c->h * 60 + c->m + t->done;
}

int main(void)
{
	struct clock c = { 23, 50 };
	struct thread t = { 5, 0 };
	clock_tick(&c, 25);
	thread_run(&t);
	printf("@result {\"name\": \"ownhdrs\", \"h\": %d, \"m\": %d, \"done\": %d, \"sum\": %d}\n",
	       c.h, c.m, t.done, sync_sum(&c, &t));
	return 0;
}
