/*
 * ext2, write side: block and inode allocation from the group bitmaps,
 * writes that grow files through indirect blocks, truncation, creating
 * files, directories and symbolic links, unlink, rmdir and rename.
 *
 * Nobody sleeps here either (ext2.h): a step that needs a block the cache
 * does not hold gives -EBWAIT and the call runs again from its start. So
 * every change is made in a *step* that first takes (holds) every buffer
 * it will change and only then changes them; a step that must wait has
 * changed nothing. Between steps the image is consistent (what e2fsck
 * -fn checks), so a call that waits between two steps and runs again
 * finds a consistent state and carries on from it: a write's blocks are
 * mapped and its size set in one step; a truncate frees blocks from the
 * end, one block (bitmap bit, group and superblock counts, pointer,
 * i_blocks) at a time, and sets the size last; a create takes the
 * directory slot, the inode and (mkdir) the first block, and changes them
 * all together.
 *
 * Locking: one lock for the file system (fslock) is held by each step,
 * so steps never interleave. Order: fslock, then bcache_lock, then
 * blk_lock. Readers (ext2.c) take no lock: each change a reader could see
 * half done is published by one aligned store made last (a block pointer
 * after its block is zeroed, a directory entry's rec_len after the new
 * entry behind it is written, an inode number set to 0 to remove one).
 * The user's bytes are copied with no lock held (a copy may fault), into
 * a data buffer held since the step.
 *
 * An inode whose last link goes while an open file or a mapping holds
 * it (orphan.c) keeps its blocks and its number: it is an orphan, read
 * and written through its holders, and freed by ext2_reap once the last
 * one let go. The step that makes it one also puts it in the on-disk
 * orphan list (ext2orph.c), so a crash leaves it to be freed at mount.
 */
#include "kernel.h"
#include "ext2.h"

static struct spinlock fslock = SPINLOCK_INIT("ext2w");

#define BS (1UL << fs.log)
#define PER (BS / 4)
#define IFL_INDEX 0x1000              /* i_flags: hashed directory (we keep it linear) */

static void put16(uint8_t *p, uint32_t v) { __atomic_store_n((uint16_t *)p, (uint16_t)v, __ATOMIC_RELEASE); }
static void put32(uint8_t *p, uint32_t v) { __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE); }
static uint32_t now(void) { return (uint32_t)(boot_epoch + now_ns() / 1000000000UL); }

/* The largest file size: the block map's reach, at most 1 TiB (so
   i_blocks, 32 bits of 512-byte units, never overflows), 2 GiB - 1
   without the large_file feature. */
static uint64_t maxsize(void)
{
	uint64_t map = (12 + PER + PER * PER + PER * PER * PER) * BS;
	return fs.largefile ? MIN(map, 1UL << 40) : (1UL << 31) - 1;
}

static uint64_t isize_of(const uint8_t *ip)
{
	return le32(ip + 4) | ((ip[1] & 0xf0) == 0x80 ? (uint64_t)le32(ip + 108) << 32 : 0);
}

static void set_size(uint8_t *ip, uint64_t size)
{
	put32(ip + 108, (ip[1] & 0xf0) == 0x80 ? (uint32_t)(size >> 32) : le32(ip + 108));
	put32(ip + 4, (uint32_t)size);
}

/* ctime and mtime: now (ext2time.c) */
static void touch(uint8_t *ip)
{
	struct ftime t;
	ext2_now(&t);
	ext2_tput(ip, T_CTIME, &t);
	ext2_tput(ip, T_MTIME, &t);
}

static long sbget(struct fsctx *c, struct buf **b, uint8_t **p)
{
	return disk_bytes(c, 1024, 1024, b, p);
}

static long gdget(struct fsctx *c, uint32_t g, struct buf **b, uint8_t **p)
{
	return disk_bytes(c, (fs.first + 1) * BS + (uint64_t)g * 32, 32, b, p);
}

/* What one allocation or freeing holds between its two halves. */
struct alloc {
	struct buf *sb, *gb, *mb, *nb;    /* superblock, group descriptor, bitmap, the new thing */
	uint8_t *s, *g, *m, *n;
	uint32_t bit, no;
};

/* r; a failed call's buffer pointer cleared (the cache sets it to the
   buffer to wait for, which is not held). */
static long took(long r, struct buf **bp)
{
	if (r)
		*bp = 0;
	return r;
}

static void drop(struct alloc *a)
{
	struct buf *bs[4] = { a->sb, a->gb, a->mb, a->nb };
	for (int i = 0; i < 4; i++)
		if (bs[i])
			bcache_put(bs[i]);
	*a = (struct alloc){ 0 };
}

/* Set (1) or clear (0) a's bit; add d to the group's and superblock's
   free counts at goff and soff. Then put all but the new thing. */
static void commit(struct alloc *a, int set, int goff, int soff, int d)
{
	if (set)
		a->m[a->bit / 8] |= (uint8_t)(1 << a->bit % 8);
	else
		a->m[a->bit / 8] &= (uint8_t)~(1 << a->bit % 8);
	put16(a->g + goff, (uint32_t)(le16(a->g + goff) + d));
	put32(a->s + soff, le32(a->s + soff) + (uint32_t)d);
	bcache_dirty(a->mb);
	bcache_dirty(a->gb);
	bcache_dirty(a->sb);
	struct alloc keep = { .nb = a->nb, .n = a->n, .no = a->no };
	a->nb = 0;
	drop(a);
	*a = keep;
}

/* The first clear bit of bitmap m in [from, n), or n. */
static uint32_t clear_bit(const uint8_t *m, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < n; i++)
		if (m[i / 8] == 0xff && i % 8 == 0)
			i += 7;
		else if (!(m[i / 8] >> i % 8 & 1))
			return i;
	return n;
}

/*
 * First half of an allocation (inode: 1, block: 0), starting at group
 * goal: everything held, nothing changed; a->no is the block or inode,
 * a->n its bytes (a block zeroed already: it is free, so that is no
 * change). -ENOSPC when none is free.
 */
