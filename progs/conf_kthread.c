/* conf_kthread [vps=N] [TEST...]: the conformance suite (threadpkgs/conformance.h) on kthread. */
#include <conformance.h>

int main(int argc, char **argv)
{
	const struct pkg *pkgs[] = { &kthread_pkg };
	return conformance_main(pkgs, 1, argc, argv);
}
