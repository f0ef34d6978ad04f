/* Microbenchmarks of the fifo package: see threadpkgs/pkgbench.h. */
#include <pkgbench.h>

int main(void)
{
	pkgbench_main(&fifo_pkg);
}
