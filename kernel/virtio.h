/*
 * The virtio 1.0 PCI transport ("modern": configuration structures in a
 * memory BAR, found through vendor capabilities) and one split virtqueue
 * (virtio.c). Facts from the virtio 1.0 specification, sections 2.4 and
 * 4.1.
 */
#ifndef VIRTIO_H
#define VIRTIO_H
#include "disk.h"

struct vdesc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags, next;
} __attribute__((packed));
#define VD_NEXT  1
#define VD_WRITE 2           /* the device writes this buffer */

struct vavail {
	uint16_t flags, idx;
	uint16_t ring[];
} __attribute__((packed));

struct vused_elem {
	uint32_t id, len;
} __attribute__((packed));
struct vused {
	uint16_t flags, idx;
	struct vused_elem ring[];
} __attribute__((packed));

#define VQ_MAX 256           /* descriptors: each of the three parts fits one page */

struct virtio {
	struct pcidev pci;
	volatile uint8_t *common;      /* common configuration */
	volatile uint8_t *notify;      /* queue 0's notify register */
	volatile uint8_t *isr;
	volatile uint8_t *devcfg;      /* device-specific configuration */
	uint16_t qsize;
	struct vdesc *desc;
	volatile struct vavail *avail;
	volatile struct vused *used;
	uint16_t last_used;            /* next used entry to look at */
};

int virtio_open(struct virtio *v, const struct pcidev *d, int vector);
void virtio_notify(struct virtio *v);
int virtio_ready(struct virtio *v);

#endif
