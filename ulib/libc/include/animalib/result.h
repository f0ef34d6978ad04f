/*
 * Machine-readable results: one console line
 *     @result {"name": "NAME", "key": value, ...}
 * written with a single sys_cputs (the harness parses these lines).
 *
 *     struct result r;
 *     result_begin(&r, "hello");
 *     result_int(&r, "status", 0);
 *     result_array(&r, "argv");            // opens "argv": [
 *     result_str(&r, NULL, "a");           // NULL key inside an array
 *     result_close(&r);                    // closes the innermost ] or }
 *     result_end(&r);                      // closes the rest and prints
 *
 * The line lives in a fixed buffer. A field that does not fit is dropped
 * whole (a dropped array or object drops its contents too), and the line
 * then ends with "dropped": N. The output is always valid JSON: strings
 * are escaped, non-ASCII bytes become \u00XX, NaN and infinities null.
 */
#ifndef ULIB_RESULT_H
#define ULIB_RESULT_H

#include <stdint.h>

#define RESULT_MAX    2048      /* whole line, with "@result " and '\n' */
#define RESULT_DEPTH  8         /* nesting of arrays/objects */

struct result {
	int len;                    /* bytes in buf */
	int depth;                  /* open containers, buf[0] '{' included */
	int dead;                   /* open containers that were dropped */
	int dropped;                /* fields dropped for lack of room */
	char first[RESULT_DEPTH];   /* no member in this container yet */
	char close[RESULT_DEPTH];   /* its closing bracket */
	char buf[RESULT_MAX];
};

void result_begin(struct result *r, const char *name);
void result_str(struct result *r, const char *key, const char *v);
void result_int(struct result *r, const char *key, int64_t v);
void result_uint(struct result *r, const char *key, uint64_t v);
void result_double(struct result *r, const char *key, double v);
void result_bool(struct result *r, const char *key, int v);
void result_raw(struct result *r, const char *key, const char *json);
void result_array(struct result *r, const char *key);
/* key: [v[0], ..., v[n-1]] */
void result_uints(struct result *r, const char *key, const uint64_t *v, long n);
void result_object(struct result *r, const char *key);
void result_close(struct result *r);
void result_end(struct result *r);
/* result_end without the printing: completes r->buf (r->len bytes, with
 * the "@result " prefix and the newline) and returns its length. */
int result_finish(struct result *r);

#endif
