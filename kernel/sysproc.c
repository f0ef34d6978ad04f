/* Process-level syscalls: console, exit, time, yield, spawn, wait, info, sleep. */
#include "kernel.h"
#include "disk.h"
#include <anima/syscall.h>
#include <anima/file.h>
#include "disk.h"

#define CPUTS_MAX (64 * 1024)
/* The most written under one console lock. The UART is polled a byte at
   a time with interrupts off: about 2 us a byte under TCG, 87 us at a
   real 115200 baud. */
#define CPUTS_PIECE 4096

long sys_null(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	return 0;
}

/*
 * Write len bytes, whole lines at a time: a piece of at most CPUTS_PIECE
 * bytes, ending at its last newline, goes out under one console lock,
 * and between pieces the CPU catches up (sched_point). So a line of up
 * to CPUTS_PIECE bytes (ulib's are at most STDOUT_LINE, 2 KiB) never
 * mixes with another writer's; a longer one may be cut. Before, all 64
 * KiB went under one lock with interrupts off: 140 ms of a CPU under
 * TCG, 5.7 s at 115200 baud, and at -smp 1 another space's 1 ms sleep
 * woke a whole call late (progs/tests/cputshold.c).
 *
 * Each piece is copied in just before it is written, into its CPU's
 * buffer: nothing is held across a sched_point, where the VP may leave
 * the CPU mid-call. (A 64 KiB kmalloc'd copy of the whole call was held
 * there, uncharged and from the kernel's reserve: VPs parked inside
 * cputs held 17 pages each, progs/tests/cputshog.c.) A fault part way
 * returns -EFAULT after the pieces before it were written.
 */
static char piece_buf[MAXCPU][CPUTS_PIECE];

long sys_cputs(uint64_t buf, uint64_t len, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if (!user_range_ok(buf, len))
		return -EFAULT;
	if (len > CPUTS_MAX)
		return -EINVAL;
	for (size_t off = 0; off < len;) {
		/* (ours until the sched_point: this CPU runs nothing else) */
		char *k = piece_buf[mycpu_id()];
		size_t n = MIN(len - off, CPUTS_PIECE);
		if (copyin(k, buf + off, n) < 0)
			return -EFAULT;
		if (off + n < len)          /* not the last piece: end it at a line's end */
			for (size_t i = n; i > 0; i--)
				if (k[i - 1] == '\n') {
					n = i;
					break;
				}
		console_lock();
		tty_write(k, n);         /* (as the console's output settings say: tty.c) */
		console_unlock();
		off += n;
		if (off < len) {
			sched_point();      /* no lock held; our state is in locals */
			if (myvp()->space->state != SP_ALIVE)
				break;      /* killed meanwhile: the rest is moot */
		}
	}
	return (long)len;
}

long sys_exit(uint64_t status, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)b, (void)c, (void)d, (void)e, (void)f;
	space_exit(myvp()->space, (int)status);
	return 0;                 /* the return path sees the space dying */
}

long sys_time(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	return (long)now_ns();
}

/* Give up the processor. A VP that yields while a preemption warning is
   pending has honored it: it is not charged with a preemption. */
long sys_yield(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
	struct cpu *cp = mycpu();
	if (cp->warned == WARN_GIVEN && now_ns() < cp->quantum_end)
		warn_honored(myvp());
	vp_yield();
	return 0;
}

/* The caller's handles uhandles[0..n-1], looked up in its own table
   (each copy holds a reference: spawn_release). A segment handle needs
   SEG_GRANT to be passed on (-EACCES). */
static long spawn_caps(uint64_t uhandles, uint64_t n, struct capent *caps, int *got)
{
	*got = 0;
	if (n > MAXCAP_SPACE)
		return -EINVAL;
	uint64_t h[MAXCAP_SPACE];
	long r = n ? copyin(h, uhandles, n * sizeof h[0]) : 0;
	for (uint64_t i = 0; r == 0 && i < n; i++) {
		r = cap_get(myvp()->space, h[i], &caps[i]);
		if (!r)
			(*got)++;
		if (!r && caps[i].kind == CAP_SEG && !(caps[i].rights & SEG_GRANT))
			r = -EACCES;
	}
	return r;
}

static void spawn_release(struct capent *caps, int n)
{
	for (int i = 0; i < n; i++)
		cap_release(&caps[i]);
}

static long spawn_args(uint64_t uprog, uint64_t argc, uint64_t uargv, uint64_t uenvp,
		       struct capent *caps, int nhandles);

long sys_spawn(uint64_t uprog, uint64_t argc, uint64_t uargv, uint64_t uhandles, uint64_t nhandles, uint64_t uenvp)
{
	struct capent caps[MAXCAP_SPACE];
	int got;
	long r = spawn_caps(uhandles, nhandles, caps, &got);
	if (r >= 0)
		r = spawn_args(uprog, argc, uargv, uenvp, caps, (int)nhandles);
	spawn_release(caps, got);        /* the child took references of its own */
	return r;
}

