/* <stdint.h>: GCC's own definitions (stdint-gcc.h). GCC's stdint.h does
   the same in a freestanding compile, but in a hosted one (POSIX
   programs are built -fhosted: Makefile) it would #include_next the C
   library's <stdint.h>, which is this one. */
#ifndef ULIB_STDINT_H
#define ULIB_STDINT_H
#include <stdint-gcc.h>
#endif
