/*
 * The virtio 1.0 PCI transport for one device with one queue, whose
 * completions come as an MSI-X message to the boot CPU's LAPIC (no IOAPIC
 * routing needed: the device writes the interrupt itself). Every address
 * the device reports is checked to lie in the uncached part of the direct
 * map below 4 GiB (vm.c maps 0xfe000000..4 GiB uncached), where SeaBIOS
 * or pci_setup puts the BARs, and inside its BAR; anything else and the
 * device is not used.
 */
#include "kernel.h"
#include "virtio.h"

/* common configuration offsets */
#define C_DFSEL   0
#define C_DF      4
#define C_GFSEL   8
#define C_GF      12
#define C_MSIX    16
#define C_STATUS  20
#define C_QSEL    22
#define C_QSIZE   24
#define C_QMSIX   26
#define C_QENABLE 28
#define C_QNOFF   30
#define C_QDESC   32
#define C_QDRIVER 40
#define C_QDEVICE 48

#define S_ACK 1
#define S_DRIVER 2
#define S_DRIVER_OK 4
#define S_FEATURES_OK 8
#define S_FAILED 128

#define CAP_VNDR 0x09
#define CAP_MSIX 0x11
#define NO_VECTOR 0xffff

#define MMIO_LO 0xfe000000UL
#define MMIO_HI (1UL << 32)

static volatile uint8_t *bar_ptr(const struct pcidev *d, int bar, uint32_t off, uint32_t len)
{
	uint64_t size = 0, a = pci_bar(d, bar, &size);
	if (!a || off > size || len > size - off || a + off < MMIO_LO || a + off + len > MMIO_HI)
		return 0;
	return (volatile uint8_t *)P2V(a + off);
}

#define W8(p, o, v)  (*(volatile uint8_t *)((p) + (o)) = (v))
#define W16(p, o, v) (*(volatile uint16_t *)((p) + (o)) = (v))
#define W32(p, o, v) (*(volatile uint32_t *)((p) + (o)) = (v))
#define W64(p, o, v) (W32(p, o, (uint32_t)(v)), W32(p, (o) + 4, (uint32_t)((v) >> 32)))
#define R8(p, o)  (*(volatile uint8_t *)((p) + (o)))
#define R16(p, o) (*(volatile uint16_t *)((p) + (o)))
#define R32(p, o) (*(volatile uint32_t *)((p) + (o)))

/* Find the common, notify, ISR and device structures. 0 or -1. */
static int find_structs(struct virtio *v, uint32_t *notify_mult, uint32_t *notify_base)
{
	const struct pcidev *d = &v->pci;
	for (int c = pci_cap_next(d, 0, CAP_VNDR); c; c = pci_cap_next(d, c, CAP_VNDR)) {
		uint8_t type = pci_read8(d, c + 3), bar = pci_read8(d, c + 4);
		uint32_t off = pci_read32(d, c + 8), len = pci_read32(d, c + 12);
		if (len > 0x100000)
			continue;
		volatile uint8_t *p = bar_ptr(d, bar, off, len);
		if (type == 1 && len >= 56)
			v->common = p;
		else if (type == 2 && len >= 2) {
			v->notify = p;                  /* queue 0's offset is added later */
			*notify_mult = pci_read32(d, c + 16);
			*notify_base = len;
		} else if (type == 3 && len >= 1)
			v->isr = p;
		else if (type == 4 && len >= 8)
			v->devcfg = p;
	}
	return v->common && v->notify && v->isr && v->devcfg ? 0 : -1;
}

