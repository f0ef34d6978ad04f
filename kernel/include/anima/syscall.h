/*
 * Syscall numbers: the kernel/user ABI's single source of truth.
 *
 * Calling convention (x86-64 `syscall`): number in rax, arguments in
 * rdi, rsi, rdx, r10, r8, r9; result in rax. rcx and r11 are clobbered
 * (the CPU uses them for the return rip and rflags). A negative result
 * is -errno (see <anima/errno.h>).
 *
 * Numbers come in groups with deliberate holes (as Akaros does), so a
 * group can grow without renumbering what user code already uses:
 *   0-15   basic process services
 *   16-31  memory
 *   32-63  virtual processors and upcalls
 *   64-95  blocking operations (sleep, I/O, futex): with upcalls on, they
 *          block only the calling thread (see <anima/vp.h>)
 */
#ifndef ANIMA_SYSCALL_H
#define ANIMA_SYSCALL_H

#define SYS_null        0   /* () -> 0: does nothing; for measuring entry/exit */
#define SYS_cputs       1   /* (const char *buf, size_t len) -> len */
#define SYS_exit        2   /* (int status) -> does not return */
#define SYS_time        3   /* () -> ns since boot */
#define SYS_yield       4   /* () -> 0: give up the processor */
#define SYS_spawn       5   /* (prog, argc, argv [, const long *handles, n]) -> space id; the child
                               gets copies of the caller's handles[0..n-1] as its handles CAP_BASE+0.. */
#define SYS_wait        6   /* (int space, int *status) -> space id, once it has ended */
#define SYS_getinfo     7   /* (int what) -> value: see INFO_* below */
#define SYS_fork        8   /* () -> child's space id in the caller, 0 in the child: a copy-on-write
                               copy of the caller's memory with only the calling thread (one VP) */
#define SYS_waitpid     9   /* (int pid, int *wstatus, options: WNOHANG=1, KWNOWAIT) -> pid, 0 (WNOHANG,
                               none ended), -ECHILD; pid > 0 that child, -1 any, 0 any in the caller's
                               group, < -1 any in group -pid; *wstatus in Linux's encoding (<sys/wait.h>) */
#define SYS_kill        10  /* (int pid, int sig) -> 0: sig to a descendant of the caller or its
                               parent: pending for it if it catches sig (SYS_sigdisp), else its default action (another: -EPERM, none: -ESRCH); pid 0: the
                               caller's group, < -1: group -pid, -1: all it may signal, never the
                               caller itself (-> how many); sig 0 checks */
#define SYS_exec        11  /* (path, argc, argv, const int16_t *keep, n) -> does not return: the
                               caller's image becomes the program at path (a file, or a module's
                               name), same id, parent and children; every VP of the old image ends;
                               its descriptor keep[i] becomes the new one's i (-1 none, n <= MAXFILE_SPACE), the
                               rest close. Errors leave the caller as it was */
#define SYS_setpgid     12  /* (pid or 0, pgid or 0) -> 0: pid (the caller or a child) into group pgid of
                               the caller's session, or a group of its own (-ESRCH, -EPERM) */
#define SYS_getpgid     13  /* (pid or 0, 0: its group, 1: its session) -> id; -ESRCH */
#define SYS_setsid      14  /* () -> the caller's id: leader of a new session and group; -EPERM if it
                               leads a group */

#define SYS_map         16  /* (void *addr, size_t len, int prot [, latency ns if MAP_LAZY]) -> address */
#define SYS_unmap       17  /* (void *addr, size_t len) -> 0; -ENOMEM (nothing unmapped) if cutting a demand-zero region in two passes MAXLAZY_SPACE */
#define SYS_protect     18  /* (void *addr, size_t len, int prot) -> 0: every page mapped (else -ENOMEM); PROT_NONE allowed */
#define SYS_discard     19  /* (void *addr, size_t len) -> 0: the pages read as zeros from now on, their frames freed, access kept; every page mapped (else -ENOMEM) */
#define SYS_mapped      71  /* (void *addr, size_t len [, MAPPED_BYTES]) -> 0: every page of the caller's
                               range is mapped (or demand-zero), else -ENOMEM; own_range's -EINVAL,
                               -EPERM (mlock). With MAPPED_BYTES: the bytes of the range that are
                               (RLIMIT_AS's count of an unmap: ulib/rt/aspace.c); other bits -EINVAL */
#define SYS_fmap        20  /* (void *addr or 0, size_t len, int prot, FMAP_* flags, fd, offset) -> address:
                               a file's pages, read on first touch (kernel/fmap.c) */
#define SYS_msync       21  /* (void *addr, size_t len, MSYNC_* flags) -> 0: the dirty pages of
                               FMAP_SHARED mappings in the range written to their files */
/* Isolated views (<anima/view.h>, kernel/view.c): per-VP, twin/diff commit */
#define SYS_view_enter  22  /* (addr, len) -> 0: [addr, addr+len) joins the caller VP's view (2 MiB
                               aligned; -EINVAL, -EBUSY over a segment, file or VP page, -ENOMEM) */
