/*
 * Thread-local storage (<animart/tls.h>): the image, the blocks, and the choice
 * of the yield's switch routine.
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <animart/tls.h>
#include <animart/thread.h>

extern char __tdata_start[], __tdata_end[], __tbss_end[], __tls_align[];

int tls_on;
uint64_t tls_extra;
/* The switches to a thread: without its FS base until TLS is on. */
void (*lctx_swap_fn)(struct lctx *, const struct lctx *) = lctx_swap;
void (*lctx_swap_park_fn)(struct lctx *, const struct lctx *) = lctx_swap_park;
void (*lctx_jump_fn)(const struct lctx *) __attribute__((noreturn)) = lctx_jump;

static uint64_t align(void)
{
	uint64_t a = (uint64_t)__tls_align;
	return a < 16 ? 16 : a;
}

/* The block's size as the linker counted it for %fs offsets. */
static uint64_t image(void)
{
	uint64_t a = align();
	return ((uint64_t)(__tbss_end - __tdata_start) + a - 1) & ~(a - 1);
}

/* The TLS block's bytes below a TCB (a thread's stack ends there). */
uint64_t tls_below_tcb(void)
{
	return image();
}

uint64_t tls_area_on(void)
{
	return image() + sizeof(struct tcb) + tls_extra + align();
}

uint64_t tls_place_on(char *mem, uint64_t size, uint64_t *stack)
{
	uint64_t tp = ((uint64_t)mem + size - sizeof(struct tcb) - tls_extra) & ~(align() - 1);
	char *blk = (char *)tp - image();
	uint64_t init = __tdata_end - __tdata_start;
	memcpy(blk, __tdata_start, init);
	memset(blk + init, 0, image() - init);
	struct tcb *t = (struct tcb *)tp;
	memset(t, 0, sizeof *t + tls_extra);
	t->self = t;
	*stack = (uint64_t)(blk - mem);
	return tp;
}

static int have_fsgsbase(void)
{
	uint32_t a = 7, b, c = 0, d;
	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b & 1;
}

void tls_setup(int force)
{
	if (tls_on || (!force && (uint64_t)__tbss_end == (uint64_t)__tdata_start))
		return;
	if (!have_fsgsbase()) {
		printf("tls: this CPU has no FSGSBASE: no thread-local storage\n");
		exit(70);
	}
	tls_on = 1;
	/* The calling VP's own block, for main before (or without) a package:
	   never freed, as the VP's first thread never ends but with exit. */
	uint64_t n = tls_area(), left;
	char *mem = malloc(n);
	if (!mem) {
		printf("tls: out of memory\n");
		exit(70);
	}
	tls_set_fsbase(tls_place(mem, n, &left));
	lctx_swap_fn = lctx_swap_tls;
	lctx_swap_park_fn = lctx_swap_park_tls;
	lctx_jump_fn = lctx_jump_tls;
}
