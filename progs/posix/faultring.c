/*
 * faultring: a program that corrupts its own VP page's event ring while
 * the kernel posts EV_FAULT there (kernel/upcall.c's event_post_fault,
 * kernel/fault.c). The ring's indexes are the program's to write at any
 * time: the kernel keeps its own tail, reads the head once, and posts
 * only if the ring has room by those; otherwise the fault kills its
 * space as an uncaught one does. Each case runs in a forked child with
 * a SIGSEGV handler that would make the page writable, then stores into
 * a read-only page right after the corruption:
 *   full     head = tail - RING_SIZE (the ring full of unread events):
 *            nothing is posted, the child dies by SIGSEGV with the
 *            page-fault line. (Posting anyway overwrote the oldest
 *            unread event, and the return to user mode then found more
 *            than RING_SIZE events unread: "bad VP page", SIGKILL; a
 *            classic VP ran the handler on the overwritten slot.)
 *   ahead    head = tail + 5 (a head past the tail): likewise;
 *   tail     the page's tail = garbage: the kernel writes its own, the
 *            handler runs, the child goes on (exit 0);
 *   race     another thread stores random words into the head and tail
 *            of the VP page the faulting thread ran on last, while that
 *            thread faults and is handled 300 times: the child ends
 *            by SIGSEGV (a refused post), SIGKILL ("bad VP page") or
 *            exit 0 (the garbage never met a post), nothing else, and
 *            the kernel stays up (the parent goes on, and the test runs
 *            a second program beside it).
 * @result {"name": "faultring", "checks": N, "failures": F}.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK_NAME "faultring"
#include <check.h>
#include <animart/upcall.h>

#define PAGE 4096

static volatile char *page;
static volatile int calls;

static void make_writable(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	calls++;
	mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE);
}

static void catch_segv(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = make_writable;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, 0);
	page = mmap(0, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

/* In one run of instructions (no call, so no switch of VP between):
   this VP's page's head (or tail) = its tail + delta, then the store
   that faults. */
static void corrupt_then_fault(int field, int32_t delta)
{
	__asm__ volatile("mov %%gs:%c[pp], %%rdx\n\t"
			 "mov %c[tail](%%rdx), %%eax\n\t"
			 "add %[delta], %%eax\n\t"
			 "mov %%eax, (%%rdx,%q[field])\n\t"
			 "movb $1, (%[at])"
			 : : [pp] "i"(PP_VPPAGE), [tail] "i"(VPP_RING_TAIL), [delta] "r"(delta),
			     [field] "r"((long)field), [at] "r"(page)
			 : "rax", "rdx", "memory");
}

static int full(void)
{
	catch_segv();
	corrupt_then_fault(VPP_RING_HEAD, -RING_SIZE);
	return 1;                            /* (not reached: killed) */
}

static int ahead(void)
{
	catch_segv();
	corrupt_then_fault(VPP_RING_HEAD, 5);
	return 1;
}

static int tail(void)
{
	catch_segv();
	corrupt_then_fault(VPP_RING_TAIL, 0x5a5a5a5);
	return calls == 1 && page[0] == 1 ? 0 : 1;
}

static struct vp_page *volatile victim;
static volatile int stop;

static void *corrupter(void *a)
{
	uint64_t x = (uint64_t)(uintptr_t)a | 1;
	while (!stop) {
		struct vp_page *p = victim;
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		if (p && (x & 1))
			p->ring_head = (uint32_t)(x >> 8);
		else if (p)
			p->ring_tail = (uint32_t)(x >> 16);
		if (!(x & 0xff))
			sched_yield();           /* (det: give the token back) */
	}
	return 0;
}

static int race(void)
{
	catch_segv();
	pthread_t t;
	pthread_create(&t, 0, corrupter, (void *)0x9e3779b97f4a7c15UL);
	for (int i = 0; i < 300; i++) {
		mprotect((void *)page, PAGE, PROT_READ);
		victim = vp_self();
		page[i % PAGE] = 1;
	}
	stop = 1;
	pthread_join(t, 0);
	return calls == 300 ? 0 : 1;
}

static const struct { const char *name; int (*fn)(void); } cases[] = {
	{ "full", full }, { "ahead", ahead }, { "tail", tail }, { "race", race },
};

int main(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			_exit(cases[i].fn());
		/* A child whose own runtime the garbage wedged (race: stale
		   events taken again) is its own business: ended like one the
		   kernel killed. */
		int st = 0, n = 0;
		while (pid > 0 && waitpid(pid, &st, WNOHANG) == 0 && n++ < 5000)
			usleep(1000);
		if (n > 5000) {
			kill(pid, SIGKILL);
			CHECK(waitpid(pid, &st, 0) == pid);
		}
		CHECK(pid > 0);
		int segv = WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV;
		int ok = i < 2 ? segv : i == 2 ? WIFEXITED(st) && WEXITSTATUS(st) == 0 :
			 segv || (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) ||
			 (WIFEXITED(st) && WEXITSTATUS(st) == 0);
		CHECK(ok);
		printf("faultring: %s: status %#x %s\n", cases[i].name, st, ok ? "ok" : "WRONG");
	}
	printf("@result {\"name\": \"faultring\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
