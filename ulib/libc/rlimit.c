/* getrlimit and setrlimit (<sys/resource.h>): the limits Anima has. */
#include <anima/file.h>
#include <sys/resource.h>
#include <pthread.h>
#include <errno.h>
#include <animart/aspace.h>

#define NFILES MAXFILE_SPACE       /* ulib/fd.c's table, the kernel's: 1024, Linux's default */

static struct rlimit core = { 0, RLIM_INFINITY };
static struct rlimit set[RLIMIT_NLIMITS];   /* what setrlimit recorded */
static unsigned char isset[RLIMIT_NLIMITS];

static int limit(int r, struct rlimit *rl)
{
	if (r >= 0 && r < RLIMIT_NLIMITS && isset[r]) {
		*rl = set[r];
		return 0;
	}
	switch (r) {
	case RLIMIT_NOFILE:
		*rl = (struct rlimit){ NFILES, NFILES };
		return 0;
	case RLIMIT_STACK: {           /* what a thread gets by default */
		pthread_attr_t a;
		size_t ss = 0;
		pthread_attr_init(&a);
		pthread_attr_getstacksize(&a, &ss);
		pthread_attr_destroy(&a);
		*rl = (struct rlimit){ ss, RLIM_INFINITY };
		return 0;
	}
	case RLIMIT_CORE:
		*rl = core;
		return 0;
	default:
		if (r < 0 || r >= RLIMIT_NLIMITS) {
			errno = EINVAL;
			return -1;
		}
		*rl = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
		return 0;
	}
}

int getrlimit(int resource, struct rlimit *rl)
{
	return limit(resource, rl);
}

int setrlimit(int resource, const struct rlimit *rl)
{
	struct rlimit now;
	if (limit(resource, &now))
		return -1;
	if (rl->rlim_cur > rl->rlim_max) {
		errno = EINVAL;
		return -1;
	}
	if (resource == RLIMIT_CORE) {
		if (rl->rlim_max > core.rlim_max) {   /* raising a hard limit: privileged */
			errno = EPERM;
			return -1;
		}
		core = *rl;
		return 0;
	}
	/* Any other limit: recorded as Linux takes it (lowering, or a soft
	   limit up to the hard one); RLIMIT_NOFILE is enforced by fd.c,
	   RLIMIT_AS by the runtime's count of what is mapped (aspace.c:
	   mmap, malloc and thread stacks fail past it), RLIMIT_MEMLOCK for
	   a caller not root (mman.c), the others bound nothing here
	   (libc.md). Raising a hard limit stays privileged. */
	if (rl->rlim_max > now.rlim_max) {
		errno = EPERM;
		return -1;
	}
	set[resource] = *rl;
	isset[resource] = 1;
	if (resource == RLIMIT_AS)
		as_set_limit(rl->rlim_cur == RLIM_INFINITY ? ~0UL : (uint64_t)rl->rlim_cur);
	return 0;
}

/* fd.c: the soft RLIMIT_NOFILE, the one limit enforced: no new
   descriptor at or above it (EMFILE; dup2 onto it EBADF, F_DUPFD from it
   EINVAL, as Linux), those already open stay. */
int __nofile_limit(void)
{
	if (isset[RLIMIT_NOFILE] && set[RLIMIT_NOFILE].rlim_cur < NFILES)
		return (int)set[RLIMIT_NOFILE].rlim_cur;
	return NFILES;
}
