/* Raw syscall wrappers. Numbers and conventions: <anima/syscall.h>. */
#ifndef ULIB_SYS_H
#define ULIB_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <anima/syscall.h>
#include <anima/errno.h>
#include <anima/layout.h>

static inline long syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#define syscall0(n)             syscall6((n), 0, 0, 0, 0, 0, 0)
#define syscall1(n, a)          syscall6((n), (long)(a), 0, 0, 0, 0, 0)
#define syscall2(n, a, b)       syscall6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define syscall3(n, a, b, c)    syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define syscall4(n, a, b, c, d) syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static inline long sys_null(void) { return syscall0(SYS_null); }
static inline long sys_cputs(const char *s, size_t n) { return syscall2(SYS_cputs, s, n); }
__attribute__((noreturn)) static inline void sys_exit(int status)
{
	syscall1(SYS_exit, status);
	__builtin_unreachable();
}
static inline uint64_t sys_time(void) { return (uint64_t)syscall0(SYS_time); }
static inline long sys_yield(void) { return syscall0(SYS_yield); }
static inline long sys_spawn(const char *prog, int argc, const char *const *argv)
{
	return syscall3(SYS_spawn, prog, argc, argv);
}
/* spawn, the child getting copies of handles[0..n-1] as CAP_BASE+0..n-1 */
static inline long sys_spawn_caps(const char *prog, int argc, const char *const *argv,
				  const long *handles, int n)
{
	return syscall6(SYS_spawn, (long)prog, argc, (long)argv, (long)handles, n, 0);
}
/* Capability handles (per-space tables; see <anima/syscall.h>) */
static inline long sys_vp_cap(int index) { return syscall1(SYS_vp_cap, index); }
static inline long sys_cap_grant(long handle, int space) { return syscall2(SYS_cap_grant, handle, space); }
static inline long sys_cap_drop(long handle) { return syscall1(SYS_cap_drop, handle); }
static inline long sys_wait(int space, int *status) { return syscall2(SYS_wait, space, status); }
static inline long sys_getinfo(int what) { return syscall1(SYS_getinfo, what); }
/* Processes (kernel/fork.c): 0 in the child, its id in the parent. */
static inline long sys_fork(void) { return syscall0(SYS_fork); }
static inline long sys_waitpid(int pid, int *wstatus, int options) { return syscall3(SYS_waitpid, pid, wstatus, options); }
static inline long sys_kill(int pid, int sig) { return syscall2(SYS_kill, pid, sig); }
/* exec: this image becomes the program (path or module); keep[i] is the descriptor its i gets */
static inline long sys_exec(const char *prog, int argc, const char *const *argv, const signed char *keep, int n)
{
	return syscall6(SYS_exec, (long)prog, argc, (long)argv, (long)keep, n, 0);
}
static inline void *sys_map(void *addr, size_t len, int prot)
{
	return (void *)syscall3(SYS_map, addr, len, prot);
}
static inline long sys_unmap(void *addr, size_t len) { return syscall2(SYS_unmap, addr, len); }
static inline long sys_protect(void *addr, size_t len, int prot) { return syscall3(SYS_protect, addr, len, prot); }
static inline long sys_sleep(uint64_t ns) { return syscall1(SYS_sleep, ns); }

/* A syscall result in [-4095, -1] is an error. */
static inline int sys_failed(long r) { return r < 0 && r >= -4095; }

#endif
