/*
 * PCI configuration space through the legacy ports 0xcf8 (address) and
 * 0xcfc (data): enough to find a device on bus 0, walk its capability
 * list and read its BARs. Only bus 0 is scanned: QEMU's pc machine puts
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

/* The first function on bus 0 with this vendor and device id: 0, or -1. */
int pci_find(uint16_t vendor, uint16_t device, struct pcidev *out)
{
	for (int dev = 0; dev < 32; dev++)
		for (int fn = 0; fn < 8; fn++) {
			struct pcidev d = { 0, (uint8_t)dev, (uint8_t)fn, 0, 0 };
			uint32_t id = pci_read32(&d, 0);
			if ((id & 0xffff) == 0xffff) {
				if (fn == 0)
					break;           /* no device in this slot */
				continue;
			}
			d.vendor = (uint16_t)id;
			d.device = (uint16_t)(id >> 16);
			if (d.vendor == vendor && d.device == device) {
				*out = d;
				return 0;
			}
			if (fn == 0 && !(pci_read8(&d, 0x0e) & 0x80))
				break;                   /* not multi-function */
		}
	return -1;
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

/* A memory BAR's physical address (64-bit BARs take two slots); 0 for an
   I/O or empty BAR. */
uint64_t pci_bar(const struct pcidev *d, int bar)
{
	uint32_t lo = pci_read32(d, 0x10 + 4 * bar);
	if (lo & 1)
		return 0;
	uint64_t a = lo & ~0xfu;
	if ((lo & 6) == 4 && bar < 5)
		a |= (uint64_t)pci_read32(d, 0x14 + 4 * bar) << 32;
	return a;
}
