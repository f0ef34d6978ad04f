/*
 * Local APIC (xAPIC, memory-mapped): per-CPU timer, end-of-interrupt, and
 * inter-processor interrupts. The legacy 8259 PIC is remapped out of the
 * exception range and masked: the kernel takes no device interrupts.
 */
#include "kernel.h"

#define ID       0x020
#define TPR      0x080
#define EOI      0x0b0
#define SVR      0x0f0
#define ICRLO    0x300
#define ICRHI    0x310
#define LVT_TIMER 0x320
#define LVT_LINT0 0x350
#define LVT_LINT1 0x360
#define LVT_ERROR 0x370
#define TIMER_INIT 0x380
#define TIMER_CUR  0x390
#define TIMER_DIV  0x3e0
#define MASKED   (1u << 16)
#define PENDING  (1u << 12)

static volatile uint32_t *regs(uint32_t off)
{
	return (volatile uint32_t *)((uint8_t *)P2V(lapic_pa) + off);
}
static uint32_t rd(uint32_t off) { return *regs(off); }
static void wr(uint32_t off, uint32_t v) { *regs(off) = v; (void)rd(ID); }
/* The hot paths (EOI, timer, IPI) write without reading back: the LAPIC
   is uncached, so a write is not posted, and under QEMU every access
   takes the emulator's global lock, which a vCPU waking from hlt needs
   too. Setup keeps the read-back (xv6's habit). */
static void wr_now(uint32_t off, uint32_t v) { *regs(off) = v; }

static void pic_disable(void)
{
	/* Remap to 0x20..0x2f (ICW1-4) so a spurious IRQ cannot look like an
	   exception, then mask every line. */
	outb(0x20, 0x11); outb(0xa0, 0x11);
	outb(0x21, 0x20); outb(0xa1, 0x28);
	outb(0x21, 4);    outb(0xa1, 2);
	outb(0x21, 1);    outb(0xa1, 1);
	outb(0x21, 0xff); outb(0xa1, 0xff);
}

void lapic_init(void)
{
	if (mycpu_id() == 0)
		pic_disable();
	wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | (1 << 11));   /* global enable */
	wr(SVR, 0x100 | T_SPURIOUS);
	wr(TPR, 0);
	wr(LVT_LINT0, MASKED);
	wr(LVT_ERROR, MASKED);
	wr(TIMER_DIV, 0x3);             /* divide by 16 */
	wr(LVT_TIMER, MASKED | T_TIMER);
	wr(EOI, 0);
}

uint32_t lapic_id(void)
{
	return rd(ID) >> 24;
}

void lapic_eoi(void)
{
	wr_now(EOI, 0);
}

/* Raw access for calibration (time.c). */
void lapic_timer_raw(uint32_t lvt, uint32_t init)
{
	wr(LVT_TIMER, lvt);
	wr(TIMER_INIT, init);
}
uint32_t lapic_timer_current(void)
{
	return rd(TIMER_CUR);
}

/* Interrupt this CPU once, ns from now (0 = cancel). */
static void timer_oneshot(uint64_t ns)
{
	if (!ns) {
		wr_now(TIMER_INIT, 0);
		return;
	}
	uint64_t count = (uint64_t)(((unsigned __int128)ns * lapic_ns_mult) >> 32);
	count = MAX(count, 1);
	count = MIN(count, 0xffffffffUL);
	wr_now(LVT_TIMER, T_TIMER);      /* one-shot, unmasked */
	wr_now(TIMER_INIT, (uint32_t)count);
}

/*
 * The deadline each CPU's timer is programmed for: ~0 none, 0 fired.
 * Reprogramming the LAPIC costs three register accesses, and under QEMU
 * each one takes the emulator's global lock and may wake its main loop
 * (a new earliest timer); the scheduler re-arms at every dispatch, so a
 * fast hand-off paid that every few microseconds, and on a busy host the
 * vCPUs queued behind the main loop for milliseconds. So the timer is
 * only moved earlier, never later: one programmed no later than the new
 * deadline fires early at worst, and the timer interrupt then re-arms
 * for the real one.
 */
static uint64_t armed[MAXCPU];

void lapic_timer_at(uint64_t when, uint64_t now)
{
	int id = mycpu_id();
	if (armed[id] && armed[id] > now && armed[id] <= when)
		return;                  /* fires in time (or early) already */
	if (when == ~0UL) {
		if (armed[id] != ~0UL)
			timer_oneshot(0);
		armed[id] = ~0UL;
		return;
	}
	timer_oneshot(when > now ? when - now : 1);
	armed[id] = MAX(when, now + 1);
}

/*
 * Late timer interrupts. A deadline's interrupt that comes more than
 * TIMER_LATE_NS after it is the host's doing, not the kernel's: under
 * TCG a vCPU is a host thread, and a busy host deschedules it for
 * milliseconds (the kernel runs timer interrupts with nothing ahead of
 * them but other interrupts). Counted so that wall-clock results and
 * tests can tell a stalled emulated CPU from a kernel that missed its
 * deadline (INFO_TIMER_LATE, @halt's "timer_late").
 */
static uint64_t late[MAXCPU];

uint64_t timer_late_count(void)
{
	uint64_t n = 0;
	for (int i = 0; i < ncpu; i++)
		n += READ_ONCE(late[i]);
	return n;
}

/* The timer interrupt: nothing is programmed any more. */
void lapic_timer_fired(void)
{
	int id = mycpu_id();
	uint64_t want = armed[id];
	if (want && want != ~0UL && now_ns() > want + TIMER_LATE_NS)
		late[id]++;
	armed[id] = 0;
}

static void icr(uint32_t dest, uint32_t lo)
{
	wr_now(ICRHI, dest << 24);
	wr_now(ICRLO, lo);
	while (rd(ICRLO) & PENDING)
		pause();
}

/*
 * The pause after the send is for emulators: under QEMU's round-robin
 * TCG (one host thread runs every vCPU in turn, as with -icount) an
 * interrupt sent to a halted vCPU is only noticed when the running vCPU
 * gives the thread up (pause, hlt, or a timer deadline, up to a quantum
 * away if the sender goes on computing). A pause ends the sender's turn
 * there: traced, the woken CPU leaves hlt 160 instructions after the
 * IPI. On hardware it is a spin-wait hint.
 */
void lapic_ipi(uint32_t apic_id, int vector)
{
	icr(apic_id, 0x4000 | vector);
	pause();
}

void lapic_ipi_others(int vector, int nmi)
{
	icr(0, (3u << 18) | 0x4000 | (nmi ? 0x400 : (uint32_t)vector));
}

/* CPUID.1:ECX bit 31: the CPU is a virtual one. */
static int virtual_cpu(void)
{
	uint32_t a, b, c, d;
	cpuid(1, 0, &a, &b, &c, &d);
	return (c >> 31) & 1;
}

/*
 * INIT, then two STARTUPs pointing at the trampoline (Intel MP spec).
 * The spec's 10 ms after INIT is for physical processors; a virtual one
 * needs none (Linux skips it on modern CPUs too), and under QEMU's
 * round-robin -icount the spin cost 1.5-2 s of host time per CPU: an
 * -smp 4 icount boot of hello took 7.8 s, 1.3 s without it.
 */
void lapic_startup(uint32_t apic_id, uint32_t tramp_pa)
{
	icr(apic_id, 0x4500);
	if (!virtual_cpu())
		delay_us(10000);
	for (int i = 0; i < 2; i++) {
		icr(apic_id, 0x4600 | (tramp_pa >> 12));
		delay_us(200);
	}
}