static long prep_alloc(struct fsctx *c, int inode, uint32_t goal, struct alloc *a)
{
	long r = took(sbget(c, &a->sb, &a->s), &a->sb);
	if (r)
		return r;
	if (!le32(a->s + (inode ? 16 : 12))) {
		drop(a);
		return -ENOSPC;
	}
	for (uint32_t i = 0; i < fs.ngroups && !r; i++) {
		uint32_t g = (goal + i) % fs.ngroups;
		if ((r = took(gdget(c, g, &a->gb, &a->g), &a->gb)))
			break;
		uint32_t n = inode ? MIN(fs.ipg, fs.ninodes - g * fs.ipg)
				   : (uint32_t)MIN(fs.bpg, fs.nblocks - fs.first - (uint64_t)g * fs.bpg);
		if (le16(a->g + (inode ? 14 : 12)) && !(r = took(fsblock(c, le32(a->g + (inode ? 4 : 0)), &a->mb, &a->m), &a->mb))) {
			uint32_t from = inode && g == 0 ? fs.firstino - 1 : 0;   /* reserved inodes */
			uint32_t bit = clear_bit(a->m, from, n);
			if (bit < n) {
				a->bit = bit;
				if (inode) {
					a->no = g * fs.ipg + bit + 1;
					r = took(ext2_iraw(c, a->no, &a->nb, &a->n), &a->nb);
				} else {
					a->no = fs.first + g * fs.bpg + bit;
					if (!(r = took(fsblock(c, a->no, &a->nb, &a->n), &a->nb))) {
						memset(a->n, 0, BS);
						bcache_dirty(a->nb);
					}
				}
				if (!r)
					return 0;
				break;
			}
			bcache_put(a->mb);
			a->mb = 0;
		}
		bcache_put(a->gb);
		a->gb = 0;
	}
	drop(a);
	return r ? r : -ENOSPC;
}

/* First half of freeing block or inode no: held, its bit checked set. */
static long prep_free(struct fsctx *c, int inode, uint32_t no, struct alloc *a)
{
	uint32_t per = inode ? fs.ipg : fs.bpg, x = inode ? no - 1 : no - fs.first;
	if (inode ? (no < 1 || no > fs.ninodes) : (no < fs.first || no >= fs.nblocks))
		return -EUCLEAN;
	long r;
	if ((r = took(sbget(c, &a->sb, &a->s), &a->sb)) || (r = took(gdget(c, x / per, &a->gb, &a->g), &a->gb)) ||
	    (r = took(fsblock(c, le32(a->g + (inode ? 4 : 0)), &a->mb, &a->m), &a->mb))) {
		drop(a);
		return r;
	}
	a->bit = x % per;
	a->no = no;
	if (!(a->m[a->bit / 8] >> a->bit % 8 & 1)) {
		drop(a);
		return -EUCLEAN;                  /* freeing what is free: damage */
	}
	return 0;
}

static void commit_free(struct alloc *a, int inode, int dir)
{
	if (dir)
		put16(a->g + 16, le16(a->g + 16) - 1u);
	commit(a, 0, inode ? 14 : 12, inode ? 16 : 12, 1);
	if (!inode && BS == BSIZE)
		bcache_discard(a->no);    /* (the RAM disk's frame back: bcache.c) */
}

/*
 * The disk block of file block fb of the inode at ip (held in ib by the
 * caller, who holds fslock), allocating it and the indirect blocks on
 * its way if `alloc` (new blocks zeroed, i_blocks counted); 0 in *db: a
 * hole. Each allocation is whole; a wait between two leaves an indirect
 * block mapped with nothing under it yet, which is consistent.
 */
static long bmap_w(struct fsctx *c, uint8_t *ip, struct buf *ib, uint64_t fb, int alloc, uint32_t *db)
{
	uint32_t idx[3];
	int depth = 0, slot;
	if (fb < 12) {
		slot = (int)fb;
	} else if ((fb -= 12) < PER) {
		slot = 12, depth = 1, idx[0] = (uint32_t)fb;
	} else if ((fb -= PER) < PER * PER) {
		slot = 13, depth = 2, idx[0] = (uint32_t)(fb / PER), idx[1] = (uint32_t)(fb % PER);
	} else {
		fb -= PER * PER;
		slot = 14, depth = 3;
		idx[0] = (uint32_t)(fb / (PER * PER)), idx[1] = (uint32_t)(fb / PER % PER), idx[2] = (uint32_t)(fb % PER);
	}
	uint8_t *loc = ip + 40 + 4 * slot;
	struct buf *hold = 0, *holder = ib;
	long r = 0;
	for (int lv = 0;; lv++) {
		uint32_t b = le32(loc);
		if (!b && alloc) {
			struct alloc a = { 0 };
			uint32_t goal = (uint32_t)((le32(ip + 40) ? le32(ip + 40) - fs.first : 0) / fs.bpg);
			if ((r = prep_alloc(c, 0, goal, &a)))
				break;
			b = a.no;
			commit(&a, 1, 12, 12, -1);
			bcache_put(a.nb);
			put32(loc, b);
			bcache_dirty(holder);
			put32(ip + 28, le32(ip + 28) + (uint32_t)(BS / 512));
			bcache_dirty(ib);
		}
		if (b >= fs.nblocks) {
			r = -EUCLEAN;
			break;
		}
		if (!b || lv == depth) {
			*db = b;
			break;
		}
		struct buf *nb;
		uint8_t *p;
		if ((r = fsblock(c, b, &nb, &p)))
			break;
		if (hold)
			bcache_put(hold);
		holder = hold = nb;
		loc = p + 4 * idx[lv];
	}
	if (hold)
		bcache_put(hold);
	return r;
}

/*
 * One step of a write: the block holding byte pos of inode ino mapped
 * (allocated if new) and the size made to cover [pos, pos + k), with
 * *b, *p the block's buffer and bytes, held; the caller copies into it.
 * With `append` (nonzero: the whole write's length), pos is taken as the
 * size first (*pos set) and the size covers the whole write at once, so
 * an append from another process, on another CPU, between two steps of
 * this one goes after all of it (O_APPEND's atomicity: two processes'
 * 100-byte appends overlapped where one crossed a block, and the file
 * came out 19,060 bytes of 20,000, confproc's files check).
 */
static long write_step(struct fsctx *c, uint32_t ino, uint64_t *pos, uint64_t k, uint64_t append,
		       struct buf **b, uint8_t **p)
{
	struct buf *ib;
	uint8_t *ip;
	uint32_t db;
	spin_lock(&fslock);
	long r = ext2_iraw(c, ino, &ib, &ip);
	if (r)
		goto out;
	if (!le16(ip + 26) && !ino_held(ino)) {
		r = -ENOENT;                      /* unlinked under us (not an orphan) */
		goto put;
	}
	if (append)
		*pos = isize_of(ip);
	if (*pos >= maxsize()) {
		r = -EFBIG;
		goto put;
	}
	/* (k was cut at the block of the caller's pos; an append's pos is
	   the end, elsewhere in its block when another open file appended
	   meanwhile: the copy went past the block, over a neighbour in the
	   buffer or past its page, and the record's tail was never written) */
	k = MIN(k, MIN(maxsize() - *pos, BS - *pos % BS));
	if ((r = bmap_w(c, ip, ib, *pos / BS, 1, &db)) || (r = fsblock(c, db, b, p)))
		goto put;
	uint64_t end = *pos + (append ? MIN(append, maxsize() - *pos) : k);
	if (end > isize_of(ip))
		set_size(ip, end);
	touch(ip);
	bcache_dirty(ib);
	r = (long)k;
put:
	bcache_put(ib);
out:
	spin_unlock(&fslock);
	return r;
}

