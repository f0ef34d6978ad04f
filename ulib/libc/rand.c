/* rand, random and their _r, initstate and setstate forms: glibc's
   generators, so a program seeded as on Linux draws the same numbers
   (a simulation's printed result, a test's expected output). random is
   the additive feedback generator r[i] = r[i-3] + r[i-31] (mod 2^32),
   giving r[i] >> 1, over a state table whose size picks the degree
   (glibc's TYPE_0 to TYPE_4: 8 to 256 bytes; TYPE_0 is a plain linear
   congruential generator); a seed fills the table with 16807^i * seed
   mod 2^31-1 and discards the first 10 * degree outputs. rand is random,
   srand srandom. The shared generator is taken under a lock (glibc's
   random takes one too). */
#include <stdlib.h>
#include <errno.h>
#include <animart/spin.h>
#include <animart/fence.h>

static const int degrees[5] = { 0, 7, 15, 31, 63 };
static const int seps[5] = { 0, 3, 1, 3, 1 };

int random_r(struct random_data *buf, int32_t *result)
{
	if (!buf || !result) {
		errno = EINVAL;
		return -1;
	}
	int32_t *state = buf->state;
	if (buf->rand_type == 0) {
		state[0] = (int32_t)(((uint32_t)state[0] * 1103515245U + 12345U) & 0x7fffffff);
		*result = state[0];
		return 0;
	}
	int32_t *f = buf->fptr, *r = buf->rptr, *end = buf->end_ptr;
	uint32_t v = (uint32_t)*f + (uint32_t)*r;
	*f = (int32_t)v;
	*result = (int32_t)(v >> 1);
	if (++f >= end) {
		f = state;
		++r;
	} else if (++r >= end) {
		r = state;
	}
	buf->fptr = f;
	buf->rptr = r;
	return 0;
}

int srandom_r(unsigned seed, struct random_data *buf)
{
	if (!buf || buf->rand_type < 0 || buf->rand_type > 4) {
		errno = EINVAL;
		return -1;
	}
	int32_t *state = buf->state;
	if (seed == 0)
		seed = 1;
	state[0] = (int32_t)seed;
	if (buf->rand_type == 0)
		return 0;
	int32_t word = (int32_t)seed;
	for (int i = 1; i < buf->rand_deg; i++) {
		/* 16807 * word mod 2^31-1 without overflow (Schrage's method) */
		long hi = word / 127773, lo = word % 127773;
		word = (int32_t)(16807 * lo - 2836 * hi);
		if (word < 0)
			word += 2147483647;
		state[i] = word;
	}
	buf->fptr = &state[buf->rand_sep];
	buf->rptr = &state[0];
	for (int k = buf->rand_deg * 10; k > 0; k--) {
		int32_t discard;
		random_r(buf, &discard);
	}
	return 0;
}

/* The word before the table records the type and where rptr is, for
   setstate: glibc's encoding, 5 * (rptr - state) + type. */
static void save_position(struct random_data *buf)
{
	buf->state[-1] = buf->rand_type == 0 ? 0 : (int32_t)(5 * (buf->rptr - buf->state) + buf->rand_type);
}

int initstate_r(unsigned seed, char *statebuf, size_t n, struct random_data *buf)
{
	if (!buf || !statebuf || n < 8) {
		errno = EINVAL;
		return -1;
	}
	int type = n >= 256 ? 4 : n >= 128 ? 3 : n >= 64 ? 2 : n >= 32 ? 1 : 0;
	int32_t *state = (int32_t *)statebuf + 1;
	buf->rand_type = type;
	buf->rand_deg = degrees[type];
	buf->rand_sep = seps[type];
	buf->state = state;
	buf->end_ptr = &state[degrees[type]];
	srandom_r(seed, buf);
	save_position(buf);
	return 0;
}

int setstate_r(char *statebuf, struct random_data *buf)
{
	if (!statebuf || !buf) {
		errno = EINVAL;
		return -1;
	}
	int32_t *new_state = (int32_t *)statebuf + 1;
	if (buf->state)
		save_position(buf);
	int type = new_state[-1] % 5, rear = new_state[-1] / 5;
	if (type < 0 || type > 4) {
		errno = EINVAL;
		return -1;
	}
	buf->rand_type = type;
	buf->rand_deg = degrees[type];
	buf->rand_sep = seps[type];
	buf->state = new_state;
	buf->end_ptr = &new_state[degrees[type]];
	if (type) {
		buf->rptr = &new_state[rear];
		buf->fptr = &new_state[(rear + seps[type]) % degrees[type]];
	}
	return 0;
}

/* The shared generator: TYPE_3 (128 bytes), seeded with 1 at start as
   glibc's is; filled at the first use. */
static int32_t table[32];
static struct random_data shared;
struct spin __rand_lk;       /* (fork holds it: ulib/pthread/pfork.c) */

static void shared_init(void)
{
	if (!shared.state)
		initstate_r(1, (char *)table, sizeof table, &shared);
}

long random(void)
{
	FENCED(random());
	int32_t r;
	spin_lock(&__rand_lk);
	shared_init();
	random_r(&shared, &r);
	spin_unlock(&__rand_lk);
	return r;
}

void srandom(unsigned seed)
{
	FENCED_VOID(srandom(seed));
	spin_lock(&__rand_lk);
	shared_init();
	srandom_r(seed, &shared);
	spin_unlock(&__rand_lk);
}

int rand(void)
{
	FENCED(rand());
	return (int)random();
}

void srand(unsigned seed)
{
	FENCED_VOID(srand(seed));
	srandom(seed);
}

/* initstate/setstate switch the shared generator to the caller's table;
   each returns the previous table (glibc: its first word's address). */
char *initstate(unsigned seed, char *statebuf, size_t n)
{
	spin_lock(&__rand_lk);
	shared_init();
	char *old = (char *)(shared.state - 1);
	save_position(&shared);
	int r = initstate_r(seed, statebuf, n, &shared);
	spin_unlock(&__rand_lk);
	return r ? 0 : old;
}

char *setstate(char *statebuf)
{
	spin_lock(&__rand_lk);
	shared_init();
	char *old = (char *)(shared.state - 1);
	int r = setstate_r(statebuf, &shared);
	spin_unlock(&__rand_lk);
	return r ? 0 : old;
}
