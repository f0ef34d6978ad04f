/*
 * The kernel command line (from grub.cfg): space-separated words.
 *   quantum=MS        scheduler time slice in milliseconds (1..1000)
 *   warnprobation=K   quanta of probation after an ignored preemption
 *                     warning (warn.c; default 2, 0: none)
 *   watchdog=S        dump all state and panic if the run lasts S seconds
 *   run=PROG,A1,A2    start PROG with arguments A1 A2 (repeatable; all
 *                     start together, each in its own address space;
 *                     at most RUN_WORDS (32) words with PROG: a longer
 *                     one is not started, and the run fails)
 *   run=PROG:N,...    ... with N VPs: VP 0 runs, the others are parked
 *                     until the program starts them (SYS_vp_start)
 *   env=NAME=VALUE    a variable of every boot program's environment
 *                     (repeatable, at most BOOT_ENV_MAX; a later one of
 *                     the same NAME replaces an earlier one); every boot
 *                     program also gets PATH=/bin:/usr/bin and HOME=/
 *                     unless these words name them
 *   rawdisk           SYS_disk may be used: any program reads and writes
 *                     the raw disk (tests of the driver; sysdisk.c)
 *   noramdisk         without a disk, no RAM disk either: no file system
 *                     (ENODEV, EROFS), as before ramdisk.c
 *   memcheck          test build checks: freed frames and heap blocks are
 *                     poisoned and checked, and kernel entries assert
 *                     invariants (tests and fuzz runs turn it on);
 *                     implies lockcheck
 *   lockcheck         panic at a lock-order inversion (lockcheck.c)
 *   lockcheck=selftest  the same, and commit one at boot (tests see it
 *                     caught)
 *   bcache=N          the block cache is N buffers of 4 KiB, fixed (16..
 *                     1048576; default: 512 at boot, growing with free
 *                     memory to a quarter of it; bcache.c)
 *   memquota=MB       page quota of each space (user pages, page tables,
 *                     kernel stacks); default 3/4 of usable RAM
 *   idlepoll=US       an idle CPU polls its run queues this long before
 *                     it halts (default 0: halt at once; idlepoll.c)
 *   tick=US           each CPU takes a timer interrupt at least every US
 *                     microseconds (default 0: only when something falls
 *                     due). For -icount with several CPUs: QEMU runs the
 *                     vCPUs round robin, each for a share of the time to
 *                     the next timer deadline, so a tick bounds how long
 *                     one vCPU runs while the others wait (sched.c)
 *   trace, trace=N    record scheduling events, the latest N per CPU
 *                     (default 16384), and print them at the end (trace.c)
 *   jitter, jitter=S  the race shaker: a pseudo-random busy delay at every
 *                     trace and shake point (seed S; jitter.c)
 * When every program has ended the kernel stops QEMU with a status that
 * summarizes them (see <anima/exit.h> and kernel_finish).
 */
#include "kernel.h"
#include <anima/exit.h>
#include "disk.h"

#define MAXBOOT 32
#define RUN_WORDS 32           /* words of one run= */
#define BOOT_ENV_MAX 8         /* env= words */

int memcheck;
uint64_t memquota_mb;

struct bootprog {
	char *argv[RUN_WORDS];
	int argc;
	int status;
	int done;
	int nvp;
	int toolong;                /* more words than RUN_WORDS: not started */
};
static struct bootprog progs[MAXBOOT];
static int nprogs;
static char words[sizeof boot_cmdline];

/* Every boot program's environment: the defaults, then env= words. */
static char *boot_env[BOOT_ENV_MAX + 2] = { "PATH=/bin:/usr/bin", "HOME=/" };
static int nboot_env = 2;

