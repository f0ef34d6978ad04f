/* conf_tutor [vps=N] [TEST...]: the conformance suite (threadpkgs/conformance.h) on tutor. */
#include <conformance.h>

int main(int argc, char **argv)
{
	const struct pkg *pkgs[] = { &tutor_pkg };
	return conformance_main(pkgs, 1, argc, argv);
}
