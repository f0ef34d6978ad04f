/*
 * blackscholes (PARSEC style): European call and put prices of a
 * portfolio by the Black-Scholes formula, the normal distribution by a
 * polynomial approximation, each thread a share of the options, the
 * whole portfolio priced ROUNDS times. The check: put-call parity,
 * C - P = S - K e^(-rT), for every option, and the prices of the last
 * round equal those of the first.
 */
#include <math.h>
#include "wl.h"

#define OPTIONS (8u << 10)            /* times SCALE */
#define ROUNDS 24

struct opt { double s, k, r, v, t; };

static struct opt *opts;
static double *call, *put, *call0;
static size_t nopt;
static int nthr;

/* The standard normal distribution function (Abramowitz-Stegun 26.2.17). */
static double cndf(double x)
{
	double ax = fabs(x), k = 1.0 / (1.0 + 0.2316419 * ax);
	double poly = k * (0.319381530 + k * (-0.356563782 + k * (1.781477937 +
		      k * (-1.821255978 + k * 1.330274429))));
	double y = 1.0 - 0.3989422804014327 * exp(-0.5 * ax * ax) * poly;
	return x < 0 ? 1.0 - y : y;
}

static void price(size_t i)
{
	const struct opt *o = &opts[i];
	double sq = o->v * sqrt(o->t);
	double d1 = (log(o->s / o->k) + (o->r + 0.5 * o->v * o->v) * o->t) / sq, d2 = d1 - sq;
	double disc = o->k * exp(-o->r * o->t);
	call[i] = o->s * cndf(d1) - disc * cndf(d2);
	put[i] = disc * cndf(-d2) - o->s * cndf(-d1);
}

static void *work(void *arg)
{
	size_t lo, hi;
	wl_part(nopt, (long)arg, nthr, &lo, &hi);
	for (int r = 0; r < ROUNDS; r++) {
		for (size_t i = lo; i < hi; i++)
			price(i);
		if (r == 0)
			memcpy(call0 + lo, call + lo, (hi - lo) * sizeof *call);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	nopt = (size_t)OPTIONS * scale;
	opts = wl_alloc(nopt * sizeof *opts);
	call = wl_alloc(nopt * 8), put = wl_alloc(nopt * 8), call0 = wl_alloc(nopt * 8);
	uint64_t s = 4;
	for (size_t i = 0; i < nopt; i++) {
		opts[i].s = 20 + (double)(wl_rand(&s) % 8000) / 100;
		opts[i].k = opts[i].s * (0.7 + (double)(wl_rand(&s) % 600) / 1000);
		opts[i].r = 0.01 + (double)(wl_rand(&s) % 80) / 1000;
		opts[i].v = 0.05 + (double)(wl_rand(&s) % 600) / 1000;
		opts[i].t = 0.1 + (double)(wl_rand(&s) % 300) / 100;
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, work);
	uint64_t ns = wl_now() - t0;
	int bad = 0;
	double total = 0;
	for (size_t i = 0; i < nopt; i++) {
		const struct opt *o = &opts[i];
		double parity = call[i] - put[i] - (o->s - o->k * exp(-o->r * o->t));
		bad += fabs(parity) > 1e-6 * o->s || call[i] != call0[i] || call[i] < -1e-9;
		total += call[i];
	}
	char extra[96];
	snprintf(extra, sizeof extra, ", \"options\": %zu, \"rounds\": %d, \"calls_total\": %d",
		 nopt, ROUNDS, (int)total);
	return wl_report("blackscholes", nthr, ns, !bad, extra);
}
