/*
 * forkfresh N [lazy|map]: a thread touches fresh pages and publishes
 * them while main forks N times (default 100); each child checks what
 * it was given. The thread (lazy, the default) walks demand-zero
 * regions (MAP_NORESERVE: each page's first store faults it in), or
 * (map) maps a new page each round (a plain mmap: frames at the call);
 * it writes a page's first word (its address ^ MAGIC), then stores the
 * page's address in a published slot. A child that finds the slot set
 * must find that word in that page: a fork hands the child the memory
 * as it was at one moment of each thread, never a store without the
 * ones before it. Main holds BALLAST pages, so that each fork's copy
 * takes a while and the thread's next fault or mmap waits for it.
 *
 * A fork's copy makes the parent's writable entries read-only, then,
 * its space lock dropped, shoots down the other CPUs' TLBs. A page
 * mapped in that window (the waiting fault's, or a new mapping's) was
 * the parent's alone, and its thread went on to store its address
 * through a still writable entry of the slot's page, shared with the
 * child: the child saw the address, with a zero page or none behind it
 * (kernel/fork.c, space_lock_settled).
 * @result {"name": "forkfresh", "mode": "lazy" or "map", "forks": N,
 *          "bad": children that failed, "pages": pages the thread made}
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <pthread.h>
#include <sched.h>

#define MAGIC 0x5a5aa5a5c3c3d2d2UL
#define PG 4096
#define REGION 4096              /* pages of one demand-zero region, then a new one */
#define BALLAST 16384            /* pages main holds: each fork's copy takes that long */

static volatile uintptr_t slot[2];   /* [0] lazy's, [1] map's */
static volatile int stop;
static volatile long lazy_pages, mapped_pages;

static void put(int k, char *p)
{
	*(volatile uintptr_t *)p = (uintptr_t)p ^ MAGIC;   /* (the first touch: the fault maps it) */
	slot[k] = (uintptr_t)p;
}

/* Every page of a demand-zero region once, then the region goes. */
static void *toucher(void *a)
{
	(void)a;
	while (!stop) {
		char *r = mmap(0, REGION * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (r == MAP_FAILED)
			break;
		for (int i = 0; i < REGION && !stop; i++) {
			put(0, r + i * PG);
			if (++lazy_pages % 64 == 0)
				sched_yield();   /* (det runs one thread at a time: main's turn) */
		}
		slot[0] = 0;
		munmap(r, REGION * PG);
	}
	return 0;
}

/* A new page per round, the last one's unmapped. */
static void *mapper(void *a)
{
	(void)a;
	char *old = 0;
	while (!stop) {
		char *p = mmap(0, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			break;
		put(1, p);
		if (++mapped_pages % 64 == 0)
			sched_yield();
		if (old)
			munmap(old, PG);
		old = p;
	}
	return 0;
}

/* The child: 0, or 1 + the slot whose page lacks its word. */
static int check(void)
{
	for (int k = 0; k < 2; k++) {
		uintptr_t p = slot[k];
		if (p && *(volatile uintptr_t *)p != (p ^ MAGIC))
			return 1 + k;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int map = argc > 2 && !strcmp(argv[2], "map");
	char *b = malloc(BALLAST * PG);
	for (int i = 0; b && i < BALLAST; i++)
		b[i * PG] = 1;
	pthread_t t;
	pthread_create(&t, 0, map ? mapper : toucher, 0);
	while (!slot[map])
		sched_yield();
	int bad = 0;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(check());
		int st = 0;
		pid_t w = waitpid(p, &st, 0);
		if (w == p && WIFEXITED(st) && !WEXITSTATUS(st))
			continue;
		bad++;
		if (w != p)
			printf("forkfresh: fork %d: waitpid %d\n", i, w);
		else if (WIFSIGNALED(st))
			printf("forkfresh: fork %d: signal %d\n", i, WTERMSIG(st));
		else
			printf("forkfresh: fork %d: slot %d's page without its word\n", i,
			       WEXITSTATUS(st) - 1);
	}
	stop = 1;
	pthread_join(t, 0);
	printf("@result {\"name\":\"forkfresh\",\"mode\":\"%s\",\"forks\":%d,\"bad\":%d,\"pages\":%ld}\n",
	       map ? "map" : "lazy", n, bad, map ? mapped_pages : lazy_pages);
	return 0;
}
