/*
 * lazyflight: demand-zero pages on their way count in the quota.
 *
 * A MAP_LAZY region with a latency gives a page only when the latency
 * is over, but the page is taken at the fault. The attack keeps many
 * such faults in flight at once: NWORK VPs whose upcall handlers touch
 * page after page of the region (each touch blocks only the thread, so
 * the handler is entered again at once and touches the next one), after
 * the space has filled its quota with SYS_map and given back ROOM pages.
 * If the pages in flight are not charged until they arrive, every fault
 * passes the quota check and the space ends up holding about NTOUCH -
 * ROOM pages more than its quota. Charged at the fault, the touch past
 * the quota is an "out of memory" kill, which is what the test expects
 * (harness/tests/test_security_mem.py). If the space survives, main
 * prints @result {"name": "lazyflight", ...} with what it got.
 *
 * lazyflight unmap: the same, with NUNMAP touches in flight (within the
 * room), and the region unmapped before they arrive: the pages never
 * arrive, and their charge must come back with them, so a map after the
 * latency gets the whole room again ("refill" pages; "room" were given
 * back before the touches, "in_flight" of them taken by touches).
 *
 * lazyflight audit: runs both as children, then checks INFO_MEM_AVAIL
 * is back exactly ("avail_lost", 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <errno.h>
#include <animalib/result.h>
#include <animart/upcall.h>
#include <string.h>
#include "avail.h"
#include "child.h"

#define MS 1000000UL
#define PROT_RW (PROT_READ | PROT_WRITE)
#define NWORK 8
#define NTOUCH 1000                 /* under NWORK x 126 thread-mode waits */
#define ROOM 128                    /* pages left free under the quota */
#define LATENCY (2000 * MS)
#define CHUNK (64 << 10)

static char *region;
static volatile long next_page, entries, go;
static long ntouch = NTOUCH;

#define WSTACK 4096
static char wstack[NWORK + 1][WSTACK] __attribute__((aligned(16)));
static char ustack[NWORK + 1][WSTACK] __attribute__((aligned(16)));

static __attribute__((noreturn)) void idle_forever(struct vp_page *p)
{
	p->disabled = 1;
	for (;;) {
		p->ring_head = p->ring_tail;
		syscall0(SYS_vp_idle);
	}
}

/* Touch pages until NTOUCH have been touched. A touch blocks its
   thread (EV_BLOCKED): the upcall comes back to entry() on a fresh stack. */
static __attribute__((noreturn)) void touch(struct vp_page *p)
{
	for (;;) {
		long i = __atomic_fetch_add(&next_page, 1, __ATOMIC_RELAXED);
		if (i >= ntouch)
			idle_forever(p);
		region[i * 4096] = 1;
	}
}

static __attribute__((noreturn)) void entry(struct vp_page *p, struct pseudo_page *pp)
{
	(void)pp;
	__atomic_fetch_add(&entries, 1, __ATOMIC_RELAXED);
	p->ring_head = p->ring_tail;     /* drain: only reservations fill the queue */
	p->disabled = 0;
	touch(p);
}

static __attribute__((noreturn)) void worker(long i)
{
	struct vp_page *p = vp_self();
	while (!go)
		sys_yield();
	p->upcall_stack = (uint64_t)(ustack[i] + WSTACK);
	p->disabled = 1;
	p->upcall_entry = (uint64_t)entry;
	p->disabled = 0;
	touch(p);
}

/* Map pages until the quota says no, largest chunks first; the first
   nfirst chunks of CHUNK bytes go in first[]. Returns the pages mapped. */
static long fill(char **first, int nfirst)
{
	long filled = 0;
	int n = 0;
	for (long len = CHUNK; len >= 4096; len /= 16) {
		char *m;
		while (!sys_failed((long)(m = sys_map(0, len, PROT_RW)))) {
			filled += len / 4096;
			if (len == CHUNK && n < nfirst)
				first[n++] = m;
		}
	}
	return filled;
}

static int audit(void)
{
	const char *attack[] = { "lazyflight" }, *unmap[] = { "lazyflight", "unmap" };
	long m0 = avail();
	int s1 = child_run(1, attack), s2 = child_run(2, unmap);
	long m1 = avail_wait(m0, 10);
	struct result res;
	result_begin(&res, "lazyflight");
	result_str(&res, "case", "audit");
	result_int(&res, "attack_status", s1);
	result_int(&res, "unmap_status", s2);
	result_int(&res, "avail_lost", m0 - m1);
	result_end(&res);
	return 0;
}

#define NUNMAP 64

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "audit"))
		return audit();
	int unmap = argc > 1 && !strcmp(argv[1], "unmap");
	if (unmap)
		ntouch = NUNMAP;
	long r = syscall4(SYS_map, 0, 64UL << 20, PROT_RW | MAP_LAZY, LATENCY);
	if (sys_failed(r)) {
		printf("lazyflight: map %ld\n", r);
		return 2;
	}
	region = (char *)r;
	for (long i = 1; i <= NWORK; i++)
		if (sys_failed(syscall3(SYS_vp_create, (long)worker, (long)(wstack[i] + WSTACK), i))) {
			printf("lazyflight: vp_create failed\n");
			return 2;
		}
	/* Fill the quota, then give ROOM pages back. */
	long free0 = sys_getinfo(INFO_MEM_FREE);
	char *first[ROOM * 4096 / CHUNK];
	int nfirst = (int)(sizeof first / sizeof first[0]);
	long filled = fill(first, nfirst);
	for (int i = 0; i < nfirst; i++)
		sys_unmap(first[i], CHUNK);
	long room = nfirst * (CHUNK / 4096);
	go = 1;
	long unmapped = 0, refill = 0, in_flight = 0;
	if (unmap) {
		/* all NUNMAP in flight (thread mode: at once), then gone */
		for (int i = 0; i < 1000 && entries < NUNMAP; i++)
			sys_sleep(MS);
		in_flight = entries;
		unmapped = sys_unmap(region, 64UL << 20);
	}
	sys_sleep(LATENCY + 1500 * MS);
	if (unmap)
		refill = fill(first, 0);
	long held = (free0 - sys_getinfo(INFO_MEM_FREE)) / 4096;
	struct result res;
	result_begin(&res, "lazyflight");
	result_str(&res, "case", unmap ? "unmap" : "attack");
	result_int(&res, "unmapped", unmapped);
	result_int(&res, "in_flight", in_flight);
	result_int(&res, "refill", refill);
	result_int(&res, "filled", filled);
	result_int(&res, "room", room);
	result_int(&res, "touched", next_page > NTOUCH ? NTOUCH : next_page);
	result_int(&res, "entries", entries);
	result_int(&res, "held", held);
	result_int(&res, "over", held - filled);
	result_end(&res);
	return 0;
}
