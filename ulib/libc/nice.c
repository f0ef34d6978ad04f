/* nice, getpriority, setpriority: the program's nice value, -20..19,
   recorded and reported as Linux would (the program runs as uid 0, so
   lowering it is allowed). It does not change scheduling: the kernel
   shares CPUs among VPs without priorities, and thread priorities are
   pthread_setschedparam's (docs/posix.md). The program is its own
   process, group and user: who 0 or getpid() (for PRIO_USER also 0,
   its uid) is it, anyone else ESRCH. */
#include <sys/resource.h>
#include <unistd.h>
#include <errno.h>

static volatile int nice_value;

static int clamp(int v)
{
	return v < -20 ? -20 : v > 19 ? 19 : v;
}

static int check_who(int which, id_t who)
{
	if (which != PRIO_PROCESS && which != PRIO_PGRP && which != PRIO_USER) {
		errno = EINVAL;
		return -1;
	}
	if (who != 0 && (which == PRIO_USER || who != (id_t)getpid())) {
		errno = ESRCH;
		return -1;
	}
	return 0;
}

int getpriority(int which, id_t who)
{
	if (check_who(which, who))
		return -1;
	return nice_value;
}

int setpriority(int which, id_t who, int prio)
{
	if (check_who(which, who))
		return -1;
	nice_value = clamp(prio);
	return 0;
}

/* Returns the new value; -1 is also a valid value, so callers clear
   errno first, as on Linux. */
int nice(int inc)
{
	int v = clamp(nice_value + (inc < -40 ? -40 : inc > 40 ? 40 : inc));
	nice_value = v;
	return v;
}
