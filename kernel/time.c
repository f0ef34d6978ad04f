/*
 * Time: the TSC is the clock (QEMU keeps it invariant and in step across
 * CPUs); the LAPIC timer raises the interrupts. Both are calibrated once
 * against the 8254 PIT, whose input clock is fixed at 1.193182 MHz.
 *
 * Calibration must survive a busy host, which can deschedule the thread
 * that runs our (emulated) CPU for milliseconds at any point. All three
 * counters keep running meanwhile: in QEMU each reads the host's clock
 * when it is read. So a pause between two readings is harmless; what
 * spoils a measurement is a pause *within* one reading, between reading
 * the PIT and reading the TSC, because then the two readings are of
 * different moments. (The old method read the TSC, waited for the PIT's
 * output pin to rise and read the TSC again: a pause before the pin was
 * noticed, or before the count started, added TSC cycles with no PIT
 * ticks, and rates came out up to 187% high on a loaded host.)
 *
 * So every PIT reading is bracketed by two TSC reads, t0 and t1: the PIT
 * was read at some TSC value in [t0, t1], and the bracket's width bounds
 * how wrong our guess (its middle) can be. A window runs from one reading
 * to the first one CAL_TICKS later, and its error is at most half the
 * sum of its two brackets' widths, which a pause inside either makes
 * large. We measure CAL_WINDOWS windows and keep the one with the
 * narrowest brackets: the least disturbed, whichever way a pause would
 * have pushed it (a pause inside a bracket can make the rate high or
 * low, as it fell before or after the PIT was read). If even that one could be off by more
 * than 0.05%, we measure more windows, up to 4x as many. (The first
 * window is usually a little disturbed too: QEMU is translating this
 * code. The LAPIC count is read inside the same brackets.)
 * Each window restarts the PIT at 0xffff in mode 0, so its output pin
 * rises only if 65535 ticks (55 ms) pass: a window whose count wrapped
 * during a long pause, and so lost 55 ms of ticks, is recognised and
 * dropped. Under -icount every clock is the instruction count, so the
 * result is the same on every boot.
 *
 * The first window is enough alone if its error bound is under 0.005%
 * (the rest settle for 0.05%). That holds under -icount, where a
 * reading's bracket is a few instructions (tsc_hz comes out 999999733,
 * against 1000000133 from the best of four), and seldom on a real clock,
 * where each PIT read is a trip into QEMU's device code (and where it
 * does, the rate is within a tighter bound than the best of four's).
 * Under -icount the spinning costs host time: the other three windows
 * were about 0.2 s of QEMU CPU time of every icount boot (0.55 s -> 0.31
 * s for hello at -smp 1 and 2).
 */
#include "kernel.h"

uint64_t tsc_hz, lapic_hz;
uint64_t lapic_ns_mult;               /* timer counts = ns * lapic_ns_mult >> 32 */
uint64_t tsc_boot, tsc_ns_mult;        /* ns = (tsc - tsc_boot) * tsc_ns_mult >> 32 */
int cal_windows;

void lapic_timer_raw(uint32_t lvt, uint32_t init);
uint32_t lapic_timer_current(void);

#define PIT_HZ       1193182
#define CAL_TICKS    (PIT_HZ / 200)     /* 5 ms windows ... */
#define CAL_WINDOWS  4                  /* ... four of them: 20 ms in all */

/* The PIT (channel 2) and LAPIC counts, read at a TSC value in [t0, t1]. */
struct reading {
	uint64_t t0, t1;
	uint32_t lapic;
	uint16_t pit;
};

static void pit_read(struct reading *r)
{
	r->t0 = rdtsc();
	outb(0x43, 0x80);                  /* latch channel 2's count */
	r->lapic = lapic_timer_current();
	uint8_t lo = inb(0x42);
	r->pit = lo | inb(0x42) << 8;
	r->t1 = rdtsc();
}

struct window {
	uint64_t tsc, err;                 /* TSC cycles, and twice the bound on their error */
	uint32_t lapic, ticks;             /* LAPIC counts and PIT ticks */
};

static void measure(struct window *w)
{
	struct reading a, b;
	outb(0x43, 0xb0);                  /* channel 2, lo/hi, mode 0: OUT2 high at 0 */
	outb(0x42, 0xff);
	outb(0x42, 0xff);
	pit_read(&b);
	do {                               /* start just after a tick */
		a = b;
		pit_read(&b);
	} while (b.pit == a.pit);
	a = b;
	do
		pit_read(&b);
	while ((uint16_t)(a.pit - b.pit) < CAL_TICKS);
	w->ticks = (uint16_t)(a.pit - b.pit);
	w->tsc = ((b.t0 - a.t0) + (b.t1 - a.t1)) / 2;
	w->err = (a.t1 - a.t0) + (b.t1 - b.t0);
	w->lapic = a.lapic - b.lapic;
	if (inb(0x61) & 0x20)              /* the count wrapped: 55 ms went missing */
		w->err = ~0UL;
}

void time_calibrate(void)
{
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);   /* channel 2 gate on, speaker off */
	lapic_timer_raw(1u << 16, 0xffffffff);     /* masked, counting down from 2^32-1 */
	tsc_boot = rdtsc();
	struct window best = { .err = ~0UL };
	measure(&best);
	cal_windows = 1;
	int quick = best.err != ~0UL && best.err <= best.tsc / 10000;
	for (int i = 1; !quick && (i < CAL_WINDOWS || (best.err > best.tsc / 1000 && i < 4 * CAL_WINDOWS)); i++) {
		struct window w;
		measure(&w);
		cal_windows++;
		if (w.err < best.err)
			best = w;
	}
	lapic_timer_raw(1u << 16, 0);
	if (best.err != ~0UL) {
		tsc_hz = best.tsc * PIT_HZ / best.ticks;
		lapic_hz = (uint64_t)best.lapic * PIT_HZ / best.ticks;
	}
	if (!tsc_hz || !lapic_hz)
		panic("time: calibration failed (tsc %lu Hz, lapic %lu Hz)", tsc_hz, lapic_hz);
	tsc_ns_mult = (1000000000UL << 32) / tsc_hz;
	lapic_ns_mult = (lapic_hz << 32) / 1000000000UL;
}

uint64_t now_ns(void)
{
	return (uint64_t)(((unsigned __int128)(rdtsc() - tsc_boot) * tsc_ns_mult) >> 32);
}

void delay_us(uint64_t us)
{
	uint64_t end = now_ns() + us * 1000;
	while (now_ns() < end)
		pause();
}
