/*
 * kmeans (Phoenix's k-means): K clusters of points in D dimensions, by
 * Lloyd's iteration until no point changes cluster: each round, threads
 * (made anew every round, as Phoenix's map phases are) assign their
 * share of the points to the nearest mean and sum them per cluster;
 * main adds the sums and takes integer means. The check: at the end
 * every point's cluster is its nearest mean, and each mean is its
 * cluster's (integer) average.
 */
#include "wl.h"

#define POINTS (8u << 10)             /* times SCALE */
#define D 3
#define K 16
#define MAXROUNDS 200

static int32_t *pts, means[K][D];
static int *cl;
static size_t npts;
static int nthr, changed[WL_MAXT];
static int64_t sums[WL_MAXT][K][D + 1];      /* D sums and a count */

static int nearest(const int32_t *p)
{
	int best = 0;
	int64_t bd = -1;
	for (int k = 0; k < K; k++) {
		int64_t d = 0;
		for (int j = 0; j < D; j++)
			d += (int64_t)(p[j] - means[k][j]) * (p[j] - means[k][j]);
		if (bd < 0 || d < bd)
			bd = d, best = k;
	}
	return best;
}

static void *assign(void *arg)
{
	long me = (long)arg;
	size_t lo, hi;
	wl_part(npts, me, nthr, &lo, &hi);
	memset(sums[me], 0, sizeof sums[me]);
	int ch = 0;
	for (size_t i = lo; i < hi; i++) {
		const int32_t *p = pts + i * D;
		int k = nearest(p);
		ch += k != cl[i];
		cl[i] = k;
		for (int j = 0; j < D; j++)
			sums[me][k][j] += p[j];
		sums[me][k][D]++;
	}
	changed[me] = ch;
	return 0;
}

/* New means from the threads' sums; a cluster left empty keeps its mean. */
static void remean(void)
{
	for (int k = 0; k < K; k++) {
		int64_t tot[D + 1] = {0};
		for (int t = 0; t < nthr; t++)
			for (int j = 0; j <= D; j++)
				tot[j] += sums[t][k][j];
		for (int j = 0; tot[D] && j < D; j++)
			means[k][j] = (int32_t)(tot[j] / tot[D]);
	}
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	npts = (size_t)POINTS * scale;
	pts = wl_alloc(npts * D * 4);
	cl = wl_alloc(npts * sizeof *cl);
	uint64_t s = 7;
	int32_t centre[K][D];
	for (int k = 0; k < K; k++)
		for (int j = 0; j < D; j++)
			centre[k][j] = (int32_t)(wl_rand(&s) % 1000);
	for (size_t i = 0; i < npts; i++) {
		int k = (int)(wl_rand(&s) % K);
		for (int j = 0; j < D; j++)
			pts[i * D + j] = centre[k][j] + (int32_t)(wl_rand(&s) % 201) - 100;
		cl[i] = -1;
	}
	for (int k = 0; k < K; k++)
		memcpy(means[k], pts + (size_t)k * D, sizeof means[k]);
	uint64_t t0 = wl_now();
	int rounds = 0, moved = 1;
	while (moved && rounds < MAXROUNDS) {
		wl_par(nthr, assign);
		remean();
		moved = 0;
		for (int t = 0; t < nthr; t++)
			moved += changed[t];
		rounds++;
	}
	uint64_t ns = wl_now() - t0;
	int ok = !moved;
	int64_t tot[K][D + 1];
	memset(tot, 0, sizeof tot);
	for (size_t i = 0; i < npts; i++) {
		ok &= nearest(pts + i * D) == cl[i];
		for (int j = 0; j < D; j++)
			tot[cl[i]][j] += pts[i * D + j];
		tot[cl[i]][D]++;
	}
	for (int k = 0; k < K; k++)
		for (int j = 0; tot[k][D] && j < D; j++)
			ok &= means[k][j] == tot[k][j] / tot[k][D];
	char extra[64];
	snprintf(extra, sizeof extra, ", \"points\": %zu, \"rounds\": %d", npts, rounds);
	return wl_report("kmeans", nthr, ns, ok, extra);
}
