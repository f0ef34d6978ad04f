/* glibc's allocator tuning (<malloc.h>): ulib's allocator has none. */
#include <malloc.h>

int mallopt(int param, int value)
{
	(void)param, (void)value;
	return 0;                        /* glibc: 0 is an error (no such parameter here) */
}

int malloc_trim(size_t pad)
{
	(void)pad;
	return 0;                        /* no memory released: see <malloc.h> */
}
