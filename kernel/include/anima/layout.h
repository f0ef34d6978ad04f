/*
 * User address-space layout, shared by kernel and user.
 * The lower canonical half belongs to user code; everything at or above
 * USER_TOP is kernel-only (and not even mapped user-accessible).
 */
#ifndef ANIMA_LAYOUT_H
#define ANIMA_LAYOUT_H

#define PAGE_SIZE       4096UL

#define USER_BASE       0x0000000000400000UL  /* lowest mappable user address */
#define USER_TEXT       0x0000000000400000UL  /* programs are linked here */
#define USER_MAP_BASE   0x0000100000000000UL  /* SYS_map with addr 0 allocates upward from here */
#define USER_STACK_TOP  0x00007ffffff00000UL  /* initial stack grows down from here */
#define USER_STACK_SIZE (256UL * 1024)              /* mapped at the start */
#define USER_STACK_MAX  (8UL << 20)                  /* the rest down to this: demand-zero */
#define USER_TOP        0x0000800000000000UL  /* first non-user address */

/* A program's argv and environment (kernel/args.c): the strings with
   their NULs plus 8 bytes a pointer, at most MAX_ARGLEN (sysconf's
   ARG_MAX), so at most MAX_ARGS words in all; more is E2BIG. */
#define MAX_ARGLEN      (128 * 1024)
#define MAX_ARGS        (MAX_ARGLEN / 8)
#define MAX_PROGNAME    32

#endif
