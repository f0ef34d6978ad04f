/*
 * The environment (<stdlib.h>): `environ`, a null-ended vector of
 * "NAME=VALUE" strings. At start it is the one the kernel put on the
 * initial stack after argv (start.c; docs/abi.md); a forked child has
 * its parent's (a copy of the memory), and exec passes it on (exec.c).
 *
 * The first change copies the vector into one of ours on the heap, which
 * grows by doubling; the strings stay where they are. setenv makes a
 * "NAME=VALUE" string of its own and never frees a replaced one, since
 * a pointer getenv returned may still be in use (glibc keeps them too);
 * putenv puts the caller's string itself in the vector, so changing it
 * later changes the variable. A lock makes the changes safe against one
 * another, though not a getenv against a change (POSIX: not thread-safe).
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <animart/spin.h>

char **environ;
extern char **__environ __attribute__((alias("environ")));

static char **own;               /* environ when it is ours (malloc'd) */
static size_t cap;               /* its room in words, null included */
struct spin __env_lk;       /* (fork holds it: ulib/pthread/pfork.c) */

static int bad_name(const char *name)
{
	return !name || !*name || strchr(name, '=');
}

/* The index of NAME's entry (NAME of n bytes), or that of the null. */
static size_t find(const char *name, size_t n)
{
	size_t i = 0;
	for (; environ && environ[i]; i++)
		if (!strncmp(environ[i], name, n) && environ[i][n] == '=')
			return i;
	return i;
}

static size_t count(void)
{
	size_t n = 0;
	while (environ && environ[n])
		n++;
	return n;
}

/* Room for `more` entries beyond the present ones, in a vector of ours. */
static int room(size_t more)
{
	size_t n = count();
	if (environ == own && n + more + 1 <= cap)
		return 0;
	size_t c = cap ? cap : 16;
	while (c < n + more + 1)
		c *= 2;
	char **v = malloc(c * sizeof *v);
	if (!v)
		return -1;
	if (n)
		memcpy(v, environ, n * sizeof *v);
	v[n] = 0;
	if (own)
		free(own);
	own = environ = v;
	cap = c;
	return 0;
}

char *getenv(const char *name)
{
	if (!name || strchr(name, '='))
		return 0;
	size_t n = strlen(name), i = find(name, n);
	return environ && environ[i] ? environ[i] + n + 1 : 0;
}

/* GNU: getenv, but null in a program run with more privilege than its
   caller's; Anima has no set-user-ID programs, so it is getenv. */
char *secure_getenv(const char *name)
{
	return getenv(name);
}

/* Put s (NAME=..., NAME n bytes) in NAME's place, or add it. */
static int put(char *s, size_t n, int overwrite)
{
	int r = 0;
	struct thread *lt = spin_owner();   /* (its thread: not switched out holding it, as fork waits for it) */
	spin_lock_by(&__env_lk, lt);
	size_t i = find(s, n);
	if (environ && environ[i]) {
		if (overwrite) {
			if (environ == own || room(0) == 0)
				environ[find(s, n)] = s;
			else
				r = -1;
		}
	} else if (room(1) == 0) {
		i = count();
		environ[i] = s;
		environ[i + 1] = 0;
	} else
		r = -1;
	spin_unlock_by(&__env_lk, lt);
	if (r)
		errno = ENOMEM;
	return r;
}

int setenv(const char *name, const char *value, int overwrite)
{
	if (bad_name(name)) {
		errno = EINVAL;
		return -1;
	}
	if (!overwrite && getenv(name))
		return 0;                /* (no string made for nothing) */
	size_t n = strlen(name), m = strlen(value ? value : "");
	char *s = malloc(n + m + 2);
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(s, name, n);
	s[n] = '=';
	memcpy(s + n + 1, value ? value : "", m + 1);
	int r = put(s, n, overwrite);
	if (r || (!overwrite && getenv(name) != s + n + 1))
		free(s);                 /* (set meanwhile: not ours to use) */
	return r;
}

/* putenv("NAME=VALUE") puts the string itself in; a string with no '='
   removes NAME, as glibc does. */
int putenv(char *s)
{
	char *eq = s ? strchr(s, '=') : 0;
	if (!s || !*s || eq == s) {
		errno = EINVAL;
		return -1;
	}
	if (!eq)
		return unsetenv(s);
	return put(s, (size_t)(eq - s), 1);
}

int unsetenv(const char *name)
{
	if (bad_name(name)) {
		errno = EINVAL;
		return -1;
	}
	size_t n = strlen(name);
	int r = 0;
	struct thread *lt = spin_owner();
	spin_lock_by(&__env_lk, lt);
	if (environ && environ[find(name, n)] && (r = room(0)) == 0) {
		size_t i = find(name, n), j = i;   /* every entry of NAME goes */
		for (; environ[i]; i++)
			if (strncmp(environ[i], name, n) || environ[i][n] != '=')
				environ[j++] = environ[i];
		environ[j] = 0;
	}
	spin_unlock_by(&__env_lk, lt);
	if (r)
		errno = ENOMEM;
	return r;
}

int clearenv(void)
{
	struct thread *lt = spin_owner();
	spin_lock_by(&__env_lk, lt);
	if (own)
		free(own);
	own = 0;
	cap = 0;
	environ = 0;
	spin_unlock_by(&__env_lk, lt);
	return 0;
}
