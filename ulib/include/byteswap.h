/* <byteswap.h>: glibc's byte swaps, as GCC's builtins. */
#ifndef ULIB_BYTESWAP_H
#define ULIB_BYTESWAP_H

#include <stdint.h>

static __inline uint16_t __bswap_16(uint16_t x) { return __builtin_bswap16(x); }
static __inline uint32_t __bswap_32(uint32_t x) { return __builtin_bswap32(x); }
static __inline uint64_t __bswap_64(uint64_t x) { return __builtin_bswap64(x); }
#define bswap_16(x) __bswap_16(x)
#define bswap_32(x) __bswap_32(x)
#define bswap_64(x) __bswap_64(x)

#endif
