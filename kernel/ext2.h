/*
 * ext2, read side (ext2.c). Every call returns 0 (or a count), a negative
 * errno, or -EBWAIT: a block is on its way from the disk and *c->wait is
 * its buffer (the caller waits for it and runs the whole call again,
 * sysfile.c). Nothing here sleeps or changes state before it succeeds.
 */
#ifndef EXT2_H
#define EXT2_H
#include "disk.h"
#include <anima/file.h>

#define EBWAIT 4096               /* kernel-internal: wait for c->wait, then again */

struct fsctx {
	struct buf *wait;
};

struct inode {
	uint32_t ino;
	uint16_t mode, links;
	uint64_t size, blocks;
	uint32_t uid, gid, atime, mtime, ctime;
	uint32_t blk[15];             /* 12 direct, single, double, triple indirect */
};

#define IS_DIR(ip) (((ip)->mode & 0xf000) == 0x4000)
#define IS_REG(ip) (((ip)->mode & 0xf000) == 0x8000)

long ext2_namei(struct fsctx *c, const char *path, struct inode *ip);
long ext2_read(struct fsctx *c, const struct inode *ip, uint64_t off, uint64_t ubuf, uint64_t n);
void ext2_stat(const struct inode *ip, struct kstat *st);
long ext2_readdir(struct fsctx *c, const struct inode *dp, uint64_t *off, uint64_t ubuf, uint64_t n);

#endif
