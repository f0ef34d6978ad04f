/*
 * histogram (Phoenix style): the red, green and blue histograms of a
 * 24-bit bitmap's pixels. Each thread counts its share of the pixels
 * into private tables, then merges them under a mutex. The check: the
 * counts the generator made while drawing the pixels, or with -i FILE
 * (a 24-bit BMP: its pixel bytes from the header's data offset on, as
 * Phoenix reads them) a sequential count.
 */
#define WL_INPUT 1
#include "wl.h"

#define PIXELS (3u << 20)             /* times SCALE */

static unsigned char *img;
static size_t npix;
static int nthr;
static uint64_t hist[3][256], want[3][256];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *count(void *arg)
{
	uint64_t h[3][256] = {{0}};
	size_t lo, hi;
	wl_part(npix, (long)arg, nthr, &lo, &hi);
	for (const unsigned char *p = img + 3 * lo; p < img + 3 * hi; p += 3) {
		h[0][p[0]]++;
		h[1][p[1]]++;
		h[2][p[2]]++;
	}
	pthread_mutex_lock(&lock);
	for (int c = 0; c < 3; c++)
		for (int v = 0; v < 256; v++)
			hist[c][v] += h[c][v];
	pthread_mutex_unlock(&lock);
	return 0;
}

/* -o: the pixels as a BMP 1,024 wide (rows of 3,072 bytes need no
   padding), the pixel bytes in the order they were drawn. */
static void save_bmp(void)
{
	unsigned char h[54] = { 'B', 'M' };
	uint32_t w = 1024, rows = (uint32_t)(npix / w), size = 54 + 3 * (uint32_t)npix;
	uint32_t v[][2] = { { 2, size }, { 10, 54 }, { 14, 40 }, { 18, w }, { 22, rows },
			    { 34, 3 * (uint32_t)npix } };
	for (unsigned i = 0; i < sizeof v / sizeof v[0]; i++)
		for (int b = 0; b < 4; b++)
			h[v[i][0] + b] = (unsigned char)(v[i][1] >> 8 * b);
	h[26] = 1, h[28] = 24;            /* one plane, 24 bits a pixel */
	wl_save(h, sizeof h, img, 3 * npix);
}

int main(int argc, char **argv)
{
	int scale;
	wl_args(argc, argv, &nthr, &scale);
	size_t flen;
	unsigned char *file = wl_load(&flen);
	if (file) {
		uint32_t off = flen >= 54 ? file[10] | file[11] << 8 | (uint32_t)file[12] << 16 | (uint32_t)file[13] << 24
				   : 0;
		if (flen < 54 || file[0] != 'B' || file[1] != 'M' || file[28] != 24 || off > flen) {
			printf("histogram: %s is not a 24-bit BMP\n", wl_in);
			return 2;
		}
		img = file + off;
		npix = (flen - off) / 3;
		for (size_t j = 0; j < 3 * npix; j++)
			want[j % 3][img[j]]++;
	} else {
		npix = (size_t)PIXELS * scale;
		img = wl_alloc(3 * npix);
		uint64_t s = 1;
		for (size_t i = 0; i < 3 * npix; i += 8) {
			uint64_t r = wl_rand(&s);
			for (size_t j = i; j < i + 8 && j < 3 * npix; j++, r >>= 8) {
				/* skewed, as photographs are: a few values are common */
				img[j] = (unsigned char)((r & 0x80) ? (r & 0x3f) + 96 : r);
				want[j % 3][img[j]]++;
			}
		}
		save_bmp();
	}
	uint64_t t0 = wl_now();
	wl_par(nthr, count);
	uint64_t ns = wl_now() - t0;
	int ok = !memcmp(hist, want, sizeof hist);
	char extra[64];
	snprintf(extra, sizeof extra, ", \"pixels\": %zu", npix);
	return wl_report("histogram", nthr, ns, ok, extra);
}
