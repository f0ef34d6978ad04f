/*
 * viewsys: the kernel reads and writes a VP's user memory through its
 * isolated view (kernel/view.c), as the VP's own loads and stores do,
 * and a VP slot reused after a VP ended in a view inherits nothing of
 * it. harness/tests/test_views.py::test_syscalls_see_the_callers_view.
 *
 * probe (run by VP 0, then by a VP made in the slot a VP left in its
 * view): in a view, a word the space holds as OLD and the view as NEW
 * (written, not committed): futex_wait(NEW) blocks (-ETIMEDOUT after
 * 1 ms), futex_wait(OLD) is -EAGAIN; a pipe write from a buffer written
 * only in the view sends the view's bytes; a pipe read into the view is
 * the view's (a discard drops it: the space's bytes are back); after a
 * discard the word is OLD again for futex_wait too. Then a waiter in a
 * view on its private value is woken by another VP's futex_wake on the
 * same address (one key: the space's frame).
 *
 * reuse: VP 1 enters a view, writes the word (STALE) and a page, and
 * ends in its view. A new VP (the same slot, index 1) sees the space's
 * word outside a view and in a fresh one: futex_wait(STALE) is -EAGAIN.
 * churn: 300 VPs in turn, each ending in its view at once, each seeing
 * the space's word; SYS_vp_create returns a slot's index for each.
 */
#include <stdint.h>
#include <string.h>
#include <animart/sys.h>
#include <animart/view.h>
#include <animart/upcall.h>
#include <anima/vp.h>
#include <anima/errno.h>
#include <animalib/result.h>

#define REGION ((uint8_t *)0x300000000000UL)   /* 2 MiB aligned */
#define WORD ((volatile uint32_t *)(REGION + 3 * 4096 + 8))
#define BUF ((volatile char *)(REGION + 7 * 4096))
#define RBUF ((volatile char *)(REGION + 9 * 4096))
#define OLD 0x01d
#define NEW 0x2e3
#define STALE 0x5a1e
#define MS 1000000L
#define CHURN 300

static volatile int step;             /* .bss: outside every view */
static volatile long res[2][12];      /* probe results: VP 0's, the reused VP's */
static volatile long reuse[6];
static char stack1[16384] __attribute__((aligned(16)));
static int fds[2];

static long fwait(volatile uint32_t *w, uint32_t v, long ns)
{
	return syscall3(SYS_futex_wait, (long)w, v, ns);
}

/* Everything a syscall should see of the caller's view, into out[]. */
static void probe(volatile long *out)
{
	char got[8] = { 0 };
	*WORD = OLD;                          /* the space's (no view yet) */
	memcpy((char *)BUF, "SPACE!!", 8);
	memcpy((char *)RBUF, "space..", 8);
	out[0] = view_enter(REGION, VIEW_ALIGN);
	*WORD = NEW;                          /* private, not committed */
	memcpy((char *)BUF, "VIEW!!!", 8);
	out[1] = fwait(WORD, NEW, MS);        /* the view's value: blocks */
	out[2] = fwait(WORD, OLD, MS);        /* the space's: -EAGAIN */
	out[3] = syscall3(SYS_file_write, fds[1], (long)BUF, 8);
	out[4] = syscall3(SYS_file_read, fds[0], (long)got, 8);
	out[5] = !memcmp(got, "VIEW!!!", 8);  /* the view's bytes were sent */
	syscall3(SYS_file_write, fds[1], (long)"PIPED..", 8);
	out[6] = syscall3(SYS_file_read, fds[0], (long)RBUF, 8);
	out[7] = !memcmp((char *)RBUF, "PIPED..", 8);   /* read into the view */
	out[8] = view_discard();
	out[9] = !memcmp((char *)RBUF, "space..", 8) && !memcmp((char *)BUF, "SPACE!!", 8);
	out[10] = fwait(WORD, NEW, MS);       /* dropped: -EAGAIN now */
	out[11] = fwait(WORD, OLD, MS);       /* and the space's blocks */
}

/* A waiter in a view on its private value; VP 0 wakes it. */
static void wake_probe(volatile long *out)
{
	*WORD = NEW;
	step = 10;
	out[0] = fwait(WORD, NEW, 10000 * MS);   /* 0: woken (10 s: a lost wake) */
}

