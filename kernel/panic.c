/*
 * panic: print the cause, the CPU, registers and a symbolic backtrace,
 * stop the other CPUs with an NMI, and end QEMU with the panic status so
 * a harness can never read a dead kernel as success.
 */
#include "kernel.h"
#include <anima/exit.h>

volatile int panicking;

/* Symbols come from build/kernel.sym (`nm -n` output), a GRUB module. */
struct ksym {
	uint64_t addr;
	const char *name;
};
static struct ksym *ksyms;
static int nksyms;

static uint64_t parse_hex(const char **p)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return v;
		v = v * 16 + d;
	}
}

void ksyms_load(uint64_t pa, uint64_t len)
{
	char *text = kmalloc(len + 1);
	if (!text)
		return;
	memcpy(text, P2V(pa), len);
	text[len] = 0;
	int lines = 0;
	for (uint64_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	ksyms = kmalloc(sizeof(struct ksym) * (lines + 1));
	if (!ksyms)
		return;
	for (char *p = text; *p;) {
		const char *q = p;
		uint64_t a = parse_hex(&q);
		char *name = (char *)q + 3;     /* skip " T " */
		char *nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = 0;
		if (q[0] == ' ' && name < nl)
			ksyms[nksyms++] = (struct ksym){ a, name };
		p = nl + 1;
	}
}

const char *ksym_lookup(uint64_t addr, uint64_t *off)
{
	int lo = 0, hi = nksyms - 1, best = -1;
	while (lo <= hi) {               /* last symbol with address <= addr */
		int mid = (lo + hi) / 2;
		if (ksyms[mid].addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else
			hi = mid - 1;
	}
	if (best < 0)
		return 0;
	*off = addr - ksyms[best].addr;
	return ksyms[best].name;
}

static void print_addr(uint64_t a)
{
	uint64_t off;
	const char *s = ksym_lookup(a, &off);
	if (s)
		kprintf("  %016lx %s+0x%lx\n", a, s, off);
	else
		kprintf("  %016lx ?\n", a);
}

/* Frames live on the boot stacks (kernel image) or on a VP's or CPU's
   kernel stack (the direct map: pages_alloc); any other rbp ends the walk. */
void backtrace(uint64_t rbp)
{
	kprintf("backtrace:\n");
	for (int depth = 0; depth < 24 && (rbp >= KERNBASE || (pmm_direct(rbp) && pmm_direct(rbp + 8))) && rbp % 8 == 0;
	     depth++) {
		uint64_t *frame = (uint64_t *)rbp;
		if (!frame[1])
			break;
		print_addr(frame[1]);
		rbp = frame[0];
	}
}

void qemu_exit(int v)
{
	outb(DEBUG_EXIT_PORT, (uint8_t)v);
	/* No debug-exit device (e.g. a hand-run QEMU): just stop. */
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* The message, on one CPU: a second one waits to be stopped by the
   first's NMI. */
static void panic_start(const char *f, va_list ap)
{
	cli();
	if (__atomic_exchange_n(&panicking, 1, __ATOMIC_SEQ_CST))
		for (;;)
			__asm__ volatile("hlt");
	kprintf("PANIC on cpu %d: ", mycpu_id());
	vkprintf(f, ap);
	kprintf("\n");
}

/* The other CPUs, stopped by panic_finish's NMI, each say where it found
   them (one at a time) before halting, and the panic waits a moment for
   them: a watchdog's panic then shows what every CPU was doing (one
   spinning with interrupts off on a lock, say), not only the one whose
   timer noticed. */
static volatile int stopped, stop_turn;

void panic_stopped(struct trapframe *tf)
{
	while (__atomic_exchange_n(&stop_turn, 1, __ATOMIC_ACQUIRE))
		pause();
	if (tf->cs & 3) {
		kprintf("cpu %d was in user mode, rip %#lx\n", mycpu_id(), tf->rip);
	} else {
		kprintf("cpu %d was at:\n", mycpu_id());
		print_addr(tf->rip);
		backtrace(tf->rbp);
	}
	__atomic_store_n(&stop_turn, 0, __ATOMIC_RELEASE);
	__atomic_fetch_add(&stopped, 1, __ATOMIC_RELEASE);
	for (;;)
		__asm__ volatile("cli; hlt");
}

static void panic_finish(uint64_t rbp) __attribute__((noreturn));
static void panic_finish(uint64_t rbp)
{
	backtrace(rbp);
	if (ncpu > 1) {
		lapic_ipi_others(T_HALT, 1);
		/* (bounded: a CPU may never take it; the clock may not be
		   calibrated yet, then not at all) */
		uint64_t end = tsc_hz ? now_ns() + 500000000UL : 0;
		while (__atomic_load_n(&stopped, __ATOMIC_ACQUIRE) < ncpu - 1 && now_ns() < end)
			pause();
	}
	kprintf("@panic {\"cpu\": %d}\n", mycpu_id());
	qemu_exit(DEBUG_EXIT_PANIC);
}

void panic(const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	panic_start(f, ap);
	va_end(ap);
	panic_finish((uint64_t)__builtin_frame_address(0));
}

void panic_trap(struct trapframe *tf, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	panic_start(f, ap);
	va_end(ap);
	kprintf("  rip %016lx cs %lx rflags %lx rsp %016lx ss %lx err %lx cr2 %016lx\n",
		tf->rip, tf->cs, tf->rflags, tf->rsp, tf->ss, tf->error, rcr2());
	kprintf("  rax %016lx rbx %016lx rcx %016lx rdx %016lx\n", tf->rax, tf->rbx, tf->rcx, tf->rdx);
	kprintf("  rsi %016lx rdi %016lx rbp %016lx r8  %016lx\n", tf->rsi, tf->rdi, tf->rbp, tf->r8);
	kprintf("  r9  %016lx r10 %016lx r11 %016lx r12 %016lx\n", tf->r9, tf->r10, tf->r11, tf->r12);
	kprintf("  r13 %016lx r14 %016lx r15 %016lx cr3 %016lx\n", tf->r13, tf->r14, tf->r15, rcr3());
	print_addr(tf->rip);
	panic_finish(tf->rbp);
}
