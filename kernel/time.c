/*
 * Time: the TSC is the clock (QEMU keeps it invariant and in step across
 * CPUs); the LAPIC timer raises the interrupts. Both are calibrated once
 * against the 8254 PIT, whose input clock is fixed at 1.193182 MHz.
 */
#include "kernel.h"

uint64_t tsc_hz, lapic_hz;
uint64_t lapic_ns_mult;               /* timer counts = ns * lapic_ns_mult >> 32 */
uint64_t tsc_boot, tsc_ns_mult;        /* ns = (tsc - tsc_boot) * tsc_ns_mult >> 32 */

void lapic_timer_raw(uint32_t lvt, uint32_t init);
uint32_t lapic_timer_current(void);

#define PIT_HZ  1193182
#define CAL_MS  20

void time_calibrate(void)
{
	uint16_t count = PIT_HZ * CAL_MS / 1000;
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);   /* channel 2 gate on, speaker off */
	outb(0x43, 0xb0);                          /* channel 2, lo/hi, mode 0 */
	outb(0x42, count & 0xff);
	outb(0x42, count >> 8);
	uint8_t g = inb(0x61) & ~0x01;
	outb(0x61, g);                             /* restart the count */
	lapic_timer_raw(1u << 16, 0xffffffff);
	uint64_t t0 = rdtsc();
	outb(0x61, g | 1);
	while (!(inb(0x61) & 0x20))                /* OUT2 rises at terminal count */
		pause();
	uint64_t t1 = rdtsc();
	uint32_t left = lapic_timer_current();
	lapic_timer_raw(1u << 16, 0);
	tsc_hz = (t1 - t0) * 1000 / CAL_MS;
	lapic_hz = (uint64_t)(0xffffffffu - left) * 1000 / CAL_MS;
	if (!tsc_hz || !lapic_hz)
		panic("time: calibration failed (tsc %lu Hz, lapic %lu Hz)", tsc_hz, lapic_hz);
	tsc_ns_mult = (1000000000UL << 32) / tsc_hz;
	lapic_ns_mult = (lapic_hz << 32) / 1000000000UL;
	tsc_boot = t0;
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