#define SYS_view_commit 23  /* () -> pages committed: the bytes each private page changed, written into
                               the space; then the view sees the space afresh; -EINVAL without a view */
#define SYS_view_discard 24 /* () -> private pages dropped uncommitted; the view sees the space afresh */
#define SYS_view_leave  25  /* () -> private pages dropped: the view ends (commit first to keep them) */
/* Signals between processes (<anima/psig.h>, kernel/psig.c) */
#define SYS_sigdisp     26  /* (sig 1..63, SIGD_DFL/IGN/CATCH [| SIGD_NOCLDWAIT/NOCLDSTOP/CLDIGN for SIGCHLD]) -> 0: what the
                               caller's space does with sig from another process; SIGKILL, SIGSTOP -EINVAL */
#define SYS_sigtake     27  /* (struct ksiginfo *buf, n >= 1) -> records written (at most PSIG_TAKE_MAX):
                               the caller's pending signals from other processes, taken (-EFAULT: none taken) */
#define SYS_sigqueue    28  /* (pid > 0, sig, value) -> 0: as SYS_kill of one process, si_code KSI_QUEUE
                               and the value for a target that catches sig */
#define SYS_sigmesgq    84  /* (pid > 0, sig, value) -> 0: as SYS_sigqueue, si_code KSI_MESGQ: a message
                               queue's notification to the process that registered it (ulib/libc/mqueue.c) */
#define SYS_seg_protect 29  /* (addr, len, prot) -> length of the segment mapped at addr: the caller's PTEs over
                               [addr, addr+len) in it get PROT_NONE, PROT_READ or PROT_READ|PROT_WRITE
                               (kernel/segprot.c); len 0 only asks; -ENOMEM outside one mapped segment */
#define SYS_seg_open    30  /* (const char *name, len, SEGN_* flags) -> handle (SEG_READ|WRITE|GRANT) to the
                               segment of that name, made zeroed with SEGN_CREAT (kernel/segname.c) */
#define SYS_seg_unlink  31  /* (const char *name) -> 0: the name goes; the segment stays while held */

#define SYS_vp_create   32  /* (rip, rsp, arg) -> index of a new running VP; it starts with rdi = arg */
#define SYS_vp_start    33  /* (index, rip, rsp, arg) -> 0: start a VP parked at boot (run=prog:N) */
#define SYS_vp_idle     34  /* () -> 0: give up the processor until an event is queued */
#define SYS_vp_signal   35  /* (dest, payload) -> 0: EV_SIGNAL to a VP index of this space, or a capability */
#define SYS_vp_cap      36  /* (index) -> handle (>= CAP_BASE) in the caller's own table naming that VP */
#define SYS_timer       37  /* (deadline ns since boot, token) -> 0: one-shot EV_TIMER; deadline 0 cancels */
#define TIMER_RTSET     (1ULL << 63)  /* in SYS_timer's deadline: the timer also fires at once when the
                                         realtime clock's offset is not a2 (the pseudo_page.rt_off the
                                         caller converted with), and at every clock set while armed */
