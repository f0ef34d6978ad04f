/*
 * hdrdefs: names POSIX's headers must declare that ulib's lacked (the
 * Open POSIX suite's conformance/definitions, docs/posix.md), each used
 * here so that the build fails if one goes missing again: <sched.h>'s
 * pid_t (included first, alone), the rest of <errno.h>'s error numbers,
 * <signal.h>'s si_band, POLL_* and SI_ASYNCIO codes, struct sigstack and
 * bsd_signal, <time.h>'s getdate, and <sys/ipc.h>/<sys/shm.h>. At run
 * time it checks that the error numbers are distinct and positive and
 * that strerror knows each.
 */
#include <sched.h>
static int (*const getparam)(pid_t, struct sched_param *) = sched_getparam;
static int (*const setsched)(pid_t, int, const struct sched_param *) = sched_setscheduler;
static int (*const rrint)(pid_t, struct timespec *) = sched_rr_get_interval;

#define CHECK_NAME "hdrdefs"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/shm.h>
#include <animalib/result.h>
#include <check.h>

static const int added[] = {
	EADDRINUSE, EADDRNOTAVAIL, EAFNOSUPPORT, EBADMSG, ECONNABORTED, ECONNREFUSED,
	ECONNRESET, EDESTADDRREQ, EDQUOT, EHOSTUNREACH, EISCONN, EMULTIHOP, ENETDOWN,
	ENETRESET, ENETUNREACH, ENODATA, ENOLINK, ENOPROTOOPT, ENOSR, ENOSTR, ENOTCONN,
	ENOTSOCK, EPROTO, EPROTONOSUPPORT, EPROTOTYPE, ESTALE, ETIME, ETXTBSY,
};
/* the kernel's, which they must not take */
static const int kernels[] = {
	EPERM, ENOENT, ESRCH, EINTR, EIO, ENXIO, E2BIG, ENOEXEC, EBADF, ECHILD, EAGAIN,
	ENOMEM, EACCES, EFAULT, EBUSY, EEXIST, EXDEV, ENODEV, ENOTDIR, EISDIR, EINVAL,
	ENFILE, EMFILE, ENOTTY, EFBIG, ENOSPC, ESPIPE, EROFS, EMLINK, EPIPE, EDOM, ERANGE,
	EDEADLK, ENAMETOOLONG, ENOLCK, ENOSYS, ENOTEMPTY, ELOOP, ENOMSG, EIDRM, EILSEQ,
	EOVERFLOW, EMSGSIZE, ENOTSUP, ENOBUFS, ETIMEDOUT, EALREADY, EINPROGRESS, ECANCELED,
	EOWNERDEAD, ENOTRECOVERABLE,
};
static const int codes[] = {
	POLL_IN, POLL_OUT, POLL_MSG, POLL_ERR, POLL_PRI, POLL_HUP, SI_ASYNCIO,
};

int main(void)
{
	struct result r;
	int n = sizeof added / sizeof added[0], nk = sizeof kernels / sizeof kernels[0];
	for (int i = 0; i < n; i++) {
		CHECK(added[i] > 0 && strncmp(strerror(added[i]), "Unknown", 7));
		for (int j = 0; j < n; j++)
			CHECK(i == j || added[i] != added[j]);
		for (int j = 0; j < nk; j++)
			CHECK(added[i] != kernels[j]);
	}
	CHECK(codes[6] != SI_USER && codes[6] != SI_QUEUE && codes[6] != SI_TIMER && codes[6] != SI_MESGQ);
	siginfo_t si = { .si_band = POLL_HUP };
	struct sigstack ss = { .ss_sp = 0, .ss_onstack = 0 };
	sighandler_t (*bsd)(int, sighandler_t) = bsd_signal;
	struct tm *(*gd)(const char *) = getdate;
	int (*gdr)(const char *, struct tm *) = getdate_r;
	struct shmid_ds ds = { .shm_nattch = 0 };
	struct ipc_perm perm = { .uid = 0, .mode = 0600 };
	key_t k = IPC_PRIVATE;
	int (*get)(key_t, size_t, int) = shmget;
	void *(*at)(int, const void *, int) = shmat;
	int (*dt)(const void *) = shmdt;
	int (*ctl)(int, int, struct shmid_ds *) = shmctl;
	key_t (*tok)(const char *, int) = ftok;
	CHECK(si.si_band == POLL_HUP && !ss.ss_onstack && bsd && gd && gdr && get && at && dt && ctl && tok);
	CHECK(getparam && setsched && rrint && ds.shm_nattch == 0 && perm.mode == 0600 && k == 0);
	CHECK(SHM_RDONLY && SHM_RND && SHMLBA && IPC_CREAT && IPC_EXCL && IPC_NOWAIT && IPC_SET != IPC_STAT);
	getdate_err = 0;
	result_begin(&r, "hdrdefs");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
