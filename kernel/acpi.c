/*
 * ACPI: just enough to find the CPUs. GRUB hands us a copy of the RSDP;
 * from it we reach the RSDT/XSDT and the MADT, whose local-APIC entries
 * list every processor QEMU provides.
 */
#include "kernel.h"

struct sdt {
	char sig[4];
	uint32_t len;
	uint8_t rev, sum;
	char oem[6], oemtab[8];
	uint32_t oemrev, creator, creatorrev;
} __attribute__((packed));

uint32_t madt_apic_ids[MAXCPU];
int madt_ncpu;
uint64_t lapic_pa = 0xfee00000;

static int checksum_ok(const void *p, size_t n)
{
	uint8_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += ((const uint8_t *)p)[i];
	return s == 0;
}

static void add_cpu(uint32_t apic_id, uint32_t flags)
{
	if (!(flags & 1))             /* disabled processor */
		return;
	if (madt_ncpu == MAXCPU) {
		kprintf("acpi: more than %d CPUs; ignoring apic %u\n", MAXCPU, apic_id);
		return;
	}
	madt_apic_ids[madt_ncpu++] = apic_id;
}

static void parse_madt(struct sdt *h)
{
	uint8_t *p = (uint8_t *)(h + 1);
	lapic_pa = *(uint32_t *)p;
	for (uint8_t *e = p + 8; e + 2 <= (uint8_t *)h + h->len && e[1] >= 2; e += e[1]) {
		switch (e[0]) {
		case 0:      /* processor local APIC */
			add_cpu(e[3], *(uint32_t *)(e + 4));
			break;
		case 5:      /* local APIC address override */
			lapic_pa = *(uint64_t *)(e + 4);
			break;
		case 9:      /* processor local x2APIC */
			add_cpu(*(uint32_t *)(e + 4), *(uint32_t *)(e + 8));
			break;
		}
	}
}

/* The RSDP the way a BIOS leaves it (ACPI 5.2.5.1): on a 16-byte boundary
   in the first KiB of the EBDA or in 0xe0000-0xfffff. Multiboot1 (QEMU's
   direct boot) passes no RSDP. 0 if none. */
static uint64_t rsdp_scan(void)
{
	uint64_t ebda = (uint64_t)*(uint16_t *)P2V(0x40e) << 4;
	uint64_t areas[2][2] = { { ebda, ebda + 1024 }, { 0xe0000, 0x100000 } };
	for (int a = ebda >= 0x80000 && ebda < 0xa0000 ? 0 : 1; a < 2; a++)
		for (uint64_t pa = areas[a][0]; pa + 20 <= areas[a][1]; pa += 16) {
			uint8_t *p = P2V(pa);
			if (!memcmp(p, "RSD PTR ", 8) && checksum_ok(p, 20))
				return pa;
		}
	return 0;
}

void acpi_init(void)
{
	if (!acpi_rsdp_pa)
		acpi_rsdp_pa = rsdp_scan();
	if (!acpi_rsdp_pa)
		panic("acpi: boot loader gave no RSDP, and none in the BIOS areas");
	uint8_t *rsdp = P2V(acpi_rsdp_pa);
	if (memcmp(rsdp, "RSD PTR ", 8) || !checksum_ok(rsdp, 20))
		panic("acpi: bad RSDP");
	int xsdt = rsdp[15] >= 2 && *(uint64_t *)(rsdp + 24);
	struct sdt *root = P2V(xsdt ? *(uint64_t *)(rsdp + 24) : *(uint32_t *)(rsdp + 16));
	if (!checksum_ok(root, root->len))
		panic("acpi: bad %.4s checksum", root->sig);
	int width = xsdt ? 8 : 4;
	int n = (root->len - sizeof *root) / width;
	for (int i = 0; i < n; i++) {
		uint8_t *ent = (uint8_t *)(root + 1) + i * width;
		uint64_t pa = xsdt ? *(uint64_t *)ent : *(uint32_t *)ent;
		struct sdt *h = P2V(pa);
		if (!memcmp(h->sig, "APIC", 4) && checksum_ok(h, h->len))
			parse_madt(h);
	}
	if (!madt_ncpu)
		panic("acpi: MADT lists no processors");
}
