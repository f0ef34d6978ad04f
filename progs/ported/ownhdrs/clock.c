#include <clock.h>

void clock_tick(struct clock *c, int minutes)
{
	c->m += minutes;
	c->h = (c->h + c->m / 60) % 24;
	c->m %= 60;
}
