/* pkgbench PKG [wall|demo]: the microbenchmarks of threadpkgs/pkgbench.h
   on the package PKG (any folder of threadpkgs/). */
#include <pkgbench.h>
#include "apppkg.h"

int main(int argc, char **argv)
{
	const struct pkg *p = app_args(argc, argv, 2, "pkgbench PKG [wall|demo]");
	pkgbench_main(p, argc > 2 ? argv[2] : 0);
}