/* An append that ended short on an error gives back the end it
   reserved (write_step) if no later append went after it: the size from
   `from` to `to`. */
static void unreserve(struct fsctx *c, uint32_t ino, uint64_t from, uint64_t to)
{
	struct buf *ib;
	uint8_t *ip;
	spin_lock(&fslock);
	if (!ext2_iraw(c, ino, &ib, &ip)) {
		if (isize_of(ip) == from) {
			set_size(ip, to);
			bcache_dirty(ib);
		}
		bcache_put(ib);
	}
	spin_unlock(&fslock);
}

/*
 * Write n bytes from the user's ubuf to inode ino at off (at its end if
 * append; *at is where the write went). The count written, or an error,
 * or -EBWAIT before any byte was written. Past the first byte a wait
 * ends the write short (a rerun of an append would append twice).
 */
long ext2_write(struct fsctx *c, uint32_t ino, uint64_t off, uint64_t ubuf, uint64_t n, int append,
		uint64_t *at)
{
	long r = ext2_mount(c);
	uint64_t done = 0;
	while (!r && done < n) {
		uint64_t pos = off + done, k;
		struct buf *b;
		uint8_t *p;
		r = write_step(c, ino, &pos, MIN(BS - pos % BS, n - done), append && !done ? n : 0, &b, &p);
		if (r <= 0)
			break;
		if (!done)
			*at = off = pos;
		k = (uint64_t)r;
		if (c->to == FS_KERNEL)           /* (a shared page's write-back: fshare.c) */
			memcpy(p + pos % BS, c->kdst + done, k), r = 0;
		else
			r = copyin(p + pos % BS, ubuf + done, k);
		bcache_dirty(b);
		bcache_put(b);
		if (!r)
			done += k;
	}
	/* (a wait for the disk keeps the room: the caller writes the rest
	   there, ulib's fd.c, as one append) */
	if (append && done && done < n && r != -EBWAIT)
		unreserve(c, ino, off + n, off + done);
	return done ? (long)done : r;
}

/* Free the blocks under *slot (in holder) from index `from` of its
   subtree on (level 0: slot is a data block; 1..3: an indirect block),
   the last first; the block itself if from is 0. */
static long cut(struct fsctx *c, uint8_t *slot, struct buf *holder, int level, uint64_t from,
		uint8_t *ip, struct buf *ib)
{
	uint32_t b = le32(slot);
	long r;
	if (!b)
		return 0;
	if (level > 0) {
		struct buf *x;
		uint8_t *p;
		uint64_t span = level == 1 ? 1 : level == 2 ? PER : PER * PER;
		if ((r = fsblock(c, b, &x, &p)))
			return r;
		for (uint64_t i = PER; i-- > 0 && (i + 1) * span > from;) {
			if ((r = cut(c, p + 4 * i, x, level - 1, i * span >= from ? 0 : from - i * span, ip, ib))) {
				bcache_put(x);
				return r;
			}
		}
		bcache_put(x);
		if (from)
			return 0;
	}
	struct alloc a = { 0 };
	if ((r = prep_free(c, 0, b, &a)))
		return r;
	commit_free(&a, 0, 0);
	put32(slot, 0);
	bcache_dirty(holder);
	put32(ip + 28, le32(ip + 28) - (uint32_t)(BS / 512));
	bcache_dirty(ib);
	return 0;
}

/* Free every block of the inode at ip from file block keep on, the
   triple indirect tree first. A fast symbolic link (no blocks counted)
   keeps its text where the block map would be: nothing to free. */
static long cut_from(struct fsctx *c, uint8_t *ip, struct buf *ib, uint64_t keep)
{
	uint64_t start[4] = { 12 + PER + PER * PER, 12 + PER, 12, 0 };
	long r;
	if ((le16(ip) & 0xf000) == 0xa000 && !le32(ip + 28))
		return 0;
	for (int lv = 3; lv >= 1; lv--) {
		uint64_t s = start[3 - lv];
		if ((r = cut(c, ip + 40 + 4 * (11 + lv), ib, lv, keep > s ? keep - s : 0, ip, ib)))
			return r;
	}
	for (uint64_t i = 12; i-- > keep;)
		if ((r = cut(c, ip + 40 + 4 * i, ib, 0, 0, ip, ib)))
			return r;
	return 0;
}

/* Zero the bytes of inode ip's block holding byte len, from len on. */
static long zero_tail(struct fsctx *c, uint8_t *ip, struct buf *ib, uint64_t len)
{
	uint32_t db;
	struct buf *b;
	uint8_t *p;
	long r;
	if (!(len % BS) || (r = bmap_w(c, ip, ib, len / BS, 0, &db)) || !db)
		return 0;
	if ((r = fsblock(c, db, &b, &p)))
		return r;
	memset(p + len % BS, 0, BS - len % BS);
	bcache_dirty(b);
	bcache_put(b);
	return 0;
}

/* Inode ino's size made len: blocks past it freed, the tail of its last
   block zeroed (so a later growth reads zeros), the size set last. */
long ext2_truncate(struct fsctx *c, uint32_t ino, uint64_t len)
{
	struct buf *ib;
	uint8_t *ip;
	long r = ext2_mount(c);
	if (r)
		return r;
	if (len > maxsize())
		return -EFBIG;
	spin_lock(&fslock);
	if ((r = ext2_iraw(c, ino, &ib, &ip)))
		goto out;
	if (!le16(ip + 26) && !ino_held(ino))
		r = -ENOENT;
	else if (len < isize_of(ip) && !(r = cut_from(c, ip, ib, (len + BS - 1) / BS)))
		r = zero_tail(c, ip, ib, len);
	if (!r) {
		set_size(ip, len);
		touch(ip);
		bcache_dirty(ib);
	}
	bcache_put(ib);
out:
	spin_unlock(&fslock);
	return r;
}

/* Split path into its parent (in buf) and last name: 0, -ENAMETOOLONG,
   or -EINVAL for a path whose last name is ".", ".." or none ("/"). */
