/*
 * wakeflood PKG K: cross-space wake-ups at a space whose only upcall VP
 * keeps blocking whole (kernel/segwake.c, wake_post).
 *
 * The target (this space, one VP of package PKG, which must take
 * upcalls) shares a page with a waker child and loops: disable upcalls,
 * a 20 us classic sleep (the VP blocks whole), enable (the EV_WAKEs
 * queued meanwhile arrive: ulib's xw_event counts them), publish the
 * count. The waker, raw system calls, sends K SYS_seg_wake with tokens
 * it never reuses, at most 64 ahead of the count (so no queue fills and
 * nothing is coalesced): each must be delivered, or answered -EAGAIN
 * (retry: the waker sends it again). -ESRCH is for a space that is gone,
 * never for this live one. Before, wake_post read the racy ready() of
 * the VP twice: found ready, then blocked a moment later, with no other
 * candidate, it answered -ESRCH and the wake-up was lost.
 * @result {"name": "wakeflood", "sent", "esrch", "eagain", "other",
 * "received", "coalesced", "lost"}.
 *
 * wakeflood probe: a space with no upcalls is woken: -EAGAIN (before,
 * -ESRCH, which told the waker the space was gone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <animart/sys.h>
#include <animart/seg.h>
#include <animart/upcall.h>
#include <animart/xwait.h>
#include <animalib/result.h>
#include "apppkg.h"

struct flood {
	volatile uint64_t received;      /* the target's EV_WAKE count */
	volatile uint64_t sent, esrch, eagain, other;
	volatile uint32_t done;
};
static struct flood *F;
static long K;

static int waker(long sid, long k)
{
	F = (struct flood *)seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
	if (sys_failed((long)F))
		return 2;
	uint64_t sent = 0;
	for (long tok = 1; tok <= k;) {
		while (sent - __atomic_load_n(&F->received, __ATOMIC_ACQUIRE) >= 64)
			sys_yield();
		long r = syscall4(SYS_seg_wake, (long)&F->done, sid, 0, tok);
		if (r == -EAGAIN) {
			F->eagain++;     /* the kernel says: send it again */
			sys_yield();
			continue;
		}
		if (r == 0)
			sent++;
		else if (r == -ESRCH)
			F->esrch++;
		else
			F->other++;
		tok++;
	}
	F->sent = sent;
	__atomic_store_n(&F->done, 1, __ATOMIC_RELEASE);
	return 0;
}

static void *target(void *arg)
{
	long h = (long)arg, id;
	char sid[16], k[16];
	snprintf(sid, sizeof sid, "%ld", sys_getinfo(INFO_SPACE));
	snprintf(k, sizeof k, "%ld", K);
	const char *av[] = { "wakeflood", "waker", sid, k };
	id = sys_spawn_caps("wakeflood", 4, av, &h, 1);
	if (id < 0)
		exit(3);
	while (!__atomic_load_n(&F->done, __ATOMIC_ACQUIRE)) {
		vp_disable_self();
		sys_sleep(20000);        /* whole: upcalls are off */
		vp_enable_self();        /* the queued EV_WAKEs arrive here */
		__atomic_store_n(&F->received, xw_stats.remote, __ATOMIC_RELEASE);
	}
	/* Let the last ones in (each is in our queue or ring by now). */
	for (int i = 0; i < 2000 && xw_stats.remote < F->sent; i++) {
		sys_sleep(1000000);
		syscall0(SYS_vp_poll);
	}
	int st = -1;
	sys_wait((int)id, &st);
	struct result r;
	result_begin(&r, "wakeflood");
	result_int(&r, "waker_status", st);
	result_int(&r, "sent", (long)F->sent);
	result_int(&r, "esrch", (long)F->esrch);
	result_int(&r, "eagain", (long)F->eagain);
	result_int(&r, "other", (long)F->other);
	result_int(&r, "received", (long)xw_stats.remote);
	result_int(&r, "coalesced", (long)xw_stats.all);
	result_int(&r, "lost", (long)(K - (long)xw_stats.remote));
	result_end(&r);
	return 0;
}

/* wakeflood probe: this space takes no upcalls at all; a child's wake
   at it must be -EAGAIN (alive, send again), not -ESRCH (gone). */
static int probe(void)
{
	long h = seg_create(4096);
	if (h < 0 || sys_failed(seg_map(h, PROT_READ | PROT_WRITE)))
		return 2;
	char sid[16];
	snprintf(sid, sizeof sid, "%ld", sys_getinfo(INFO_SPACE));
	const char *av[] = { "wakeflood", "probechild", sid };
	long id = sys_spawn_caps("wakeflood", 3, av, &h, 1);
	int st = 1;
	if (id < 0 || sys_wait((int)id, &st) != id)
		return 3;
	struct result r;
	result_begin(&r, "wakeflood_probe");
	result_int(&r, "answer", -st);
	result_end(&r);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 3 && !strcmp(argv[1], "waker"))
		return waker(atol(argv[2]), atol(argv[3]));
	if (argc > 1 && !strcmp(argv[1], "probe"))
		return probe();
	if (argc > 2 && !strcmp(argv[1], "probechild")) {
		long a = seg_map(CAP_BASE, PROT_READ | PROT_WRITE);
		return sys_failed(a) ? 99 : (int)-syscall4(SYS_seg_wake, a, atol(argv[2]), 0, 1);
	}
	const struct pkg *p = app_args(argc, argv, 2, "wakeflood PKG [K]");
	K = argc > 2 ? atol(argv[2]) : 20000;
	long h = seg_create(4096);
	F = (struct flood *)seg_map(h, PROT_READ | PROT_WRITE);
	if (h < 0 || sys_failed((long)F))
		return 2;
	p->run(1, target, (void *)h);
}
