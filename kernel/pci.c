/*
 * PCI configuration space through the legacy ports 0xcf8 (address) and
 * 0xcfc (data): enough to find a device on bus 0, walk its capability
 * list and set up its BARs. Only bus 0 is scanned: QEMU's pc machine puts
 * every device there unless told to add a bridge.
 */
#include "kernel.h"
#include "disk.h"

#define CFG_ADDR 0xcf8
#define CFG_DATA 0xcfc

static inline void outl(uint16_t port, uint32_t v) { __asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port)); }
static inline uint32_t inl(uint16_t port) { uint32_t v; __asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port)); return v; }

static struct spinlock pci_lock = SPINLOCK_INIT("pci");

static uint32_t addr(const struct pcidev *d, uint32_t off)
{
	return 1u << 31 | (uint32_t)d->bus << 16 | (uint32_t)d->dev << 11 |
	       (uint32_t)d->fn << 8 | (off & 0xfc);
}

/* The address/data pair is one shared register: one access at a time. */
uint32_t pci_read32(const struct pcidev *d, uint32_t off)
{
	spin_lock(&pci_lock);
	outl(CFG_ADDR, addr(d, off));
	uint32_t v = inl(CFG_DATA);
	spin_unlock(&pci_lock);
	return v;
}

void pci_write32(const struct pcidev *d, uint32_t off, uint32_t v)
{
	spin_lock(&pci_lock);
	outl(CFG_ADDR, addr(d, off));
	outl(CFG_DATA, v);
	spin_unlock(&pci_lock);
}

uint16_t pci_read16(const struct pcidev *d, uint32_t off)
{
	return (uint16_t)(pci_read32(d, off) >> (off & 2) * 8);
}

uint8_t pci_read8(const struct pcidev *d, uint32_t off)
{
	return (uint8_t)(pci_read32(d, off) >> (off & 3) * 8);
}

void pci_write16(const struct pcidev *d, uint32_t off, uint16_t v)
{
	uint32_t w = pci_read32(d, off);
	int sh = (off & 2) * 8;
	w = (w & ~(0xffffu << sh)) | (uint32_t)v << sh;
	pci_write32(d, off, w);
}

/* Calls f on each function on bus 0 until it returns nonzero: that
   value, or 0 when none did. */
static int each_fn(int (*f)(struct pcidev *, void *), void *arg)
{
	for (int dev = 0; dev < 32; dev++)
		for (int fn = 0; fn < 8; fn++) {
			struct pcidev d = { .dev = (uint8_t)dev, .fn = (uint8_t)fn };
			uint32_t id = pci_read32(&d, 0);
			if ((id & 0xffff) == 0xffff) {
				if (fn == 0)
					break;           /* no device in this slot */
				continue;
			}
			d.vendor = (uint16_t)id;
			d.device = (uint16_t)(id >> 16);
			int r = f(&d, arg);
			if (r)
				return r;
			if (fn == 0 && !(pci_read8(&d, 0x0e) & 0x80))
				break;                   /* not multi-function */
		}
	return 0;
}

static int match(struct pcidev *d, void *arg)
{
	struct pcidev *want = arg;
	if (d->vendor != want->vendor || d->device != want->device)
		return 0;
	*want = *d;
	return 1;
}

/* The first function on bus 0 with this vendor and device id: 0, or -1. */
int pci_find(uint16_t vendor, uint16_t device, struct pcidev *out)
{
	struct pcidev want = { .vendor = vendor, .device = device };
	if (!each_fn(match, &want))
		return -1;
	*out = want;
	return 0;
}

/* The offset of the next capability with this id after offset `at` (0:
   from the start), or 0. At most 48 steps: a looping list ends. */
int pci_cap_next(const struct pcidev *d, int at, uint8_t id)
{
	if (!(pci_read16(d, 0x06) & 0x10))
		return 0;                        /* no capability list */
	int p = at ? pci_read8(d, at + 1) : pci_read8(d, 0x34);
	for (int n = 0; n < 48 && p >= 0x40; n++) {
		p &= 0xfc;
		if (pci_read8(d, p) == id)
			return p;
		p = pci_read8(d, p + 1);
	}
	return 0;
}

/*
 * BARs. SeaBIOS assigns every BAR and turns decoding on; qboot assigns
 * none (each reads 0) and leaves the device off. pci_setup does what the
 * firmware did not, as Linux does: it sizes each BAR (all-ones written,
 * the mask read back, the value put back, with decoding off meanwhile),
 * gives an empty one a free, naturally aligned range of a window, and
 * turns on memory and I/O decoding and bus mastering. A size is believed
 * only if it is a power of two within bounds, else the device is not
 * used; a BAR the firmware set is kept.
 */
/* The memory window: the uncached top of the direct map (vm.c), inside
   the PCI hole below 4 GiB that the pc and q35 host bridges decode at any
   RAM size, and below the IOAPIC, HPET, LAPIC and firmware ROM. */
#define MEM_LO  0xfe000000u
#define MEM_HI  0xfec00000u
#define MEM_MAX (4u << 20)
/* The I/O window: above the legacy ISA ports (SeaBIOS starts here too). */
#define IO_LO   0xc000u
#define IO_HI   0x10000u
#define IO_MAX  256u

#define CMD_IO     1
#define CMD_MEM    2
#define CMD_MASTER 4

struct bar {
	uint64_t base, size;     /* size 0: not implemented, or not believed */
	int io, wide;            /* an I/O BAR; a 64-bit memory BAR (two slots) */
	int bad;                 /* implemented, but its size is not believable */
};

