/* A wall clock of the program's own: hours and minutes that wrap. */
#ifndef OWN_CLOCK_H
#define OWN_CLOCK_H
struct clock { int h, m; };
void clock_tick(struct clock *c, int minutes);
#endif
