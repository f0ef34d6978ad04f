/*
 * The CMOS real-time clock, read once at boot: the wall time the kernel
 * exports as INFO_BOOT_EPOCH, so user code can offer CLOCK_REALTIME as
 * boot epoch + time since boot (the TSC clock) without a syscall per read.
 * Precision is the RTC's: one second. The RTC is assumed to keep UTC
 * (QEMU's default).
 */
#include "kernel.h"

uint64_t boot_epoch;     /* seconds since 1970-01-01 UTC, at tsc_boot */

static uint8_t cmos(uint8_t reg)
{
	outb(0x70, reg);
	return inb(0x71);
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's
   days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

struct rtc {
	uint8_t s, min, h, d, mon, y, cent;
};

static void rtc_read(struct rtc *t)
{
	while (cmos(0x0a) & 0x80)   /* update in progress: the fields are changing */
		pause();
	t->s = cmos(0x00), t->min = cmos(0x02), t->h = cmos(0x04);
	t->d = cmos(0x07), t->mon = cmos(0x08), t->y = cmos(0x09), t->cent = cmos(0x32);
}

static unsigned bcd(uint8_t v) { return (v & 0x0f) + (v >> 4) * 10; }

void rtc_init(void)
{
	struct rtc a, b;
	/* Read until two reads agree, so no field is from a different second. */
	rtc_read(&b);
	do {
		a = b;
		rtc_read(&b);
	} while (a.s != b.s || a.min != b.min || a.h != b.h || a.d != b.d ||
		 a.mon != b.mon || a.y != b.y || a.cent != b.cent);
	uint8_t fmt = cmos(0x0b);
	int pm = a.h & 0x80;
	a.h &= 0x7f;
	unsigned s = a.s, min = a.min, h = a.h, d = a.d, mon = a.mon, y = a.y, cent = a.cent;
	if (!(fmt & 0x04)) {        /* BCD */
		s = bcd(a.s), min = bcd(a.min), h = bcd(a.h);
		d = bcd(a.d), mon = bcd(a.mon), y = bcd(a.y), cent = bcd(a.cent);
	}
	if (!(fmt & 0x02) && pm)    /* 12-hour clock */
		h = (h % 12) + 12;
	else if (!(fmt & 0x02) && h == 12)
		h = 0;
	unsigned year = (cent >= 19 && cent <= 99 ? cent * 100 : 2000) + y;
	if (mon < 1 || mon > 12 || d < 1 || d > 31 || h > 23 || min > 59 || s > 60) {
		kprintf("rtc: implausible time, CLOCK_REALTIME starts at 1970\n");
		return;
	}
	int64_t secs = days_from_civil(year, mon, d) * 86400 + h * 3600 + min * 60 + s;
	int64_t since_boot = (int64_t)(now_ns() / 1000000000UL);
	boot_epoch = secs > since_boot ? (uint64_t)(secs - since_boot) : 0;
}
