/*
 * Mathematics: musl's own functions, linked from build/libm.a (the
 * Makefile's LIBM_FUNCS; tools/mklibm.py). They report errors through
 * the floating-point status flags only, never errno (math_errhandling is
 * MATH_ERREXCEPT, as in musl). docs/libc.md.
 */
#ifndef ULIB_MATH_H
#define ULIB_MATH_H

typedef double double_t;
typedef float float_t;

#define HUGE_VAL  __builtin_huge_val()
#define HUGE_VALF __builtin_huge_valf()
#define INFINITY  __builtin_inff()
#define NAN       __builtin_nanf("")
#define MATH_ERRNO       1
#define MATH_ERREXCEPT   2
#define math_errhandling MATH_ERREXCEPT

#define FP_NAN       0
#define FP_INFINITE  1
#define FP_ZERO      2
#define FP_SUBNORMAL 3
#define FP_NORMAL    4
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#define isnan(x)      __builtin_isnan(x)
#define isinf(x)      __builtin_isinf_sign(x)
#define isfinite(x)   __builtin_isfinite(x)
#define isnormal(x)   __builtin_isnormal(x)
#define signbit(x)    __builtin_signbit(x)
#define isgreater(a, b)      __builtin_isgreater(a, b)
#define isgreaterequal(a, b) __builtin_isgreaterequal(a, b)
#define isless(a, b)         __builtin_isless(a, b)
#define islessequal(a, b)    __builtin_islessequal(a, b)
#define islessgreater(a, b)  __builtin_islessgreater(a, b)
#define isunordered(a, b)    __builtin_isunordered(a, b)

#define M_E        2.7182818284590452354
#define M_LOG2E    1.4426950408889634074
#define M_LOG10E   0.43429448190325182765
#define M_LN2      0.69314718055994530942
#define M_LN10     2.30258509299404568402
#define M_PI       3.14159265358979323846
#define M_PI_2     1.57079632679489661923
#define M_PI_4     0.78539816339744830962
#define M_1_PI     0.31830988618379067154
#define M_2_PI     0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2    1.41421356237309504880
#define M_SQRT1_2  0.70710678118654752440

double sqrt(double x);
double cbrt(double x);
double hypot(double x, double y);
double fabs(double x);
double floor(double x);
double ceil(double x);
double round(double x);
double trunc(double x);
double rint(double x);
double nearbyint(double x);
long lround(double x);
double fmod(double x, double y);
double remainder(double x, double y);
double modf(double x, double *ip);
double frexp(double x, int *e);
double ldexp(double x, int e);
double scalbn(double x, int e);
double copysign(double x, double y);
double fmin(double x, double y);
double fmax(double x, double y);
double nan(const char *tag);
double exp(double x);
double exp2(double x);
double expm1(double x);
double log(double x);
double log2(double x);
double log10(double x);
double log1p(double x);
double pow(double x, double y);
double sin(double x);
double cos(double x);
double tan(double x);
double asin(double x);
double acos(double x);
double atan(double x);
double atan2(double y, double x);
double sinh(double x);
double cosh(double x);
double tanh(double x);

float sqrtf(float x);
float fabsf(float x);
float floorf(float x);
float ceilf(float x);
float roundf(float x);
float fmodf(float x, float y);
float sinf(float x);
float cosf(float x);
float expf(float x);
float logf(float x);
float powf(float x, float y);
float atan2f(float y, float x);

/* C99's others, and GNU's sincos. lgamma's sign goes to signgam. */
extern int signgam;
long lrint(double x);
long long llrint(double x);
long long llround(double x);
double fdim(double x, double y);
double fma(double x, double y, double z);
double erf(double x);
double erfc(double x);
double tgamma(double x);
double lgamma(double x);
double lgamma_r(double x, int *sign);
double asinh(double x);
double acosh(double x);
double atanh(double x);
double logb(double x);
int ilogb(double x);
double nextafter(double x, double y);
double scalbln(double x, long e);
double remquo(double x, double y, int *q);
void sincos(double x, double *s, double *c);

float cbrtf(float x);
float hypotf(float x, float y);
float truncf(float x);
float rintf(float x);
float nearbyintf(float x);
long lroundf(float x);
long lrintf(float x);
long long llrintf(float x);
long long llroundf(float x);
float remainderf(float x, float y);
float modff(float x, float *ip);
float frexpf(float x, int *e);
float ldexpf(float x, int e);
float scalbnf(float x, int e);
float copysignf(float x, float y);
float fminf(float x, float y);
float fmaxf(float x, float y);
float nanf(const char *tag);
float exp2f(float x);
float expm1f(float x);
float log2f(float x);
float log10f(float x);
float log1pf(float x);
float tanf(float x);
float asinf(float x);
float acosf(float x);
float atanf(float x);
float sinhf(float x);
float coshf(float x);
float tanhf(float x);
float asinhf(float x);
float acoshf(float x);
float atanhf(float x);
float erff(float x);
float erfcf(float x);
float tgammaf(float x);
float lgammaf(float x);
float fdimf(float x, float y);
float fmaf(float x, float y, float z);
float logbf(float x);
int ilogbf(float x);
float nextafterf(float x, float y);
void sincosf(float x, float *s, float *c);

long double sqrtl(long double x);
long double fabsl(long double x);
long double floorl(long double x);
long double ceill(long double x);
long double roundl(long double x);
long double truncl(long double x);
long double fmodl(long double x, long double y);
long double expl(long double x);
long double logl(long double x);
long double log2l(long double x);
long double log10l(long double x);
long double powl(long double x, long double y);
long double sinl(long double x);
long double cosl(long double x);
long double tanl(long double x);
long double atanl(long double x);
long double atan2l(long double y, long double x);
long double frexpl(long double x, int *e);
long double ldexpl(long double x, int e);
long double copysignl(long double x, long double y);
long double fminl(long double x, long double y);
long double fmaxl(long double x, long double y);

/* One instruction each on x86-64 (sqrtsd, andpd). Every Anima program is
   built -fno-builtin, so gcc would call the libm function where a hosted
   build inlines the instruction (blackscholes lost 1% to Linux on the
   call alone). The builtin still calls sqrt for a negative argument, so
   errno is set as before; (sqrt)(x) and &sqrt still name the function. */
#define sqrt(x)  __builtin_sqrt(x)
#define sqrtf(x) __builtin_sqrtf(x)
#define fabs(x)  __builtin_fabs(x)
#define fabsf(x) __builtin_fabsf(x)

#endif
