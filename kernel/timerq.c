/*
 * A CPU's pending kops by wake time: a pairing heap (Fredman, Sedgewick,
 * Sleator, Tarjan 1986), threaded through the kops themselves.
 *
 * Why not a sorted list: every space may hold MAXKOP_SPACE timed kops,
 * and a list made each insert and each removal walk past all of them,
 * under the global kop_lock with interrupts off. A hostile tree of spaces
 * with thousands of far-off futex timeouts then made every other space's
 * timed wait, timer arming and wake-up pay for walking them. Here an
 * insert is O(1), and taking out the first or any other kop costs
 * O(log n) amortized; nothing allocates, so it cannot fail.
 *
 * Each kop in the heap has its first child (tchild), its next sibling
 * (tsib) and tprev: its parent if it is a first child, else its previous
 * sibling (0 for the root). kop_lock held throughout.
 */
#include "kernel.h"

/* Join two heaps (roots, tsib and tprev clear); the later one becomes
   the first child of the earlier. */
static struct kop *meld(struct kop *a, struct kop *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (b->wake_ns < a->wake_ns) {
		struct kop *t = a;
		a = b;
		b = t;
	}
	b->tprev = a;
	b->tsib = a->tchild;
	if (a->tchild)
		a->tchild->tprev = b;
	a->tchild = b;
	return a;
}

/* Meld a list of sibling heaps into one: pair them left to right, then
   meld the pairs right to left (the two passes that give the bound). */
static struct kop *pairs(struct kop *x)
{
	struct kop *stack = 0;
	while (x) {
		struct kop *a = x, *b = x->tsib;
		x = b ? b->tsib : 0;
		a->tsib = a->tprev = 0;
		if (b)
			b->tsib = b->tprev = 0;
		struct kop *m = meld(a, b);
		m->tsib = stack;         /* (a stack of pairs, through tsib) */
		stack = m;
	}
	struct kop *root = 0;
	while (stack) {
		struct kop *next = stack->tsib;
		stack->tsib = 0;
		root = meld(root, stack);
		stack = next;
	}
	return root;
}

void timerq_insert(struct kop **root, struct kop *op)
{
	op->tchild = op->tsib = op->tprev = 0;
	*root = meld(*root, op);
}

/* Take op (in the heap at *root) out. */
void timerq_remove(struct kop **root, struct kop *op)
{
	if (op != *root) {
		/* cut op's subtree out of its parent's list of children */
		if (op->tprev->tchild == op)
			op->tprev->tchild = op->tsib;
		else
			op->tprev->tsib = op->tsib;
		if (op->tsib)
			op->tsib->tprev = op->tprev;
		*root = meld(*root, pairs(op->tchild));
	} else
		*root = pairs(op->tchild);
	op->tchild = op->tsib = op->tprev = 0;
}
