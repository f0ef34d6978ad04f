/*
 * Owners, and a link of an open file: chown, lchown, fchownat and fchown
 * (SYS_file_chown: ext2_setattr with an owner change) and linkat's
 * AT_EMPTY_PATH (SYS_file_flink: ext2_link_ino). Who may give which
 * owner is ext2_setattr's check (root any, as Linux's CAP_CHOWN; an
 * owner its own groups); an open file may be linked again by anyone
 * who may write the new name's directory (Linux asks
 * CAP_DAC_READ_SEARCH).
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

#define ARGS uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5
#define UNUSED() ((void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5)

/* (path or 0, fd, uid, gid, flags: FA_NOFOLLOW) */
long sys_file_chown(ARGS)
{
	UNUSED();
	char path[FPATH_MAX];
	struct fattr a = { .mode = ~0u, .uid = (uint32_t)a2, .gid = (uint32_t)a3, .chown = 1,
			   .nofollow = a4 != 0 };
	struct fsctx c;
	long r = a2 >> 32 || a3 >> 32 || a4 & ~(uint64_t)FA_NOFOLLOW ? -EINVAL : 0;
	if (!r && a0)
		r = getpath(a0, path);
	if (!r && !disk_blocks && a0)
		r = -ENODEV;
	if (r || (r = orphan_reap(FSW_WAIT)))
		return r == -EBWAIT ? 0 : r;
	if (!a0) {
		r = file_setattr_fd(a1, &a);
		return r == -EBWAIT ? 0 : r;
	}
	for (;;) {
		c = (struct fsctx){ 0 };
		if ((r = ext2_setattr(&c, path, 0, &a)) != -EBWAIT)
			return r;
		if ((r = disk_wait(c.wait)) <= 0)
			return r;            /* (0: the thread blocked; the call runs again) */
	}
}

/* (fd, to) */
long sys_file_flink(ARGS)
{
	UNUSED();
	char to[FPATH_MAX];
	long r = getpath(a1, to);
	if (r || (r = orphan_reap(FSW_WAIT)))
		return r == -EBWAIT ? 0 : r;
	r = file_link_fd(a0, to);
	return r == -EBWAIT ? 0 : r;
}
