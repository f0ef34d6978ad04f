/*
 * atomics: the atomics GCC calls instead of inlining (ulib/libc/atomic.c), from
 * racing pthreads the way lock-free code uses them:
 *   - a Treiber stack whose head is a 16-byte {pointer, count} swapped by
 *     C11 atomic_compare_exchange_weak (the count defeats ABA): every node
 *     pushed and popped NT * ROUNDS times is there at the end, once;
 *   - 16-byte fetch_add / add_fetch / fetch_sub from every thread on a
 *     counter that starts just below 2^64, so adds carry into the high
 *     word: the total comes out exact;
 *   - a 24-byte _Atomic struct (the generic, locked path) kept consistent
 *     (a + b == c) under compare-exchange loops, load, store, exchange;
 *   - __sync_*_16 and __atomic_is_lock_free.
 * Each CHECK counts; a failure prints a line. Ends with
 * @result {"name": "atomics", "checks": N, "failures": F}, exit 0 iff F == 0.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CHECK_NAME "atomics"
#include <check.h>

#define NT 4
#define NODES 64
#define ROUNDS 3000

typedef unsigned __int128 u128;

/* ---- a Treiber stack, ABA-counted ---- */

struct node {
	struct node *next;
	int id;
	int held;                        /* 1 while a thread has it popped */
};

struct head {
	struct node *top;
	uintptr_t count;                 /* + 1 at every pop: a reused top differs */
};

static _Atomic struct head stack;
static struct node nodes[NODES];
static atomic_int double_pop;

static void push(struct node *n)
{
	struct head h = atomic_load(&stack), nh;
	do {
		n->next = h.top;
		nh = (struct head){ n, h.count };
	} while (!atomic_compare_exchange_weak(&stack, &h, nh));
}

static struct node *pop(void)
{
	struct head h = atomic_load(&stack), nh;
	do {
		if (!h.top)
			return 0;
		nh = (struct head){ h.top->next, h.count + 1 };
	} while (!atomic_compare_exchange_weak(&stack, &h, nh));
	return h.top;
}

static void *stacker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct node *n = pop();
		if (!n) {
			sched_yield();
			continue;
		}
		if (__atomic_exchange_n(&n->held, 1, __ATOMIC_SEQ_CST))
			atomic_fetch_add(&double_pop, 1);   /* two threads hold it */
		if (i % 128 == 0)
			sched_yield();
		__atomic_store_n(&n->held, 0, __ATOMIC_SEQ_CST);
		push(n);
	}
	return 0;
}

static void test_stack(void)
{
	for (int i = 0; i < NODES; i++) {
		nodes[i].id = i;
		push(&nodes[i]);
	}
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], 0, stacker, 0) == 0);
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	CHECK(atomic_load(&double_pop) == 0);
	int seen[NODES] = { 0 }, n = 0, bad = 0;
	for (struct node *p; (p = pop()); n++)
		if (p < nodes || p >= nodes + NODES || seen[p->id]++)
			bad++;
	CHECK(n == NODES && bad == 0);
	struct head h = atomic_load(&stack);
	CHECK(h.top == 0 && h.count >= NODES);
}

/* ---- a 16-byte counter carrying into its high word ---- */

static _Alignas(16) u128 big;
#define START ((u128)UINT64_MAX - 1000)

static void *adder(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		__atomic_fetch_add(&big, 3, __ATOMIC_RELAXED);
		__atomic_add_fetch(&big, 2, __ATOMIC_SEQ_CST);
		__atomic_fetch_sub(&big, 1, __ATOMIC_ACQ_REL);
		if (i % 256 == 0)
			sched_yield();
	}
	return 0;
}

