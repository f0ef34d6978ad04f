/*
 * Programs from the file system: SYS_spawn with a path (a name that
 * starts with '/') loads the ELF file at that path of the ext2 disk, so
 * a program need not be a boot module.
 *
 * The file is read through the block cache in two passes. The first
 * (elf_prepare) checks the headers and brings every byte the segments
 * take into the cache, with no space built yet: a block on its way from
 * the disk makes the call wait (disk_wait: a thread of an upcall package
 * blocks and the call runs again when it is in) with nothing to undo;
 * each wait covers up to 64 KiB of blocks in flight (ext2_read's
 * prefetch). The second pass builds the child (space_spawn_src) and
 * copies the same bytes, now in the cache, into its pages, charged to
 * the child's quota as a module's are. A block evicted between the two
 * passes makes the second fail with -EBWAIT: the child is torn down, the
 * caller waits, and the call starts again.
 *
 * Bounds: the file is at most EXEC_FILE_MAX bytes and its segments take
 * at most EXEC_LOAD_MAX bytes from it (a quarter of the cache, so both
 * passes find them in; -EFBIG past either, checked before reading). A
 * file that is not a valid program is -ENOEXEC; a directory, a special
 * file or one the caller may not execute (perm.c) -EACCES; no disk -ENOENT.
 */
#include "kernel.h"
#include "ext2.h"

#define EXEC_FILE_MAX (64UL << 20)
#define EXEC_LOAD_MAX (512UL << 10)

/* n bytes of the file at off into dst, or only into the cache (dst 0). */
static long file_read(const struct elfsrc *s, uint64_t off, void *dst, uint64_t n)
{
	for (uint64_t done = 0; done < n;) {
		s->c->to = dst ? FS_KERNEL : FS_NONE;
		s->c->kdst = dst ? (uint8_t *)dst + done : 0;
		long r = ext2_read(s->c, s->ip, off + done, 0, n - done);
		if (r < 0)
			return r;
		if (r == 0)
			return -ENOEXEC;             /* shorter than its inode said */
		done += (uint64_t)r;
	}
	return 0;
}

/* The last part of path, for the space's name. */
const char *file_base(const char *path)
{
	const char *b = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			b = p + 1;
	return b;
}

/* The program file at path as a source s (reading ip through c), its
   headers checked and its bytes in the cache: 0, an error, or -EBWAIT
   with c->wait when a block must come first. Spawn and exec. */
long file_prog(struct fsctx *c, const char *path, struct inode *ip, struct elfsrc *s)
{
	long r = ext2_namei(c, path, ip);
	if (r)
		return r == -ENODEV ? -ENOENT : r;
	if (!IS_REG(ip) || !perm_ok(ip, 1))
		return -EACCES;                  /* (root too needs an x bit: perm.c) */
	if (ip->size > EXEC_FILE_MAX)
		return -EFBIG;
	*s = (struct elfsrc){ .size = ip->size, .maxload = EXEC_LOAD_MAX, .read = file_read,
			      .c = c, .ip = ip, .path = path };
	r = elf_prepare(s);
	return r == -EINVAL ? -ENOEXEC : r < 0 ? r : 0;
}

/* One try: -EBWAIT with c->wait when a block must come first. */
static long try_spawn(struct fsctx *c, const char *path, int argc, char **argv,
		      const struct capent *caps, int ncaps)
{
	struct inode ip;
	struct elfsrc s;
	long r = file_prog(c, path, &ip, &s);
	if (r)
		return r;
	r = space_spawn_src(file_base(path), &s, argc, argv, myvp()->space, -1, 1, caps, ncaps);
	return r == -EINVAL ? -ENOEXEC : r;
}

/* SYS_spawn of a path: the child's id, or an error; 0 when the thread
   blocked (the call runs again once the block is in). */
long spawn_file(const char *path, int argc, char **argv, const struct capent *caps, int ncaps)
{
	if (!disk_blocks)
		return -ENOENT;
	for (;;) {
		struct fsctx c = { 0 };
		long r = try_spawn(&c, path, argc, argv, caps, ncaps);
		if (r != -EBWAIT)
			return r;
		if ((r = disk_wait(c.wait)) <= 0)
			return r;
	}
}
