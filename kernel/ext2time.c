/*
 * An inode's times as Linux keeps them on ext2 and ext4 (the on-disk
 * format e2fsprogs documents). The 32-bit fields (atime 8, ctime 12,
 * mtime 16) hold signed seconds: 1901..2038. An inode larger than 128
 * bytes whose i_extra_isize (offset 128) reaches a time's extra field
 * (ctime 132, mtime 136, atime 140, crtime's 148 beside crtime at 144)
 * keeps there the epoch, bits 0-1 (added to the seconds as bits 32-33),
 * and the nanoseconds, bits 2-31: 1901..2446 to the nanosecond.
 *
 * A time outside what the inode can hold is held to its ends, as Linux
 * clamps it; with no extra field the nanoseconds are dropped. The epoch
 * 3 with a negative 32-bit field (past 2446) is never written: e2fsck
 * takes it for a mis-encoded date before 1970. Read back, nanoseconds
 * past 999999999 (a hostile image) read as 999999999.
 */
#include "kernel.h"
#include "ext2.h"

#define TMIN (-(1L << 31))
#define TMAX32 ((1L << 31) - 1)
#define TMAXX ((1L << 34) - (1L << 31) - 1)    /* epoch 3, field 0x7fffffff */

static const struct { uint16_t base, extra; } at[] = {
	[T_ATIME] = { 8, 140 }, [T_CTIME] = { 12, 132 }, [T_MTIME] = { 16, 136 },
	[T_CRTIME] = { 144, 148 },
};

static void st32(uint8_t *p, uint32_t v) { __atomic_store_n((uint32_t *)p, v, __ATOMIC_RELEASE); }

/* The inode's bytes reach field off and its i_extra_isize covers it. */
static int room(const uint8_t *ip, uint32_t off)
{
	return fs.isize >= off + 4 && 128u + le16(ip + 128) >= off + 4;
}

void ext2_tget(const uint8_t *ip, int which, struct ftime *t)
{
	uint32_t x = at[which].extra;
	*t = (struct ftime){ 0 };
	if (which == T_CRTIME && !room(ip, x))
		return;                   /* (no creation time: 0) */
	t->sec = (int32_t)le32(ip + at[which].base);
	if (room(ip, x)) {
		uint32_t e = le32(ip + x);
		t->sec += (int64_t)(e & 3) << 32;
		t->ns = MIN(e >> 2, 999999999u);
	}
}

void ext2_tput(uint8_t *ip, int which, const struct ftime *t)
{
	uint32_t x = at[which].extra;
	int64_t s = t->sec;
	if (room(ip, x)) {
		s = s < TMIN ? TMIN : s > TMAXX ? TMAXX : s;
		uint32_t epoch = (uint32_t)((s - (int32_t)s) >> 32) & 3;
		st32(ip + x, epoch | MIN(t->ns, 999999999u) << 2);
	} else if (which == T_CRTIME) {
		return;
	} else {
		s = s < TMIN ? TMIN : s > TMAX32 ? TMAX32 : s;
	}
	st32(ip + at[which].base, (uint32_t)s);
}

/* CLOCK_REALTIME now (the boot's wall time, the boot clock and the offset
   SYS_clockset set: what user code reads). */
void ext2_now(struct ftime *t)
{
	int64_t ns = (int64_t)(boot_epoch * 1000000000UL + now_ns()) +
		     __atomic_load_n(&rt_off, __ATOMIC_RELAXED);
	int64_t s = ns / 1000000000L, r = ns % 1000000000L;
	if (r < 0)
		s--, r += 1000000000L;
	t->sec = s;
	t->ns = (uint32_t)r;
}

/* Time `which` of the raw inode ip: now. */
void ext2_tnow(uint8_t *ip, int which)
{
	struct ftime t;
	ext2_now(&t);
	ext2_tput(ip, which, &t);
}