static __attribute__((noreturn)) void first_vp1(long arg)
{
	(void)arg;
	reuse[0] = vp_index();
	view_enter(REGION, VIEW_ALIGN);
	*WORD = STALE;                        /* private, never committed */
	BUF[0] = 'Z';
	step = 1;
	syscall0(SYS_vp_exit);                /* ends in its view */
	for (;;)
		;
}

static __attribute__((noreturn)) void second_vp1(long arg)
{
	(void)arg;
	reuse[1] = vp_index();
	reuse[2] = *WORD;                     /* the space's, not VP 1's old view */
	reuse[3] = fwait(WORD, STALE, MS);    /* -EAGAIN */
	probe(res[1]);
	reuse[4] = *WORD;                     /* (in its view, after the discard) */
	wake_probe(&reuse[5]);
	step = 20;
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* One of many short VPs in slots others just left in their views. */
static volatile int churned, churn_bad;
static char cstack[2][16384] __attribute__((aligned(16)));

static __attribute__((noreturn)) void churn_vp(long i)
{
	int bad = *WORD != OLD;               /* outside a view: the space's */
	bad += view_enter(REGION, VIEW_ALIGN) != 0;
	bad += *WORD != OLD;                  /* a fresh view: the space's too */
	*WORD = STALE + (uint32_t)i;          /* left private when it ends */
	bad += fwait(WORD, OLD, 0) != -EAGAIN;
	__atomic_fetch_add(&churn_bad, bad, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&churned, 1, __ATOMIC_SEQ_CST);
	syscall0(SYS_vp_exit);
	for (;;)
		;
}

/* SYS_vp_create of a VP that ends at once: the index it returns is a
   slot's (it was read from the VP after the VP could run and be freed). */
static long churn(int n)
{
	long bad_index = 0;
	for (int i = 0; i < n; i++) {
		char *st = cstack[i % 2] + sizeof cstack[0];
		long c = syscall3(SYS_vp_create, (long)churn_vp, (long)st, i);
		bad_index += c < 1 || c >= MAXVP;
		while (churned < i + 1)
			sys_yield();
	}
	return bad_index;
}

int main(void)
{
	if (sys_map(REGION, VIEW_ALIGN, PROT_READ | PROT_WRITE) != REGION)
		return 10;
	if (syscall1(SYS_pipe, (long)fds) < 0)
		return 11;
	probe(res[0]);
	view_leave();
	*WORD = OLD;
	long c1 = syscall3(SYS_vp_create, (long)first_vp1, (long)(stack1 + sizeof stack1), 0);
	while (step < 1)
		sys_yield();
	for (int i = 0; i < 5000 && view_pages(); i++)   /* VP 1 freed, its view with it */
		sys_sleep(MS);
	long pages_after_exit = view_pages();
	long c2 = syscall3(SYS_vp_create, (long)second_vp1, (long)(stack1 + sizeof stack1), 0);
	while (step < 10)
		sys_yield();
	long woken = 0;
	while (step < 20 && !(woken = syscall2(SYS_futex_wake, (long)WORD, 1)))
		sys_yield();                  /* until the waiter is queued and woken */
	while (step < 20)
		sys_yield();
	long bad_index = churn(CHURN);
	for (int i = 0; i < 5000 && view_pages(); i++)
		sys_sleep(MS);
	struct result r;
	result_begin(&r, "viewsys");
	for (int v = 0; v < 2; v++) {
		result_array(&r, v ? "reused" : "vp0");
		for (int i = 0; i < 12; i++)
			result_int(&r, 0, res[v][i]);
		result_close(&r);
	}
	result_int(&r, "create1", c1);
	result_int(&r, "create2", c2);
	result_int(&r, "index1", reuse[0]);
	result_int(&r, "index2", reuse[1]);
	result_int(&r, "pages_after_exit", pages_after_exit);
	result_int(&r, "reused_word", reuse[2]);
	result_int(&r, "reused_stale_wait", reuse[3]);
	result_int(&r, "reused_after", reuse[4]);
	result_int(&r, "woken", woken);
	result_int(&r, "waiter", reuse[5]);
	result_int(&r, "space_word", *WORD);
	result_int(&r, "churned", churned);
	result_int(&r, "churn_bad", churn_bad);
	result_int(&r, "churn_bad_index", bad_index);
	result_int(&r, "viewpages_end", view_pages());
	result_end(&r);
	return 0;
}
