/*
 * <grp.h>: one entry, root (gid 0, getgid's answer), as pwd.c has one
 * user. Another gid or name is not found: the plain forms return 0 with
 * errno unchanged, the _r forms 0 with *out 0; a buffer too small for
 * the strings and the member list is ERANGE.
 */
#include <grp.h>
#include <string.h>
#include <errno.h>
#include <stdint.h>

/* The entry in gr, its member list (empty) and strings in buf. */
static int fill(struct group *gr, char *buf, size_t n)
{
	size_t pad = (-(uintptr_t)buf) & (sizeof(char *) - 1);
	if (n < pad + sizeof(char *) + sizeof "root" + sizeof "x")
		return ERANGE;
	char **mem = (char **)(void *)(buf + pad);
	mem[0] = 0;
	char *s = buf + pad + sizeof(char *);
	memcpy(s, "root", sizeof "root");
	memcpy(s + sizeof "root", "x", sizeof "x");
	*gr = (struct group){ .gr_name = s, .gr_passwd = s + sizeof "root", .gr_gid = 0, .gr_mem = mem };
	return 0;
}

static int lookup(int found, struct group *gr, char *buf, size_t n, struct group **out)
{
	*out = 0;
	if (!found)
		return 0;
	int e = fill(gr, buf, n);
	if (!e)
		*out = gr;
	return e;
}

int getgrgid_r(gid_t gid, struct group *gr, char *buf, size_t n, struct group **out)
{
	return lookup(gid == 0, gr, buf, n, out);
}

int getgrnam_r(const char *name, struct group *gr, char *buf, size_t n, struct group **out)
{
	return lookup(name && !strcmp(name, "root"), gr, buf, n, out);
}

static struct group one;
static char strings[64] __attribute__((aligned(8)));

struct group *getgrgid(gid_t gid)
{
	struct group *r;
	getgrgid_r(gid, &one, strings, sizeof strings, &r);
	return r;
}

struct group *getgrnam(const char *name)
{
	struct group *r;
	getgrnam_r(name, &one, strings, sizeof strings, &r);
	return r;
}

static int walked;                   /* getgrent gave the entry */

struct group *getgrent(void)
{
	if (walked)
		return 0;
	walked = 1;
	return getgrgid(0);
}

void setgrent(void) { walked = 0; }
void endgrent(void) { walked = 0; }