#define SYS_vp_poll     38  /* () -> 0: just enter and leave the kernel, so queued events reach the ring */
#define SYS_vp_exit     39  /* () -> does not return: this VP ends (the last one ends the space, status 0) */
#define SYS_cap_grant   40  /* (handle, space id [, rights]) -> handle in that space's table: a copy, given to a child or the parent; a segment handle's rights may only narrow */
#define SYS_cap_drop    41  /* (handle) -> 0: forget a handle of the caller's table */
/* Shared segments (<anima/seg.h>, kernel/seg.c) */
#define SYS_seg_create  42  /* (len) -> handle with SEG_ALL rights to a new zeroed segment */
#define SYS_seg_map     43  /* (handle, addr or 0, prot) -> the segment's address (uniform: the same in every space) */
#define SYS_seg_unmap   44  /* (addr) -> 0: unmap the caller's mapping of the segment at addr */
#define SYS_seg_revoke  45  /* (handle) -> 0: unmap the segment from every space; its handles die (SEG_REVOKE) */
#define SYS_seg_robust  46  /* (const uint64_t *list, n) -> 0: the caller's robust list (n <= MAXROBUST; 0 clears) */
#define SYS_seg_info    47  /* (handle) -> the segment's address; its length and rights through *out (2 words) */
#define SYS_seg_wake    48  /* (addr, space id, VP index, token != 0, flags) -> 0: EV_WAKE(token) to a VP of that space; both map the segment at addr; flags SEGWAKE_* */
/* Pipes (<anima/file.h>, kernel/pipe.c): descriptors of the file table, so SYS_file_read,
   _write, _close, _dup, _fstat work on them, fork shares them and exec keeps them */
#define SYS_pipe        49  /* (int fd[2]) -> 0: fd[0] the read end, fd[1] the write end of a new pipe of
                               PIPE_CAP bytes; its reads and writes never wait (-EAGAIN) */
#define SYS_pipe_wait   50  /* (fd, want, park word or 0, park value, PIPEW_* flags, timeout ns or 0) ->
                               PIPE_* bits of the end's state; with PIPEW_BLOCK, if it is neither ready
                               nor private, waits (BLK_PIPE) until the pipe changes, the word is woken
                               (SYS_futex_wake) or the timeout passes, and returns 0; -EAGAIN at once if
                               the word is not the value */
#define SYS_file_special 51 /* (FK_CONS_IN, FK_CONS_OUT or FK_NULL, FO_ access mode) -> a descriptor that
                               names the console or /dev/null, so that an exec keeps it (ulib's exec) */
#define SYS_futex_wait_cut 52 /* (uint32_t *addr, expected, timeout ns or 0, uint32_t *cut, cut value, rt) -> as
                               SYS_futex_wait, or -EINTR: *cut was not the cut value (read under the
                               futex lock, after *addr), or a thread of the same space called
                               SYS_wait_cut(cut) while it waited; cut 4-aligned user memory (-EINVAL,
                               -EFAULT). How a thread's process-shared wait is ended for a signal or a
                               cancel (ulib/pthread/pshared.c). rt 1: the third argument is a
                               CLOCK_REALTIME time, as SYS_futex_wait_rt's. rt's bits 8-15: the
                               waiter's priority (FUTEX_PRIO, 0-255): a SYS_futex_wake of one
                               waiter takes the highest, the longest waiting among equals (so
                               across processes); other bits set: -EINVAL */
#define FUTEX_PRIO(p)   ((uint64_t)(p) << 8)
#define SYS_wait_cut    53  /* (uint32_t *cut) -> how many of the caller's space's SYS_futex_wait_cut waits
                               on that cut word it ended with -EINTR; -EINVAL unaligned, -EFAULT not
                               user memory. Another space's waits are never reached */
#define SYS_sigdie      54  /* (sig[, SIGDIE_FAULT, vp index, seq]) -> ends the caller's space as sig's
                               default action (WTERMSIG = sig), for a signal another process sent
                               that the program held (kernel/psig.c); with SIGDIE_FAULT, for the
                               EV_FAULT numbered seq of that VP that the runtime could not deliver
                               (blocked, no longer caught): the kill names the fault as if uncaught;
                               -EINVAL, and no end, if that VP of the caller has no such fault on record.
                               -EINVAL for 0, 64 and up, stop signals and those ignored by default */
#define SYS_sigexec     55  /* (mask, pending, struct ksiginfo *q, n) -> 0: what the caller's next exec
                               keeps of signals (psigexec.c): the calling thread's mask (held for the
                               new image: caught unless ignored) and the signals pending in ulib (bits,
                               and q's n <= PSIG_RTQ_MAX records it queued, in order), pending in the
                               new image; (0, 0, 0, 0) forgets them (an exec that failed). Bits 0, 9,
                               19 and 64 and up are dropped; -EINVAL for n too large or a record of
                               such a signal, -EFAULT */
#define SYS_alarmexec   56  /* (due, period) -> 0: what the caller's next exec keeps of ITIMER_REAL
                               (alarm, setitimer; POSIX keeps alarm's time left across exec): its next
                               expiry, ns on SYS_time's clock (0: disarmed), and its period, ns (0:
                               one-shot), the new image's (INFO_ALARMEXEC); (0, 0) forgets them (an
                               exec that failed). Both are the program's own word, kept as given up
                               to 2^62 (psigexec.c) */
