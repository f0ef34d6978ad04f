/* Microbenchmarks of the kthread package: see threadpkgs/pkgbench.h. */
#include <pkgbench.h>

int main(void)
{
	pkgbench_main(&kthread_pkg);
}