/* env=NAME=VALUE: replaces the variable of that NAME, or adds it. */
static void add_env(char *w)
{
	char *eq = strchr(w, '=');
	if (!eq || eq == w) {
		kprintf("anima: bad env word '%s' (want env=NAME=VALUE)\n", w);
		return;
	}
	size_t n = (size_t)(eq - w) + 1;
	for (int i = 0; i < nboot_env; i++)
		if (!strncmp(boot_env[i], w, n)) {
			boot_env[i] = w;
			return;
		}
	if (nboot_env == BOOT_ENV_MAX + 2)
		kprintf("anima: more than %d env= words; ignoring %s\n", BOOT_ENV_MAX, w);
	else
		boot_env[nboot_env++] = w;
}

/* p's argv, then the environment, then a null, into v (space_spawn's). */
static void boot_vector(struct bootprog *p, char **v)
{
	int n = 0;
	for (int i = 0; i < p->argc; i++)
		v[n++] = p->argv[i];
	for (int i = 0; i < nboot_env; i++)
		v[n++] = boot_env[i];
	v[n] = 0;
}

static int parse_uint(const char *s, uint64_t *v)
{
	*v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || *v > 1000000000UL)
			return -1;
		*v = *v * 10 + (*s - '0');
	}
	return 0;
}

static void add_program(char *spec)
{
	if (nprogs == MAXBOOT) {
		kprintf("anima: more than %d programs on the command line; ignoring %s\n", MAXBOOT, spec);
		return;
	}
	struct bootprog *p = &progs[nprogs++];
	p->nvp = 1;
	for (char *s = spec; s;) {
		if (p->argc == RUN_WORDS) {   /* refused whole, never cut short */
			p->toolong = 1;
			break;
		}
		p->argv[p->argc++] = s;
		s = strchr(s, ',');
		if (s)
			*s++ = 0;
	}
}

/* NAME=V, lo <= V <= hi in `unit`, kept as V * scale in *var; a bad
   value leaves *var as it was and says so. */
static void set_num(const char *name, const char *s, uint64_t lo, uint64_t hi, const char *unit,
		    uint64_t scale, uint64_t *var)
{
	uint64_t v;
	if (parse_uint(s, &v) < 0 || v < lo || v > hi)
		kprintf("anima: bad %s '%s' (want %lu..%lu %s); keeping %lu %s\n", name, s, lo, hi,
			unit, *var / scale, unit);
	else
		*var = v * scale;
}

void cmdline_parse(const char *line)
{
	strlcpy(words, line, sizeof words);
	for (char *w = words; *w;) {
		while (*w == ' ')
			*w++ = 0;
		if (!*w)
			break;
		char *end = w;
		while (*end && *end != ' ')
			end++;
		if (*end)
			*end++ = 0;
		uint64_t v;
		if (!strncmp(w, "run=", 4) && w[4])
			add_program(w + 4);
		else if (!strncmp(w, "quantum=", 8))
			set_num("quantum", w + 8, 1, 1000, "ms", 1000000, &quantum_ns);
		else if (!strncmp(w, "tick=", 5))
			set_num("tick", w + 5, 0, 1000000, "us", 1000, &tick_ns);
		else if (!strncmp(w, "warnprobation=", 14))
			set_num("warnprobation", w + 14, 0, 100, "quanta", 1, &warn_probation);
		else if (!strncmp(w, "watchdog=", 9)) {
			if (parse_uint(w + 9, &v) < 0 || v < 1 || v > 100000)
				kprintf("anima: bad watchdog '%s' (want 1..100000 s); none set\n", w + 9);
			else
				watchdog_ns = v * 1000000000UL;
		} else if (!strncmp(w, "memquota=", 9)) {
			if (parse_uint(w + 9, &v) < 0 || v < 1 || v > (1UL << 24))
				kprintf("anima: bad memquota '%s' (want MB >= 1); keeping the default\n", w + 9);
			else
				memquota_mb = v;
		} else if (!strncmp(w, "vpidbase=", 9)) {
			if (parse_uint(w + 9, &v) < 0 || v < 1)
				kprintf("anima: bad vpidbase '%s'; ids start at 1\n", w + 9);
			else
				next_vp_id = v;
		} else if (!strncmp(w, "idlepoll=", 9))
			set_num("idlepoll", w + 9, 0, 100000, "us", 1000, &idlepoll_ns);
		else if (!strcmp(w, "trace") || !strncmp(w, "trace=", 6))
			trace_setup(w);
		else if (!strcmp(w, "jitter") || !strncmp(w, "jitter=", 7))
			jitter_setup(w);
		else if (!strcmp(w, "memcheck"))
			memcheck = lockcheck = 1;
		else if (!strcmp(w, "lockcheck"))
			lockcheck = 1;       /* lock-order checks (lockcheck.c) */
		else if (!strcmp(w, "lockcheck=selftest"))
			lockcheck = 2;       /* and an inversion at boot, to see it caught */
		else if (!strncmp(w, "bcache=", 7))
			set_num("bcache", w + 7, 16, 1UL << 20, "buffers", 1, &bcache_fixed);
		else if (!strncmp(w, "env=", 4))
			add_env(w + 4);
		else if (!strcmp(w, "rawdisk"))
			rawdisk = 1;         /* SYS_disk allowed (sysdisk.c) */
		else if (!strcmp(w, "noramdisk"))
			ramdisk_off = 1;     /* no disk: no file system (ramdisk.c) */
		else
			kprintf("anima: unknown command-line word '%s' ignored\n", w);
		w = end;
	}
}

