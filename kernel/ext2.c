/*
 * ext2 (revision 1; 1, 2 or 4 KiB blocks), read side: the superblock,
 * group descriptors, inodes, directories and files through direct and
 * single, double and triple indirect blocks, over the block cache.
 *
 * The image is untrusted: every field is checked before it is used. A
 * block number past the file system, an inode number past the table, a
 * directory entry that does not fit its block, a size no block map can
 * reach: each gives -EUCLEAN to the call that met it, and nothing else.
 * Nothing here loops on what the disk says: block maps have a fixed depth,
 * directories are walked block by block up to their (bounded) size, and
 * lookups follow at most 8 symbolic links (ext2link.c).
 *
 * Layout facts (offsets of fields) are from the ext2 on-disk format as
 * e2fsprogs documents it.
 */
#include "kernel.h"
#include "ext2.h"

#define MAGIC 0xef53
#define ROOT_INO 2
#define INCOMPAT_FILETYPE 0x2
#define MAXDIR (16UL << 20)           /* a larger directory is taken as damage */

struct ext2fs fs;                    /* (ext2.h; ext2w.c writes through it) */

/* Bytes [off, off + len) of the disk, in one cache block: 0 with *p and
   *bp held, or -EBWAIT, -EIO, -EUCLEAN (past the disk). */
long disk_bytes(struct fsctx *c, uint64_t off, uint64_t len, struct buf **bp, uint8_t **p)
{
	if (off / BSIZE >= disk_blocks || off % BSIZE + len > BSIZE)
		return -EUCLEAN;
	long r = bcache_read(off / BSIZE, bp);
	if (r == BWAIT) {
		c->wait = *bp;
		return -EBWAIT;
	}
	if (r)
		return r;
	*p = (*bp)->data + off % BSIZE;
	return 0;
}

/* File-system block b (0 < b < nblocks). */
long fsblock(struct fsctx *c, uint64_t b, struct buf **bp, uint8_t **p)
{
	if (b == 0 || b >= fs.nblocks)
		return -EUCLEAN;
	return disk_bytes(c, b << fs.log, 1UL << fs.log, bp, p);
}

uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Check the superblock and remember its geometry (once; the image does
   not change under us). */