#define SYS_itimerexec  74  /* (vleft, vperiod, pleft, pperiod) -> 0: what the caller's next exec keeps
                               of ITIMER_VIRTUAL and ITIMER_PROF (Linux keeps both across exec): each
                               one's processor time left, ns (0: disarmed), and period, ns, the new
                               image's (INFO_ITIMEREXEC); all 0 forgets them. Kept as given up to
                               2^62 (psigexec.c) */
#define SYS_subreaper   75  /* (on) -> 0: on 1 the caller adopts the orphans of its descendants (Linux's
                               PR_SET_CHILD_SUBREAPER; space 1, a boot's first program, then adopts
                               every orphan the nearest living subreaper does not, as Linux's init),
                               on 0 it stops; on 2 -> the caller's flag, 0 or 1; -EINVAL otherwise.
                               Without one an orphan is nobody's: the kernel collects it (space.c) */

#define SYS_clockset    59  /* (sec, nsec) -> 0: CLOCK_REALTIME is that time now, for every space (root
                               only, -EPERM else; kernel/rtclock.c); -EINVAL for sec > RT_SEC_MAX or nsec >= 1e9.
                               The kernel's own timing never reads it; user code reads the offset
                               from pseudo_page.rt_off; it ends every SYS_futex_wait_rt */
#define RT_SEC_MAX      9000000000UL   /* (about 2255: the ns since 1970 fit an int64 for years more) */

#define SYS_futex_wait_rt 61 /* (uint32_t *addr, expected, rt_ns) -> 0, -EAGAIN, -ETIMEDOUT: SYS_futex_wait
                               until CLOCK_REALTIME reads rt_ns (ns since 1970, signed: one before 1970 has
                               passed, -ETIMEDOUT), converted at the offset
                               of the moment; a clock set (SYS_clockset) during the wait ends it with 0,
                               so the caller, whose word still holds, waits again at the new offset
                               (kernel/rtclock.c) */
#define SYS_file_chown  76  /* (path or 0, fd, uid, gid, flags) -> 0: the owner and group of the file at
                               path (a last link followed unless FA_NOFOLLOW in flags), or with path
                               0 of fd's; uid or gid 0xffffffff keeps it, past 32 bits -EINVAL. Sets
                               ctime and, on all but a directory, clears set-user-ID (and set-group-ID
                               if group-exec is set), as Linux does; -EPERM unless root or the owner
                               setting one of its groups (kernel/sysown.c, perm.c) */
#define SYS_file_flink  77  /* (fd, to) -> 0: a hard link `to` of the file fd names (linkat's
                               AT_EMPTY_PATH); -ENOENT if it has no link left, -EPERM for a directory,
                               -EXDEV for a pipe or the console, -EEXIST, -EMLINK */
/* Process credentials (kernel/cred.c): real, effective and saved user and group ids and up to
   CRED_NGROUPS supplementary groups, per process, inherited by fork and spawn, kept by exec (a
   file's set-user-ID and set-group-ID bits change the effective and saved ones). Privileged:
   effective uid 0. An id is 32 bits; 0xffffffff ("-1") means "keep" where a call allows it. */
