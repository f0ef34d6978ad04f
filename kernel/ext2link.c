/*
 * ext2 symbolic links: reading a link's target and path lookup that
 * follows links (ext2_namei) or all but a last one (ext2_lnamei).
 *
 * A target shorter than 60 bytes in an inode that counts no blocks lives
 * in the inode's 15 block pointers ("fast"); any other lives in the first
 * data block ("slow"). The image is untrusted: a fast target of 60 bytes
 * or more, a slow one longer than a block, a target holding a NUL, or a
 * bad block number is -EUCLEAN; a target of 4096 bytes or more is
 * -ENAMETOOLONG.
 *
 * A lookup follows at most LINKMAX links in all (then -ELOOP: a cycle
 * ends there too). What is left of the path after a link is kept, behind
 * the link's target, in one LINKBUF buffer of kernel heap charged to the
 * space, taken at the first link and freed before the call returns (not
 * the kernel stack: it is 16 KiB). An absolute target restarts at the
 * root, a relative one at the directory that holds the link.
 */
#include "kernel.h"
#include "ext2.h"

#define ROOT_INO 2
#define LINKMAX 8
#define LINKBUF 8192                 /* target + rest of the path, NUL */

/* ip's target copied to dst (room for FLINK_MAX bytes): its length, or an
   error. */
long ext2_readlink(struct fsctx *c, const struct inode *ip, char *dst)
{
	uint64_t n = ip->size;
	if (!IS_LNK(ip))
		return -EINVAL;
	if (n >= FLINK_MAX)
		return -ENAMETOOLONG;
	if (ip->blocks == 0) {
		if (n >= sizeof ip->blk)
			return -EUCLEAN;
		memcpy(dst, ip->blk, n);     /* (little-endian: the bytes as on disk) */
	} else {
		struct buf *b;
		uint8_t *p;
		if (n > 1UL << fs.log)
			return -EUCLEAN;
		long r = fsblock(c, ip->blk[0], &b, &p);
		if (r)
			return r;
		memcpy(dst, p, n);
		bcache_put(b);
	}
	for (uint64_t i = 0; i < n; i++)
		if (!dst[i])
			return -EUCLEAN;
	return (long)n;
}

static long root(struct fsctx *c, struct inode *ip)
{
	long r = ext2_iget(c, ROOT_INO, ip);
	return r ? r : IS_DIR(ip) ? 0 : -EUCLEAN;     /* a root that is no directory */
}

/* Replace *path (the rest after link ip) by ip's target and the rest, in
   *buf (taken here at the first link). */
static long splice(struct fsctx *c, const struct inode *ip, char **buf, const char **path)
{
	size_t rest = strlen(*path), sep = rest != 0;
	if (!*buf && !(*buf = kmalloc_user(myvp()->space, LINKBUF)))
		return -ENOMEM;
	if (ip->size >= FLINK_MAX || ip->size + sep + rest + 1 > LINKBUF)
		return -ENAMETOOLONG;
	char *at = *buf + LINKBUF - rest - 1;
	memmove(at, *path, rest + 1);    /* (the rest may lie in *buf already) */
	at -= ip->size + sep;
	if (sep)
		at[ip->size] = '/';
	long r = ext2_readlink(c, ip, at);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;              /* an empty target names nothing */
	*path = at;
	return 0;
}

/* The inode at path (absolute; a relative path starts at the root too),
   following links; a last component's link only if `last` or the path
   goes on with a "/". */
static long walk(struct fsctx *c, const char *path, struct inode *ip, int last)
{
	char *buf = 0;
	int links = 0;
	long r = ext2_mount(c);
	if (r || (r = root(c, ip)))
		return r;
	while (*path) {
		while (*path == '/')
			path++;
		const char *end = path;
		while (*end && *end != '/')
			end++;
		size_t len = (size_t)(end - path);
		if (!len)
			break;
		r = -ENAMETOOLONG;
		if (len > 255)
			break;
		r = -ENOTDIR;
		if (!IS_DIR(ip))
			break;
		r = -EACCES;                 /* search permission (perm.c) */
		if (!perm_ok(ip, 1))
			break;
		struct inode dir = *ip;
		uint32_t ino;
		if ((r = ext2_lookup(c, ip, path, len, &ino)) || (r = ext2_iget(c, ino, ip)))
			break;
		path = end;
		if (!IS_LNK(ip) || (!*end && !last))
			continue;
		r = -ELOOP;
		if (++links > LINKMAX || (r = splice(c, ip, &buf, &path)))
			break;
		r = *path == '/' ? root(c, ip) : (*ip = dir, 0);
		if (r)
			break;
	}
	if (buf)
		kfree_user(myvp()->space, buf, LINKBUF);
	return r;
}

long ext2_namei(struct fsctx *c, const char *path, struct inode *ip)
{
	return walk(c, path, ip, 1);
}

long ext2_lnamei(struct fsctx *c, const char *path, struct inode *ip)
{
	return walk(c, path, ip, 0);
}