static long split(const char *path, char *buf, size_t max, const char **name, size_t *len)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t s = n;
	while (s && path[s - 1] != '/')
		s--;
	*name = path + s;
	*len = n - s;
	if (*len > EXT2_MAXNAME)
		return -ENAMETOOLONG;
	if (!*len || (*len == 1 && path[s] == '.') || (*len == 2 && path[s] == '.' && path[s + 1] == '.'))
		return -EINVAL;
	if (s >= max)
		return -ENAMETOOLONG;
	memcpy(buf, path, s);
	buf[s] = 0;
	if (!s)
		buf[0] = '/', buf[1] = 0;
	return 0;
}

/* An entry's bytes for a name of len. */
static uint32_t reclen(size_t len) { return (uint32_t)(8 + ((len + 3) & ~3UL)); }

/* Block fb of directory (raw ip), held in *b and its bytes at *p: 1;
   0 for a hole (nothing held); or an error. */
static long dir_block(struct fsctx *c, uint8_t *ip, struct buf *ib, uint64_t fb, struct buf **b,
		      uint8_t **p)
{
	uint32_t db;
	long r = bmap_w(c, ip, ib, fb, 0, &db);
	if (r || !db)
		return r;
	return (r = fsblock(c, db, b, p)) ? r : 1;
}

/*
 * A place in directory dp (raw ip) for an entry of `need` bytes: *b held
 * and *e the entry to split (its used bytes in *used, 0 for an empty
 * one); -ENOSPC if no block has room.
 */
static long find_slot(struct fsctx *c, uint8_t *ip, struct buf *ib, uint32_t need, struct buf **b,
		      uint8_t **e, uint32_t *used)
{
	uint64_t size = isize_of(ip);
	for (uint64_t fb = 0; fb * BS < size; fb++) {
		uint8_t *p;
		long r = dir_block(c, ip, ib, fb, b, &p);
		if (r <= 0) {
			if (r)
				return r;
			continue;            /* (a hole) */
		}
		for (uint64_t at = 0; at < BS;) {
			uint8_t *x = p + at;
			uint32_t rec = le16(x + 4), u = le32(x) ? reclen(x[6]) : 0;
			if (rec < 8 || rec % 4 || at + rec > BS || u > rec) {
				bcache_put(*b);
				return -EUCLEAN;
			}
			if (rec - u >= need) {
				*e = x;
				*used = u;
				return 0;
			}
			at += rec;
		}
		bcache_put(*b);
	}
	return -ENOSPC;
}

/* Directory dp one block longer: a block with one empty entry. */
static long grow_dir(struct fsctx *c, uint8_t *ip, struct buf *ib)
{
	uint64_t size = isize_of(ip);
	uint32_t db;
	struct buf *b;
	uint8_t *p;
	long r;
	if (size + BS > (16UL << 20))
		return -ENOSPC;                   /* (the read side's bound on directories) */
	if ((r = bmap_w(c, ip, ib, size / BS, 1, &db)) || (r = fsblock(c, db, &b, &p)))
		return r;
	put16(p + 4, (uint32_t)BS);
	bcache_dirty(b);
	bcache_put(b);
	set_size(ip, size + BS);
	bcache_dirty(ib);
	return 0;
}

/* find_slot, the directory grown by a block first if no block has room. */
static long make_slot(struct fsctx *c, uint8_t *ip, struct buf *ib, uint32_t need, struct buf **b,
		      uint8_t **e, uint32_t *used)
{
	long r = find_slot(c, ip, ib, need, b, e, used);
	if (r == -ENOSPC && !(r = grow_dir(c, ip, ib)))
		r = find_slot(c, ip, ib, need, b, e, used);
	return r;
}

/* Directory (raw ip) changed: its times, and no hashed index (we keep
   entries where a linear reader finds them). */
static void dir_changed(uint8_t *ip)
{
	put32(ip + 32, le32(ip + 32) & ~(uint32_t)IFL_INDEX);
	touch(ip);
}

/* Under fslock: dp, the directory at parent, has no entry name: 0;
   1 with *ino if it has; -ENOTDIR, -ENOENT (parent removed), or an error. */
static long free_name(struct fsctx *c, const char *parent, const char *name, size_t len,
		      struct inode *dp, uint32_t *ino)
{
	long r = ext2_namei(c, parent, dp);
	if (r)
		return r;
	if (!IS_DIR(dp))
		return -ENOTDIR;
	if ((r = ext2_lookup(c, dp, name, len, ino)) != -ENOENT)
		return r ? r : 1;
	return dp->links ? 0 : -ENOENT;
}

/* Write entry (ino, name, type) into the slot find_slot gave. */
static void fill_slot(uint8_t *e, uint32_t used, uint32_t ino, const char *name, size_t len, uint8_t type)
{
	uint8_t *n = e + used;
	uint32_t rec = le16(e + 4);
	if (used) {
		put16(n + 4, rec - used);
	}
	n[6] = (uint8_t)len;
	n[7] = type;
	memcpy(n + 8, name, len);
	put32(n, ino);
	if (used)
		put16(e + 4, used);               /* publishes the new entry */
}

/* A new inode's bytes: mode, one link (two for a directory), the
   creator's effective uid and gid as owner, or for the group, as Linux,
   a set-group-ID parent dp's group (which a new directory's own
   set-group-ID bit then passes on). */
static void init_inode(uint8_t *n, uint32_t mode, const struct inode *dp)
{
	struct ftime t;
	uint32_t uid = perm_uid(), gid = dp->mode & 02000 ? dp->gid : perm_gid();
	ext2_now(&t);
	memset(n, 0, fs.isize);
	if ((mode & 0xf000) == 0x4000 && (dp->mode & 02000))
		mode |= 02000;
	put16(n, mode);
	put16(n + 2, uid & 0xffff), put16(n + 120, uid >> 16);
	put16(n + 24, gid & 0xffff), put16(n + 122, gid >> 16);
	if (fs.isize >= 160)
		put16(n + 128, 32);                 /* i_extra_isize, as mke2fs sets it */
	for (int i = T_ATIME; i <= T_CRTIME; i++)
		ext2_tput(n, i, &t);                /* (with ns where the extra fields are) */
	put16(n + 26, (mode & 0xf000) == 0x4000 ? 2 : 1);
	put32(n + 100, (uint32_t)now_ns());       /* i_generation */
}

/* A new symbolic link's target (llen bytes, 1..4095): in the inode's
   block pointers if under 60 bytes ("fast"), else in the block ba took. */
static void put_target(uint8_t *n, struct alloc *ba, const char *link, size_t llen)
{
	put32(n + 4, (uint32_t)llen);
	if (!ba) {
		memcpy(n + 40, link, llen);
		return;
	}
	commit(ba, 1, 12, 12, -1);
	memset(ba->n, 0, BS);
	memcpy(ba->n, link, llen);
	bcache_dirty(ba->nb);
	bcache_put(ba->nb);
	put32(n + 40, ba->no);
	put32(n + 28, (uint32_t)(BS / 512));
}

