/*
 * blockdiff PKG: what a blocking kernel call costs a VP's other threads.
 *
 * The package runs on ONE VP with two threads. A counter thread counts
 * in a loop (yielding at every step, so a package without preemption
 * still shares the VP); the main thread blocks in the kernel, ROUNDS
 * times each, in sys_sleep and in the simulated I/O device, and records
 * how far the counter got meanwhile.
 *
 *   fifo:  the kernel blocks only the thread (EV_BLOCKED), fifo runs the
 *          counter on the same VP during every block: progress > 0.
 *   naive: the VP is a classic one, the kernel blocks it whole, and the
 *          counter — on that VP, with no other — cannot run: progress 0.
 *   tutor: first-class like fifo (the tutorial's package).
 *
 * Prints
 *   @result {"name": "blockdiff", "package", "latency_ns",
 *            "sleep": {"progress": [...], "elapsed_ns": [...]},
 *            "io":    {"progress": [...], "elapsed_ns": [...], "ok": 0|1},
 *            "upcalls", "blocks", "unblocks", "interrupts", "vps"}
 * where upcalls/blocks/unblocks are the VP's kernel counters over the
 * blocking calls (upcalls counts a classic VP's interrupts too), and
 * interrupts the classic VP's interrupts the runtime took (naive: its
 * time slice's timer, which may end in a block and is taken at the
 * block's return, where it turns nobody out: ulib/rt/rt_due.c), and
 * exits 0 unless a call itself failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/clock.h>
#include <animalib/result.h>
#include <animart/upcall.h>
#include <animart/intr.h>
#include "apppkg.h"

#define MS      1000000UL
#define LATENCY (5 * MS)
#define ROUNDS  3

static const struct pkg *P;
static volatile uint64_t count;
static volatile int stop;

static void *counter(void *arg)
{
	while (!stop) {
		count++;
		thread_yield();
	}
	return arg;
}

/* ROUNDS blocking calls of one kind; the counter's progress during each. */
static int measure(struct result *r, const char *kind)
{
	uint64_t progress[ROUNDS], elapsed[ROUNDS];
	int ok = 1;
	for (int i = 0; i < ROUNDS; i++) {
		uint64_t c0 = count, t0 = now_ns();
		if (kind[0] == 's')
			ok &= sys_sleep(LATENCY) == 0;
		else
			ok &= syscall2(SYS_io, LATENCY, 1000 + i) == 1000 + i;
		elapsed[i] = now_ns() - t0;
		progress[i] = count - c0;
		thread_yield();          /* let the counter move between rounds */
	}
	result_object(r, kind);
	result_array(r, "progress");
	for (int i = 0; i < ROUNDS; i++)
		result_uint(r, 0, progress[i]);
	result_close(r);
	result_array(r, "elapsed_ns");
	for (int i = 0; i < ROUNDS; i++)
		result_uint(r, 0, elapsed[i]);
	result_close(r);
	result_bool(r, "ok", ok);
	result_close(r);
	return ok;
}

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread *c = app_create(P, counter, 0);
	while (count < 100)              /* the counter is up and running */
		thread_yield();
	struct pseudo_page *pp = vp_pseudo();
	uint64_t up = pp->upcalls, bl = pp->blocks, ub = pp->unblocks, in = intr_taken;
	struct result r;
	result_begin(&r, "blockdiff");
	result_str(&r, "package", P->name);
	result_uint(&r, "latency_ns", LATENCY);
	int ok = measure(&r, "sleep");
	ok &= measure(&r, "io");
	pp = vp_pseudo();                /* the same VP: the space has one */
	result_uint(&r, "upcalls", pp->upcalls - up);
	result_uint(&r, "blocks", pp->blocks - bl);
	result_uint(&r, "unblocks", pp->unblocks - ub);
	result_uint(&r, "interrupts", intr_taken - in);
	result_uint(&r, "vps", pp->nvp);
	result_end(&r);
	stop = 1;
	thread_join(c);
	return (void *)(intptr_t)(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		printf("usage: blockdiff PKG\n");
		return 2;
	}
	P = app_pkg(argv[1]);
	P->run(1, main_fn, 0);
}
