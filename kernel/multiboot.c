/*
 * Multiboot2 boot information: copy out what we keep (command line,
 * memory map, modules, ACPI RSDP) so the information block itself can be
 * reused as free memory afterwards.
 */
#include "kernel.h"

struct mb2_tag {
	uint32_t type, size;
};
struct mb2_mmap_entry {
	uint64_t base, len;
	uint32_t type, rsvd;
};

#define MB2_BOOTLOADER_MAGIC 0x36d76289
#define TAG_END      0
#define TAG_CMDLINE  1
#define TAG_MODULE   3
#define TAG_MMAP     6
#define TAG_ACPI_OLD 14
#define TAG_ACPI_NEW 15

struct module modules[MAXMODULES];
int nmodules;
int modules_dropped;
char boot_cmdline[1024];
uint64_t acpi_rsdp_pa;
static uint8_t rsdp_copy[64] __attribute__((aligned(16)));

struct memrange mmap_ranges[MAXMEMRANGES];
int nmmap;

void multiboot_parse(uint32_t magic, uint64_t mbi_pa)
{
	if (magic != MB2_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot2 loader (magic %x)", magic);
	uint8_t *mbi = P2V(mbi_pa);
	uint32_t total = *(uint32_t *)mbi;
	for (uint32_t off = 8; off + 8 <= total;) {
		struct mb2_tag *t = (struct mb2_tag *)(mbi + off);
		if (t->type == TAG_END)
			break;
		uint8_t *body = (uint8_t *)(t + 1);
		switch (t->type) {
		case TAG_CMDLINE:
			strlcpy(boot_cmdline, (char *)body, sizeof boot_cmdline);
			break;
		case TAG_MODULE:
			if (nmodules < MAXMODULES) {
				struct module *m = &modules[nmodules++];
				m->start = ((uint32_t *)body)[0];
				m->end = ((uint32_t *)body)[1];
				strlcpy(m->name, (char *)body + 8, sizeof m->name);
			} else
				modules_dropped++;   /* no console yet: main says so */
			break;
		case TAG_MMAP: {
			uint32_t esize = ((uint32_t *)body)[0];
			for (uint8_t *e = body + 8; e + esize <= (uint8_t *)t + t->size && nmmap < MAXMEMRANGES; e += esize) {
				struct mb2_mmap_entry *me = (void *)e;
				mmap_ranges[nmmap++] = (struct memrange){ me->base, me->len, me->type };
			}
			break;
		}
		case TAG_ACPI_OLD:
		case TAG_ACPI_NEW:
			/* Prefer the ACPI 2.0 RSDP (XSDT) when GRUB gives both. */
			if (!acpi_rsdp_pa || t->type == TAG_ACPI_NEW) {
				memcpy(rsdp_copy, body, MIN(t->size - 8, sizeof rsdp_copy));
				acpi_rsdp_pa = K2P(rsdp_copy);
			}
			break;
		}
		off += (t->size + 7) & ~7u;
	}
	if (!nmmap)
		panic("boot loader gave no memory map");
}

struct module *module_find(const char *name)
{
	for (int i = 0; i < nmodules; i++)
		if (!strcmp(modules[i].name, name))
			return &modules[i];
	return 0;
}