/*
 * Create path (mode: S_IFREG, S_IFDIR or S_IFLNK and permissions, a link
 * with its target): 0 and *ino (1 with `held`: ext2_create_held). If
 * it exists: -EEXIST with excl, else 0 and its inode. One step takes the
 * directory slot (after growing the directory by a block if none has
 * room), the inode and a directory's or a slow link's first block, and
 * fills them all.
 */
static long create(struct fsctx *c, const char *path, uint32_t mode, int excl, uint32_t *ino,
		   const char *link, size_t llen, struct inode *held)
{
	char parent[FPATH_MAX];
	const char *name;
	size_t len;
	struct inode dp;
	int dir = (mode & 0xf000) == 0x4000, slow = link && llen >= 60;
	long r = ext2_mount(c);
	if (r || (r = split(path, parent, sizeof parent, &name, &len)))
		return r == -EINVAL ? -EEXIST : r;
	spin_lock(&fslock);
	if ((r = free_name(c, parent, name, len, &dp, ino))) {
		r = r == 1 ? (excl ? -EEXIST : 0) : r;   /* (there: *ino) */
		goto out;
	}
	if (!perm_ok(&dp, 3)) {
		r = -EACCES;                      /* (write and search on the parent: perm.c) */
		goto out;
	}
	if (dir && dp.links >= EXT2_LINK_MAX) {
		r = -EMLINK;                      /* (its ".." would count one link too many) */
		goto out;
	}
	struct buf *pb, *sb;
	uint8_t *pp, *e;
	uint32_t used;
	if ((r = ext2_iraw(c, dp.ino, &pb, &pp)))
		goto out;
	if ((r = make_slot(c, pp, pb, reclen(len), &sb, &e, &used)))
		goto putp;
	struct alloc ia = { 0 }, ba = { 0 };
	uint32_t g = (dp.ino - 1) / fs.ipg;
	if ((r = prep_alloc(c, 1, g, &ia)) || ((dir || slow) && (r = prep_alloc(c, 0, g, &ba))) ||
	    (held && (r = ino_open(ia.no)))) {     /* (held before anyone can unlink it: orphan.c) */
		drop(&ia);
		drop(&ba);
		goto puts;
	}
	/* every buffer held: change them */
	if (dir)
		put16(ia.g + 16, le16(ia.g + 16) + 1u);
	commit(&ia, 1, 14, 16, -1);
	init_inode(ia.n, mode, &dp);
	if (dir) {
		commit(&ba, 1, 12, 12, -1);
		uint8_t *d = ba.n;
		put32(d, ia.no), put16(d + 4, 12), d[6] = 1, d[7] = FT_DIR, d[8] = '.';
		put32(d + 12, dp.ino), put16(d + 16, (uint32_t)BS - 12), d[18] = 2, d[19] = FT_DIR;
		d[20] = d[21] = '.';
		bcache_dirty(ba.nb);
		bcache_put(ba.nb);
		put32(ia.n + 40, ba.no);
		put32(ia.n + 4, (uint32_t)BS);
		put32(ia.n + 28, (uint32_t)(BS / 512));
		put16(pp + 26, le16(pp + 26) + 1u);
	} else if (link) {
		put_target(ia.n, slow ? &ba : 0, link, llen);
	}
	if (held)
		ext2_idecode(ia.no, ia.n, held);
	bcache_dirty(ia.nb);
	bcache_put(ia.nb);
	fill_slot(e, used, ia.no, name, len, dir ? FT_DIR : link ? FT_LNK : FT_REG);
	bcache_dirty(sb);
	dir_changed(pp);
	bcache_dirty(pb);
	*ino = ia.no;
	r = held != 0;
puts:
	bcache_put(sb);
putp:
	bcache_put(pb);
out:
	spin_unlock(&fslock);
	return r;
}

long ext2_create(struct fsctx *c, const char *path, uint32_t mode, int excl, uint32_t *ino)
{
	return create(c, path, mode, excl, ino, 0, 0, 0);
}

/* The same for open: 1 when it made the file, which the step then held
   (ino_open) and copied into *ip, so the open needs no block after it
   (a wait would run the call again, and its create would find the file:
   EEXIST for O_EXCL); 0 with ip->ino when it existed (not excl). */
long ext2_create_held(struct fsctx *c, const char *path, uint32_t mode, int excl, struct inode *ip)
{
	return create(c, path, mode, excl, &ip->ino, 0, 0, ip);
}

/* A symbolic link at path (which must not exist) to target (len bytes,
   1..4095, no NUL: the caller checks). */
long ext2_symlink(struct fsctx *c, const char *path, const char *target, size_t len)
{
	uint32_t ino;
	return create(c, path, 0xa1ff, 1, &ino, target, len, 0);
}

/* Entry `name` in directory (raw ip): *b held, *e it, *prev the one
   before it in its block (0 if first). */
static long find_entry(struct fsctx *c, uint8_t *ip, struct buf *ib, const char *name, size_t len,
		       struct buf **b, uint8_t **e, uint8_t **prev)
{
	uint64_t size = isize_of(ip);
	for (uint64_t fb = 0; fb * BS < size; fb++) {
		uint8_t *p;
		long r = dir_block(c, ip, ib, fb, b, &p);
		if (r <= 0) {
			if (r)
				return r;
			continue;            /* (a hole) */
		}
		*prev = 0;
		for (uint64_t at = 0; at < BS;) {
			uint8_t *x = p + at;
			uint32_t rec = le16(x + 4);
			if (rec < 8 || rec % 4 || at + rec > BS || x[6] + 8u > rec) {
				bcache_put(*b);
				return -EUCLEAN;
			}
			if (le32(x) && x[6] == len && !memcmp(x + 8, name, len)) {
				*e = x;
				return 0;
			}
			*prev = x;
			at += rec;
		}
		bcache_put(*b);
	}
	return -ENOENT;
}

static void remove_entry(uint8_t *e, uint8_t *prev)
{
	if (prev)
		put16(prev + 4, le16(prev + 4) + le16(e + 4));
	else
		put32(e, 0);
}

