/*
 * enable: an event that reached the ring while the VP was disabled is
 * taken when it enables (<anima/vp.h>; docs/abi.md, rule 3: vp_enable
 * stores disabled = 0, loads pending, and if set makes a syscall so the
 * upcall comes). Run as run=enable:2.
 *
 *  1. VP 0 registers a handler that counts the events it takes, enables,
 *     then disables (vp_disable).
 *  2. VP 1 (classic) sends VP 0 one signal. VP 0, still disabled, yields
 *     until the kernel has put the signal in its ring and set `pending`.
 *  3. VP 0 calls vp_enable. The handler must have run by the time
 *     vp_enable returns ("at_enable"); the program also waits 50 ms
 *     (enabled, spinning, and making syscalls) and counts again
 *     ("after_wait").
 *  4. VP 1 sends a second signal; both must have been taken ("at_end").
 * Exit status 0 iff the handler took the first signal inside vp_enable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include <animart/upcall.h>

#define STACK 65536

static volatile int handled, go2, sent;
static volatile uint64_t payloads;

static void handler(struct vp_page *vpp, struct pseudo_page *pp)
{
	(void)pp;
	for (;;) {
		for (struct event *e; (e = vp_next_event(vpp)); vpp->ring_head++)
			if (e->type == EV_SIGNAL) {
				handled++;
				payloads += e->arg;
			}
		if (!vpp->pending)
			break;
		vpp->pending = 0;
		syscall0(SYS_vp_poll);
	}
	vp_resume(vpp);
}

static void sender(void)
{
	syscall2(SYS_vp_signal, 0, 1);
	sent = 1;
	while (!go2)
		sys_yield();
	syscall2(SYS_vp_signal, 0, 2);
	sent = 2;
	for (;;)
		syscall0(SYS_vp_idle);
}

int main(void)
{
	struct pseudo_page *pp = vp_pseudo();
	if (pp->nvp < 2) {
		printf("enable: run as enable:2\n");
		return 2;
	}
	struct vp_page *vpp = upcall_register(0, handler, STACK);
	if (!vpp)
		return 2;
	vp_enable(vpp);
	vp_disable(vpp);
	char *stack = malloc(STACK);
	long s = syscall6(SYS_vp_start, 1, (long)sender, (long)(stack + STACK - 8), 0, 0, 0);
	/* Disabled: the signal must end up in the ring, with pending set. */
	uint64_t t0 = sys_time();
	while (!(sent && vpp->pending) && sys_time() - t0 < 2000000000UL)
		sys_yield();
	int pending_before = vpp->pending;
	uint32_t ring_before = vpp->ring_tail - vpp->ring_head;
	int handled_before = handled;

	vp_enable(vpp);
	int at_enable = handled;

	t0 = sys_time();
	while (sys_time() - t0 < 50000000UL)
		;                            /* enabled; each sys_time enters the kernel */
	int after_wait = handled;

	go2 = 1;
	t0 = sys_time();
	while (handled < 2 && sys_time() - t0 < 2000000000UL)
		sys_yield();
	int at_end = handled;

	struct result r;
	result_begin(&r, "enable");
	result_int(&r, "start", s);
	result_int(&r, "pending_before", pending_before);
	result_uint(&r, "ring_before", ring_before);
	result_int(&r, "handled_before", handled_before);
	result_int(&r, "at_enable", at_enable);
	result_int(&r, "after_wait", after_wait);
	result_int(&r, "at_end", at_end);
	result_uint(&r, "payloads", payloads);
	result_uint(&r, "upcalls", pp->upcalls);
	result_end(&r);
	return !s && pending_before && handled_before == 0 && at_enable == 1 && at_end == 2 ? 0 : 1;
}
