/*
 * The RAM disk: when QEMU gives no virtio-blk disk, a disk of
 * min(64 MiB, an eighth of the free memory) kept in frames, with a fresh
 * ext2 file system on it (mkfs.c), so every program has a writable / with
 * /tmp and /dev/shm as on Linux, through the same block cache and ext2
 * code as a real disk. `noramdisk` on the command line keeps the old
 * behaviour (no file system: ENODEV, EROFS).
 *
 * A block's frame is taken at its first write; a block never written
 * reads as zeros. The file system's size bounds the frames (a program
 * filling it meets ENOSPC from ext2, never a kernel out of memory), and
 * a block ext2 frees gives its frame back (ram_discard, a TRIM: ext2w.c
 * through bcache_discard), so deleted files take no memory. A request
 * completes at once: blk_submit copies under the block cache's lock and
 * returns 1, and the cache treats the buffer as answered (bcache.c), so
 * nobody waits and no interrupt comes.
 *
 * A frame here is reached only through the direct map, by ram_submit
 * and ram_discard under ram_lock (and mkfs at boot, before any other
 * CPU runs a program): no page table maps it and no pointer to it lives
 * past the lock, so once ram_discard has taken it out of the table no
 * CPU can reach it, and it is freed there and then (no shootdown: the
 * direct map's entries never change).
 */
#include "kernel.h"
#include "disk.h"

#define RAM_MAX ((64UL << 20) / BSIZE)   /* blocks at most */
#define RAM_MIN 1024                    /* fewer: no RAM disk */

int ramdisk_off;                        /* `noramdisk` (cmdline.c) */
int ramdisk_on;                         /* the disk is this one */
static uint8_t **frame;                 /* one per block, 0 until written */
static struct spinlock ram_lock = SPINLOCK_INIT("ram");
static uint64_t nframe;                 /* frames taken (INFO) */

/* Make the disk and its file system (blk_init, when no device was found). */
void ram_init(void)
{
	if (ramdisk_off)
		return;
	uint64_t n = MIN(RAM_MAX, pmm_free_pages() / 8);
	size_t tab = PGROUNDUP(n * sizeof *frame) / PGSIZE;
	if (n < RAM_MIN || !(frame = pages_alloc(tab)))
		return;
	disk_blocks = n;
	ramdisk_on = 1;
	if (mkfs(n) < 0) {
		kprintf("@warn {\"what\": \"ramdisk: no memory to format it\"}\n");
		disk_blocks = 0;
		ramdisk_on = 0;
	}
}

/* Write one block from data (len bytes, the rest zeros): 0, or -ENOMEM
   when no frame could be had. `boot`: the allocation may reclaim. */
static long put(uint64_t block, const uint8_t *data, int boot)
{
	uint8_t *f = frame[block];
	if (!f) {
		f = boot ? page_alloc() : page_alloc_cache();
		if (!f)
			return -ENOMEM;
		frame[block] = f;
		nframe++;
	}
	memcpy(f, data, BSIZE);
	return 0;
}

/* mkfs.c: one block of the new file system (at boot). */
long ram_put(uint64_t block, const uint8_t *data)
{
	return put(block, data, 1);
}

/* blk_submit on the RAM disk (bcache_lock held, so no allocation may
   reclaim): done at once, with b->err set; returns 1. */
int ram_submit(struct buf *b, int write)
{
	spin_lock(&ram_lock);
	b->err = 0;
	if (b->block >= disk_blocks)
		b->err = -EIO;
	else if (write)
		b->err = put(b->block, b->data, 0) ? -EIO : 0;
	else if (frame[b->block])
		memcpy(b->data, frame[b->block], BSIZE);
	else
		memset(b->data, 0, BSIZE);
	spin_unlock(&ram_lock);
	return 1;
}

/* Block `block` was freed by the file system (bcache_discard, with the
   cache's lock held and its buffer of the block dropped): its frame goes
   back to the page allocator and the block reads as zeros again. */
void ram_discard(uint64_t block)
{
	spin_lock(&ram_lock);
	uint8_t *f = block < disk_blocks ? frame[block] : 0;
	if (f) {
		frame[block] = 0;
		nframe--;
	}
	spin_unlock(&ram_lock);
	if (f)
		page_free(f);
}

/* Frames the disk holds now. */
uint64_t ram_frames(void)
{
	return __atomic_load_n(&nframe, __ATOMIC_RELAXED);
}
