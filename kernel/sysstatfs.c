/*
 * SYS_file_statfs: how big the file system is and how much of it is
 * free, for statvfs. The figures are the superblock's (ext2w.c keeps
 * its free counts current at each allocation and freeing); a read races
 * with writers only as far as one count being a step behind another,
 * as Linux's statfs allows. Without a disk: -ENODEV.
 */
#include "kernel.h"
#include "ext2.h"
#include <anima/syscall.h>

/* The superblock's bytes, in *bp (bcache_put it) at *p. */
static long super(struct fsctx *c, struct buf **bp, uint8_t **p)
{
	long r = ext2_mount(c);
	return r ? r : disk_bytes(c, 1024, 1024, bp, p);
}

long sys_file_statfs(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	(void)a1; (void)a2; (void)a3; (void)a4; (void)a5;
	if (!user_range_ok(a0, sizeof(struct kstatfs)))
		return -EFAULT;
	struct fsctx c;
	struct buf *b;
	uint8_t *s;
	long r = RETRY(super(&c, &b, &s));
	if (r)
		return r == -EBWAIT ? 0 : r;     /* (0: the thread blocked, the call runs again) */
	uint64_t bfree = le32(s + 12), resv = le32(s + 8);
	struct kstatfs st = {
		.bsize = 1UL << fs.log, .blocks = le32(s + 4), .bfree = bfree,
		.bavail = bfree > resv ? bfree - resv : 0, .files = le32(s), .ffree = le32(s + 16),
		.namemax = EXT2_MAXNAME,
	};
	bcache_put(b);
	return copyout(a0, &st, sizeof st);
}