void cmdline_start_programs(void)
{
	if (!nprogs) {
		kprintf("anima: nothing to run (no run= on the command line)\n");
		kernel_finish();
	}
	/* Count every program as live first, so an early exit cannot look
	   like the end of the run while others are still being started. */
	__atomic_fetch_add(&live_spaces, 1, __ATOMIC_ACQ_REL);
	for (int i = 0; i < nprogs; i++) {
		char *colon = strchr(progs[i].argv[0], ':');
		if (colon) {
			uint64_t n;
			*colon = 0;
			if (parse_uint(colon + 1, &n) < 0 || n < 1 || n > MAXVP)
				kprintf("anima: bad VP count '%s' for %s (want 1..%d); using 1\n",
					colon + 1, progs[i].argv[0], MAXVP);
			else
				progs[i].nvp = (int)n;
		}
		if (progs[i].toolong) {
			/* A program given part of its argv would run and
			   report figures of another experiment than asked. */
			kprintf("anima: cannot start '%s': more than %d words in its run=\n",
				progs[i].argv[0], RUN_WORDS);
			boot_record_exit(i, EXIT_KILLED);
			continue;
		}
		char *v[RUN_WORDS + BOOT_ENV_MAX + 3];
		boot_vector(&progs[i], v);
		int r = space_spawn(v[0], progs[i].argc, v, 0, i, progs[i].nvp, 0, 0);
		if (r < 0) {
			kprintf("anima: cannot start '%s': %s\n", progs[i].argv[0],
				r == -ENOENT ? "no such program" : r == -ENOMEM ? "out of memory" : "bad program");
			boot_record_exit(i, EXIT_KILLED);
		}
	}
	if (__atomic_sub_fetch(&live_spaces, 1, __ATOMIC_ACQ_REL) == 0)
		kernel_finish();
}

void boot_record_exit(int slot, int status)
{
	progs[slot].status = status;
	progs[slot].done = 1;
}

/* 0 if every boot program exited 0, else the first failure's status. */
int boot_status(void)
{
	for (int i = 0; i < nprogs; i++) {
		int s = progs[i].status;
		if (s)
			return s > 0 && s < EXIT_STATUS_MAX ? s : EXIT_STATUS_MAX;
	}
	return 0;
}

void kernel_finish(void)
{
	int s = boot_status();
	trace_dump();
	if (disk_blocks)
		orphan_halt();           /* no orphan left behind (orphan.c) */
	bcache_halt_flush();         /* no dirty block left behind (bcache.c) */
	lockcheck_report();
	kprintf("@halt {\"status\": %d, \"timer_late\": %lu}\n", s, timer_late_count());
	qemu_exit(DEBUG_EXIT_DONE | s);
}
