/* getauxval: an entry of the auxiliary vector the kernel put on the
   initial stack (ulib/libc/auxv.c; docs/abi.md, Program start). */
#ifndef _SYS_AUXV_H
#define _SYS_AUXV_H

#include <anima/auxv.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The value of entry `type`, or 0 with errno ENOENT if there is none. */
unsigned long getauxval(unsigned long type);

#ifdef __cplusplus
}
#endif
#endif
