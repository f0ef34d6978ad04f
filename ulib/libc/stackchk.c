/* The stack protector's failure path, for code built with it: musl's
   math members in build/libm.a (see tools/mklibm.py). */
#include <animalib/ulib.h>
#include <animart/sys.h>

__attribute__((noreturn)) void __stack_chk_fail(void)
{
	stdout_line("stack smashing detected\n", 24);
	sys_exit(EXIT_ABORT);
}
