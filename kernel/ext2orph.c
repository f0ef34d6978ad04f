/*
 * The on-disk orphan list, so that a crash does not leave an unlinked
 * but still open file's blocks for e2fsck (orphan.c keeps them in core).
 *
 * The format is ext3's, which e2fsck and Linux read: the superblock's
 * s_last_orphan (offset 232) names the first orphan inode, and each
 * orphan's i_dtime (inode offset 20, unused while the inode is live)
 * names the next, 0 ending the list. The step that takes a held inode's
 * last link pushes it at the head (ext2w.c: unlink, rmdir, rename); the
 * step that frees it takes it out wherever it is (ext2_reap). So the
 * list names exactly the orphans of the image whenever its blocks are all
 * written (after fsync, or at any moment the cache holds nothing dirty),
 * and a clean halt, which frees every orphan, leaves it empty.
 *
 * At mount (ext2.c) the head is remembered; orphan.c then walks that
 * list (orphan_next below) and frees each inode, so the first file calls
 * after a crash give the blocks back. New orphans are pushed in front of
 * the old head, so the old part of the chain stays as it was while it is
 * walked. The list is the image's, so untrusted: an inode in it must be
 * past the reserved ones, in use and unlinked, and a walk is bounded by
 * the inode count; damage ends the walk and leaves the rest to e2fsck.
 *
 * Without a journal, blocks reach the disk in any order: the list is
 * exact after fsync, as the rest of the image is; it does not make an
 * arbitrary moment's half-written image consistent.
 */
#include "kernel.h"
#include "ext2.h"

#define S_LAST_ORPHAN 232
#define I_DTIME 20

static void set32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Push ino (raw inode ip, whose buffer the caller dirties) at the head;
   s is the superblock's bytes in sb, held by the caller's step. */
void ext2_orphan_push(uint8_t *s, struct buf *sb, uint8_t *ip, uint32_t ino)
{
	set32(ip + I_DTIME, le32(s + S_LAST_ORPHAN));
	set32(s + S_LAST_ORPHAN, ino);
	bcache_dirty(sb);
}

/*
 * First half of taking ino out (the caller's step holds the superblock
 * s): 1 if it is the head, 2 with *pb, *pp the inode before it (held:
 * ext2_orphan_cut puts it), 0 if it is not in the list (a damaged list,
 * or one made before this code); -EBWAIT and the rest: nothing held.
 */
long ext2_orphan_find(struct fsctx *c, const uint8_t *s, uint32_t ino, struct buf **pb, uint8_t **pp)
{
	uint32_t at = le32(s + S_LAST_ORPHAN);
	*pb = 0;
	if (at == ino)
		return 1;
	for (uint32_t n = 0; at >= fs.firstino && at <= fs.ninodes && n < fs.ninodes; n++) {
		long r = ext2_iraw(c, at, pb, pp);
		if (r) {
			*pb = 0;
			return r == -EUCLEAN ? 0 : r;
		}
		if ((at = le32(*pp + I_DTIME)) == ino)
			return 2;
		bcache_put(*pb);
	}
	*pb = 0;
	return 0;
}

/* Second half: ino (raw inode ip) out of the list as find said (`where`). */
void ext2_orphan_cut(uint8_t *s, struct buf *sb, long where, struct buf *pb, uint8_t *pp, const uint8_t *ip)
{
	if (where == 1) {
		set32(s + S_LAST_ORPHAN, le32(ip + I_DTIME));
		bcache_dirty(sb);
	} else if (where == 2) {
		set32(pp + I_DTIME, le32(ip + I_DTIME));
		bcache_dirty(pb);
		bcache_put(pb);
	}
}

/*
 * Inode ino of the list found at mount: 0 with *next the one after it
 * (0 at the end), if ino is one to free (past the reserved inodes, in
 * use, no link); -EUCLEAN if not (the walk ends there), -EBWAIT.
 */
long ext2_orphan_next(struct fsctx *c, uint32_t ino, uint32_t *next)
{
	struct buf *b;
	uint8_t *p;
	long r = ext2_mount(c);
	if (r)
		return r;
	if (ino < fs.firstino || ino > fs.ninodes)
		return -EUCLEAN;
	if ((r = ext2_iraw(c, ino, &b, &p)))
		return r;
	*next = le32(p + I_DTIME);
	if (!le16(p) || le16(p + 26) || (*next && (*next < fs.firstino || *next > fs.ninodes)))
		r = -EUCLEAN;
	bcache_put(b);
	return r;
}
