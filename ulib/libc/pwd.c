/*
 * <pwd.h>: two entries, root (uid and gid 0, what a boot program runs
 * as) and nobody (65534, as Linux's systems have it: a user a root
 * program may become with setuid, kernel/cred.c). Any other uid or name
 * is not found: the plain forms
 * return 0 with errno unchanged, the _r forms 0 with *out 0 (glibc's
 * "no such user"); a buffer too small for the strings is ERANGE.
 */
#include <pwd.h>
#include <string.h>
#include <errno.h>

#define NUSER 2
static const char *const field[NUSER][5] = {
	{ "root", "x", "root", "/", "/bin/sh" },
	{ "nobody", "x", "nobody", "/nonexistent", "/bin/sh" },
};
static const uid_t ids[NUSER] = { 0, 65534 };

/* Entry u in pw, its strings in buf (n bytes); 0 or ERANGE. */
static int fill(int u, struct passwd *pw, char *buf, size_t n)
{
	char *f[5];
	size_t used = 0;
	for (int i = 0; i < 5; i++) {
		size_t len = strlen(field[u][i]) + 1;
		if (used + len > n)
			return ERANGE;
		f[i] = memcpy(buf + used, field[u][i], len);
		used += len;
	}
	*pw = (struct passwd){ .pw_name = f[0], .pw_passwd = f[1], .pw_uid = ids[u], .pw_gid = ids[u],
			       .pw_gecos = f[2], .pw_dir = f[3], .pw_shell = f[4] };
	return 0;
}

/* Entry u (-1: none) */
static int lookup(int u, struct passwd *pw, char *buf, size_t n, struct passwd **out)
{
	*out = 0;
	if (u < 0)
		return 0;
	int e = fill(u, pw, buf, n);
	if (!e)
		*out = pw;
	return e;
}

int getpwuid_r(uid_t uid, struct passwd *pw, char *buf, size_t n, struct passwd **out)
{
	int u = -1;
	for (int i = 0; i < NUSER; i++)
		if (ids[i] == uid)
			u = i;
	return lookup(u, pw, buf, n, out);
}

int getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t n, struct passwd **out)
{
	int u = -1;
	for (int i = 0; name && i < NUSER; i++)
		if (!strcmp(name, field[i][0]))
			u = i;
	return lookup(u, pw, buf, n, out);
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

static int walked;                   /* entries getpwent gave */

struct passwd *getpwent(void)
{
	if (walked >= NUSER)
		return 0;
	return getpwuid(ids[walked++]);
}

void setpwent(void) { walked = 0; }
void endpwent(void) { walked = 0; }
