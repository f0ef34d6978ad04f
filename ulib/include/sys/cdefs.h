/* <sys/cdefs.h>: glibc's and BSD's declaration helpers that portable
   headers use (no functions). */
#ifndef ULIB_SYS_CDEFS_H
#define ULIB_SYS_CDEFS_H

#ifdef __cplusplus
#define __BEGIN_DECLS extern "C" {
#define __END_DECLS }
#define __THROW throw()
#else
#define __BEGIN_DECLS
#define __END_DECLS
#define __THROW
#endif
#define __THROWNL __THROW
#define __NTH(fct) fct __THROW
#define __LEAF
#define __LEAF_ATTR

#define __P(args) args
#define __PMT(args) args
#define __CONCAT(x, y) x ## y
#define __STRING(x) #x
#define __ptr_t void *

#define __restrict_arr
#define __flexarr []
#define __glibc_likely(c) __builtin_expect(!!(c), 1)
#define __glibc_unlikely(c) __builtin_expect(!!(c), 0)
#define __glibc_has_attribute(a) __has_attribute(a)
#define __glibc_has_builtin(b) __has_builtin(b)

#define __attribute_malloc__ __attribute__((__malloc__))
#define __attribute_pure__ __attribute__((__pure__))
#define __attribute_const__ __attribute__((__const__))
#define __attribute_used__ __attribute__((__used__))
#define __attribute_noinline__ __attribute__((__noinline__))
#define __attribute_deprecated__ __attribute__((__deprecated__))
#define __attribute_deprecated_msg__(msg) __attribute__((__deprecated__(msg)))
#define __attribute_format_arg__(x) __attribute__((__format_arg__(x)))
#define __attribute_format_strfmon__(a, b) __attribute__((__format__(__strfmon__, a, b)))
#define __attribute_warn_unused_result__ __attribute__((__warn_unused_result__))
#define __attribute_alloc_size__(params) __attribute__((__alloc_size__ params))
#define __attribute_artificial__ __attribute__((__artificial__))
#define __attribute_maybe_unused__ __attribute__((__unused__))
#define __attribute_nonstring__ __attribute__((__nonstring__))
#define __nonnull(params) __attribute__((__nonnull__ params))
#define __returns_nonnull __attribute__((__returns_nonnull__))
#define __wur __attribute__((__warn_unused_result__))
#ifndef __always_inline
#define __always_inline __inline __attribute__((__always_inline__))
#endif
#define __extern_inline extern __inline __attribute__((__gnu_inline__))
#define __extern_always_inline extern __always_inline __attribute__((__gnu_inline__))
#define __fortify_function __extern_always_inline __attribute_artificial__
#define __REDIRECT(name, proto, alias) name proto __asm__(__STRING(alias))
#define __REDIRECT_NTH(name, proto, alias) name proto __THROW __asm__(__STRING(alias))

/* BSD's (not __packed or __aligned, which Linux code often defines itself) */
#define __dead2 __attribute__((__noreturn__))
#define __pure2 __attribute__((__const__))
#define __printflike(f, a) __attribute__((__format__(__printf__, f, a)))
#define __scanflike(f, a) __attribute__((__format__(__scanf__, f, a)))

#endif
