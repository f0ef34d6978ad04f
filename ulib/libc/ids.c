/*
 * Who the process runs as (kernel/cred.c): its real, effective and saved
 * user and group ids and its supplementary groups, as Linux keeps them.
 * The set calls pass Linux's rules to the kernel, which applies them to
 * the whole process at once (all its threads: one space), so there is no
 * per-thread setxid dance as glibc does over Linux's per-thread creds.
 */
#include <unistd.h>
#include <grp.h>
#include <errno.h>
#include <animart/sys.h>

_Static_assert(sizeof(uid_t) == 4 && sizeof(gid_t) == 4, "ids are 32 bits");

static int ret(long r)
{
	return r < 0 ? (errno = (int)-r, -1) : 0;
}

static unsigned id(int which) { return (unsigned)syscall2(SYS_getinfo, INFO_CRED, which); }

uid_t getuid(void) { return id(0); }
uid_t geteuid(void) { return id(1); }
gid_t getgid(void) { return id(3); }
gid_t getegid(void) { return id(4); }

/* (ID_UID or ID_GID, how, r, e, s): an id of -1 keeps one */
static int set(int kind, int how, unsigned r, unsigned e, unsigned s)
{
	return ret(syscall6(SYS_setids, kind, how, r, e, s, 0));
}

int setuid(uid_t u) { return set(ID_UID, ID_ONE, u, ID_KEEP, ID_KEEP); }
int setgid(gid_t g) { return set(ID_GID, ID_ONE, g, ID_KEEP, ID_KEEP); }
int setreuid(uid_t r, uid_t e) { return set(ID_UID, ID_RE, r, e, ID_KEEP); }
int setregid(gid_t r, gid_t e) { return set(ID_GID, ID_RE, r, e, ID_KEEP); }
int setresuid(uid_t r, uid_t e, uid_t s) { return set(ID_UID, ID_RES, r, e, s); }
int setresgid(gid_t r, gid_t e, gid_t s) { return set(ID_GID, ID_RES, r, e, s); }

/* glibc's seteuid: -1 is EINVAL, else setresuid(-1, e, -1) */
int seteuid(uid_t e)
{
	return e == (uid_t)-1 ? (errno = EINVAL, -1) : setresuid(ID_KEEP, e, ID_KEEP);
}

int setegid(gid_t e)
{
	return e == (gid_t)-1 ? (errno = EINVAL, -1) : setresgid(ID_KEEP, e, ID_KEEP);
}

/* The kernel stores each id itself: a bad pointer is EFAULT (Linux's),
   not a fault here. */
int getresuid(uid_t *r, uid_t *e, uid_t *s) { return ret(syscall4(SYS_getids, r, e, s, IDS_UIDS)); }
int getresgid(gid_t *r, gid_t *e, gid_t *s) { return ret(syscall4(SYS_getids, r, e, s, IDS_GIDS)); }

int getgroups(int n, gid_t list[])
{
	if (n < 0)
		return errno = EINVAL, -1;
	long r = syscall2(SYS_getgroups, n, list);
	return r < 0 ? ret(r) : (int)r;
}

int setgroups(size_t n, const gid_t *list)
{
	if (n > CRED_NGROUPS)
		return errno = EINVAL, -1;
	return ret(syscall2(SYS_setgroups, n, list));
}