#define SYS_setids      78  /* (ID_UID or ID_GID, ID_* how, r, e, s) -> 0: set the caller's ids as Linux's
                               setuid (ID_ONE: r), setreuid (ID_RE: r, e) or setresuid (ID_RES: r, e, s)
                               and the gid ones. Unprivileged, each id must be one of the real, effective
                               or saved (setuid: real or saved; setreuid's real: real or effective);
                               -EPERM else; -EINVAL for another op or an id past 32 bits */
#define SYS_getids      79  /* (uint32_t ids[6]) -> 0: real, effective, saved uid, then gid; -EFAULT.
                               (r, e, s, IDS_UIDS or IDS_GIDS): the real, effective and saved uids (gids)
                               each to its own uint32_t pointer, in that order; -EFAULT at the first that
                               is no writable user memory (getresuid's EFAULT); -EINVAL for another 4th */
#define IDS_UIDS        1
#define IDS_GIDS        2
#define SYS_setgroups   80  /* (n, const uint32_t *list) -> 0: the supplementary groups; -EPERM unless
                               privileged, -EINVAL for n past CRED_NGROUPS, -EFAULT */
#define SYS_getgroups   81  /* (n, uint32_t *list) -> how many groups; n 0 only counts; -EINVAL if n is
                               short of them, -EFAULT */
#define SYS_file_access 82  /* (path, R_OK|W_OK|X_OK bits 4|2|1 or 0, ACC_EFFECTIVE) -> 0: may the caller
                               (its real ids, or the effective ones with ACC_EFFECTIVE) search its way
                               to the file and use it so; -EACCES, -ENOENT..., -EINVAL (kernel/perm.c) */
#define ID_UID          0
#define ID_GID          1
#define ID_ONE          0
#define ID_RE           1
#define ID_RES          2
#define ACC_EFFECTIVE   1
#define CRED_NGROUPS    32  /* the most supplementary groups (sysconf(_SC_NGROUPS_MAX)) */
#define ID_KEEP         0xffffffffu
#define SYS_file_setfl  60  /* (fd, FO_APPEND or 0) -> 0: fcntl(F_SETFL)'s O_APPEND, on the open file, so
                               every descriptor naming it (dup's, a fork's child's) sees it; -EBADF,
                               -EINVAL for other bits */
#define SYS_file_write_where 63 /* (fd, buf, n, uint64_t *at) -> as SYS_file_write; a short count
                               (0 < count < n) also stores at *at the position its first byte went
                               to: an append's room runs from there to *at + n, for the rest
                               (SYS_file_pwrite), found without the shared offset */

#define SYS_sleep       64  /* (uint64_t ns) -> 0 */
#define SYS_io          65  /* (latency ns, value) -> value, after a simulated device latency */
#define SYS_futex_wait  66  /* (uint32_t *addr, expected, timeout ns or 0) -> 0, -EAGAIN, -ETIMEDOUT */
#define SYS_futex_wake  67  /* (uint32_t *addr, count) -> number woken */
#define SYS_disk        68  /* (DISK_* op, block, buf) -> 0: the raw disk in 4 KiB blocks, through the
                               block cache; only with `rawdisk` on the command line (else -EPERM);
                               -ENODEV without a disk; blocks like SYS_io (BLK_DISK) on a miss */

/* Files (<anima/file.h>; kernel/ext2.c, sysfile.c): ext2 on the disk, read-only so far */
#define SYS_file_open   96  /* (path, FO_* flags, mode for FO_CREAT) -> descriptor */
#define SYS_file_close  97  /* (fd) -> 0 */
#define SYS_file_read   98  /* (fd, buf, n) -> bytes read (0 at the end), from the descriptor's offset */
#define SYS_file_pread  99  /* (fd, buf, n, offset) -> bytes read; the offset stays */
#define SYS_file_lseek  100 /* (fd, offset, whence 0 SET 1 CUR 2 END) -> the new offset */
#define SYS_file_fstat  101 /* (fd, struct kstat *) -> 0 */
#define SYS_file_stat   102 /* (path, struct kstat *) -> 0 */
#define SYS_file_dup    103 /* (fd) -> a new descriptor for the same open file (the offset shared) */
#define SYS_file_getdents 104 /* (fd of a directory, buf, n) -> bytes of struct kdirent, 0 at the end */

#define SYS_file_write  105 /* (fd, buf, n) -> bytes written, at the descriptor's offset (its end with FO_APPEND) */
#define SYS_file_pwrite 106 /* (fd, buf, n, offset) -> bytes written; the offset stays */
#define SYS_file_ftruncate 107 /* (fd, length) -> 0 */
#define SYS_file_fsync  108 /* (fd) -> 0 when every dirty block is on the disk */
#define SYS_file_unlink 109 /* (path) -> 0 */
#define SYS_file_mkdir  110 /* (path, mode) -> 0 */
#define SYS_file_rmdir  111 /* (path) -> 0 */
#define SYS_file_rename 112 /* (from, to) -> 0 */
#define SYS_file_lstat  113 /* (path, struct kstat *) -> 0; a last symbolic link itself */
#define SYS_file_readlink 114 /* (path, buf, n) -> bytes of the link's target copied (no NUL) */
#define SYS_file_setattr 115 /* (path, mode or FA_KEEP, const struct ktimes *t or 0, flags) -> 0: the file's
                               permission bits (mode & 07777; its type never changes) and/or its
                               atime and mtime; ctime set either way; a last symbolic link followed,
                               or with FA_NOFOLLOW in flags set itself. -EINVAL for other mode bits
                               or flags (kernel/sysmode.c) */
#define SYS_file_fsetattr 116 /* (fd, mode or FA_KEEP, t or 0) -> 0: the same on fd's file (an unlinked
                               one too); -EBADF, -EINVAL for a pipe, the console or /dev/null */
#define SYS_file_link   117 /* (from, to, follow) -> 0: a hard link `to` of from's file (a last symbolic
                               link followed if follow, else linked itself); -EEXIST, -EPERM for a
                               directory, -EMLINK at EXT2_LINK_MAX */
#define SYS_umaskexec   118 /* (mask) -> 0: the file mode creation mask the caller's next exec keeps
                               (INFO_UMASKEXEC); -EINVAL past 0777 */
#define SYS_file_statfs 119 /* (struct kstatfs *) -> 0: the file system's size and free room (<anima/file.h>) */
/* Advisory file locks (<anima/flock.h>, kernel/flock.c) */
#define SYS_lock        120 /* (fd, LK_* command, struct kflock *) -> 0: test, set or clear a lock; never
                               waits: -EAGAIN if another owner's lock is in the way, -ENOLCK past the
                               bounds, -EBADF for a type the descriptor's access mode does not allow */
#define SYS_lock_wait   121 /* (fd, struct kflock *, park word or 0, park value, LKW_* flags, LK_SETLK or
                               LK_FLOCK) -> 1 if the request is no longer in the way (try again), else 0;
                               with LKW_BLOCK waits (BLK_PIPE) until a lock of the file changes or the
                               word is woken, and returns 0; -EDEADLK if a POSIX request's wait would
                               close a cycle of POSIX waits (the chain from the owner in the way walked
                               up to 10 steps); -EAGAIN if the word is not the value. LK_OFD_SETLK too */
