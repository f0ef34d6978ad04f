/* The fence hook (<animart/fence.h>): 0 unless a package that isolates
   its threads (det=par) or passes a token at synchronizations (det)
   installs one; and the inline mutex paths' free
   and held values, which det and det=par make -1 so that those paths fail. */
#include <animart/fence.h>

int (*__fence_hook)(int enter);
int __fence_mx_free = 0, __fence_mx_held = 1;
const struct fence_heap *__fence_heap;
int __fence_sync_only;
void *__fence_quiet_by;              /* fence_quiet: serial det's holder, its turns */
long __fence_quiet_left;

int __fence_enter(void)
{
	int (*h)(int) = __fence_hook;
	return h ? h(1) : 0;
}

int __fence_sync(void)
{
	int (*h)(int) = __fence_hook;
	return h ? h(FENCE_SYNC) : 0;
}

void __fence_exit(void)
{
	int (*h)(int) = __fence_hook;
	if (h)
		h(0);
}
