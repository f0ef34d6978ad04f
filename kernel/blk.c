/*
 * virtio-blk: the disk, in 4 KiB blocks (8 sectors). A request is a
 * chain of three descriptors (header, the buffer's page, status byte);
 * slot i owns descriptors 3i..3i+2 for good, so taking a slot is taking
 * a bit, and up to qsize/3 requests (85 with QEMU's 256) are in flight at
 * once. A request that finds every slot taken waits on a FIFO and goes
 * out when a completion frees one. Completions come by interrupt
 * (T_DISK, MSI-X); the interrupt hands each finished buffer to the
 * cache (bcache_done), which wakes whoever waits for it.
 */
#include "kernel.h"
#include "virtio.h"

#define VIRTIO_VENDOR 0x1af4
#define VIRTIO_BLK_MODERN 0x1042
#define T_IN  0
#define T_OUT 1
#define NSLOT (VQ_MAX / 3)

struct reqhdr {
	uint32_t type, reserved;
	uint64_t sector;
};

static struct virtio dev;
static struct spinlock blk_lock = SPINLOCK_INIT("blk");
static struct reqhdr *hdrs;            /* one page: NSLOT headers, then NSLOT status bytes */
static volatile uint8_t *status;
static struct buf *slot_buf[NSLOT];
static int nslot, inflight;
static struct buf *waitq, **waitq_tail = &waitq;

uint64_t disk_blocks;
int disk_maxflight;

void blk_init(void)
{
	struct pcidev d;
	if (pci_find(VIRTIO_VENDOR, VIRTIO_BLK_MODERN, &d) < 0) {
		ram_init();                              /* no disk: a RAM disk (ramdisk.c) */
		return;
	}
	if (virtio_open(&dev, &d, T_DISK) < 0 || !(hdrs = page_alloc())) {
		kprintf("blk: virtio-blk at 00:%02x.%x did not come up; no disk\n", d.dev, d.fn);
		return;
	}
	status = (volatile uint8_t *)(hdrs + NSLOT);
	nslot = dev.qsize / 3;
	uint64_t sectors = *(volatile uint32_t *)dev.devcfg |
			   (uint64_t)*(volatile uint32_t *)(dev.devcfg + 4) << 32;
	if (virtio_ready(&dev) < 0) {
		kprintf("blk: device failed at DRIVER_OK; no disk\n");
		return;
	}
	disk_blocks = sectors / (BSIZE / 512);
	kprintf("@disk {\"blocks\": %lu, \"queue\": %u, \"slots\": %d}\n",
		disk_blocks, dev.qsize, nslot);
}

static int slot_get(void)
{
	for (int i = 0; i < nslot; i++)
		if (!slot_buf[i])
			return i;
	return -1;
}

/* Put b's request in slot s (blk_lock held). */
static void issue(int s, struct buf *b, int write)
{
	slot_buf[s] = b;
	hdrs[s] = (struct reqhdr){ write ? T_OUT : T_IN, 0, b->block * (BSIZE / 512) };
	status[s] = 0xff;
	struct vdesc *d = &dev.desc[3 * s];
	d[0] = (struct vdesc){ V2P(&hdrs[s]), sizeof hdrs[s], VD_NEXT, (uint16_t)(3 * s + 1) };
	d[1] = (struct vdesc){ V2P(b->data), BSIZE, (uint16_t)(VD_NEXT | (write ? 0 : VD_WRITE)),
			       (uint16_t)(3 * s + 2) };
	d[2] = (struct vdesc){ V2P(&status[s]), 1, VD_WRITE, 0 };
	uint16_t i = dev.avail->idx;
	dev.avail->ring[i % dev.qsize] = (uint16_t)(3 * s);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);       /* the ring entry before the index */
	dev.avail->idx = (uint16_t)(i + 1);
	if (++inflight > disk_maxflight)
		disk_maxflight = inflight;
}

/* Send b to the device (read into it, or write it out); the caller set
   b->state. Never fails: with every slot busy it queues. On the RAM disk
   it is done at once: 1, and b->err says how (bcache.c). */
int blk_submit(struct buf *b, int write)
{
	if (ramdisk_on)
		return ram_submit(b, write);
	spin_lock(&blk_lock);
	b->start_ns = now_ns();
	int s = slot_get();
	if (s < 0) {
		b->qnext = 0;
		*waitq_tail = b;
		waitq_tail = &b->qnext;
	} else {
		issue(s, b, write);
		virtio_notify(&dev);
	}
	spin_unlock(&blk_lock);
	return 0;
}

/* Collect finished requests (blk_lock held) onto *done; fill freed slots
   from the wait queue. */
static void reap(struct buf **done)
{
	int issued = 0;
	while (dev.last_used != dev.used->idx) {
		__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* the entry after the index */
		uint32_t id = dev.used->ring[dev.last_used % dev.qsize].id;
		dev.last_used++;
		int s = (int)(id / 3);
		if (id % 3 || s >= nslot || !slot_buf[s])
			continue;                          /* not one of ours: ignore it */
		struct buf *b = slot_buf[s];
		slot_buf[s] = 0;
		inflight--;
		b->err = status[s] == 0 ? 0 : -EIO;
		b->qnext = *done;
		*done = b;
		if (waitq) {
			struct buf *w = waitq;
			if (!(waitq = w->qnext))
				waitq_tail = &waitq;
			w->start_ns = now_ns();
			issue(s, w, w->state == B_WRITING);
			issued = 1;
		}
	}
	if (issued)
		virtio_notify(&dev);
}

/* T_DISK: hand every finished buffer to the cache. Also called with
   interrupts off by the halt flush, which polls. */
void blk_intr(void)
{
	if (!disk_blocks || ramdisk_on)
		return;
	struct buf *done = 0;
	spin_lock(&blk_lock);
	reap(&done);
	spin_unlock(&blk_lock);
	while (done) {
		struct buf *b = done;
		done = b->qnext;
		bcache_done(b, b->err == 0);
	}
}