/* The console as a terminal (<anima/tty.h>, kernel/tty.c) */
#define SYS_tty         91  /* (TTY_GET or TTY_SET, struct ktermios *) -> 0: the console's termios
                               settings, one set kept in the kernel for every process; a set keeps the
                               UART's speed; OPOST with ONLCR, OCRNL applied to SYS_cputs, the rest
                               kept only (no console input); -EINVAL, -EFAULT */
#define NSYSCALL        122 /* one past the largest number */

/* SYS_disk operations */
#define DISK_READ       0   /* block into buf (4096 bytes); -EINVAL past the end, -EIO */
#define DISK_WRITE      1   /* buf over block (dirty in the cache until a sync or the halt) */
#define DISK_SYNC       2   /* every dirty block to the disk; -EIO if a write failed since the last */
#define DISK_INFO       3   /* buf = { blocks, most requests ever in flight at once } */

/* SYS_getinfo selectors */
#define INFO_SPACE      0   /* this address space's id */
#define INFO_CPU        1   /* the CPU the caller runs on now */
#define INFO_NCPU       2   /* CPUs online */
#define INFO_TSC_HZ     3   /* calibrated TSC frequency */
#define INFO_MEM_FREE   4   /* free physical memory, bytes */
#define INFO_MEM_AVAIL  5   /* free memory plus the empty pages the kernel heap keeps for reuse
                               and the block cache's pages past its floor (given back on demand),
                               bytes: what a space's exit must give back exactly (the audits) */
#define INFO_BOOT_EPOCH 6   /* wall time at boot (the CMOS RTC, read once), seconds since 1970 UTC:
                               CLOCK_REALTIME = this + time since boot */
