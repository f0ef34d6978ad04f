/* <endian.h>: byte order (x86-64 is little-endian) and the conversions
   of glibc and the BSDs (htobe16 ... le64toh). */
#ifndef ULIB_ENDIAN_H
#define ULIB_ENDIAN_H

#include <stdint.h>

#define __LITTLE_ENDIAN 1234
#define __BIG_ENDIAN    4321
#define __PDP_ENDIAN    3412
#define __BYTE_ORDER    __LITTLE_ENDIAN
#define __FLOAT_WORD_ORDER __BYTE_ORDER
#define LITTLE_ENDIAN   __LITTLE_ENDIAN
#define BIG_ENDIAN      __BIG_ENDIAN
#define PDP_ENDIAN      __PDP_ENDIAN
#define BYTE_ORDER      __BYTE_ORDER

#define htobe16(x) ((uint16_t)__builtin_bswap16((uint16_t)(x)))
#define htole16(x) ((uint16_t)(x))
#define be16toh(x) ((uint16_t)__builtin_bswap16((uint16_t)(x)))
#define le16toh(x) ((uint16_t)(x))
#define htobe32(x) ((uint32_t)__builtin_bswap32((uint32_t)(x)))
#define htole32(x) ((uint32_t)(x))
#define be32toh(x) ((uint32_t)__builtin_bswap32((uint32_t)(x)))
#define le32toh(x) ((uint32_t)(x))
#define htobe64(x) ((uint64_t)__builtin_bswap64((uint64_t)(x)))
#define htole64(x) ((uint64_t)(x))
#define be64toh(x) ((uint64_t)__builtin_bswap64((uint64_t)(x)))
#define le64toh(x) ((uint64_t)(x))
/* the BSDs' older names */
#define betoh16(x) be16toh(x)
#define letoh16(x) le16toh(x)
#define betoh32(x) be32toh(x)
#define letoh32(x) le32toh(x)
#define betoh64(x) be64toh(x)
#define letoh64(x) le64toh(x)

#endif
