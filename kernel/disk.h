/*
 * The disk: PCI configuration space (pci.c), the virtio-blk driver
 * (virtio.c, blk.c) and the block cache over it (bcache.c). docs/files.md
 * says how they fit together.
 */
#ifndef DISK_H
#define DISK_H
#include <stdint.h>

/* pci.c */
struct pcidev {
	uint8_t bus, dev, fn;
	uint16_t vendor, device;
	uint64_t bar[6];            /* pci_setup's: address (bit 0: I/O), size */
	uint64_t barsz[6];
};
uint32_t pci_read32(const struct pcidev *d, uint32_t off);
void pci_write32(const struct pcidev *d, uint32_t off, uint32_t v);
uint16_t pci_read16(const struct pcidev *d, uint32_t off);
void pci_write16(const struct pcidev *d, uint32_t off, uint16_t v);
uint8_t pci_read8(const struct pcidev *d, uint32_t off);
int pci_find(uint16_t vendor, uint16_t device, struct pcidev *out);
int pci_cap_next(const struct pcidev *d, int at, uint8_t id);
int pci_setup(struct pcidev *d);
uint64_t pci_bar(const struct pcidev *d, int bar, uint64_t *size);

/* blk.c: the virtio-blk device, in 4 KiB blocks */
#define BSIZE 4096
struct buf;
extern uint64_t disk_blocks;          /* 0: no disk */
extern int disk_maxflight;            /* the most requests ever outstanding at once */
void blk_init(void);
int blk_submit(struct buf *b, int write);   /* 0 sent, 1 done already (RAM disk: b->err says how) */
void blk_intr(void);

/* ramdisk.c: the disk when QEMU has none (docs/files.md) */
extern int ramdisk_off, ramdisk_on;   /* `noramdisk`; the disk is the RAM disk */
void ram_init(void);
long ram_put(uint64_t block, const uint8_t *data);
int ram_submit(struct buf *b, int write);
void ram_discard(uint64_t block);    /* a block the file system freed: its frame back */
uint64_t ram_frames(void);

/* mkfs.c */
long mkfs(uint64_t nblocks);

/* bcache.c */
struct buf {
	uint64_t block;
	int state;                 /* B_* */
	int refs;                  /* syscalls copying to or from it now */
	int dirty;
	int err;                   /* the last request's error (-EIO), reported once */
	uint64_t start_ns;         /* when its request went to the device */
	uint8_t *data;             /* one page */
	struct buf *prev, *next;   /* LRU list, most recent first */
	struct buf *hnext;         /* hash chain */
	struct buf *qnext;         /* waiting for a device slot */
	int index;
	int pins;                  /* waiters it is kept for (bcache_pin) */
	uint64_t pin_ns;           /* kept until then at most */
};
enum { B_EMPTY, B_VALID, B_READING, B_WRITING };
void bcache_init(void);
void bcache_done(struct buf *b, int ok);    /* blk.c: a request ended */
long bcache_read(uint64_t block, struct buf **out);
long bcache_write(uint64_t block, struct buf **out);
void bcache_put(struct buf *b);
void bcache_dirty(struct buf *b);     /* a held buffer was changed: write it back */
void bcache_discard(uint64_t block);  /* ext2 freed block: no write-back; RAM disk: frame back */
long bcache_sync_step(struct buf **out);
void bcache_pin(struct buf *b);       /* keep b for the caller about to wait for it */
uint64_t bcache_reclaim(uint64_t want);   /* pmm.c: give frames back until want are free */
uint64_t bcache_spare_pages(void);    /* frames past the floor (INFO_MEM_AVAIL) */
long bcache_info(uint64_t what);      /* INFO_BCACHE */
extern uint64_t bcache_fixed;         /* bcache=N (cmdline.c) */
void kop_wake_disk(uint64_t key);      /* kop.c */
long disk_wait(struct buf *b);         /* sysdisk.c: 1 again, 0 thread blocked, < 0 error */
long disk_sync(void);                  /* sysdisk.c: every dirty block written; 0 blocked */
struct trapframe;
long disk_wait_as(struct buf *b, int kind, struct trapframe *tf);
extern int rawdisk;                    /* the `rawdisk` word (sysdisk.c) */
struct space;
long file_map_info(struct space *sp, uint64_t fd, uint32_t *ino, int *flags);   /* sysfile.c */
void file_space_free(struct space *sp);  /* sysfile.c */
long file_exec_check(struct space *sp, struct space *nw, const int16_t *keep, int n);
void file_exec_keep(struct space *old, const int16_t *keep);
void file_exec_move(struct space *old, struct space *nw);
long file_fork(struct space *sp, struct space *ch);   /* sysfile.c */
long file_info(int what, uint64_t fd);
void bcache_halt_flush(void);
#define BWAIT 1                       /* bcache: wait for *out, then ask again */
#define DISK_TIMEOUT_NS (5UL * 1000000000UL)
#define DISKKEY_TAG (1UL << 62)       /* a BLK_DISK wait's key: tag | buffer index */

#endif