#define INFO_TIMER_LATE 7   /* timer interrupts, on all CPUs since boot, that came more than
                               TIMER_LATE_NS after their deadline: the host stalled an emulated
                               CPU (kernel/lapic.c); 0 under -icount */
#define TIMER_LATE_NS   1000000
#define INFO_SPACES_HELD 8  /* address spaces whose memory is not all back: the running ones, and
                               ended ones whose page tables a CPU may still hold (they are freed when
                               the last CPU switches away). A test that checks every frame came back
                               waits for this to fall to the spaces it knows are running. A
                               copy-on-write break in flight counts one more (as INFO_TREE_HELD) */
#define INFO_TREE_HELD 29   /* INFO_SPACES_HELD for the caller's boot-program tree only (the program
                               the kernel started and all it forked, spawned or exec'd, at any depth):
                               its running spaces, the caller's included, and its ended ones whose
                               memory is not all back. Other boot programs beside it do not count, so
                               a test waits on this for its own ended children (kernel/space.c). A
                               copy-on-write break in flight in one of them counts one more: the
                               frame it lets go may be an ended child's last page (kernel/cow.c) */
#define INFO_MEM_TOTAL  9   /* usable physical memory the boot memory map gave, bytes */
#define INFO_PARENT     10  /* the id of the space that spawned or forked this one, 0 if none (or it ended) */
#define INFO_FILES      11  /* (INFO_FILES, w) -> a bit (1 << fd % 64) for each open file descriptor
                               64w..64w+63: what exec kept; -EINVAL past MAXFILE_SPACE; w -1:
                               the words that hold every open descriptor (0 for none) */
#define INFO_FILE_FLAGS 12  /* (INFO_FILE_FLAGS, fd) -> the FO_* flags fd was opened with; -EBADF */
#define INFO_VIEW_PAGES 13  /* pages the views of the caller's space hold, all charged to it: their
                               tables, read holds on its frames, private copies and twins */
#define INFO_RT_OFF     28  /* the realtime clock's offset now, ns (kernel/rtclock.c): what pseudo_page.rt_off
                               holds after the caller's next quantum begins */
#define INFO_VIEW_RACES 27  /* bytes of the caller's space that a view's commit changed after another
                               commit had changed them since the view's twin of the page: two views
                               wrote one byte between their commits (kernel/view.c; det=par reports it) */
#define INFO_VSTAT      25  /* (25, VS_*) the kernel's counts of view and TLB work since boot, all
                               CPUs (<anima/vstat.h>, kernel/vstat.c); -EINVAL for another VS_ */
#define INFO_SIGPEND    14  /* (14, what) the caller's space's signals from other processes: what 0,
                               those pending, not yet taken (bit sig); 1, EV_PSIG events posted to
                               its VPs; 2, SYS_sigtake calls; since the space began. -EINVAL else */
#define INFO_SIGEXEC    21  /* (21, what) what the exec that made the caller's image kept of signals:
                               what 0, the ignored ones (SIG_IGN stays across exec); 1, the mask;
                               -EINVAL else (kernel/psig.c) */
#define INFO_ALARMEXEC  23  /* (23, what) ITIMER_REAL as the exec that made the caller's image kept it
                               (SYS_alarmexec): what 0, its next expiry (0: none); 1, its period;
                               -EINVAL else (kernel/psigexec.c) */
#define INFO_ITIMEREXEC 35  /* (35, what) ITIMER_VIRTUAL and ITIMER_PROF as the exec that made the
                               caller's image kept them (SYS_itimerexec): what 0, VIRTUAL's time
                               left (0: none); 1, its period; 2, PROF's time left; 3, its period;
                               -EINVAL else (kernel/psigexec.c) */
#define INFO_CRED       33  /* (33, which) the caller's id: 0..2 real, effective, saved uid; 3..5 the gids;
                               -EINVAL else (kernel/cred.c) */
#define INFO_OWNER      34  /* (34, pid) 1 if the caller may change process pid's scheduling (root, or its
                               effective uid is pid's real or effective one: Linux's check_same_owner),
                               else 0; -ESRCH if there is none (kernel/cred.c) */