static void test_counter(void)
{
	__atomic_store_n(&big, START, __ATOMIC_SEQ_CST);
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], 0, adder, 0) == 0);
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	u128 want = START + (u128)NT * ROUNDS * 4;
	u128 got = __atomic_load_n(&big, __ATOMIC_SEQ_CST);
	CHECK(got == want);
	CHECK((uint64_t)(got >> 64) == 1);        /* it did carry */
	/* the other read-modify-writes, once each, single-threaded */
	__atomic_store_n(&big, (u128)0xf0f0 << 64 | 0xff00, __ATOMIC_SEQ_CST);
	CHECK(__atomic_fetch_and(&big, (u128)0xff << 64 | 0x0ff0, __ATOMIC_SEQ_CST) ==
	      ((u128)0xf0f0 << 64 | 0xff00));
	CHECK(__atomic_load_n(&big, __ATOMIC_SEQ_CST) == ((u128)0xf0 << 64 | 0x0f00));
	CHECK(__atomic_or_fetch(&big, 1, __ATOMIC_SEQ_CST) == ((u128)0xf0 << 64 | 0x0f01));
	CHECK(__atomic_xor_fetch(&big, (u128)0xf0 << 64, __ATOMIC_SEQ_CST) == 0x0f01);
	CHECK(__atomic_nand_fetch(&big, 0xff, __ATOMIC_SEQ_CST) == ~(u128)0x01);
	CHECK(__atomic_exchange_n(&big, 7, __ATOMIC_SEQ_CST) == ~(u128)0x01);
	u128 e = 8;
	CHECK(!__atomic_compare_exchange_n(&big, &e, 9, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED) && e == 7);
	CHECK(__atomic_compare_exchange_n(&big, &e, 9, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	CHECK(__sync_val_compare_and_swap(&big, 9, (u128)1 << 100) == 9);
	CHECK(__sync_bool_compare_and_swap(&big, (u128)1 << 100, 5));
	CHECK(!__sync_bool_compare_and_swap(&big, 4, 6));
	CHECK(__sync_fetch_and_add(&big, 1) == 5 && __sync_add_and_fetch(&big, 1) == 7);
	CHECK(__sync_lock_test_and_set(&big, 11) == 7 && big == 11);
}

/* ---- 24 bytes: the generic path, under a lock ---- */

struct trio {
	long a, b, c;                    /* a + b == c, always */
};

static _Atomic struct trio trio;
static atomic_int torn;

static void *trier(void *arg)
{
	long k = (long)(intptr_t)arg + 1;
	for (int i = 0; i < ROUNDS; i++) {
		struct trio o = atomic_load(&trio), n;
		do {
			if (o.a + o.b != o.c)
				atomic_fetch_add(&torn, 1);
			n = (struct trio){ o.a + k, o.b + 1, o.c + k + 1 };
		} while (!atomic_compare_exchange_strong(&trio, &o, n));
		if (i % 256 == 0)
			sched_yield();
	}
	return 0;
}

static void test_generic(void)
{
	atomic_store(&trio, ((struct trio){ 1, 2, 3 }));
	struct trio x = atomic_exchange(&trio, ((struct trio){ 0, 0, 0 }));
	CHECK(x.a == 1 && x.b == 2 && x.c == 3);
	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], 0, trier, (void *)(intptr_t)i) == 0);
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], 0) == 0);
	struct trio f = atomic_load(&trio);
	long ka = 0;
	for (int i = 0; i < NT; i++)
		ka += (long)(i + 1) * ROUNDS;
	CHECK(atomic_load(&torn) == 0);
	CHECK(f.a == ka && f.b == (long)NT * ROUNDS && f.c == f.a + f.b);
	CHECK(!atomic_is_lock_free(&trio));
	CHECK(__atomic_is_lock_free(16, &big) && __atomic_is_lock_free(8, 0));
	CHECK(!__atomic_is_lock_free(16, (char *)&big + 8));   /* misaligned */
}

int main(void)
{
	test_stack();
	test_counter();
	test_generic();
	printf("@result {\"name\": \"atomics\", \"checks\": %d, \"failures\": %d}\n", checks, failures);
	return failures != 0;
}
