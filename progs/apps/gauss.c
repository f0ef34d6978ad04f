/*
 * gauss PKG N THREADS VPS [REPS]: Gaussian elimination (Psyche's
 * application table: 33.8 s with kernel-level threads, 22.0 s with
 * user-level threads, SOSP '91).
 *
 *   PKG      thread package: fifo, kthread (or naive, once built)
 *   N        the system is N x N doubles (the table uses 256)
 *   THREADS  worker threads; row i belongs to thread i % THREADS
 *   VPS      virtual processors for the package, 0 = one per CPU
 *            (kthread ignores it: each of its threads is a VP)
 *   REPS     eliminations to time, each on a fresh copy of A (default 1)
 *
 * The kernel is in gauss.h: one barrier per pivot step, so with many
 * threads per processor the package's block/wake cost shows. The time is
 * the elimination only — threads created, run and joined — summed over
 * REPS, read with now_ns() (guest ns: instructions under -icount, else
 * TCG wall clock). The last elimination is checked by back substitution
 * against the known solution and by the residual |A x - b|.
 *
 * Output, one line:
 *   @result {"name": "gauss.PKG", "package": PKG, "unit": "seconds",
 *            "value": S, "seconds": S, "n", "threads", "vps", "reps",
 *            "ok": true|false, "err", "residual", "ncpu"}
 * Exit status 0 iff ok (1 if the check failed, 2 bad arguments, 3 a thread
 * could not be created).
 *
 * Default (the application table), PKG fifo, kthread or naive:
 *   python3 -m harness run gauss PKG 256 16 0 --smp 1 [--icount]
 *   python3 -m harness run gauss PKG 256 16 0 --smp 2
 * Each boot takes a second or two, the elimination 0.03-0.2 s under TCG
 * (46 M instructions under -icount) — except kthread (and naive) at
 * -smp 2, whose barrier rounds sometimes stall: 0.5 s to 20 s seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <animart/sys.h>
#include <animalib/result.h>
#include "gauss.h"

static const struct pkg *P;
static int n, nthreads, nvps, reps;

static void *main_fn(void *arg)
{
	(void)arg;
	struct thread **t = malloc(sizeof *t * (size_t)nthreads);
	if (!t) {
		printf("gauss: out of memory\n");
		return (void *)1;
	}
	uint64_t total = 0;
	for (int r = 0; r < reps; r++)
		total += gauss_eliminate(P, nthreads, t);
	double err = -1, res = -1;
	int ok = gauss_check(&err, &res);

	char name[48];
	snprintf(name, sizeof name, "gauss.%s", P->name);
	struct result rr;
	app_result_begin(&rr, name, P, total);
	result_int(&rr, "n", n);
	result_int(&rr, "threads", nthreads);
	result_int(&rr, "vps", nvps);
	result_int(&rr, "reps", reps);
	result_bool(&rr, "ok", ok);
	result_double(&rr, "err", err);
	result_double(&rr, "residual", res);
	result_int(&rr, "ncpu", sys_getinfo(INFO_NCPU));
	result_end(&rr);
	return (void *)(intptr_t)(ok ? 0 : 1);
}

int main(int argc, char **argv)
{
	P = app_args(argc, argv, 5, "gauss PKG N THREADS VPS [REPS]");
	n = atoi(argv[2]);
	nthreads = atoi(argv[3]);
	nvps = app_vps(argv[4]);
	reps = argc > 5 ? atoi(argv[5]) : 1;
	if (n < 2 || nthreads < 1 || reps < 1) {
		printf("gauss: bad arguments\n");
		return 2;
	}
	if (!gauss_setup(n)) {
		printf("gauss: out of memory\n");
		return 1;
	}
	P->run(nvps, main_fn, 0);
}