long ext2_mount(struct fsctx *c)
{
	if (__atomic_load_n(&fs.mounted, __ATOMIC_ACQUIRE))
		return 0;
	if (!disk_blocks)
		return -ENODEV;
	struct buf *b;
	uint8_t *s;
	long r = disk_bytes(c, 1024, 1024, &b, &s);
	if (r)
		return r;
	uint32_t ninodes = le32(s), nblocks = le32(s + 4), first = le32(s + 20);
	uint32_t logb = le32(s + 24), bpg = le32(s + 32), ipg = le32(s + 40);
	uint32_t rev = le32(s + 76), isize = rev ? le16(s + 88) : 128, incompat = le32(s + 96);
	uint16_t magic = le16(s + 56);
	uint32_t firstino = le32(s + 84), rocompat = le32(s + 100), orphans = le32(s + 232);
	bcache_put(b);
	if (magic != MAGIC || rev != 1 || logb > 2 || incompat & ~INCOMPAT_FILETYPE)
		return -EUCLEAN;
	uint32_t log = 10 + logb;
	if (first != (log == 10) || bpg == 0 || bpg > 8u << log || ipg == 0 || ipg > 8u << log ||
	    isize < 128 || isize > 1u << log || (isize & (isize - 1)) ||
	    nblocks <= first || ((uint64_t)nblocks << log) > disk_blocks * BSIZE)
		return -EUCLEAN;
	uint32_t ngroups = (nblocks - first + bpg - 1) / bpg;
	if ((uint64_t)ngroups * ipg < ninodes || ninodes < ROOT_INO)
		return -EUCLEAN;
	fs.log = log;
	fs.nblocks = nblocks;
	fs.ninodes = ninodes;
	fs.bpg = bpg;
	fs.ipg = ipg;
	fs.ngroups = ngroups;
	fs.isize = isize;
	fs.first = first;
	fs.firstino = firstino > ROOT_INO && firstino <= ninodes ? firstino : 11;
	fs.largefile = (rocompat & 2) != 0;
	/* s_last_orphan as the first mount read it (two may race: a later
	   read may already see this boot's orphans pushed); freed by orphan.c */
	static int took_orphans;
	if (!__atomic_exchange_n(&took_orphans, 1, __ATOMIC_ACQ_REL))
		fs.orphans = orphans;
	__atomic_store_n(&fs.mounted, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Inode ino's bytes in its table: 0 with *bp held and *p at it. */
long ext2_iraw(struct fsctx *c, uint32_t ino, struct buf **bp, uint8_t **p)
{
	if (ino < 1 || ino > fs.ninodes)
		return -EUCLEAN;
	uint32_t g = (ino - 1) / fs.ipg, idx = (ino - 1) % fs.ipg;
	uint64_t bs = 1UL << fs.log;
	uint64_t gd = (fs.first + 1) * bs + (uint64_t)g * 32;    /* its group descriptor */
	if (gd / bs >= fs.nblocks)
		return -EUCLEAN;
	struct buf *b;
	uint8_t *q;
	long r = disk_bytes(c, gd, 32, &b, &q);
	if (r)
		return r;
	uint64_t table = le32(q + 8);
	bcache_put(b);
	uint64_t tblocks = ((uint64_t)fs.ipg * fs.isize + bs - 1) / bs;
	uint64_t gdend = fs.first + 1 + ((uint64_t)fs.ngroups * 32 + bs - 1) / bs;
	if (table < gdend || table + tblocks > fs.nblocks)
		return -EUCLEAN;         /* (over the superblock or descriptors: damage) */
	return disk_bytes(c, table * bs + (uint64_t)idx * fs.isize, fs.isize, bp, p);
}

/* Inode ino's bytes p (its table's) decoded into ip. */
void ext2_idecode(uint32_t ino, const uint8_t *p, struct inode *ip)
{
	ip->ino = ino;
	ip->mode = le16(p);
	ip->uid = le16(p + 2) | (uint32_t)le16(p + 120) << 16;
	ip->size = le32(p + 4);
	struct ftime t;
	ext2_tget(p, T_ATIME, &t);
	ip->atime = t.sec, ip->atime_ns = t.ns;
	ext2_tget(p, T_CTIME, &t);
	ip->ctime = t.sec, ip->ctime_ns = t.ns;
	ext2_tget(p, T_MTIME, &t);
	ip->mtime = t.sec, ip->mtime_ns = t.ns;
	ip->gid = le16(p + 24) | (uint32_t)le16(p + 122) << 16;
	ip->links = le16(p + 26);
	ip->blocks = le32(p + 28);
	for (int i = 0; i < 15; i++)
		ip->blk[i] = le32(p + 40 + 4 * i);
	if (IS_REG(ip))
		ip->size |= (uint64_t)le32(p + 108) << 32;   /* large files */
}

/* Inode number ino, copied out of its table. */
long ext2_iget(struct fsctx *c, uint32_t ino, struct inode *ip)
{
	struct buf *b;
	uint8_t *p;
	uint64_t bs = 1UL << fs.log;
	long r = ext2_iraw(c, ino, &b, &p);
	if (r)
		return r;
	ext2_idecode(ino, p, ip);
	bcache_put(b);
	/* A size past what the block map reaches is damage. */
	uint64_t per = bs / 4, most = 12 + per + per * per + per * per * per;
	if (ip->size > most * bs || (IS_DIR(ip) && ip->size > MAXDIR))
		return -EUCLEAN;
	return 0;
}

/* Entry i of indirect block ind (0: a hole). */
static long indirect(struct fsctx *c, uint32_t ind, uint64_t i, uint32_t *out)
{
	if (ind == 0) {
		*out = 0;
		return 0;
	}
	struct buf *b;
	uint8_t *p;
	long r = fsblock(c, ind, &b, &p);
	if (r)
		return r;
	*out = le32(p + 4 * i);
	bcache_put(b);
	return *out >= fs.nblocks ? -EUCLEAN : 0;
}

/* The disk block holding file block fb of ip (0: a hole). */
static long bmap(struct fsctx *c, const struct inode *ip, uint64_t fb, uint32_t *db)
{
	uint64_t per = 1UL << (fs.log - 2);
	uint32_t b;
	long r;
	if (fb < 12) {
		b = ip->blk[fb];
	} else if ((fb -= 12) < per) {
		if ((r = indirect(c, ip->blk[12], fb, &b)))
			return r;
	} else if ((fb -= per) < per * per) {
		if ((r = indirect(c, ip->blk[13], fb / per, &b)) || (r = indirect(c, b, fb % per, &b)))
			return r;
	} else {
		fb -= per * per;
		if ((r = indirect(c, ip->blk[14], fb / (per * per), &b)) ||
		    (r = indirect(c, b, fb / per % per, &b)) || (r = indirect(c, b, fb % per, &b)))
			return r;
	}
	if (b >= fs.nblocks)
		return -EUCLEAN;
	*db = b;
	return 0;
}

static const uint8_t zeros[BSIZE];

/* Start the blocks of file blocks [fb, end) that are not in the cache on
   their way (those whose map is at hand), so that one wait covers them. */
static void prefetch(const struct inode *ip, uint64_t fb, uint64_t end)
{
	for (; fb < end; fb++) {
		struct fsctx c2 = { 0 };
		struct buf *b;
		uint8_t *p;
		uint32_t db;
		if (bmap(&c2, ip, fb, &db) == 0 && db && fsblock(&c2, db, &b, &p) == 0)
			bcache_put(b);
	}
}

/*
 * Copy up to n bytes of ip from off to the user's ubuf. The count copied
 * (short at the end of the file, or where a block must come from the disk
 * after READ_WHOLE bytes were copied: the caller returns what it has), or
 * an error, or -EBWAIT: a block must come first, and the caller runs the
 * read again from the start (below READ_WHOLE bytes it does, so a read of
 * a few blocks is never short; the blocks it still needs are started
 * together first).
 */
#define READ_WHOLE (64UL << 10)
long ext2_read(struct fsctx *c, const struct inode *ip, uint64_t off, uint64_t ubuf, uint64_t n)
{
	uint64_t bs = 1UL << fs.log, done = 0;
	if (off >= ip->size)
		return 0;
	n = MIN(n, ip->size - off);
	while (done < n) {
		uint64_t o = (off + done) % bs, k = MIN(bs - o, n - done);
		uint32_t db;
		struct buf *b = 0;
		uint8_t *p = (uint8_t *)zeros;
		long r = bmap(c, ip, (off + done) / bs, &db);
		if (!r && db)
			r = fsblock(c, db, &b, &p);
		if (r == -EBWAIT && done < READ_WHOLE) {
			uint64_t fb = (off + done) / bs;
			prefetch(ip, fb + 1, MIN((off + n + bs - 1) / bs, fb + READ_WHOLE / bs));
			return r;
		}
		if (r)
			return done ? (long)done : r;
		const uint8_t *src = p + (db ? o : 0);
		if (c->to == FS_USER)
			r = copyout(ubuf + done, src, k);
		else if (c->to == FS_KERNEL)
			memcpy(c->kdst + done, src, k);
		if (b)
			bcache_put(b);
		if (r)
			return done ? (long)done : r;
		done += k;
	}
	return (long)done;
}

/* The same into kernel memory (a file-mapped page, fmap.c). */
long ext2_readk(struct fsctx *c, const struct inode *ip, uint64_t off, void *kbuf, uint64_t n)
{
	c->to = FS_KERNEL;
	c->kdst = kbuf;
	return ext2_read(c, ip, off, 0, n);
}

/* Start file blocks [fb, fb + n) of ip that lie inside it on their way
   from the disk, waiting for none: read-ahead (sysfile.c). */
void ext2_readahead(const struct inode *ip, uint64_t fb, uint64_t n)
{
	uint64_t bs = 1UL << fs.log, last = (ip->size + bs - 1) / bs;
	if (fb < last)
		prefetch(ip, fb, MIN(fb + n, last));
}

/* Look name (len bytes) up in directory dp: 0 and *ino, or -ENOENT. */
long ext2_lookup(struct fsctx *c, const struct inode *dp, const char *name, size_t len,
		       uint32_t *ino)
{
	uint64_t bs = 1UL << fs.log;
	for (uint64_t fb = 0; fb * bs < dp->size; fb++) {
		uint32_t db;
		struct buf *b;
		uint8_t *p;
		long r = bmap(c, dp, fb, &db);
		if (r)
			return r;
		if (!db)
			continue;                 /* a hole: no entries */
		if ((r = fsblock(c, db, &b, &p)))
			return r;
		for (uint64_t at = 0; at < bs;) {
			uint8_t *e = p + at;
			uint32_t n = le32(e), rec = le16(e + 4), nlen = e[6];
			if (rec < 8 || rec % 4 || at + rec > bs || nlen + 8u > rec) {
				bcache_put(b);
				return -EUCLEAN;
			}
			if (n && nlen == len && !memcmp(e + 8, name, len)) {
				bcache_put(b);
				*ino = n;
				return 0;
			}
			at += rec;
		}
		bcache_put(b);
	}
	return -ENOENT;
}

/* (ext2_namei: ext2link.c) */

/* Copy entry e (inode ino, name nlen bytes) to ubuf + *at as a struct
   kdirent, if it fits in n: 1 copied, 0 no room, or -EFAULT. */
static long put_dirent(uint64_t ubuf, uint64_t *at, uint64_t n, uint32_t ino, const uint8_t *e,
		       uint8_t nlen)
{
	uint64_t rec[(sizeof(struct kdirent) + 256 + 7) / 8];
	struct kdirent *d = (struct kdirent *)rec;
	uint16_t len = (uint16_t)((__builtin_offsetof(struct kdirent, name) + nlen + 1 + 7) & ~7UL);
	if (*at + len > n)
		return 0;
	memset(rec, 0, len);
	d->ino = ino;
	d->reclen = len;
	d->type = e[7];
	memcpy(d->name, e + 8, nlen);
	long r = copyout(ubuf + *at, rec, len);
	if (r)
		return r;
	*at += len;
	return 1;
}

/*
 * Entries of directory dp from byte *off (an entry's start: 0, or what an
 * earlier call left there) into the user's ubuf as struct kdirent, as many
 * as fit in n bytes: the bytes filled (0 at the end), *off moved past the
 * last one copied; -EINVAL if the first does not fit, -EUCLEAN for an
 * entry that does not fit its block (an offset inside an entry, from
 * lseek, may read as one), or -EBWAIT with *off unchanged.
 */
long ext2_readdir(struct fsctx *c, const struct inode *dp, uint64_t *off, uint64_t ubuf, uint64_t n)
{
	uint64_t bs = 1UL << fs.log, pos = *off, at = 0;
	while (pos < dp->size) {
		uint32_t db;
		struct buf *b;
		uint8_t *p;
		long r = bmap(c, dp, pos / bs, &db);
		if (!r && !db) {
			pos = (pos / bs + 1) * bs;          /* a hole: no entries */
			continue;
		}
		if (!r)
			r = fsblock(c, db, &b, &p);
		if (r && at)
			*off = pos;
		if (r)
			return at ? (long)at : r;
		for (uint64_t blk = pos / bs; pos / bs == blk && pos < dp->size;) {
			uint64_t o = pos % bs;
			uint8_t *e = p + o;
			uint32_t ino = o + 8 <= bs ? le32(e) : 0, rec = o + 8 <= bs ? le16(e + 4) : 0;
			if (rec < 8 || rec % 4 || o + rec > bs || e[6] + 8u > rec) {
				bcache_put(b);
				*off = pos;
				return at ? (long)at : -EUCLEAN;
			}
			if (ino && (r = put_dirent(ubuf, &at, n, ino, e, e[6])) <= 0) {
				bcache_put(b);
				*off = pos;
				return at ? (long)at : r ? r : -EINVAL;
			}
			pos += rec;
		}
		bcache_put(b);
	}
	*off = pos;
	return (long)at;
}

void ext2_stat(const struct inode *ip, struct kstat *st)
{
	*st = (struct kstat){
		.ino = ip->ino, .size = ip->size, .blocks = ip->blocks,
		.mode = ip->mode, .nlink = ip->links, .uid = ip->uid, .gid = ip->gid,
		.atime = ip->atime, .mtime = ip->mtime, .ctime = ip->ctime,
		.atime_ns = ip->atime_ns, .mtime_ns = ip->mtime_ns, .ctime_ns = ip->ctime_ns,
		.blksize = 1u << fs.log,
	};
}
