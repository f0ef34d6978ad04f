/*
 * hello [STATUS] [TEXT...]: says where it runs, reports its argv as a
 * result line, and exits with STATUS (default 0). The harness uses it to
 * check argument passing and exit statuses end to end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animalib/result.h>
#include <animart/sys.h>

int main(int argc, char **argv)
{
	printf("hello from space %ld on cpu %ld\n", sys_getinfo(INFO_SPACE), sys_getinfo(INFO_CPU));

	struct result r;
	result_begin(&r, "hello");
	result_array(&r, "argv");
	for (int i = 0; i < argc; i++)
		result_str(&r, 0, argv[i]);
	result_close(&r);
	result_end(&r);
	return argc > 1 ? atoi(argv[1]) : 0;
}
