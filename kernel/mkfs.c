/*
 * mkfs: a fresh, empty ext2 file system on the RAM disk (ramdisk.c), as
 * `mke2fs -t ext2 -b 4096 -I 256` would make it on so small a disk: one
 * block group, revision 1, 256-byte inodes (i_extra_isize 32), the
 * filetype, sparse_super and large_file features (what ext2.c mounts),
 * one inode per 16 KiB. Layout: block 0 holds the superblock at byte
 * 1024, block 1 the group descriptor, 2 and 3 the bitmaps, then the inode
 * table, then one block for each directory: / (inode 2), /lost+found
 * (11), /tmp (12, mode 1777), /dev (13) and /dev/shm (14, 1777). Blocks
 * not written read as zeros (the rest of the inode table).
 */
#include "kernel.h"
#include "disk.h"

#define ISIZE 256
#define IPB (BSIZE / ISIZE)
enum { ROOT = 2, LOSTF = 11, TMP, DEV, SHM, NUSED = SHM };
enum { NDIR = 5 };

static void p16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void p32(uint8_t *p, uint32_t v) { p16(p, v & 0xffff); p16(p + 2, v >> 16); }

/* Set bits [from, to) of a bitmap block. */
static void bits(uint8_t *b, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		b[i / 8] |= (uint8_t)(1u << (i % 8));
}

struct geo {
	uint32_t nblocks, ninodes, itab, used;   /* used: blocks 0..used-1 */
	uint32_t t;
};

static void super(uint8_t *blk, const struct geo *g)
{
	uint8_t *s = blk + 1024;
	p32(s + 0, g->ninodes);
	p32(s + 4, g->nblocks);
	p32(s + 12, g->nblocks - g->used);
	p32(s + 16, g->ninodes - NUSED);
	p32(s + 24, 2);                          /* 1024 << 2 */
	p32(s + 28, 2);
	p32(s + 32, 8 * BSIZE);                  /* blocks, fragments per group */
	p32(s + 36, 8 * BSIZE);
	p32(s + 40, g->ninodes);
	p32(s + 48, g->t);                       /* wtime */
	p16(s + 54, 0xffff);                     /* no mount-count check */
	p16(s + 56, 0xef53);
	p16(s + 58, 1);                          /* clean */
	p16(s + 60, 1);                          /* errors: continue */
	p32(s + 64, g->t);                       /* lastcheck */
	p32(s + 76, 1);                          /* revision 1 */
	p32(s + 84, LOSTF);                      /* first non-reserved inode */
	p16(s + 88, ISIZE);
	p32(s + 96, 2);                          /* incompat: filetype */
	p32(s + 100, 1 | 2);                     /* ro-compat: sparse_super, large_file */
	uint64_t u = rdtsc() ^ (boot_epoch << 20);
	for (int i = 0; i < 16; i++, u = u * 6364136223846793005UL + 1442695040888963407UL)
		s[104 + i] = (uint8_t)(u >> 56);    /* a uuid, different each boot */
	memcpy(s + 120, "ramdisk", 7);
	p32(s + 264, g->t);                      /* mkfs time */
	p16(s + 348, 32);                        /* min, want extra isize */
	p16(s + 350, 32);
}

/* A directory's block: ".", "..", then the named entries (all directories). */
static void dirblk(uint8_t *b, uint32_t self, uint32_t up, const char **names, const uint32_t *inos, int n)
{
	uint32_t off = 0, last = 0;
	const char *nm[5] = { ".", ".." };   /* at most 3 names */
	uint32_t in[5] = { self, up };
	for (int i = 0; i < n; i++) {
		nm[2 + i] = names[i];
		in[2 + i] = inos[i];
	}
	for (int i = 0; i < n + 2; i++) {
		uint32_t len = (uint32_t)strlen(nm[i]), rec = (8 + len + 3) & ~3u;
		p32(b + off, in[i]);
		p16(b + off + 4, rec);
		b[off + 6] = (uint8_t)len;
		b[off + 7] = 2;                      /* a directory */
		memcpy(b + off + 8, nm[i], len);
		last = off;
		off += rec;
	}
	p16(b + last + 4, BSIZE - last);         /* the last one reaches the block's end */
}

static void inode(uint8_t *ip, uint32_t mode, uint32_t links, uint32_t blk, uint32_t t)
{
	p16(ip + 0, mode);
	p32(ip + 4, BSIZE);
	p32(ip + 8, t);
	p32(ip + 12, t);
	p32(ip + 16, t);
	p16(ip + 26, links);
	p32(ip + 28, BSIZE / 512);
	p32(ip + 40, blk);
	p16(ip + 128, 32);                       /* i_extra_isize */
}

/* Format a disk of n blocks: 0, or -ENOMEM. */
long mkfs(uint64_t n)
{
	struct geo g = { .nblocks = (uint32_t)MIN(n, 8UL * BSIZE), .t = (uint32_t)boot_epoch };
	g.ninodes = MIN((g.nblocks / 4 + IPB - 1) / IPB * IPB, 8u * BSIZE);
	g.itab = 4;
	uint32_t d0 = g.itab + g.ninodes / IPB;  /* the directories' blocks */
	g.used = d0 + NDIR;
	uint8_t *b = page_alloc();
	if (!b)
		return -ENOMEM;
	long r = 0;
	super(b, &g);
	r |= ram_put(0, b);
	memset(b, 0, BSIZE);                     /* the group descriptor */
	p32(b + 0, 2);
	p32(b + 4, 3);
	p32(b + 8, g.itab);
	p16(b + 12, g.nblocks - g.used);
	p16(b + 14, g.ninodes - NUSED);
	p16(b + 16, NDIR);
	r |= ram_put(1, b);
	memset(b, 0, BSIZE);
	bits(b, 0, g.used);
	bits(b, g.nblocks, 8 * BSIZE);           /* past the end: marked used, as e2fsck wants */
	r |= ram_put(2, b);
	memset(b, 0, BSIZE);
	bits(b, 0, NUSED);
	bits(b, g.ninodes, 8 * BSIZE);
	r |= ram_put(3, b);
	memset(b, 0, BSIZE);                     /* inodes 1..16: the first table block */
#define INO(i) (b + ((i) - 1) * ISIZE)
	inode(INO(ROOT), 040755, 5, d0, g.t);
	inode(INO(LOSTF), 040700, 2, d0 + 1, g.t);
	inode(INO(TMP), 041777, 2, d0 + 2, g.t);
	inode(INO(DEV), 040755, 3, d0 + 3, g.t);
	inode(INO(SHM), 041777, 2, d0 + 4, g.t);
	r |= ram_put(g.itab, b);
	static const char *rootn[] = { "lost+found", "tmp", "dev" }, *devn[] = { "shm" };
	static const uint32_t rooti[] = { LOSTF, TMP, DEV }, devi[] = { SHM };
	struct { uint32_t self, up; const char **nm; const uint32_t *in; int n; } d[NDIR] = {
		{ ROOT, ROOT, rootn, rooti, 3 }, { LOSTF, ROOT, 0, 0, 0 }, { TMP, ROOT, 0, 0, 0 },
		{ DEV, ROOT, devn, devi, 1 }, { SHM, DEV, 0, 0, 0 },
	};
	for (int i = 0; i < NDIR; i++) {
		memset(b, 0, BSIZE);
		dirblk(b, d[i].self, d[i].up, d[i].nm, d[i].in, d[i].n);
		r |= ram_put(d0 + i, b);
	}
	page_free(b);
	return r ? -ENOMEM : 0;
}
