/*
 * pca (Phoenix's PCA): the mean of each row of an integer matrix and the
 * covariance matrix of its rows, the first step of a principal
 * component analysis. Threads take rows in turn (row i to thread
 * i mod T, so the triangle's rows of every length are spread); means
 * first, then the covariances. The check: 64 covariances drawn from
 * the seed, recomputed alone.
 */
#include "wl.h"

#define ROWS 128
#define COLS (1024u)                  /* times SCALE */

static int32_t *m;
static int64_t mean[ROWS], *cov;
static size_t cols;
static int nthr;
static pthread_barrier_t bar;

static int64_t covar(int i, int j)
{
	const int32_t *a = m + (size_t)i * cols, *b = m + (size_t)j * cols;
	int64_t s = 0;
	for (size_t k = 0; k < cols; k++)
		s += (a[k] - mean[i]) * (b[k] - mean[j]);
	return s / (int64_t)(cols - 1);
}

static void *work(void *arg)
{
	long me = (long)arg;
	for (int i = (int)me; i < ROWS; i += nthr) {
		int64_t s = 0;
		for (size_t k = 0; k < cols; k++)
			s += m[(size_t)i * cols + k];
		mean[i] = s / (int64_t)cols;
	}
	pthread_barrier_wait(&bar);
	for (int i = (int)me; i < ROWS; i += nthr)
		for (int j = i; j < ROWS; j++)
			cov[i * ROWS + j] = cov[j * ROWS + i] = covar(i, j);
	return 0;
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	cols = (size_t)COLS * scale;
	m = wl_alloc(ROWS * cols * 4);
	cov = wl_alloc(ROWS * ROWS * 8);
	uint64_t s = 8;
	for (size_t i = 0; i < ROWS * cols; i++)
		m[i] = (int32_t)(wl_rand(&s) % 1000) + (int32_t)(i / cols) * 3;
	pthread_barrier_init(&bar, 0, (unsigned)nthr);
	uint64_t t0 = wl_now();
	wl_par(nthr, work);
	uint64_t ns = wl_now() - t0;
	int ok = 1;
	for (int n = 0; n < 64; n++) {
		int i = (int)(wl_rand(&s) % ROWS), j = (int)(wl_rand(&s) % ROWS);
		int64_t sum = 0;
		for (size_t k = 0; k < cols; k++)
			sum += m[(size_t)i * cols + k];
		ok &= mean[i] == sum / (int64_t)cols;
		ok &= cov[i * ROWS + j] == covar(i, j) && cov[j * ROWS + i] == cov[i * ROWS + j];
	}
	char extra[64];
	snprintf(extra, sizeof extra, ", \"rows\": %d, \"cols\": %zu", ROWS, cols);
	return wl_report("pca", nthr, ns, ok, extra);
}
