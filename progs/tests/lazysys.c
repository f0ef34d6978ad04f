/*
 * lazysys: syscalls whose user memory is an untouched demand-zero page
 * (SYS_map with MAP_LAZY). That memory is the caller's: the kernel must
 * fill the page in and go on, not answer -EFAULT (issue 13, class 5). A
 * region without write permission stays unwritable by the kernel too.
 *
 * Each check gets a fresh page nobody has touched, and reports what the
 * call returned:
 *   wait      SYS_wait's status pointer in a lazy page (latency 0)
 *   wait_slow the same in a region with a 1 ms latency
 *   futex     futex_wait on a lazy word: 0 == 0, so it waits and times out
 *   wake      futex_wake on a lazy word: nobody to wake
 *   spawn     SYS_spawn's program name in a lazy page: "" is no program
 *   ro_wait   the status pointer in a read-only lazy region: -EFAULT
 * and whether the status written through the lazy page reads back 7.
 * Exits 0 when all are as expected.
 */
#include <stdio.h>
#include <animart/sys.h>
#include <animalib/result.h>

static char *region(uint64_t latency, int prot)
{
	return (char *)syscall6(SYS_map, 0, 16 * PAGE_SIZE, prot | MAP_LAZY, latency, 0, 0);
}

static long wait_into(int *status)
{
	const char *argv[] = { "hello", "7" };
	long id = sys_spawn("hello", 2, argv);
	return id < 0 ? id : sys_wait((int)id, status);
}

int main(void)
{
	char *rw = region(0, PROT_READ | PROT_WRITE);
	char *slow = region(1000000, PROT_READ | PROT_WRITE);
	char *ro = region(0, PROT_READ);
	if (sys_failed((long)rw) || sys_failed((long)slow) || sys_failed((long)ro)) {
		printf("lazysys: map failed\n");
		return 1;
	}
	int *st = (int *)(rw + 0 * PAGE_SIZE);
	long wait = wait_into(st);
	int st_ok = *st == 7;
	int *st2 = (int *)(slow + 3 * PAGE_SIZE + 12);
	long wait_slow = wait_into(st2);
	st_ok &= *st2 == 7;
	long futex = syscall3(SYS_futex_wait, rw + 1 * PAGE_SIZE, 0, 1000000);
	long wake = syscall2(SYS_futex_wake, rw + 2 * PAGE_SIZE + 64, 1);
	long spawn = sys_spawn(rw + 3 * PAGE_SIZE, 0, 0);
	int *ro_st = (int *)(ro + 5 * PAGE_SIZE);
	long ro_wait = wait_into(ro_st);
	int ro_zero = *ro_st == 0;          /* the read maps a zero page */

	struct result r;
	result_begin(&r, "lazysys");
	result_int(&r, "wait", wait > 0 ? 1 : wait);
	result_int(&r, "wait_slow", wait_slow > 0 ? 1 : wait_slow);
	result_int(&r, "futex", futex);
	result_int(&r, "wake", wake);
	result_int(&r, "spawn", spawn);
	result_int(&r, "ro_wait", ro_wait);
	result_bool(&r, "status_ok", st_ok);
	result_bool(&r, "ro_zero", ro_zero);
	result_end(&r);
	return !(wait > 0 && wait_slow > 0 && st_ok && futex == -ETIMEDOUT && wake == 0 &&
		 spawn == -ENOENT && ro_wait == -EFAULT && ro_zero);
}
