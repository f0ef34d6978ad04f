/*
 * <pwd.h>: one entry, the one user every program runs as (uid and gid 0,
 * getuid's answer). Any other uid or name is not found: the plain forms
 * return 0 with errno unchanged, the _r forms 0 with *out 0 (glibc's
 * "no such user"); a buffer too small for the strings is ERANGE.
 */
#include <pwd.h>
#include <string.h>
#include <errno.h>

static const char *const field[] = { "root", "x", "root", "/", "/bin/sh" };

/* The entry in pw, its strings in buf (n bytes); 0 or ERANGE. */
static int fill(struct passwd *pw, char *buf, size_t n)
{
	char *f[5];
	size_t used = 0;
	for (int i = 0; i < 5; i++) {
		size_t len = strlen(field[i]) + 1;
		if (used + len > n)
			return ERANGE;
		f[i] = memcpy(buf + used, field[i], len);
		used += len;
	}
	*pw = (struct passwd){ .pw_name = f[0], .pw_passwd = f[1], .pw_uid = 0, .pw_gid = 0,
			       .pw_gecos = f[2], .pw_dir = f[3], .pw_shell = f[4] };
	return 0;
}

static int lookup(int found, struct passwd *pw, char *buf, size_t n, struct passwd **out)
{
	*out = 0;
	if (!found)
		return 0;
	int e = fill(pw, buf, n);
	if (!e)
		*out = pw;
	return e;
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t n, struct passwd **out)
{
	return lookup(uid == 0, pw, buf, n, out);
}

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t n, struct passwd **out)
{
	return lookup(name && !strcmp(name, "root"), pw, buf, n, out);
}

static struct passwd one;
static char strings[64];

struct passwd *getpwuid(uid_t uid)
{
	struct passwd *r;
	getpwuid_r(uid, &one, strings, sizeof strings, &r);
	return r;
}

struct passwd *getpwnam(const char *name)
{
	struct passwd *r;
	getpwnam_r(name, &one, strings, sizeof strings, &r);
	return r;
}

static int walked;                   /* getpwent gave the entry */

struct passwd *getpwent(void)
{
	if (walked)
		return 0;
	walked = 1;
	return getpwuid(0);
}

void setpwent(void) { walked = 0; }
void endpwent(void) { walked = 0; }
