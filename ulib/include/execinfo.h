/* <execinfo.h>: glibc's backtrace (ulib/backtrace.c), walking the frame
   pointers that every build keeps. There is no symbol table in a
   program, so the symbols are addresses: "[0x401234]". */
#ifndef ULIB_EXECINFO_H
#define ULIB_EXECINFO_H

int backtrace(void **buffer, int size);
char **backtrace_symbols(void *const *buffer, int size);
void backtrace_symbols_fd(void *const *buffer, int size, int fd);

#endif