/* Directory (raw ip) holds nothing but "." and "..": 0, or -ENOTEMPTY. */
static long dir_empty(struct fsctx *c, uint8_t *ip, struct buf *ib)
{
	uint64_t size = isize_of(ip);
	for (uint64_t fb = 0; fb * BS < size; fb++) {
		struct buf *b;
		uint8_t *p;
		long held = dir_block(c, ip, ib, fb, &b, &p);
		if (held < 0)
			return held;
		for (uint64_t at = 0; held && at < BS;) {
			uint8_t *x = p + at;
			uint32_t rec = le16(x + 4);
			long r = 0;
			if (rec < 8 || rec % 4 || at + rec > BS || x[6] + 8u > rec)
				r = -EUCLEAN;
			else if (le32(x) && !(x[6] == 1 && x[8] == '.') &&
				 !(x[6] == 2 && x[8] == '.' && x[9] == '.'))
				r = -ENOTEMPTY;
			if (r) {
				bcache_put(b);
				return r;
			}
			at += rec;
		}
		if (held)
			bcache_put(b);
	}
	return 0;
}

/*
 * Remove path's entry: a file (dir 0; -EISDIR for a directory) or an
 * empty directory (dir 1; -ENOTDIR, -ENOTEMPTY). A file's last link
 * first loses its blocks (a step of its own that leaves it linked and
 * empty), then one step removes the entry and frees the inode (and a
 * directory's one block, its parent's link).
 */
long ext2_unlink(struct fsctx *c, const char *path, int dir)
{
	char parent[FPATH_MAX];
	const char *name;
	size_t len;
	struct inode dp, ip;
	uint32_t ino;
	long r = ext2_mount(c);
	if (r || (r = split(path, parent, sizeof parent, &name, &len)))
		return r;
	spin_lock(&fslock);
	if ((r = ext2_namei(c, parent, &dp)))
		goto out;
	if (!IS_DIR(&dp)) {
		r = -ENOTDIR;
		goto out;
	}
	if ((r = ext2_lookup(c, &dp, name, len, &ino)) || (r = ext2_iget(c, ino, &ip)))
		goto out;
	if (IS_DIR(&ip) != dir) {
		r = dir ? -ENOTDIR : -EISDIR;
		goto out;
	}
	if ((r = perm_unlink(&dp, &ip)))
		goto out;
	struct buf *pb, *ib, *eb;
	uint8_t *pp, *xp, *e, *prev;
	if ((r = ext2_iraw(c, dp.ino, &pb, &pp)))
		goto out;
	if ((r = ext2_iraw(c, ino, &ib, &xp)))
		goto putp;
	int last = dir || le16(xp + 26) <= 1;
	int keep = last && (ino_held(ino) || fshare_busy(ino)), orph = 0;   /* (held, or a page of it
				being written back: an orphan keeps its blocks, freed later) */
	if (dir) {
		if ((r = dir_empty(c, xp, ib)) || (!keep && (r = cut_from(c, xp, ib, 1))))
			goto puti;
		set_size(xp, keep ? isize_of(xp) : BS);
		bcache_dirty(ib);
	} else if (last && !keep && (r = cut_from(c, xp, ib, 0))) {
		goto puti;
	} else if (last && !keep) {
		set_size(xp, 0);
		bcache_dirty(ib);
	}
	if ((r = find_entry(c, pp, pb, name, len, &eb, &e, &prev)))
		goto puti;
	struct alloc ia = { 0 }, ba = { 0 };
	if (last && ((r = prep_free(c, 1, ino, &ia)) || (dir && le32(xp + 40) && (r = prep_free(c, 0, le32(xp + 40), &ba))))) {
		drop(&ia);
		goto pute;
	}
	if (last && (orph = ino_orphan(ino, keep)) != 0) {   /* held: not freed now (orphan.c) */
		if (orph > 0)
			ext2_orphan_push(ia.s, ia.sb, xp, ino);   /* (on disk too: ext2orph.c) */
		drop(&ia);
		drop(&ba);
		if ((r = orph < 0 ? orph : 0))
			goto pute;
	}
	/* every buffer held: change them */
	remove_entry(e, prev);
	bcache_dirty(eb);
	touch(pp);
	if (dir)
		put16(pp + 26, le16(pp + 26) - 1u);
	bcache_dirty(pb);
	put16(xp + 26, last ? 0 : le16(xp + 26) - 1u);
	if (!last)
		ext2_tnow(xp, T_CTIME);           /* ctime: one link fewer */
	if (last && !orph) {
		put32(xp + 20, now());            /* i_dtime */
		if (ba.sb) {
			commit_free(&ba, 0, 0);
			put32(xp + 40, 0);
			put32(xp + 28, 0);
			set_size(xp, 0);
		}
		commit_free(&ia, 1, dir);
		fshare_trunc(ino, 0);             /* (its number may be reused: fshare.c) */
	}
	bcache_dirty(ib);
pute:
	bcache_put(eb);
puti:
	bcache_put(ib);
putp:
	bcache_put(pb);
out:
	spin_unlock(&fslock);
	return r;
}

/* A directory entry's file type for an inode's mode (ext2's FT_*). */
static uint8_t ftype(uint32_t mode)
{
	static const uint8_t t[16] = { [1] = 5, [2] = 3, [4] = FT_DIR, [6] = 4, [8] = FT_REG,
				       [10] = FT_LNK, [12] = 6 };
	return t[(mode >> 12) & 15];
}

/* Directory tp (inode) is ino or lies under it: walk ".." up to the root
   (at most 512 steps: a deeper or looping chain is damage). */
static long under(struct fsctx *c, uint32_t tp, uint32_t ino)
{
	for (int i = 0; i < 512; i++) {
		struct inode d;
		long r;
		if (tp == ino)
			return 1;
		if (tp == 2)
			return 0;
		if ((r = ext2_iget(c, tp, &d)) || (r = ext2_lookup(c, &d, "..", 2, &tp)))
			return r;
	}
	return -EUCLEAN;
}

/*
 * Rename from to `to`: in one directory or across, replacing a file
 * there (a directory there: -ENOTEMPTY, not done). A replaced file's
 * last link first loses its blocks (a step of its own), then one step
 * writes the new entry (or points the old one at the inode), removes the
 * old one, moves a directory's ".." and its parents' links, and frees
 * the replaced inode.
 */