static long spawn_args(uint64_t uprog, uint64_t argc, uint64_t uargv, uint64_t uenvp,
		       struct capent *caps, int nhandles)
{
	struct uargs a;
	long r = args_copyin(uprog, argc, uargv, uenvp, &a);
	if (r < 0)
		return r;
	const char *m;
	if (a.name[0] == '/')
		r = spawn_file(a.name, a.argc, a.v, caps, nhandles);
	if (a.name[0] == '/' && r == -ENOENT && (m = bin_module(a.name)))
		r = space_spawn(m, a.argc, a.v, myvp()->space, -1, 1, caps, nhandles);
	else if (a.name[0] != '/')
		r = space_spawn(a.name, a.argc, a.v, myvp()->space, -1, 1, caps, nhandles);
	args_free(&a);
	return r;
}

long sys_wait(uint64_t id, uint64_t ustatus, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	if ((int64_t)id <= 0 || id > 0x7fffffff)
		return -ECHILD;
	return space_wait((int)id, (int *)ustatus, 0);
}

long sys_getinfo(uint64_t what, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	(void)c, (void)d, (void)e, (void)f;
	switch (what) {
	case INFO_SPACE:
		return myvp()->space->id;
	case INFO_CPU:
		return mycpu_id();
	case INFO_NCPU:
		return ncpu;
	case INFO_TSC_HZ:
		return (long)tsc_hz;
	case INFO_MEM_FREE:
		return (long)(pmm_free_pages() * PGSIZE);
	case INFO_MEM_AVAIL:
		return (long)((pmm_free_pages() + kheap_spare_pages() + bcache_spare_pages()) * PGSIZE);
	case INFO_BOOT_EPOCH:
		return (long)boot_epoch;
	case INFO_RT_OFF:
		return (long)__atomic_load_n(&rt_off, __ATOMIC_RELAXED);
	case INFO_TIMER_LATE:
		return (long)timer_late_count();
	case INFO_SPACES_HELD:
		return __atomic_load_n(&held_spaces, __ATOMIC_ACQUIRE) +
		       __atomic_load_n(&cow_breaking, __ATOMIC_SEQ_CST);
	case INFO_TREE_HELD:
		return space_tree_held(myvp()->space);
	case INFO_BCACHE:
		return disk_blocks ? bcache_info(b) : 0;
	case INFO_DISK_FLIGHT:
		return disk_maxflight;
	case INFO_RAMDISK:
		return b > 1 ? -EINVAL : !ramdisk_on ? 0 : b ? (long)ram_frames() : (long)disk_blocks;
	case INFO_VIEW_PAGES:
		return (long)__atomic_load_n(&myvp()->space->viewpages, __ATOMIC_RELAXED);
	case INFO_VIEW_RACES:
		return (long)__atomic_load_n(&myvp()->space->viewraces, __ATOMIC_RELAXED);
	case INFO_VSTAT:
		return vstat_info(b);
	case INFO_MEM_TOTAL:
		return (long)mem_total_bytes;
	case INFO_MEM_CHARGED:
		return (long)mem_charged(myvp()->space);
	case INFO_LOCK_WAITS: {
		struct spinlock *l = b == 0 ? &myvp()->space->lock : b == 1 ? &kop_lock : 0;
		return l ? (long)__atomic_load_n(&l->waits, __ATOMIC_RELAXED) :
		       b == 2 ? (long)pmm_lock_waits() : -EINVAL;
	}
	case INFO_FILES:
	case INFO_FILE_FLAGS:
	case INFO_FILE_KIND:
		return file_info((int)what, b);
	case INFO_ORPHAN:
		return orphan_info(b);
	case INFO_LOCKS:
		return lock_info((int)b);
	case INFO_SIGPEND:
		return psig_pending(myvp()->space, b);
	case INFO_SIGEXEC:
		return psig_exec_info(myvp()->space, b);
	case INFO_ALARMEXEC:
		return psig_alarm_info(myvp()->space, b);
	case INFO_ITIMEREXEC:
		return psig_itimer_info(myvp()->space, b);
	case INFO_UMASKEXEC:
		return umask_info(myvp()->space);
	case INFO_FSHARED:
		return fkey_shared_at(myvp()->space, b);
	case INFO_CRED:
		return cred_info(b);
	case INFO_OWNER:
		return cred_owner_info(b);
	case INFO_CHILD_CPU:
		return (long)__atomic_load_n(&myvp()->space->child_ns, __ATOMIC_RELAXED);
	case INFO_PARENT: {
		spin_lock(&table_lock);      /* (space_finish orphans under it) */
		struct space *p = myvp()->space->parent;
		long id = p ? p->id : myvp()->space->orphaned;   /* an orphan: 1, Linux's init */
		spin_unlock(&table_lock);
		return id;
	}
	}
	return -EINVAL;
}
