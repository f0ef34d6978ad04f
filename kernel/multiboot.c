/*
 * Boot information: copy out what we keep (command line, memory map,
 * modules, ACPI RSDP) so the information block itself can be reused as
 * free memory afterwards. GRUB (the ISO) speaks multiboot2; QEMU's own
 * loader (`-kernel build/kernel.bin`, the harness's direct boot: no BIOS
 * disk reads, which under -icount were most of a boot) speaks multiboot1.
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
#define MB1_BOOTLOADER_MAGIC 0x2badb002
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

/* multiboot1's information block: the fields we read */
struct mb1_info {
	uint32_t flags, mem_lower, mem_upper, boot_device, cmdline;
	uint32_t mods_count, mods_addr;
	uint32_t syms[4];
	uint32_t mmap_length, mmap_addr;
};
struct mb1_module {
	uint32_t start, end, string, reserved;
};
#define MB1_CMDLINE (1 << 2)
#define MB1_MODS    (1 << 3)
#define MB1_MMAP    (1 << 6)

/* The last word of s: a multiboot1 loader's strings start with the file's
   path ("build/progs/ptest ptest", QEMU; "/boot/kernel.elf run=..."),
   multiboot2's hold only what follows it. */
static const char *after_path(const char *s, int last)
{
	const char *sp = strchr(s, ' ');
	if (!sp)
		return last ? s : "";
	if (!last)
		return sp + 1;
	const char *w = sp + 1;
	for (const char *q = w; (q = strchr(q, ' ')); w = ++q)
		;
	return w;
}

static void mb1_module(const struct mb1_module *m)
{
	if (nmodules >= MAXMODULES) {
		modules_dropped++;
		return;
	}
	struct module *k = &modules[nmodules++];
	k->start = m->start;
	k->end = m->end;
	strlcpy(k->name, m->string ? after_path(P2V(m->string), 1) : "", sizeof k->name);
}

static void mb1_parse(uint64_t mbi_pa)
{
	const struct mb1_info *mi = P2V(mbi_pa);
	if (mi->flags & MB1_CMDLINE)
		strlcpy(boot_cmdline, after_path(P2V(mi->cmdline), 0), sizeof boot_cmdline);
	if (mi->flags & MB1_MODS) {
		const struct mb1_module *m = P2V(mi->mods_addr);
		for (uint32_t i = 0; i < mi->mods_count; i++)
			mb1_module(&m[i]);
	}
	if (mi->flags & MB1_MMAP) {
		/* entries: a size (of the rest), then base, length, type */
		uint8_t *e = P2V(mi->mmap_addr), *end = e + mi->mmap_length;
		for (; e + 24 <= end && nmmap < MAXMEMRANGES; e += *(uint32_t *)e + 4) {
			uint64_t base = *(uint64_t *)(e + 4), len = *(uint64_t *)(e + 12);
			mmap_ranges[nmmap++] = (struct memrange){ base, len, *(uint32_t *)(e + 20) };
		}
	}
	if (!nmmap)
		panic("boot loader gave no memory map");
}

void multiboot_parse(uint32_t magic, uint64_t mbi_pa)
{
	if (magic == MB1_BOOTLOADER_MAGIC) {
		mb1_parse(mbi_pa);
		return;
	}
	if (magic != MB2_BOOTLOADER_MAGIC)
		panic("not booted by a multiboot loader (magic %x)", magic);
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
