/* conf_naive [vps=N] [TEST...]: the conformance suite (threadpkgs/conformance.h) on naive. */
#include <conformance.h>

int main(int argc, char **argv)
{
	const struct pkg *pkgs[] = { &naive_pkg };
	return conformance_main(pkgs, 1, argc, argv);
}
