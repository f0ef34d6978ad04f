/* Microbenchmarks of the naive package: see threadpkgs/pkgbench.h. */
#include <pkgbench.h>

int main(void)
{
	pkgbench_main(&naive_pkg);
}
