/*
 * Modes, times and hard links (ext2w.c: ext2_setattr, ext2_link):
 * chmod and utimensat on a path, fchmod and futimens on a descriptor,
 * link and linkat; and the umask an exec keeps. The umask is ulib's
 * (ulib/libc/nofile.c); POSIX keeps it across exec, so ulib tells the
 * kernel before each exec (SYS_umaskexec) and the new image asks
 * (INFO_UMASKEXEC), as ITIMER_REAL is kept (psigexec.c).
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* The mode and times asked for (a1, a2) as ext2_setattr takes them:
   0 with *tp 0 (no times) or t; -EINVAL, -EFAULT. `none`: nothing to
   change (keep the mode, omit both times). */
static long attrs(uint64_t mode, uint64_t ut, uint64_t t[2], const uint64_t **tp, int *none)
{
	struct ktimes k;
	*tp = 0;
	*none = 0;
	if (mode != FA_KEEP && (mode & ~07777UL))
		return -EINVAL;
	if (!ut)
		return 0;
	if (copyin(&k, ut, sizeof k) < 0)
		return -EFAULT;
	int64_t v[2] = { k.atime, k.mtime };
	for (int i = 0; i < 2; i++) {
		if (v[i] < KT_OMIT)
			return -EINVAL;
		t[i] = v[i] == KT_OMIT ? ~0UL : v[i] == KT_NOW ? boot_epoch + now_ns() / 1000000000UL
			: MIN((uint64_t)v[i], 0x7fffffffUL);   /* (signed on the disk, as Linux reads it) */
	}
	*tp = t;
	*none = mode == FA_KEEP && v[0] == KT_OMIT && v[1] == KT_OMIT;
	return 0;
}

/* (path, mode or FA_KEEP, struct ktimes * or 0) */
long sys_file_setattr(ARGS)
{
	UNUSED();
	char path[FPATH_MAX];
	uint64_t t[2];
	const uint64_t *tp;
	struct fsctx c;
	struct inode ip;
	int none;
	long r = getpath(a0, path);
	if (!r)
		r = attrs(a1, a2, t, &tp, &none);
	if (!r && !disk_blocks)
		r = -ENODEV;
	if (r || (r = orphan_reap(FSW_WAIT)))
		return r == -EBWAIT ? 0 : r;
	r = none ? RETRY(ext2_namei(&c, path, &ip)) : RETRY(ext2_setattr(&c, path, 0, (uint32_t)a1, tp));
	return r == -EBWAIT ? 0 : r;     /* (0: the thread blocked; the call runs again) */
}

/* (fd, mode or FA_KEEP, struct ktimes * or 0) */
long sys_file_fsetattr(ARGS)
{
	UNUSED();
	uint64_t t[2];
	const uint64_t *tp;
	int none;
	long r = attrs(a1, a2, t, &tp, &none);
	if (r)
		return r;
	if (none) {                      /* (nothing to change: only fd is checked) */
		r = file_info(INFO_FILE_KIND, a0);
		return r < 0 ? r : r != FK_FILE ? -EINVAL : 0;
	}
	if (!(r = orphan_reap(FSW_WAIT)))
		r = file_setattr_fd(a0, (uint32_t)a1, tp);
	return r == -EBWAIT ? 0 : r;
}

/* (from, to, follow): link, and linkat's AT_SYMLINK_FOLLOW */
long sys_file_link(ARGS)
{
	UNUSED();
	char from[FPATH_MAX], to[FPATH_MAX];
	struct fsctx c;
	long r = getpath(a0, from);
	if (!r)
		r = getpath(a1, to);
	if (!r && !disk_blocks)
		r = -ENODEV;
	if (r || (r = orphan_reap(FSW_WAIT)))
		return r == -EBWAIT ? 0 : r;
	r = RETRY(ext2_link(&c, from, to, a2 != 0));
	return r == -EBWAIT ? 0 : r;
}

/* (mask): the umask the caller's next exec keeps */
long sys_umaskexec(ARGS)
{
	UNUSED();
	if (a0 & ~0777UL)
		return -EINVAL;
	struct space *me = myvp()->space;
	spin_lock(&me->lock);
	me->psig.keepumask = 01000 | (uint32_t)a0;
	spin_unlock(&me->lock);
	return 0;
}

/* INFO_UMASKEXEC: what the exec that made sp's image kept, 022 if none */
long umask_info(struct space *sp)
{
	spin_lock(&sp->lock);
	uint32_t m = sp->psig.execumask;
	spin_unlock(&sp->lock);
	return m ? m & 0777 : 022;
}
