/*
 * timerexit: a VP ends, with its space, while a user timer of it is set
 * and another VP of the space lives on. The kernel once dropped such a
 * timer only with the space, when its last VP left; the VP itself is
 * freed as soon as it is off its CPU, so a timer firing in between posted
 * into freed memory (a hang, found with fifo's time slices). Now vp_exit
 * drops the VP's timers, and kop.c panics on a completion for a freed VP.
 *
 * The child: VP 0 starts a spinning VP, burns CPU for 10 ms (so that its
 * space is the better served and waits once it dies), sets a timer 0.5 ms
 * out and exits: the space ends, VP 0 is freed at once, and the spinner
 * waits behind the parent's busy VPs for its turn to end, while the timer
 * comes due. The parent keeps 3 VPs busy until the child is gone, and
 * does it all ROUNDS times. Exits 0 when every child exited 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>

#define ROUNDS 5

static volatile int stop;

static void spin_vp(long arg) __attribute__((noreturn));
static void spin_vp(long arg)
{
	(void)arg;
	while (!stop)
		__asm__ volatile("pause");
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

static int start_vp(void)
{
	char *stack = malloc(16384);
	return stack && syscall3(SYS_vp_create, (uint64_t)spin_vp, (uint64_t)stack + 16384 - 8, 0) >= 0;
}

static int child(void)
{
	if (!start_vp())
		return 1;
	uint64_t t = now_ns() + 10000000;
	while (now_ns() < t)
		__asm__ volatile("pause");
	syscall2(SYS_timer, now_ns() + 500000, 7);
	return 0;                  /* ends the space with the timer set */
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	int ok = 1, statuses = 0;
	for (int i = 0; i < 3; i++)
		ok &= start_vp();
	for (int round = 0; round < ROUNDS; round++) {
		const char *cargs[] = { "timerexit", "child" };
		int status = -1;
		long id = sys_spawn("timerexit", 2, cargs);
		if (id < 0 || sys_wait((int)id, &status) != id || status != 0)
			ok = 0;
		statuses += status == 0;
	}
	stop = 1;
	struct result r;
	result_begin(&r, "timerexit");
	result_int(&r, "rounds", ROUNDS);
	result_int(&r, "children_ok", statuses);
	result_bool(&r, "ok", ok);
	result_end(&r);
	return !ok;
}
