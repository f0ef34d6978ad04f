/*
 * The auxiliary vector on a program's initial stack (kernel/auxv.c):
 * pairs of a type and a value after the environment's null, ended by
 * AT_NULL. Types and meanings are Linux x86-64's.
 */
#ifndef ANIMA_AUXV_H
#define ANIMA_AUXV_H

#define AT_NULL     0
#define AT_PHDR     3      /* the program headers' address in memory (0: none loaded) */
#define AT_PHENT    4      /* the size of one, 56 */
#define AT_PHNUM    5      /* how many */
#define AT_PAGESZ   6      /* 4096 */
#define AT_BASE     7      /* the interpreter's base: 0, none */
#define AT_FLAGS    8      /* 0 */
#define AT_ENTRY    9      /* the program's entry */
#define AT_UID      11     /* 0: every process is root */
#define AT_EUID     12
#define AT_GID      13
#define AT_EGID     14
#define AT_PLATFORM 15     /* the address of "x86_64" */
#define AT_HWCAP    16     /* cpuid leaf 1's edx */
#define AT_CLKTCK   17     /* times()'s ticks a second, 100 */
#define AT_SECURE   23     /* 0: no set-user-ID programs */
#define AT_RANDOM   25     /* the address of 16 random bytes */
#define AT_EXECFN   31     /* the address of the program's path (a module: its name) */

#define AUXV_PAIRS  18     /* the pairs written, AT_NULL's among them */

#endif
