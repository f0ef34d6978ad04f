/*
 * Counts of the kernel's work for isolated views and for the TLB, since
 * boot, summed over the CPUs: SYS_getinfo(INFO_VSTAT, VS_*) (kernel/vstat.c).
 * They say where det=par's time goes at several CPUs, where a CR3 load or
 * a shootdown costs an emulator far more than its instructions.
 */
#ifndef ANIMA_VSTAT_H
#define ANIMA_VSTAT_H

#define VS_VFAULT_HOLD  0   /* view faults that mapped the space's frame read-only */
#define VS_VFAULT_PRIV  1   /* view faults that made a private copy and its twin */
#define VS_VFAULT_SYNC  2   /* view faults outside the ranges that copied a new space entry */
#define VS_VFAULT_TSC   3   /* TSC ticks in view_fault */
#define VS_COMMITS      4   /* SYS_view_commit calls */
#define VS_COMMIT_PAGES 5   /* pages a commit wrote a changed byte of */
#define VS_DROPPED      6   /* view pages dropped (commit, discard, leave, free): holds and copies */
#define VS_COMMIT_TSC   7   /* TSC ticks in SYS_view_commit */
#define VS_CR3_VIEW     8   /* CR3 loads for views: a VP's own tables in, the space's back */
#define VS_CR3_SPACE    9   /* CR3 loads switching spaces (and to the kernel's tables to idle) */
#define VS_CR3_FLUSH    10  /* CR3 reloads to flush: a shootdown's, here or asked by another CPU */
#define VS_SHOOTDOWNS   11  /* tlb_shootdown calls */
#define VS_IPIS         12  /* shootdown IPIs sent */
#define VS_INVLPG       13  /* single-page flushes (invlpg) of view pages */
#define VS_DISPATCH     14  /* VPs the schedulers ran */
#define VS_DISPATCH_VIEW 15 /* of those, VPs in a view */
#define VS_IDLE_NS      16  /* the CPUs' halted time, ns */
#define VS_NSTAT        17

#endif
