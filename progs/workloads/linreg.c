/*
 * linreg (Phoenix's linear regression): the least-squares line through
 * points given as (x, y) byte pairs. Each thread sums x, y, x*x, y*y
 * and x*y over its share of the points; main adds the sums and solves.
 * The check: the sums the generator made while drawing the points (and
 * the slope it drew them around), or with -i FILE (the points as byte
 * pairs, Phoenix's format) the sums of a sequential pass.
 *
 * -f (first word): false sharing, as in Phoenix's original, which DTHREADS
 * measured 7x faster than pthreads: each thread adds into its own
 * entry of part[] in memory at every point, and the entries (40 bytes)
 * share cache lines, so threads on different CPUs fight over the lines.
 * The answer is the same; the result is named linreg_fs.
 */
#define WL_INPUT 1
#include "wl.h"

#define POINTS (4u << 20)             /* times SCALE */

struct sums { uint64_t sx, sy, sxx, syy, sxy; };

static unsigned char *pts;
static size_t npts;
static int nthr;
static struct sums part[WL_MAXT];
static int fshare;                    /* -f: accumulate in part[] directly */

/* Every point's sums stored to part[i] at once (volatile: kept in
   memory, as Phoenix's compiled loop over its adjacent args structs). */
static void *sum_shared(void *arg)
{
	volatile struct sums *s = &part[(long)arg];
	size_t lo, hi;
	wl_part(npts, (long)arg, nthr, &lo, &hi);
	*s = (struct sums){0, 0, 0, 0, 0};
	for (const unsigned char *p = pts + 2 * lo; p < pts + 2 * hi; p += 2) {
		uint64_t x = p[0], y = p[1];
		s->sx += x;
		s->sy += y;
		s->sxx += x * x;
		s->syy += y * y;
		s->sxy += x * y;
	}
	return 0;
}

static void *sum(void *arg)
{
	struct sums s = {0, 0, 0, 0, 0};
	size_t lo, hi;
	wl_part(npts, (long)arg, nthr, &lo, &hi);
	for (const unsigned char *p = pts + 2 * lo; p < pts + 2 * hi; p += 2) {
		uint64_t x = p[0], y = p[1];
		s.sx += x;
		s.sy += y;
		s.sxx += x * x;
		s.syy += y * y;
		s.sxy += x * y;
	}
	part[(long)arg] = s;
	return 0;
}

int main(int argc, char **argv)
{
	int scale;
	if (argc > 1 && !strcmp(argv[1], "-f"))
		fshare = 1, argv[1] = argv[0], argv++, argc--;
	wl_args(argc, argv, &nthr, &scale);
	struct sums want = {0, 0, 0, 0, 0}, got = {0, 0, 0, 0, 0};
	size_t flen;
	pts = wl_load(&flen);
	npts = pts ? flen / 2 : (size_t)POINTS * scale;
	if (!pts) {
		pts = wl_alloc(2 * npts);
		uint64_t s = 2;
		for (size_t i = 0; i < npts; i++) {
			uint64_t r = wl_rand(&s);
			uint64_t x = r & 0xff, y = (x * 3 / 4 + 20 + ((r >> 8) & 0x1f)) & 0xff;
			pts[2 * i] = (unsigned char)x;
			pts[2 * i + 1] = (unsigned char)y;
		}
		wl_save("", 0, pts, 2 * npts);
	}
	for (size_t i = 0; i < npts; i++) {
		uint64_t x = pts[2 * i], y = pts[2 * i + 1];
		want.sx += x, want.sy += y, want.sxx += x * x, want.syy += y * y, want.sxy += x * y;
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, fshare ? sum_shared : sum);
	for (int i = 0; i < nthr; i++) {
		got.sx += part[i].sx, got.sy += part[i].sy, got.sxx += part[i].sxx;
		got.syy += part[i].syy, got.sxy += part[i].sxy;
	}
	double n = (double)npts;
	double b = (n * got.sxy - (double)got.sx * got.sy) / (n * got.sxx - (double)got.sx * got.sx);
	double a = (got.sy - b * got.sx) / n;
	uint64_t ns = wl_now() - t0;
	int ok = !memcmp(&got, &want, sizeof got) && (wl_in || (b > 0.7 && b < 0.8));
	char extra[96];
	snprintf(extra, sizeof extra, ", \"points\": %zu, \"slope_milli\": %d, \"icept_milli\": %d",
		 npts, (int)(b * 1000), (int)(a * 1000));
	return wl_report(fshare ? "linreg_fs" : "linreg", nthr, ns, ok, extra);
}
