/*
 * File permission checks, as Linux's: the caller's effective ids (its
 * real ones inside SYS_file_access, as access() asks) against a file's
 * owner, group and mode: the owner class if the uid owns it, else the
 * group class if the file's group is the caller's (effective or
 * supplementary), else the other class. Root (uid 0) passes every check
 * but execute, which needs an x bit for someone (a directory's search
 * does not). The checks run under fslock (ext2w.c), so the ids are read
 * without the space's lock: a setuid racing with a file call in another
 * thread of the process gives one or the other answer, and the group
 * list is read within its bound whatever it holds.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)

static struct space *caller(void)
{
	struct vp *v = myvp();
	return v ? v->space : 0;
}

/* The uid the file checks act as (a kernel context: root). */
uint32_t perm_uid(void)
{
	struct space *sp = caller();
	return !sp ? 0 : myvp()->realids ? LD(sp->cred.uid) : LD(sp->cred.euid);
}

uint32_t perm_gid(void)
{
	struct space *sp = caller();
	return !sp ? 0 : myvp()->realids ? LD(sp->cred.gid) : LD(sp->cred.egid);
}

/* Is gid the caller's group (its checking gid or a supplementary one)? */
int perm_group(uint32_t gid)
{
	struct space *sp = caller();
	if (!sp || gid == perm_gid())
		return 1;
	int n = LD(sp->cred.ngroups);
	for (int i = 0; i < n && i < CRED_NGROUPS; i++)
		if (LD(sp->cred.groups[i]) == gid)
			return 1;
	return 0;
}

/* May the caller use ip as want says (4 read, 2 write, 1 execute or
   search; or'ed)? */
int perm_ok(const struct inode *ip, int want)
{
	uint32_t uid = perm_uid();
	if (uid == 0)
		return !(want & 1) || IS_DIR(ip) || (ip->mode & 0111);
	int bits = uid == ip->uid ? ip->mode >> 6 : perm_group(ip->gid) ? ip->mode >> 3 : ip->mode;
	return (bits & want & 7) == (want & 7);
}

/* Does the caller own ip (or is it root)? chmod, utimes, a sticky
   directory's entries. */
int perm_owner(const struct inode *ip)
{
	uint32_t uid = perm_uid();
	return uid == 0 || uid == ip->uid;
}

/* May the caller remove or replace entry ip of directory dp? Write and
   search on dp (-EACCES), and in a sticky directory (01000) own the
   entry or dp (-EPERM), as Linux's may_delete. */
long perm_unlink(const struct inode *dp, const struct inode *ip)
{
	if (!perm_ok(dp, 3))
		return -EACCES;
	return (dp->mode & 01000) && !perm_owner(ip) && !perm_owner(dp) ? -EPERM : 0;
}

/* (path, mode bits 4|2|1 or 0, ACC_EFFECTIVE or 0): access, faccessat */
long sys_file_access(ARGS)
{
	UNUSED();
	char path[FPATH_MAX];
	struct fsctx c;
	struct inode ip;
	long r = a1 & ~7UL || a2 & ~(uint64_t)ACC_EFFECTIVE ? -EINVAL : getpath(a0, path);
	if (r)
		return r;
	struct vp *me = myvp();
	me->realids = !(a2 & ACC_EFFECTIVE);
	r = disk_blocks ? RETRY(ext2_namei(&c, path, &ip)) : -ENODEV;
	const char *m = r == -ENOENT || r == -ENODEV ? bin_module(path) : 0;
	if (m && module_find(m)) {       /* /bin/NAME a module stands for: root's, 0555 (binpath.c) */
		ip = (struct inode){ .mode = 0100555 };
		r = 0;
	}
	if (!r && a1 && !perm_ok(&ip, (int)a1))
		r = -EACCES;
	me->realids = 0;
	return r == -EBWAIT ? 0 : r;     /* (0: the thread blocked; the call runs again) */
}
