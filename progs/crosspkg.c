/*
 * crosspkg [vps=N] [TEST...]: the conformance suite (threadpkgs/
 * conformance.h) with threads of two packages mixed in every test: fifo
 * runs the program (fifo_pkg.run), and thread i of a test is created by
 * fifo_pkg when i is even, by kthread_pkg when it is odd. So fifo and
 * kthread threads share mutexes, conditions, semaphores and barriers
 * (in the cond test each producer feeds consumers of the other package),
 * block and wake each other, and join each other.
 */
#include <conformance.h>

int main(int argc, char **argv)
{
	const struct pkg *pkgs[] = { &fifo_pkg, &kthread_pkg };
	return conformance_main(pkgs, 2, argc, argv);
}
