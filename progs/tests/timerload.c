/*
 * timerload K: does arming a timer cost more when other spaces have many
 * timeouts pending? (kernel/timerq.c; harness/tests/test_security_mem.py::
 * test_other_spaces_timeouts_cost_nothing). Run at -smp 1 under -icount,
 * where rdtsc counts guest instructions.
 *
 * The root times ROUNDS rounds of arming its user timer far in the future
 * and cancelling it (SYS_timer: an insert into this CPU's timer heap and a
 * removal), alone. Then it spawns K loaders: each makes 16 VPs whose
 * upcall handlers pile up 63 thread-mode futex waits each with a 100 s
 * timeout (a kop on the timer heap per wait: 1,008 a space), and
 * counts them in a segment the root shares. When the count stops
 * growing the root times the same rounds again, sets `stop`, and waits
 * for the loaders (their waits go with their spaces). It prints
 * @result {"name": "timerload", "alone": A, "loaded": L, "waits": W}:
 * instructions per round alone and with W timeouts pending. With the old
 * sorted list each round walked past all of them, twice.
 * The same for SYS_seg_revoke (a round: create a one-page segment, map
 * it, revoke it, drop the handle): "revoke_alone", "revoke_loaded". A
 * revoke used to walk every futex waiter of every space under kop_lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/clock.h>
#include <animart/upcall.h>
#include "child.h"

#define ROUNDS 200
#define LOADER_VPS 16
#define WSTACK 1024
#define S 1000000000UL

struct shared {
	volatile long waits, refused, last_err;
	volatile int stop;
};
static struct shared *sh;
static char wstack[LOADER_VPS][WSTACK] __attribute__((aligned(16)));
static char ustack[LOADER_VPS][WSTACK] __attribute__((aligned(16)));
static uint32_t words[LOADER_VPS];      /* always 0: the waits only time out */

/* Sleep the VP whole, for good (a classic block: no upcalls by then;
   SYS_vp_idle would return at once with the ring unread). */
static __attribute__((noreturn)) void park(void)
{
	for (;;)
		sys_sleep(1000 * S);
}

/* Every thread-mode wait comes back here (EV_BLOCKED) and issues the
   next; the ring is never drained. PER_VP waits, and the first, fit a
   VP's event queue (each holds room for its EV_UNBLOCKED); 16 VPs' make
   1,008 of the space's MAXKOP_SPACE (1,024), leaving each its park's
   sleep. Then the VP parks with its upcalls off (with
   events pending and upcalls on, every return to user mode would enter
   here again). */
#define PER_VP 62
static int issued[LOADER_VPS];

static __attribute__((noreturn)) void again(struct vp_page *p, struct pseudo_page *pp)
{
	unsigned i = pp->vp_index;
	if (issued[i]++ == PER_VP) {
		p->upcall_entry = 0;
		park();
	}
	__atomic_fetch_add(&sh->waits, 1, __ATOMIC_RELAXED);
	p->disabled = 0;
	long r = syscall3(SYS_futex_wait, &words[i], 0, 100 * S);
	__atomic_fetch_add(&sh->refused, 1, __ATOMIC_RELAXED);   /* returned: refused */
	sh->last_err = r;
	p->upcall_entry = 0;
	park();
}

static __attribute__((noreturn)) void worker(long i)
{
	struct vp_page *p = vp_self();
	p->upcall_stack = (uint64_t)(ustack[i] + WSTACK);
	p->disabled = 1;
	p->upcall_entry = (uint64_t)again;
	p->disabled = 0;
	syscall3(SYS_futex_wait, &words[i], 0, 100 * S);   /* the first EV_BLOCKED starts it */
	park();
}

static int loader(void)
{
	sh = (struct shared *)seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
	if (sys_failed((long)sh))
		return 3;
	for (long i = 0; i < LOADER_VPS; i++)
		if (sys_failed(syscall3(SYS_vp_create, (long)worker, (long)(wstack[i] + WSTACK), i)))
			break;
	while (!sh->stop)
		sys_sleep(10000000);
	return 0;
}

/* Instructions per round of arming the timer 1000 s ahead and cancelling. */
static uint64_t rounds(void)
{
	uint64_t t0 = rdtsc();
	for (int i = 0; i < ROUNDS; i++) {
		syscall2(SYS_timer, sys_time() + 1000 * S, 1);
		syscall2(SYS_timer, 0, 0);
	}
	return (rdtsc() - t0) / ROUNDS;
}

/* Instructions per round of creating, mapping and revoking a segment. */
static uint64_t revokes(void)
{
	uint64_t t0 = rdtsc();
	for (int i = 0; i < ROUNDS; i++) {
		long h = seg_create(4096);
		seg_map(h, PROT_READ | PROT_WRITE);
		seg_revoke(h);
		syscall1(SYS_cap_drop, h);
	}
	return (rdtsc() - t0) / ROUNDS;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "loader"))
		return loader();
	int k = argc > 1 ? atoi(argv[1]) : 4;
	long h = seg_create(4096);
	sh = (struct shared *)seg_map(h, PROT_READ | PROT_WRITE);
	if (h < 0 || sys_failed((long)sh))
		return 2;
	uint64_t alone = rounds(), ralone = revokes();
	long kids[16];
	int nk = 0;
	const char *av[] = { "timerload", "loader" };
	for (int i = 0; i < k && i < 16; i++)
		if ((kids[nk] = sys_spawn_caps("timerload", 2, av, &h, 1)) > 0)
			nk++;
	long last = -1;
	while (sh->waits != last) {        /* until the piles stop growing */
		last = sh->waits;
		sys_sleep(50000000);
	}
	uint64_t loaded = rounds(), rloaded = revokes();
	long waits = sh->waits, refused = sh->refused;
	sh->stop = 1;
	int bad = 0;
	for (int i = 0; i < nk; i++)
		bad += child_status(kids[i]) != 0;
	printf("@result {\"name\": \"timerload\", \"alone\": %lu, \"loaded\": %lu, \"waits\": %ld, "
	       "\"refused\": %ld, \"loaders\": %d, \"loaders_bad\": %d, "
	       "\"revoke_alone\": %lu, \"revoke_loaded\": %lu}\n",
	       alone, loaded, waits, refused, nk, bad, ralone, rloaded);
	return 0;
}
