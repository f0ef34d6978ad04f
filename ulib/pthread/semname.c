/*
 * Named semaphores. Anima has no file system and a POSIX program is one
 * process, so the names are a list within the program: sem_open of a
 * name that is there returns the same sem_t (as glibc does for a second
 * open in one process), counted; sem_unlink removes the name at once and
 * the semaphore goes when its last sem_close comes. Names as glibc takes
 * them: leading slashes skipped, then 1..NAME_MAX-4 bytes without '/'.
 */
#include <semaphore.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

struct named {
	sem_t sem;                   /* first: a sem_t * is the struct's address */
	struct named *next;
	int refs;
	int linked;                  /* still in the list (not unlinked) */
	char name[NAME_MAX + 1];
};

static struct named *list;       /* linked names, and unlinked ones still open */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The name to use, or 0 with errno set. */
static const char *check(const char *name)
{
	while (*name == '/')
		name++;
	size_t n = strlen(name);
	if (n == 0 || strchr(name, '/')) {
		errno = EINVAL;
		return 0;
	}
	if (n > NAME_MAX - 4) {          /* glibc: "sem." + name must fit NAME_MAX */
		errno = ENAMETOOLONG;
		return 0;
	}
	return name;
}

static struct named *find(const char *name)
{
	for (struct named *s = list; s; s = s->next)
		if (s->linked && strcmp(s->name, name) == 0)
			return s;
	return 0;
}

sem_t *sem_open(const char *name, int oflag, ...)
{
	unsigned value = 0;
	if (oflag & O_CREAT) {
		va_list ap;
		va_start(ap, oflag);
		(void)va_arg(ap, int);   /* mode: there are no permissions to check */
		value = va_arg(ap, unsigned);
		va_end(ap);
	}
	name = check(name);
	if (!name)
		return SEM_FAILED;
	pthread_mutex_lock(&lock);
	struct named *s = find(name);
	int e = 0;
	if (s) {
		if ((oflag & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
			e = EEXIST;
		else
			s->refs++;
	} else if (!(oflag & O_CREAT)) {
		e = ENOENT;
	} else if (value > SEM_VALUE_MAX) {
		e = EINVAL;
	} else if (!(s = calloc(1, sizeof *s))) {
		e = ENOMEM;
	} else {
		sem_init(&s->sem, 1, value);
		strcpy(s->name, name);
		s->refs = 1;
		s->linked = 1;
		s->next = list;
		list = s;
	}
	pthread_mutex_unlock(&lock);
	if (e) {
		errno = e;
		return SEM_FAILED;
	}
	return &s->sem;
}

static void drop(struct named *s)    /* lock held; s has no opens and no name */
{
	for (struct named **p = &list; *p; p = &(*p)->next)
		if (*p == s) {
			*p = s->next;
			break;
		}
	free(s);
}

int sem_close(sem_t *sem)
{
	int e = EINVAL;
	pthread_mutex_lock(&lock);
	for (struct named *s = list; s; s = s->next)
		if (&s->sem == sem && s->refs > 0) {
			e = 0;
			if (--s->refs == 0 && !s->linked)
				drop(s);
			break;
		}
	pthread_mutex_unlock(&lock);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

int sem_unlink(const char *name)
{
	name = check(name);
	if (!name) {
		if (errno == EINVAL)
			errno = ENOENT;      /* glibc: a bad name is not there */
		return -1;
	}
	pthread_mutex_lock(&lock);
	struct named *s = find(name);
	if (s) {
		s->linked = 0;
		if (s->refs == 0)
			drop(s);
	}
	pthread_mutex_unlock(&lock);
	if (!s) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}
