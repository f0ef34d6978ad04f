/*
 * atforkloop: a thread loops on pthread_atfork (past the table's limit:
 * ENOMEM) until main, back from a short sleep, sets a flag. On det a
 * call that neither blocks nor turns never passes the token, so main's
 * sleep (logical time) never ended (the public suite's pthread_atfork
 * 3-3; on det=par the loop reached no fence: det.spin after 60 s).
 * Each call is now a turn, as a mutex unlock's.
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static volatile int stop;
static void nop(void) {}

static void *loop(void *a)
{
	unsigned long n = 0;
	for (;;) {
		if (stop)                     /* (det=par: seen at a fence, a turn) */
			break;
		for (int i = 0; i < 100; i++)
			pthread_atfork(nop, nop, nop);
		n++;
	}
	*(unsigned long *)a = n;
	return 0;
}

int main(void)
{
	unsigned long n = 0;
	pthread_t t;
	pthread_create(&t, 0, loop, &n);
	usleep(2000);
	stop = 1;
	pthread_join(t, 0);
	printf("@result {\"name\":\"atforkloop\",\"done\":1}\n");
	return 0;
}
