/*
 * drand48 and its family: X(n+1) = (a X(n) + c) mod 2^48, with a =
 * 0x5DEECE66D and c = 0xB until lcong48 sets others (seed48 and srand48
 * put them back). The state starts at 0, as glibc's and musl's. drand48,
 * lrand48 and mrand48 share one state (under a lock, so threads may
 * share it); the e/n/j forms step the caller's xsubi with the same a, c.
 * Results: drand48 X / 2^48; lrand48 the top 31 bits; mrand48 the top
 * 32 as a signed number.
 */
#include <stdlib.h>
#include <stdint.h>
#include <animart/spin.h>

static unsigned short state[3];
static unsigned short mult[3] = { 0xe66d, 0xdeec, 0x5 };
static unsigned short add = 0xb;
struct spin __rand48_lk;       /* (fork holds it: ulib/pthread/pfork.c) */

static uint64_t get(const unsigned short x[3])
{
	return x[0] | (uint64_t)x[1] << 16 | (uint64_t)x[2] << 32;
}

static void put(unsigned short x[3], uint64_t v)
{
	x[0] = (unsigned short)v;
	x[1] = (unsigned short)(v >> 16);
	x[2] = (unsigned short)(v >> 32);
}

/* Step x; returns the new 48-bit value. */
static uint64_t step(unsigned short x[3])
{
	uint64_t v = (get(x) * get(mult) + add) & 0xffffffffffffULL;
	put(x, v);
	return v;
}

static uint64_t step_shared(void)
{
	struct thread *lt = spin_owner();
	spin_lock_by(&__rand48_lk, lt);
	uint64_t v = step(state);
	spin_unlock_by(&__rand48_lk, lt);
	return v;
}

static double to_double(uint64_t v)
{
	return (double)v / 281474976710656.0;      /* 2^48: exact */
}

double erand48(unsigned short xsubi[3]) { return to_double(step(xsubi)); }
long nrand48(unsigned short xsubi[3]) { return (long)(step(xsubi) >> 17); }
long jrand48(unsigned short xsubi[3]) { return (long)(int32_t)(uint32_t)(step(xsubi) >> 16); }
double drand48(void) { return to_double(step_shared()); }
long lrand48(void) { return (long)(step_shared() >> 17); }
long mrand48(void) { return (long)(int32_t)(uint32_t)(step_shared() >> 16); }

static void defaults(void)
{
	mult[0] = 0xe66d;
	mult[1] = 0xdeec;
	mult[2] = 0x5;
	add = 0xb;
}

void srand48(long seedval)
{
	struct thread *lt = spin_owner();
	spin_lock_by(&__rand48_lk, lt);
	state[0] = 0x330e;
	state[1] = (unsigned short)seedval;
	state[2] = (unsigned short)((unsigned long)seedval >> 16);
	defaults();
	spin_unlock_by(&__rand48_lk, lt);
}

unsigned short *seed48(unsigned short seed16v[3])
{
	static unsigned short old[3];
	struct thread *lt = spin_owner();
	spin_lock_by(&__rand48_lk, lt);
	old[0] = state[0];
	old[1] = state[1];
	old[2] = state[2];
	state[0] = seed16v[0];
	state[1] = seed16v[1];
	state[2] = seed16v[2];
	defaults();
	spin_unlock_by(&__rand48_lk, lt);
	return old;
}

void lcong48(unsigned short param[7])
{
	struct thread *lt = spin_owner();
	spin_lock_by(&__rand48_lk, lt);
	state[0] = param[0];
	state[1] = param[1];
	state[2] = param[2];
	mult[0] = param[3];
	mult[1] = param[4];
	mult[2] = param[5];
	add = param[6];
	spin_unlock_by(&__rand48_lk, lt);
}
