/* conf_fifo [vps=N] [TEST...]: the conformance suite (threadpkgs/conformance.h) on fifo. */
#include <conformance.h>

int main(int argc, char **argv)
{
	const struct pkg *pkgs[] = { &fifo_pkg };
	return conformance_main(pkgs, 1, argc, argv);
}
