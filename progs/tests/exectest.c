/*
 * exectest: programs from the disk (SYS_spawn by path, kernel/execfile.c).
 *   exectest errors PATH...   spawn each PATH (argv PATH 0) and report what
 *                             the call gave ({"PATH": result}: a status once
 *                             waited for, else -errno); then a bad pointer,
 *                             a path past FPATH_MAX; memory back exactly
 *   exectest threads PKG N PATH   N threads of package PKG on one VP each
 *                             spawn PATH (argv PATH k) and wait for it: every
 *                             child's exit status must be k (k = 1..N); the
 *                             VP's blocking counts say whether a thread, not
 *                             the VP, waited for the disk
 *   exectest one PATH ARGS...   spawn PATH with argv PATH ARGS and wait: its
 *                             status, and memory back exactly (an exec chain)
 *   exectest storm ROUNDS PATH   each round spawns PATH until the kernel
 *                             refuses, then collects every child: how many
 *                             ran, what refused, memory back exactly
 * The test (harness/tests/test_exec.py) makes the disk and the files.
 */
#define CHECK_NAME "exectest"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/wait.h>
#include <animart/sys.h>
#include <animart/pkg.h>
#include <animart/upcall.h>
#include <animalib/result.h>
#include <anima/file.h>
#include <avail.h>
#include <check.h>

static struct result R;

/* Spawn path with argv path, arg and wait: its status, or -errno. */
static long run(const char *path, const char *arg)
{
	const char *argv[] = { path, arg };
	long id = sys_spawn(path, 2, argv);
	if (id < 0)
		return id;
	int st = 0;
	long r = sys_wait((int)id, &st);
	return r == id ? st : -1000;
}

static void errors(int n, char **paths)
{
	long before = avail_settled(1);
	result_object(&R, "cases");
	for (int i = 0; i < n; i++)
		result_int(&R, paths[i], run(paths[i], "0"));
	result_close(&R);
	const char *argv[] = { "x" };
	result_int(&R, "efault", sys_spawn((const char *)0x10, 1, argv));
	static char longp[FPATH_MAX + 10];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	result_int(&R, "toolong", sys_spawn(longp, 1, argv));
	result_int(&R, "avail_lost", before - avail_settled(1));
}

static const char *tpath, *tpkg;
static int tn, tbad;

static void *child(void *arg)
{
	int k = (int)(intptr_t)arg;
	char a[16];
	snprintf(a, sizeof a, "%d", k);
	const char *argv[] = { tpath, a };
	long id = sys_spawn(tpath, 2, argv);
	int st = 0;
	if (id < 0 || waitpid((int)id, &st, 0) != id || !WIFEXITED(st) || WEXITSTATUS(st) != k) {
		printf("exectest: thread %d: spawn %ld status %#x\n", k, id, st);
		__atomic_fetch_add(&tbad, 1, __ATOMIC_RELAXED);
	}
	return arg;
}

static void *tmain(void *arg)
{
	const struct pkg *p = pkg_find(tpkg);
	struct thread *t[64];
	for (int i = 0; i < tn; i++)
		t[i] = p->create(child, (void *)(intptr_t)(i + 1), 0);
	for (int i = 0; i < tn; i++)
		thread_join(t[i]);
	result_str(&R, "pkg", tpkg);
	result_int(&R, "threads", tn);
	result_int(&R, "bad", tbad);
	result_uint(&R, "vp_blocks", vp_pseudo()->blocks);
	result_uint(&R, "vp_unblocks", vp_pseudo()->unblocks);
	CHECK(tbad == 0);
	result_int(&R, "failures", failures);
	result_end(&R);
	return arg;
}

static void storm(int rounds, const char *path)
{
	long before = avail_settled(1), ran = 0, refused = 0, other = 0, err = 0;
	for (int k = 0; k < rounds; k++) {
		long ids[256];
		int n = 0;
		const char *argv[] = { path, "0" };
		for (;;) {
			long id = n < 256 ? sys_spawn(path, 2, argv) : -EINVAL;
			if (id < 0) {
				err = id;
				refused += id == -EAGAIN;
				break;
			}
			ids[n++] = id;
		}
		for (int i = 0; i < n; i++) {
			int st = -1;
			other += sys_wait((int)ids[i], &st) != ids[i] || st != 0;
		}
		ran += n;
	}
	result_int(&R, "ran", ran);
	result_int(&R, "refused", refused);
	result_int(&R, "last_error", err);
	result_int(&R, "bad_children", other);
	result_int(&R, "avail_lost", before - avail_settled(1));
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	result_begin(&R, "exectest");
	result_str(&R, "mode", mode);
	if (!strcmp(mode, "errors")) {
		errors(argc - 2, argv + 2);
	} else if (!strcmp(mode, "threads") && argc == 5) {
		tpkg = argv[2];
		tn = atoi(argv[3]);
		tpath = argv[4];
		if (!pkg_find(tpkg) || tn < 1 || tn > 64)
			return 2;
		pkg_find(tpkg)->run(1, tmain, 0);
	} else if (!strcmp(mode, "one") && argc >= 3) {
		long before = avail_settled(1), id = sys_spawn(argv[2], argc - 2, (const char *const *)argv + 2);
		int st = -1;
		result_int(&R, "status", id < 0 ? id : sys_wait((int)id, &st) == id ? st : -1000);
		result_int(&R, "avail_lost", before - avail_settled(1));
	} else if (!strcmp(mode, "storm") && argc == 4) {
		storm(atoi(argv[2]), argv[3]);
	} else {
		printf("exectest: bad arguments\n");
		return 2;
	}
	result_end(&R);
	return 0;
}