/* Size BAR i of d (decoding must be off: all-ones is briefly its address). */
static void bar_probe(const struct pcidev *d, int i, struct bar *b)
{
	uint32_t off = 0x10 + 4 * (uint32_t)i;
	uint32_t lo = pci_read32(d, off), hi = 0, mhi = ~0u;
	b->io = lo & 1;
	b->wide = !b->io && (lo & 6) == 4;
	b->bad = 0;
	b->size = 0;
	pci_write32(d, off, ~0u);
	uint32_t mlo = pci_read32(d, off);
	pci_write32(d, off, lo);
	if (b->wide) {
		if (i == 5) {                        /* a 64-bit BAR needs two slots */
			b->bad = 1;
			return;
		}
		hi = pci_read32(d, off + 4);
		pci_write32(d, off + 4, ~0u);
		mhi = pci_read32(d, off + 4);
		pci_write32(d, off + 4, hi);
	}
	uint32_t low = b->io ? 3 : 0xf;
	b->base = (uint64_t)hi << 32 | (lo & ~low);
	if (!(mlo & ~low))
		return;                              /* not implemented */
	uint64_t mask = (uint64_t)mhi << 32 | (mlo & ~low);
	if (b->io)
		mask |= 0xffffffffffff0000UL;        /* 16-bit decoders read 0 above */
	uint64_t size = ~mask + 1;
	uint64_t max = b->io ? IO_MAX : MEM_MAX;
	if ((size & (size - 1)) || size > max || (!b->io && (lo & 6) == 6) ||
	    (b->base & (size - 1)))
		b->bad = 1;                          /* not a BAR we believe */
	else
		b->size = size;
}

/* BARs 0-5 of an ordinary function; 0 for bridges (their windows and the
   host bridge's registers are the firmware's business). */
static int nbars(const struct pcidev *d)
{
	if ((pci_read8(d, 0x0e) & 0x7f) != 0 || pci_read8(d, 0x0b) == 0x06)
		return 0;
	return 6;
}

/* A range wanted: the end of a BAR it overlaps, found by on_fn. */
struct want {
	uint64_t base, size;
	int io;
	uint64_t end;
};

static int overlaps(struct pcidev *f, void *arg)
{
	struct want *w = arg;
	int n = nbars(f);
	if (!n)
		return 0;
	uint16_t cmd = pci_read16(f, 0x04);
	pci_write16(f, 0x04, cmd & ~(CMD_IO | CMD_MEM));
	for (int i = 0; i < n; i++) {
		struct bar b;
		bar_probe(f, i, &b);
		if (b.size && b.base && b.io == w->io &&
		    b.base < w->base + w->size && w->base < b.base + b.size) {
			w->end = b.base + b.size;
			break;
		}
		i += b.wide;
	}
	pci_write16(f, 0x04, cmd);
	return w->end != 0;
}

/* A free, size-aligned range of the window for a BAR of this size; 0 if
   none. Each overlap moves past that BAR: at most one step per BAR. */
static uint64_t place(uint64_t size, int io)
{
	uint64_t lo = io ? IO_LO : MEM_LO, hi = io ? IO_HI : MEM_HI;
	struct want w = { .base = lo, .size = size, .io = io };
	for (;;) {
		w.base = (w.base + size - 1) & ~(size - 1);
		if (w.base + size > hi)
			return 0;
		w.end = 0;
		if (!each_fn(overlaps, &w))
			return w.base;
		w.base = w.end;
	}
}

/* Put every BAR of d at a valid address (keeping what the firmware set)
   and record them in d, then turn on decoding and bus mastering. 0, or
   -1: a BAR not believed or no room; the device stays off. */
int pci_setup(struct pcidev *d)
{
	uint16_t cmd = pci_read16(d, 0x04) & ~(CMD_IO | CMD_MEM | CMD_MASTER);
	pci_write16(d, 0x04, cmd);
	int n = nbars(d);
	for (int i = 0; i < 6; i++)
		d->bar[i] = d->barsz[i] = 0;
	for (int i = 0; i < n; i++) {
		struct bar b;
		bar_probe(d, i, &b);
		if (b.bad)
			return -1;
		if (b.size && !b.base) {
			b.base = place(b.size, b.io);
			if (!b.base)
				return -1;
			uint32_t off = 0x10 + 4 * (uint32_t)i;
			pci_write32(d, off, (uint32_t)b.base);
			if (b.wide)
				pci_write32(d, off + 4, 0);
			kprintf("@pci {\"slot\": \"%02x:%02x.%x\", \"bar\": %d, \"base\": %lu, \"size\": %lu}\n",
				d->bus, d->dev, d->fn, i, b.base, b.size);
		}
		if (b.size) {
			d->bar[i] = b.base | (uint64_t)b.io;
			d->barsz[i] = b.size;
			cmd |= b.io ? CMD_IO : CMD_MEM;
		}
		i += b.wide;
	}
	pci_write16(d, 0x04, cmd | CMD_MASTER);
	return 0;
}

/* A memory BAR's physical address and size (pci_setup's); 0 for an I/O,
   empty or out-of-range BAR. */
uint64_t pci_bar(const struct pcidev *d, int bar, uint64_t *size)
{
	if (bar < 0 || bar > 5 || (d->bar[bar] & 1))
		return 0;
	*size = d->barsz[bar];
	return d->bar[bar];
}
