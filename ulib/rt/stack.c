/*
 * Thread stacks, for the packages (rt_vp.c, kthread).
 *
 * A stack of at most STACK_SMALL bytes (a package's own 64 KiB default)
 * is a malloc block: one size class, recycled with no system call. A
 * larger one (a POSIX thread's default, 8 MiB as glibc's) is a
 * demand-zero mapping of its own (MAP_LAZY): only the pages the thread
 * touches take memory, so a thousand threads cost what they use, not 8
 * GiB. And the kernel leaves an unmapped guard page after every mapping
 * it places, so the page below such a stack is never mapped: a thread
 * that overflows it faults, and the space is killed naming the address,
 * instead of writing over the stack or heap block below. A small stack
 * whose size carries STACK_GUARD (a POSIX thread whose attributes ask for
 * a guard, as glibc always gives one) is mapped the same way. (Before, every
 * POSIX thread had a 64 KiB malloc block, and a thread with a 200 KB
 * local array was killed on every package.)
 */
#include <animart/thread.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animart/aspace.h>

uint64_t thread_stack_default;

void *stack_alloc(uint64_t size)
{
	if (size <= STACK_SMALL)
		return malloc(size);
	/* counted in RLIMIT_AS (<animart/aspace.h>), as Linux counts a
	   thread's stack: past it no thread (pthread_create's EAGAIN) */
	if (as_charge(STACK_BYTES(size)))
		return 0;
	void *p = sys_map(0, STACK_BYTES(size), PROT_READ | PROT_WRITE | MAP_LAZY);
	if (sys_failed((long)p)) {
		as_uncharge(STACK_BYTES(size));
		return 0;
	}
	return p;
}

void stack_free(void *stack, uint64_t size)
{
	if (size <= STACK_SMALL)
		free(stack);
	else if (stack && !sys_unmap(stack, (STACK_BYTES(size) + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1)))
		as_uncharge(STACK_BYTES(size));
}