long ext2_rename(struct fsctx *c, const char *from, const char *to)
{
	char fpath[FPATH_MAX], tpath[FPATH_MAX];
	const char *fname, *tname;
	size_t flen, tlen;
	struct inode fp, tp, si, ti;
	uint32_t ino, tino = 0;
	long r = ext2_mount(c);
	if (r || (r = split(from, fpath, sizeof fpath, &fname, &flen)) ||
	    (r = split(to, tpath, sizeof tpath, &tname, &tlen)))
		return r;
	spin_lock(&fslock);
	if ((r = ext2_namei(c, fpath, &fp)) || (r = ext2_namei(c, tpath, &tp)))
		goto out;
	r = -ENOTDIR;
	if (!IS_DIR(&fp) || !IS_DIR(&tp))
		goto out;
	if ((r = ext2_lookup(c, &fp, fname, flen, &ino)) || (r = ext2_iget(c, ino, &si)))
		goto out;
	r = ext2_lookup(c, &tp, tname, tlen, &tino);
	if (r && r != -ENOENT)
		goto out;
	if (!r && (r = ext2_iget(c, tino, &ti)))
		goto out;
	if (tino == ino)
		goto out;                         /* (r 0: the same file) */
	if ((r = perm_unlink(&fp, &si)) || (r = tino ? perm_unlink(&tp, &ti) : perm_ok(&tp, 3) ? 0 : -EACCES))
		goto out;
	r = -EACCES;                          /* (a directory moved away: its ".." changes) */
	if (IS_DIR(&si) && fp.ino != tp.ino && !perm_ok(&si, 2))
		goto out;
	r = IS_DIR(&si) ? under(c, tp.ino, ino) : 0;
	if (r < 0)
		goto out;
	if (r > 0 || (tino && IS_DIR(&ti))) {
		r = r > 0 ? -EINVAL : IS_DIR(&si) ? -ENOTEMPTY : -EISDIR;
		goto out;
	}
	if (tino && IS_DIR(&si)) {
		r = -ENOTDIR;
		goto out;
	}
	if (IS_DIR(&si) && fp.ino != tp.ino && tp.links >= EXT2_LINK_MAX) {
		r = -EMLINK;                      /* (as mkdir: the new parent's count) */
		goto out;
	}
	struct buf *fb, *tb, *sb, *eb, *xb = 0, *db = 0, *ob = 0;
	uint8_t *fip, *tip, *sip, *e, *prev, *x = 0, *xprev, *d = 0, *dprev, *oip = 0;
	uint32_t used = 0;
	struct alloc ia = { 0 };
	if ((r = ext2_iraw(c, fp.ino, &fb, &fip)))
		goto out;
	if ((r = ext2_iraw(c, tp.ino, &tb, &tip)))
		goto putf;
	if ((r = ext2_iraw(c, ino, &sb, &sip)))
		goto putt;
	int last = 0, keep = 0, orph = 0;
	if (tino) {
		if ((r = took(ext2_iraw(c, tino, &ob, &oip), &ob)))
			goto puts;
		last = le16(oip + 26) <= 1;
		keep = last && (ino_held(tino) || fshare_busy(tino));   /* (as in unlink) */
		if (last && !keep && (r = cut_from(c, oip, ob, 0)))
			goto puts;
		if (last && !keep) {
			set_size(oip, 0);
			bcache_dirty(ob);
		}
		r = find_entry(c, tip, tb, tname, tlen, &xb, &x, &xprev);
	} else {
		r = make_slot(c, tip, tb, reclen(tlen), &xb, &x, &used);
	}
	if (r) {
		xb = 0;
		goto puts;
	}
	if ((r = find_entry(c, fip, fb, fname, flen, &eb, &e, &prev)))
		goto putx;
	if (IS_DIR(&si) && fp.ino != tp.ino && (r = find_entry(c, sip, sb, "..", 2, &db, &d, &dprev)))
		goto pute;
	if (last && (r = prep_free(c, 1, tino, &ia)))
		goto putd;
	if (last && (orph = ino_orphan(tino, keep)) != 0) {   /* held: not freed now (orphan.c) */
		if (orph > 0)
			ext2_orphan_push(ia.s, ia.sb, oip, tino);   /* (on disk too: ext2orph.c) */
		drop(&ia);
		if ((r = orph < 0 ? orph : 0))
			goto putd;
	}
	/* every buffer held: change them */
	uint8_t type = ftype(si.mode);        /* (a link stays FT_LNK) */
	if (tino) {
		x[7] = type;
		put32(x, ino);
	} else {
		fill_slot(x, used, ino, tname, tlen, type);
	}
	bcache_dirty(xb);
	if (prev && !tino && prev == x)
		put32(e, 0);                      /* (x was split: its rec_len no longer reaches e) */
	else
		remove_entry(e, prev);
	bcache_dirty(eb);
	if (d) {
		put32(d, tp.ino);
		bcache_dirty(db);
		put16(fip + 26, le16(fip + 26) - 1u);
		put16(tip + 26, le16(tip + 26) + 1u);
	}
	dir_changed(fip);
	dir_changed(tip);
	bcache_dirty(fb);
	bcache_dirty(tb);
	ext2_tnow(sip, T_CTIME);
	bcache_dirty(sb);
	if (tino) {
		put16(oip + 26, last ? 0 : le16(oip + 26) - 1u);
		if (last && !orph) {
			put32(oip + 20, now());
			commit_free(&ia, 1, 0);
			fshare_trunc(tino, 0);        /* (its number may be reused: fshare.c) */
		}
		bcache_dirty(ob);
	}
putd:
	if (db)
		bcache_put(db);
pute:
	bcache_put(eb);
putx:
	bcache_put(xb);
puts:
	if (ob)
		bcache_put(ob);
	bcache_put(sb);
putt:
	bcache_put(tb);
putf:
	bcache_put(fb);
out:
	spin_unlock(&fslock);
	return r;
}

/*
 * Free orphan ino (no link, no holder: orphan.c): its blocks, from the
 * end, in steps as a truncation's, then in one step the inode (and a
 * directory's count in its group), taking it out of the on-disk orphan
 * list in that step. Its shared pages leave fshare.c's table, since its
 * number may be reused.
 */
long ext2_reap(struct fsctx *c, uint32_t ino)
{
	struct buf *ib;
	uint8_t *ip;
	struct alloc ia = { 0 };
	long r = ext2_mount(c);
	if (r)
		return r;
	spin_lock(&fslock);
	if ((r = ext2_iraw(c, ino, &ib, &ip)))
		goto out;
	struct buf *ob = 0;
	uint8_t *op = 0;
	long where = 0;
	if (le16(ip + 26))
		r = -EUCLEAN;                     /* linked again: damage */
	else if (fshare_busy(ino))
		r = -EAGAIN;                      /* a page being written back: not yet (fshare.c) */
	else if (!(r = cut_from(c, ip, ib, 0))) {
		set_size(ip, 0);
		bcache_dirty(ib);
		r = prep_free(c, 1, ino, &ia);
	}
	if (!r && (where = ext2_orphan_find(c, ia.s, ino, &ob, &op)) < 0)
		r = where, drop(&ia);             /* (the on-disk list's entry before it: ext2orph.c) */
	if (!r) {
		ext2_orphan_cut(ia.s, ia.sb, where, ob, op, ip);
		put32(ip + 20, now());            /* i_dtime */
		commit_free(&ia, 1, (le16(ip) & 0xf000) == 0x4000);
		bcache_dirty(ib);
		fshare_trunc(ino, 0);
		ino_reaped(ino);                  /* (before the number can be reused: orphan.c) */
	}
	bcache_put(ib);
out:
	spin_unlock(&fslock);
	return r;
}

