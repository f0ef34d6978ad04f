/*
 * @result lines (see result.h). Each field is appended tentatively: if
 * it would eat into the room kept for closing brackets and the "dropped"
 * note, the buffer is cut back to where the field began.
 */
#include <animalib/result.h>
#include <stdio.h>
#include <animalib/ulib.h>
#include <string.h>

#define PREFIX   "@result "
#define RESERVE  32          /* room for ', "dropped": N' and "}\n" */

/* Bytes that must stay free: one closer per open container + RESERVE. */
static int room(struct result *r)
{
	return RESULT_MAX - RESERVE - r->depth - r->len;
}

static void put(struct result *r, const char *s, int n)
{
	/* Writes may run past room() into the reserve; field_end checks. */
	if (r->len + n > RESULT_MAX)
		n = RESULT_MAX - r->len;
	memcpy(r->buf + r->len, s, (size_t)n);
	r->len += n;
}

static void puts_(struct result *r, const char *s)
{
	put(r, s, (int)strlen(s));
}

static void put_json_string(struct result *r, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	char esc[6];
	put(r, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)(s ? s : "(null)"); *p; p++) {
		if (room(r) < 0)
			break;   /* field_end will drop it */
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			put(r, esc, 2);
		} else if (c == '\n') {
			put(r, "\\n", 2);
		} else if (c == '\t') {
			put(r, "\\t", 2);
		} else if (c == '\r') {
			put(r, "\\r", 2);
		} else if (c < 0x20 || c >= 0x7f) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			put(r, esc, 6);
		} else
			put(r, (const char *)p, 1);
	}
	put(r, "\"", 1);
}

/* Start a field: returns the length to roll back to, or -1 if the field
 * belongs to a dropped container. Writes the separator and key. */
static int field_begin(struct result *r, const char *key)
{
	if (r->dead) {
		r->dropped++;
		return -1;
	}
	int mark = r->len;
	if (!r->first[r->depth - 1])
		put(r, ", ", 2);
	if (key) {
		put_json_string(r, key);
		put(r, ": ", 2);
	}
	return mark;
}

/* Finish a field: keep it if it fit, else cut back to mark. */
static int field_end(struct result *r, int mark)
{
	if (mark < 0)
		return 0;
	if (room(r) < 0) {
		r->len = mark;
		r->dropped++;
		return 0;
	}
	r->first[r->depth - 1] = 0;
	return 1;
}

void result_begin(struct result *r, const char *name)
{
	r->len = 0;
	r->dead = 0;
	r->dropped = 0;
	r->depth = 1;
	r->first[0] = 1;
	r->close[0] = '}';
	puts_(r, PREFIX "{");
	result_str(r, "name", name);
}

void result_str(struct result *r, const char *key, const char *v)
{
	int mark = field_begin(r, key);
	if (mark >= 0)
		put_json_string(r, v);
	field_end(r, mark);
}

static void number(struct result *r, const char *key, const char *f, ...)
{
	char tmp[48];
	va_list ap;
	va_start(ap, f);
	vsnprintf(tmp, sizeof tmp, f, ap);
	va_end(ap);
	result_raw(r, key, tmp);
}

void result_int(struct result *r, const char *key, int64_t v)
{
	number(r, key, "%lld", (long long)v);
}

void result_uint(struct result *r, const char *key, uint64_t v)
{
	number(r, key, "%llu", (unsigned long long)v);
}

void result_double(struct result *r, const char *key, double v)
{
	if (v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
		result_raw(r, key, "null");     /* JSON has no NaN or Infinity */
	else
		number(r, key, "%.15g", v);
}

void result_bool(struct result *r, const char *key, int v)
{
	result_raw(r, key, v ? "true" : "false");
}

void result_raw(struct result *r, const char *key, const char *json)
{
	int mark = field_begin(r, key);
	if (mark >= 0)
		puts_(r, json);
	field_end(r, mark);
}

static void open_container(struct result *r, const char *key, char open, char close)
{
	int mark = -1;
	if (r->depth < RESULT_DEPTH)
		mark = field_begin(r, key);   /* -1 inside a dropped container */
	else
		r->dropped++;                 /* too deep: dropped like a field */
	if (mark >= 0) {
		put(r, &open, 1);
		r->depth++;                   /* from now on its closer is reserved */
		if (room(r) >= 0) {
			r->first[r->depth - 2] = 0;
			r->first[r->depth - 1] = 1;
			r->close[r->depth - 1] = close;
			return;
		}
		r->depth--;
		r->len = mark;
		r->dropped++;
	}
	r->dead++;                            /* swallow its fields and close */
}

void result_array(struct result *r, const char *key)
{
	open_container(r, key, '[', ']');
}

void result_uints(struct result *r, const char *key, const uint64_t *v, long n)
{
	result_array(r, key);
	for (long i = 0; i < n; i++)
		result_uint(r, 0, v[i]);
	result_close(r);
}

void result_object(struct result *r, const char *key)
{
	open_container(r, key, '{', '}');
}

void result_close(struct result *r)
{
	if (r->dead) {
		r->dead--;
		return;
	}
	if (r->depth > 1) {
		r->depth--;
		put(r, &r->close[r->depth], 1);
	}
}

int result_finish(struct result *r)
{
	r->dead = 0;
	while (r->depth > 1)
		result_close(r);
	if (r->dropped) {
		char tmp[RESERVE];
		int n = snprintf(tmp, sizeof tmp, ", \"dropped\": %d", r->dropped);
		put(r, tmp, n);
	}
	put(r, "}\n", 2);
	return r->len;
}

void result_end(struct result *r)
{
	stdout_line(r->buf, (size_t)result_finish(r));
}
