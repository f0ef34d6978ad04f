/* <features.h>: the feature-test plumbing code includes to learn what the
   C library is. ulib is not glibc: __GLIBC__ stays undefined, so code
   that tests it takes its portable path. */
#ifndef ULIB_FEATURES_H
#define ULIB_FEATURES_H

#include <sys/cdefs.h>

#if defined(__GNUC__) && defined(__GNUC_MINOR__)
#define __GNUC_PREREQ(maj, min) ((__GNUC__ << 16) + __GNUC_MINOR__ >= ((maj) << 16) + (min))
#else
#define __GNUC_PREREQ(maj, min) 0
#endif
#define __glibc_clang_prereq(maj, min) 0

/* The standards ulib follows (POSIX.1-2008, C11). Not __USE_GNU nor
   __USE_MISC: ulib has some GNU extensions but not all of glibc's forms
   (strerror_r follows _GNU_SOURCE itself, as glibc's does), so code must
   not pick GNU variants by them. */
#define __USE_ISOC99 1
#define __USE_ISOC11 1
#define __USE_POSIX 1
#define __USE_POSIX2 1
#define __USE_POSIX199309 1
#define __USE_POSIX199506 1
#define __USE_XOPEN2K 1
#define __USE_XOPEN2K8 1

#endif