/*
 * A hard link `to` of the file at `from` (a last symbolic link followed
 * with `follow`, else linked itself, as Linux's link): -EEXIST, -EPERM
 * for a directory, -EMLINK at EXT2_LINK_MAX links. One step takes the
 * directory slot (growing the directory first if none has room) and the
 * inode, writes the entry and counts the link: both are in the cache
 * together, and reach the disk in either order (no journal: fsync makes
 * them exact; e2fsck mends a count one off either way). With no `from`,
 * of inode ino (an open file's, whose hold keeps its number: linkat's
 * AT_EMPTY_PATH); one with no link left is -ENOENT, as on Linux.
 */
static long link_in(struct fsctx *c, const char *from, uint32_t ino_from, const char *to, int follow)
{
	char parent[FPATH_MAX];
	const char *name;
	size_t len;
	struct inode si, dp;
	uint32_t ino;
	long r = ext2_mount(c);
	if (r || (r = split(to, parent, sizeof parent, &name, &len)))
		return r == -EINVAL ? -EEXIST : r;
	spin_lock(&fslock);
	if ((r = !from ? ext2_iget(c, ino_from, &si) : follow ? ext2_namei(c, from, &si) :
		 ext2_lnamei(c, from, &si)) || (r = free_name(c, parent, name, len, &dp, &ino)))
		r = r == 1 ? -EEXIST : r;
	else
		r = !si.links ? -ENOENT : IS_DIR(&si) ? -EPERM : si.links >= EXT2_LINK_MAX ? -EMLINK :
			!perm_ok(&dp, 3) ? -EACCES : 0;
	if (r)
		goto out;
	struct buf *pb, *ib, *sb;
	uint8_t *pp, *xp, *e;
	uint32_t used;
	if ((r = ext2_iraw(c, dp.ino, &pb, &pp)))
		goto out;
	if ((r = ext2_iraw(c, si.ino, &ib, &xp)))
		goto putp;
	if ((r = make_slot(c, pp, pb, reclen(len), &sb, &e, &used)))
		goto puti;
	/* every buffer held: change them */
	put16(xp + 26, le16(xp + 26) + 1u);
	ext2_tnow(xp, T_CTIME);                   /* ctime */
	bcache_dirty(ib);
	fill_slot(e, used, si.ino, name, len, ftype(si.mode));
	bcache_dirty(sb);
	dir_changed(pp);
	bcache_dirty(pb);
	bcache_put(sb);
puti:
	bcache_put(ib);
putp:
	bcache_put(pb);
out:
	spin_unlock(&fslock);
	return r;
}

long ext2_link(struct fsctx *c, const char *from, const char *to, int follow)
{
	return link_in(c, from, 0, to, follow);
}

long ext2_link_ino(struct fsctx *c, uint32_t ino, const char *to)
{
	return link_in(c, 0, ino, to, 0);
}

/* May the caller change ip so (perm.c's ids)? chmod and explicit times:
   the owner or root (-EPERM); times set to now: write permission too
   (-EACCES); the owner: root, or the owner keeping it; the group: root,
   or the owner giving one of its own groups (-EPERM), as Linux. */
static long setattr_perm(const struct inode *ip, const struct fattr *a)
{
	int own = perm_owner(ip), root = perm_uid() == 0;
	if (a->mode != ~0u && !own)
		return -EPERM;
	if (a->chown && a->uid != ~0u && !root && !(own && a->uid == ip->uid))
		return -EPERM;
	if (a->chown && a->gid != ~0u && !root && !(own && (a->gid == ip->gid || perm_group(a->gid))))
		return -EPERM;
	if (a->t && !own)
		return !a->now ? -EPERM : perm_ok(ip, 2) ? 0 : -EACCES;
	return 0;
}

/*
 * The permission bits (a->mode & 07777; the type stays) unless ~0, the
 * owner and group (a->chown; ~0 keeps one), atime and mtime (a->t;
 * ns FT_OMIT keeps one; held to what the inode keeps, ext2time.c) of the
 * file at path (a last link followed unless a->nofollow) or, with no
 * path, of inode ino (an open file's, whose hold keeps its number); one
 * step, which sets ctime too. The path is looked up under the lock, so
 * the inode it names cannot be freed and reused before the step. An
 * owner change (even to the same) clears set-user-ID on all but a
 * directory, and set-group-ID where group-exec is set: Linux's chown,
 * for root too. uid and gid keep their high 16 bits in osd2 (120, 122).
 */
long ext2_setattr(struct fsctx *c, const char *path, uint32_t ino, const struct fattr *a)
{
	struct buf *ib;
	uint8_t *ip;
	struct inode si;
	long r = ext2_mount(c);
	if (r)
		return r;
	spin_lock(&fslock);
	if (path && (r = a->nofollow ? ext2_lnamei(c, path, &si) : ext2_namei(c, path, &si)))
		goto out;
	if ((r = ext2_iraw(c, path ? si.ino : ino, &ib, &ip)))
		goto out;
	ext2_idecode(path ? si.ino : ino, ip, &si);
	if ((r = setattr_perm(&si, a))) {
		bcache_put(ib);
		goto out;
	}
	uint32_t mode = a->mode != ~0u ? (le16(ip) & 0xf000) | (a->mode & 07777) : le16(ip);
	if (a->mode != ~0u && !IS_DIR(&si) && perm_uid() && !perm_group(si.gid))
		mode &= ~02000u;                  /* (Linux: not the caller's group, no setgid) */
	if (a->chown && (mode & 0xf000) != 0x4000) {
		mode &= ~04000u;
		if ((mode & 02010) == 02010)
			mode &= ~02000u;
	}
	put16(ip, mode);
	if (a->chown && a->uid != ~0u)
		put16(ip + 2, a->uid & 0xffff), put16(ip + 120, a->uid >> 16);
	if (a->chown && a->gid != ~0u)
		put16(ip + 24, a->gid & 0xffff), put16(ip + 122, a->gid >> 16);
	for (int i = 0; a->t && i < 2; i++)
		if (a->t[i].ns != FT_OMIT)
			ext2_tput(ip, i ? T_MTIME : T_ATIME, &a->t[i]);
	ext2_tnow(ip, T_CTIME);
	bcache_dirty(ib);
	bcache_put(ib);
out:
	spin_unlock(&fslock);
	return r;
}
