/*
 * System calls: a table indexed by number (<anima/syscall.h>). Every
 * handler takes the six raw argument registers and returns a value or a
 * negative errno; none may trust its arguments.
 */
#include "kernel.h"
#include <anima/syscall.h>

typedef long (*sysfn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

#define SYSDECL(name) long sys_##name(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t)
SYSDECL(null); SYSDECL(cputs); SYSDECL(exit); SYSDECL(time); SYSDECL(yield);
SYSDECL(spawn); SYSDECL(wait); SYSDECL(getinfo); SYSDECL(map); SYSDECL(unmap); SYSDECL(protect); SYSDECL(discard); SYSDECL(mapped);
SYSDECL(sleep);
SYSDECL(vp_create); SYSDECL(vp_start); SYSDECL(vp_idle); SYSDECL(vp_signal);
SYSDECL(vp_cap); SYSDECL(timer); SYSDECL(vp_poll); SYSDECL(io); SYSDECL(futex_wait);
SYSDECL(futex_wake); SYSDECL(vp_exit); SYSDECL(cap_grant); SYSDECL(cap_drop);
SYSDECL(seg_create); SYSDECL(seg_map); SYSDECL(seg_unmap); SYSDECL(seg_revoke);
SYSDECL(seg_robust); SYSDECL(seg_info); SYSDECL(seg_wake); SYSDECL(disk);
SYSDECL(file_open); SYSDECL(file_close); SYSDECL(file_read); SYSDECL(file_pread); SYSDECL(file_lseek);
SYSDECL(file_fstat); SYSDECL(file_stat); SYSDECL(file_dup); SYSDECL(file_getdents);
SYSDECL(fork); SYSDECL(waitpid); SYSDECL(kill); SYSDECL(exec); SYSDECL(setpgid); SYSDECL(getpgid); SYSDECL(setsid);
SYSDECL(file_write); SYSDECL(file_pwrite); SYSDECL(file_ftruncate); SYSDECL(file_fsync);
SYSDECL(file_unlink); SYSDECL(file_mkdir); SYSDECL(file_rmdir); SYSDECL(file_rename);
SYSDECL(fmap); SYSDECL(msync);
SYSDECL(file_lstat); SYSDECL(file_readlink); SYSDECL(file_statfs);
SYSDECL(view_enter); SYSDECL(view_commit); SYSDECL(view_discard); SYSDECL(view_leave);
SYSDECL(seg_protect); SYSDECL(seg_open); SYSDECL(seg_unlink);
SYSDECL(sigdisp); SYSDECL(sigtake); SYSDECL(sigqueue); SYSDECL(sigmesgq); SYSDECL(sigdie); SYSDECL(sigexec); SYSDECL(alarmexec); SYSDECL(itimerexec); SYSDECL(subreaper);
SYSDECL(setids); SYSDECL(getids); SYSDECL(setgroups); SYSDECL(getgroups); SYSDECL(file_access);
SYSDECL(pipe); SYSDECL(pipe_wait); SYSDECL(file_special); SYSDECL(file_setfl);
SYSDECL(clockset); SYSDECL(file_write_where); SYSDECL(futex_wait_rt);
SYSDECL(futex_wait_cut); SYSDECL(wait_cut);
SYSDECL(lock); SYSDECL(lock_wait); SYSDECL(tty);
SYSDECL(file_setattr); SYSDECL(file_fsetattr); SYSDECL(file_link); SYSDECL(umaskexec);
SYSDECL(file_chown); SYSDECL(file_flink);

static const sysfn systab[NSYSCALL] = {
	[SYS_null] = sys_null,
	[SYS_cputs] = sys_cputs,
	[SYS_exit] = sys_exit,
	[SYS_time] = sys_time,
	[SYS_yield] = sys_yield,
	[SYS_spawn] = sys_spawn,
	[SYS_wait] = sys_wait,
	[SYS_getinfo] = sys_getinfo,
	[SYS_fork] = sys_fork,
	[SYS_waitpid] = sys_waitpid,
	[SYS_kill] = sys_kill,
	[SYS_exec] = sys_exec,
	[SYS_setpgid] = sys_setpgid,
	[SYS_getpgid] = sys_getpgid,
	[SYS_setsid] = sys_setsid,
	[SYS_map] = sys_map,
	[SYS_unmap] = sys_unmap,
	[SYS_protect] = sys_protect,
	[SYS_discard] = sys_discard,
	[SYS_mapped] = sys_mapped,
	[SYS_fmap] = sys_fmap,
	[SYS_msync] = sys_msync,
	[SYS_view_enter] = sys_view_enter,
	[SYS_view_commit] = sys_view_commit,
	[SYS_view_discard] = sys_view_discard,
	[SYS_view_leave] = sys_view_leave,
	[SYS_sigdisp] = sys_sigdisp,
	[SYS_sigtake] = sys_sigtake,
	[SYS_sigqueue] = sys_sigqueue,
	[SYS_sigmesgq] = sys_sigmesgq,
	[SYS_sigdie] = sys_sigdie,
	[SYS_sigexec] = sys_sigexec,
	[SYS_alarmexec] = sys_alarmexec,
	[SYS_itimerexec] = sys_itimerexec,
	[SYS_subreaper] = sys_subreaper,
	[SYS_clockset] = sys_clockset,
	[SYS_futex_wait_rt] = sys_futex_wait_rt,
	[SYS_vp_create] = sys_vp_create,
	[SYS_vp_start] = sys_vp_start,
	[SYS_vp_idle] = sys_vp_idle,
	[SYS_vp_signal] = sys_vp_signal,
	[SYS_vp_cap] = sys_vp_cap,
	[SYS_timer] = sys_timer,
	[SYS_vp_poll] = sys_vp_poll,
	[SYS_vp_exit] = sys_vp_exit,
	[SYS_cap_grant] = sys_cap_grant,
	[SYS_cap_drop] = sys_cap_drop,
	[SYS_seg_create] = sys_seg_create,
	[SYS_seg_map] = sys_seg_map,
	[SYS_seg_unmap] = sys_seg_unmap,
	[SYS_seg_revoke] = sys_seg_revoke,
	[SYS_seg_robust] = sys_seg_robust,
	[SYS_seg_info] = sys_seg_info,
	[SYS_seg_wake] = sys_seg_wake,
	[SYS_seg_protect] = sys_seg_protect,
	[SYS_seg_open] = sys_seg_open,
	[SYS_seg_unlink] = sys_seg_unlink,
	[SYS_pipe] = sys_pipe,
	[SYS_pipe_wait] = sys_pipe_wait,
	[SYS_file_special] = sys_file_special,
	[SYS_futex_wait_cut] = sys_futex_wait_cut,
	[SYS_wait_cut] = sys_wait_cut,
	[SYS_file_setfl] = sys_file_setfl,
	[SYS_lock] = sys_lock,
	[SYS_lock_wait] = sys_lock_wait,
	[SYS_tty] = sys_tty,
	[SYS_file_write_where] = sys_file_write_where,
	[SYS_sleep] = sys_sleep,
	[SYS_io] = sys_io,
	[SYS_futex_wait] = sys_futex_wait,
	[SYS_futex_wake] = sys_futex_wake,
	[SYS_disk] = sys_disk,
	[SYS_file_open] = sys_file_open,
	[SYS_file_close] = sys_file_close,
	[SYS_file_read] = sys_file_read,
	[SYS_file_pread] = sys_file_pread,
	[SYS_file_lseek] = sys_file_lseek,
	[SYS_file_fstat] = sys_file_fstat,
	[SYS_file_stat] = sys_file_stat,
	[SYS_file_dup] = sys_file_dup,
	[SYS_file_getdents] = sys_file_getdents,
	[SYS_file_write] = sys_file_write,
	[SYS_file_pwrite] = sys_file_pwrite,
	[SYS_file_ftruncate] = sys_file_ftruncate,
	[SYS_file_fsync] = sys_file_fsync,
	[SYS_file_unlink] = sys_file_unlink,
	[SYS_file_mkdir] = sys_file_mkdir,
	[SYS_file_rmdir] = sys_file_rmdir,
	[SYS_file_rename] = sys_file_rename,
	[SYS_file_lstat] = sys_file_lstat,
	[SYS_file_readlink] = sys_file_readlink,
	[SYS_file_statfs] = sys_file_statfs,
	[SYS_file_setattr] = sys_file_setattr,
	[SYS_file_fsetattr] = sys_file_fsetattr,
	[SYS_file_link] = sys_file_link,
	[SYS_file_chown] = sys_file_chown,
	[SYS_setids] = sys_setids,
	[SYS_getids] = sys_getids,
	[SYS_setgroups] = sys_setgroups,
	[SYS_getgroups] = sys_getgroups,
	[SYS_file_access] = sys_file_access,
	[SYS_file_flink] = sys_file_flink,
	[SYS_umaskexec] = sys_umaskexec,
};

extern char syscall_entry[];

void syscall_init_cpu(void)
{
	/* SYSCALL loads CS=0x08, SS=0x10; SYSRET loads CS=0x18+16, SS=0x18+8
	   (user code and data, RPL 3): see the GDT in cpu.c. */
	wrmsr(MSR_STAR, (0x1bUL << 48) | ((uint64_t)KCODE_SEL << 32));
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	wrmsr(MSR_FMASK, RFLAGS_IF | RFLAGS_TF | RFLAGS_DF | RFLAGS_AC | RFLAGS_NT);
}

void syscall(struct trapframe *tf)
{
	smap_check("syscall");
	uint64_t n = tf->rax;
	sysfn f = n < NSYSCALL ? systab[n] : 0;
	tf->rax = f ? (uint64_t)f(tf->rdi, tf->rsi, tf->rdx, tf->r10, tf->r8, tf->r9) : (uint64_t)-ENOSYS;
	user_return_checks(tf);
}
