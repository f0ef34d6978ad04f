/*
 * Shared segments (kernel/seg.c): memory several spaces map at the same
 * virtual address, so a pointer into a segment means the same thing in
 * every space that maps it (Psyche's uniform address space). Shared by
 * kernel and user: the window, the rights a handle carries, and the
 * layout of a robust cross-space mutex word, which the kernel reads and
 * writes when a space dies holding one (docs/abi.md, "Shared segments").
 */
#ifndef ANIMA_SEG_H
#define ANIMA_SEG_H

/* The segment window: every segment gets its own range here for its
   whole life (never reused, with a guard page after it), and every space
   maps it there. SYS_map never places anything in it and refuses a fixed
   address in it (-EPERM); SYS_unmap refuses it too (use SYS_seg_unmap). */
#define SEG_BASE      0x0000080000000000UL
#define SEG_TOP       0x0000100000000000UL   /* = USER_MAP_BASE: below SYS_map's placement */
#define SEG_MAXLEN    (64UL << 20)        /* bytes per segment */
#define MAXSEG_SPACE  16                  /* segments one space maps at once; also
					     live segments one space may have created */

/* Named segments (SYS_seg_open, SYS_seg_unlink): a system-wide table. */
#define SEGN_CREAT    1      /* make it if the name is free */
#define SEGN_EXCL     2      /* with SEGN_CREAT: -EEXIST if the name is taken */
#define SEGN_MODE     4      /* arg 4 is a name it makes: its permission bits
				(0777 of them; without: 0666) */
#define SEGNAME_MAX   256    /* bytes of a name, its NUL included */
#define NAMESEG_MAX   64     /* names at once, system-wide */
#define NAMESEG_BYTES (16UL << 20)   /* their segments' bytes at once, system-wide */

/* Rights of a segment handle. A grant may only narrow them. */
#define SEG_READ      1
#define SEG_WRITE     2
#define SEG_GRANT     4      /* may pass the handle on (SYS_cap_grant, SYS_spawn) */
#define SEG_REVOKE    8      /* may revoke the segment everywhere (the creator's) */
#define SEG_ALL       15

/* A robust cross-space mutex word (ulib's struct xmutex): 0 when free,
   else the owner's space id, plus flags. When a space ends, the kernel
   looks at each word its robust list (SYS_seg_robust) names: one still
   owned by the dead space becomes XM_DEAD | (its XM_WAITERS), and every
   futex waiter on it is woken. */
#define XM_OWNER      0x3fffffffu
#define XM_WAITERS    0x40000000u
#define XM_DEAD       0x80000000u
#define XM_NOTREC     0xffffffffu   /* the dead owner's state was never made consistent */
#define MAXROBUST     64            /* entries of a space's robust list */

/* SYS_seg_wake's flags. SEGWAKE_YIELD: if the woken VP was idle and now
   waits for the caller's CPU, and its space is not ahead of the caller's
   in CPU time by more than a quarter quantum, the caller gives it the
   CPU at once (a directed yield, the caller's VP goes back on the run
   queue) rather than at its next block (kernel/segwake.c). */
#define SEGWAKE_YIELD 1

#endif