#define INFO_CHILD_CPU  32  /* the processor time (ns) of the caller's children that ended and
                               that it collected with a wait, theirs included (times' tms_cutime) */
#define INFO_UMASKEXEC  31  /* the umask the exec that made the caller's image kept (SYS_umaskexec),
                               022 if it was made otherwise (kernel/sysmode.c) */
#define INFO_DISK_FLIGHT 15 /* the most disk requests ever in flight at once (0 without a disk) */
#define INFO_LOCK_WAITS 16  /* (16, which) times a kernel lock was found held, each wait counted once:
                               which 0 = the caller's space's memory lock (since the space began),
                               1 = kop_lock (blocking operations, timers, futexes), 2 = the physical
                               page allocator's; since boot. -EINVAL for another which */
#define INFO_BCACHE     20  /* (20, BC_*) the block cache's size now and its counts since boot
                               (kernel/bcache.c); 0 without a disk, -EINVAL for another BC_ */
#define BC_NBUF         0   /* buffers now (each one page) */
#define BC_FLOOR        1   /* buffers it never gives back */
#define BC_CEIL         2   /* the most it grows to */
#define BC_PINNED       3   /* buffers kept for their waiters now */
#define BC_HITS         4   /* lookups that found their block in the cache */
#define BC_READS        5   /* blocks read from the device */
#define BC_KEPT         6   /* buffers kept for a waiter that a call then found */
#define BC_EXPIRED      7   /* keeps dropped unused after their time */
#define BC_GROWN        8   /* buffers added with a fresh frame */
#define BC_RECLAIMED    9   /* frames given back when memory was short */
#define BC_NSTAT        10
#define INFO_ORPHAN     17  /* (17, what) unlinked files still open or mapped (kernel/orphan.c):
                               what 0, how many now; 1, made since boot; 2, freed since boot; 3, found
                               in the on-disk orphan list at mount (a crash's; freed among 2); -EINVAL */
#define INFO_FILE_KIND  18  /* (INFO_FILE_KIND, fd) -> what fd names: FK_* (<anima/file.h>); -EBADF */
#define INFO_MEM_CHARGED 24 /* what the caller's space is charged, bytes: what its quota counts (its
                               pages, tables, kernel stacks, segment frames, the kernel objects it
                               caused: open files, pipes, kops...) */
#define INFO_RAMDISK    39  /* (39, what) the RAM disk made when there is no disk (kernel/ramdisk.c): what 0,
                               its size in 4 KiB blocks (0: none, a real disk or `noramdisk`); 1, the
                               frames its written blocks hold now; -EINVAL else */
#define INFO_LOCKS      36  /* (36, what) advisory file locks (kernel/flock.c): what 0, the record locks
                               (POSIX and OFD) the caller's process pays for; 1, the locks in the kernel
                               in all; 2, OFD records no process pays for (their payer ended and no
                               live process holds their open file, about to go); 3, lock waits queued
                               in the kernel now; -EINVAL */
#define INFO_FSHARED    19  /* (INFO_FSHARED, addr) -> 1 if addr is in a MAP_SHARED file mapping of the
                               caller's (futexes there wake across spaces: kernel/fkey.c), else 0 */

/* SYS_map protections */
#define PROT_READ       1
#define PROT_WRITE      2
#define PROT_EXEC       4
#define MAP_LAZY        0x100  /* demand-zero: pages appear on first touch, after the latency in arg 4 */

/* SYS_mapped's flag */
#define MAPPED_BYTES    1      /* how many bytes are mapped, not whether all are */

/* SYS_fmap flags and SYS_msync flags */
#define FMAP_SHARED     1      /* written back by msync and unmap; else private (copy on read) */
#define MSYNC_WAIT      1      /* msync also waits until the blocks are on the disk */

/* Capability handles: indices into the holder's own handle table, offset
   so that a handle is never a VP index (SYS_vp_signal takes either). A
   handle means nothing in any other space: authority is never a guessable
   number, only an entry the kernel put in the holder's table. */
#define CAP_BASE        0x10000
#define MAXCAP_SPACE    64     /* handles per space */
/* Demand-zero regions (MAP_LAZY, and the pieces SYS_protect and SYS_unmap
   cut them into) per space: past it those calls return -ENOMEM. */
#define MAXLAZY_SPACE   16384

#endif