/* MSI-X entry 0: `vector` on the boot CPU, fixed delivery. 0 or -1. */
static int msix_setup(struct virtio *v, int vector)
{
	const struct pcidev *d = &v->pci;
	int c = pci_cap_next(d, 0, CAP_MSIX);
	if (!c)
		return -1;
	uint32_t tab = pci_read32(d, c + 4);
	volatile uint8_t *t = bar_ptr(d, tab & 7, tab & ~7u, 16);
	if (!t)
		return -1;
	W32(t, 0, 0xfee00000u | cpus[0].apic_id << 12);
	W32(t, 4, 0);
	W32(t, 8, (uint32_t)vector);
	W32(t, 12, 0);                                /* unmasked */
	uint16_t ctl = pci_read16(d, c + 2);
	pci_write16(d, c + 2, (uint16_t)((ctl | 0x8000) & ~0x4000));   /* enable, no function mask */
	return 0;
}

static int queue_setup(struct virtio *v)
{
	volatile uint8_t *cc = v->common;
	W16(cc, C_QSEL, 0);
	uint16_t max = R16(cc, C_QSIZE);
	if (max < 64)
		return -1;                     /* the depth this driver promises */
	v->qsize = max < VQ_MAX ? max : VQ_MAX;
	if (v->qsize & (v->qsize - 1))
		return -1;                     /* the spec says a power of two */
	v->desc = page_alloc();
	v->avail = page_alloc();
	v->used = page_alloc();
	if (!v->desc || !v->avail || !v->used)
		return -1;
	W16(cc, C_QSIZE, v->qsize);
	W64(cc, C_QDESC, V2P(v->desc));
	W64(cc, C_QDRIVER, V2P(v->avail));
	W64(cc, C_QDEVICE, V2P(v->used));
	W16(cc, C_QMSIX, 0);
	if (R16(cc, C_QMSIX) != 0)
		return -1;                     /* the device refused the vector */
	W16(cc, C_QENABLE, 1);
	return 0;
}

/*
 * Bring up the device at d with one queue, interrupts on `vector`. Feature
 * negotiation accepts VIRTIO_F_VERSION_1 only. 0, or -1 (device failed).
 */
int virtio_open(struct virtio *v, const struct pcidev *d, int vector)
{
	memset(v, 0, sizeof *v);
	v->pci = *d;
	uint32_t mult = 0, nlen = 0;
	if (pci_setup(&v->pci) < 0)          /* BARs placed, decoding and bus mastering on */
		return -1;
	d = &v->pci;
	if (find_structs(v, &mult, &nlen) < 0 || msix_setup(v, vector) < 0)
		return -1;
	volatile uint8_t *cc = v->common;
	W8(cc, C_STATUS, 0);                                   /* reset */
	while (R8(cc, C_STATUS))
		;
	W8(cc, C_STATUS, S_ACK);
	W8(cc, C_STATUS, S_ACK | S_DRIVER);
	W32(cc, C_DFSEL, 1);
	if (!(R32(cc, C_DF) & 1))
		goto fail;                                     /* no VERSION_1 */
	W32(cc, C_GFSEL, 0);
	W32(cc, C_GF, 0);
	W32(cc, C_GFSEL, 1);
	W32(cc, C_GF, 1);
	W8(cc, C_STATUS, S_ACK | S_DRIVER | S_FEATURES_OK);
	if (!(R8(cc, C_STATUS) & S_FEATURES_OK))
		goto fail;
	W16(cc, C_MSIX, NO_VECTOR);                            /* no config-change interrupts */
	if (queue_setup(v) < 0)
		goto fail;
	W16(cc, C_QSEL, 0);
	uint32_t noff = (uint32_t)R16(cc, C_QNOFF) * mult;
	if (noff + 2 > nlen)
		goto fail;
	v->notify += noff;
	return 0;
fail:
	W8(cc, C_STATUS, S_FAILED);
	return -1;
}

int virtio_ready(struct virtio *v)
{
	volatile uint8_t *cc = v->common;
	W8(cc, C_STATUS, S_ACK | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK);
	return R8(cc, C_STATUS) & S_FAILED ? -1 : 0;
}

void virtio_notify(struct virtio *v)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* the avail index before the doorbell */
	W16(v->notify, 0, 0);
}
