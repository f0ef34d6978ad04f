/*
 * spawner KIND...: runs `fault KIND` for each KIND and collects its exit
 * status (the kernel reports -1 for a space it killed), then runs
 * `hello 0` to show the system is still fine. Exits 0 iff every fault
 * child was killed and hello exited 0.
 */
#include <stdio.h>
#include <animalib/result.h>
#include <animart/sys.h>
#include <errno.h>

/* Spawn prog with argv and wait for it: its exit status, or -(1000 +
 * errno) if a call failed (so that -EPERM is not mistaken for "killed"). */
static int run(const char *prog, int argc, const char *const *argv)
{
	long id = sys_spawn(prog, argc, argv);
	if (id < 0) {
		printf("spawner: spawn %s: %s\n", prog, errname((int)id));
		return (int)(-1000 + id);
	}
	int status = 0;
	long r = sys_wait((int)id, &status);
	if (r != id) {
		printf("spawner: wait %ld: got %ld (%s)\n", id, r, r < 0 ? errname((int)r) : "?");
		return (int)(-1000 + (r < 0 ? r : -EINVAL));
	}
	return status;
}

int main(int argc, char **argv)
{
	struct result r;
	int ok = 1;

	result_begin(&r, "spawner");
	result_array(&r, "children");
	for (int i = 1; i < argc; i++) {
		const char *args[] = { "fault", argv[i] };
		int status = run("fault", 2, args);
		printf("spawner: fault %s -> status %d\n", argv[i], status);
		ok &= status == -1;
		result_object(&r, 0);
		result_str(&r, "kind", argv[i]);
		result_int(&r, "status", status);
		result_close(&r);
	}
	result_close(&r);

	const char *hello[] = { "hello", "0" };
	int after = run("hello", 2, hello);
	printf("spawner: hello 0 -> status %d\n", after);
	ok &= after == 0;
	result_int(&r, "after", after);
	result_end(&r);
	return ok ? 0 : 1;
}
