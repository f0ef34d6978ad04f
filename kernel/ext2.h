/*
 * ext2, read side (ext2.c). Every call returns 0 (or a count), a negative
 * errno, or -EBWAIT: a block is on its way from the disk and *c->wait is
 * its buffer (the caller waits for it and runs the whole call again:
 * RETRY). Nothing here sleeps or changes state before it succeeds.
 */
#ifndef EXT2_H
#define EXT2_H
#include "disk.h"
#include <anima/file.h>

#define EBWAIT 4096               /* kernel-internal: wait for c->wait, then again */

struct fsctx {
	struct buf *wait;
	int to;                       /* ext2_read's destination: FS_USER, FS_KERNEL (kdst), FS_NONE;
	                                 ext2_write's source: FS_KERNEL (kdst, fshare.c), else ubuf */
	uint8_t *kdst;
};
enum { FS_USER, FS_KERNEL, FS_NONE };   /* FS_NONE: only bring the blocks in (execfile.c) */

/* Run `call` (an ext2 call on the caller's struct fsctx c) until it
   needs no block from the disk: its result, or -EBWAIT when the thread
   blocked (the caller returns 0 at once: the call runs again on
   EV_UNBLOCKED). */
#define RETRY(call) ({                                              \
	long _r;                                                    \
	for (;;) {                                                  \
		c = (struct fsctx){ 0 };                            \
		if ((_r = (call)) != -EBWAIT)                       \
			break;                                      \
		if ((_r = disk_wait(c.wait)) <= 0) {                \
			_r = _r ? _r : -EBWAIT;                     \
			break;                                      \
		}                                                   \
	}                                                           \
	_r; })

struct inode {
	uint32_t ino;
	uint16_t mode, links;
	uint64_t size, blocks;
	uint32_t uid, gid;
	int64_t atime, mtime, ctime;  /* seconds since 1970 (ext2time.c) */
	uint32_t atime_ns, mtime_ns, ctime_ns;
	uint32_t blk[15];             /* 12 direct, single, double, triple indirect */
};

#define IS_DIR(ip) (((ip)->mode & 0xf000) == 0x4000)
#define IS_REG(ip) (((ip)->mode & 0xf000) == 0x8000)
#define IS_LNK(ip) (((ip)->mode & 0xf000) == 0xa000)

/* The mounted file system's geometry (ext2.c) and the helpers ext2w.c
   (the write side) shares with the read side. */
struct ext2fs {
	int mounted;
	uint32_t log;                     /* block size = 1 << log (10..12) */
	uint64_t nblocks;
	uint32_t ninodes, bpg, ipg, ngroups, isize, first, firstino;
	int largefile;                    /* ro_compat large_file: sizes past 2 GiB */
	uint32_t orphans;                 /* s_last_orphan at mount: a crash's orphans (ext2orph.c) */
};
extern struct ext2fs fs;
long ext2_mount(struct fsctx *c);
long disk_bytes(struct fsctx *c, uint64_t off, uint64_t len, struct buf **bp, uint8_t **p);
long fsblock(struct fsctx *c, uint64_t b, struct buf **bp, uint8_t **p);
uint32_t le32(const uint8_t *p);
uint16_t le16(const uint8_t *p);
long ext2_iraw(struct fsctx *c, uint32_t ino, struct buf **bp, uint8_t **p);
long ext2_iget(struct fsctx *c, uint32_t ino, struct inode *ip);
void ext2_idecode(uint32_t ino, const uint8_t *p, struct inode *ip);
long ext2_lookup(struct fsctx *c, const struct inode *dp, const char *name, size_t len, uint32_t *ino);

/* ext2link.c: symbolic links; ext2_namei follows them all, ext2_lnamei
   all but a last component's */
long ext2_namei(struct fsctx *c, const char *path, struct inode *ip);
long ext2_lnamei(struct fsctx *c, const char *path, struct inode *ip);
long ext2_readlink(struct fsctx *c, const struct inode *ip, char *dst);
long ext2_read(struct fsctx *c, const struct inode *ip, uint64_t off, uint64_t ubuf, uint64_t n);
void ext2_readahead(const struct inode *ip, uint64_t fb, uint64_t n);
long ext2_readk(struct fsctx *c, const struct inode *ip, uint64_t off, void *kbuf, uint64_t n);
void ext2_stat(const struct inode *ip, struct kstat *st);
long ext2_readdir(struct fsctx *c, const struct inode *dp, uint64_t *off, uint64_t ubuf, uint64_t n);

/* ext2w.c: the write side (one lock for the file system, ext2w.c) */
long ext2_write(struct fsctx *c, uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n, int append,
		uint64_t *at);
long ext2_truncate(struct fsctx *c, uint32_t ino, uint64_t len);
long ext2_create(struct fsctx *c, const char *path, uint32_t mode, int excl, uint32_t *ino);
long ext2_create_held(struct fsctx *c, const char *path, uint32_t mode, int excl, struct inode *ip);
long ext2_symlink(struct fsctx *c, const char *path, const char *target, size_t len);
long ext2_unlink(struct fsctx *c, const char *path, int dir);
long ext2_rename(struct fsctx *c, const char *from, const char *to);
long ext2_reap(struct fsctx *c, uint32_t ino);
long ext2_link(struct fsctx *c, const char *from, const char *to, int follow);
/* What ext2_setattr changes (sysmode.c, sysown.c) */
struct fattr {
	uint32_t mode;                /* permission bits, or ~0: kept */
	uint32_t uid, gid;            /* with `chown`: the owner and group, ~0 keeps one */
	int chown, nofollow;          /* nofollow: a last symbolic link itself */
	const struct ftime *t;        /* atime, mtime, or 0; ns FT_OMIT keeps one */
	int now;                      /* t is both set to now (write permission is enough) */
};
long ext2_setattr(struct fsctx *c, const char *path, uint32_t ino, const struct fattr *a);
long ext2_link_ino(struct fsctx *c, uint32_t ino, const char *to);
#define EXT2_LINK_MAX 32000           /* links to one inode (Linux's ext2: -EMLINK past it) */

/* ext2time.c: an inode's times as Linux keeps them (T_* of the raw inode) */
struct ftime {
	int64_t sec;
	uint32_t ns;
};
#define FT_OMIT 0xffffffffu           /* (ext2_setattr: keep this time) */
enum { T_ATIME, T_CTIME, T_MTIME, T_CRTIME };
void ext2_tget(const uint8_t *ip, int which, struct ftime *t);
void ext2_tput(uint8_t *ip, int which, const struct ftime *t);
void ext2_now(struct ftime *t);
void ext2_tnow(uint8_t *ip, int which);

/* ext2orph.c: the on-disk orphan list (s_last_orphan, linked through i_dtime) */
void ext2_orphan_push(uint8_t *s, struct buf *sb, uint8_t *ip, uint32_t ino);
long ext2_orphan_find(struct fsctx *c, const uint8_t *s, uint32_t ino, struct buf **pb, uint8_t **pp);
void ext2_orphan_cut(uint8_t *s, struct buf *sb, long where, struct buf *pb, uint8_t *pp, const uint8_t *ip);
long ext2_orphan_next(struct fsctx *c, uint32_t ino, uint32_t *next);

/* orphan.c: how a step that needs a block waits for it (fs_wait) */
enum { FSW_NOWAIT, FSW_WAIT, FSW_HALT };
long fs_wait(struct fsctx *c, int how);
#define EXT2_MAXNAME 255

#endif
