/*
 * mkstemp, mkdtemp, tmpfile, shm_open with a MAP_SHARED map across a
 * fork; <pwd.h>, sysinfo, sysconf and pathconf values as glibc gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysinfo.h>
#include <sys/resource.h>
#include "conf.h"

void conf_tmp(void)
{
	conf_area = "tmp";
	struct stat st;
	umask(022);
	char t[] = "/conf.XXXXXX", t2[] = "/conf.XXXXXX";
	int fd = mkstemp(t);
	K(fd >= 0 && strncmp(t, "/conf.", 6) == 0 && strcmp(t + 6, "XXXXXX") != 0);
	K(fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
	K((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
	int fd2 = mkstemp(t2);
	K(fd2 >= 0 && strcmp(t, t2) != 0);
	K(write(fd, "m", 1) == 1 && stat(t, &st) == 0 && st.st_size == 1);
	close(fd), close(fd2);
	unlink(t), unlink(t2);
	char bad1[] = "/conf.XXXXX", bad2[] = "/conf.XXXXXXy", bad3[] = "";
	KERR(mkstemp(bad1), EINVAL);
	K(!strcmp(bad1, "/conf.XXXXX"));
	KERR(mkstemp(bad2), EINVAL);
	KERR(mkstemp(bad3), EINVAL);
	char nodir[] = "/conf.none/XXXXXX";
	KERR(mkstemp(nodir), ENOENT);
	char d[] = "/conf.dXXXXXX";
	K(mkdtemp(d) == d && stat(d, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	K(rmdir(d) == 0);
	char bad4[] = "/conf.dXXXX";
	K(mkdtemp(bad4) == 0 && errno == EINVAL);
	FILE *f = tmpfile();
	K(f != 0);
	if (f) {
		char b[8] = { 0 };
		K(fputs("tmp", f) >= 0 && fseek(f, 0, SEEK_SET) == 0);
		K(fread(b, 1, 8, f) == 3 && !strcmp(b, "tmp"));
		fclose(f);
	}

	conf_area = "shm";
	shm_unlink("/confshm");
	fd = shm_open("/confshm", O_RDWR | O_CREAT | O_EXCL, 0600);
	K(fd >= 0);
	KERR(shm_open("/confshm", O_RDWR | O_CREAT | O_EXCL, 0600), EEXIST);
	K(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	K(ftruncate(fd, 8192) == 0 && fstat(fd, &st) == 0 && st.st_size == 8192);
	volatile int *m = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	K(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return;
	K(m[0] == 0 && m[2047] == 0);
	int a[2], b[2];
	pipe(a), pipe(b);
	char c;
	pid_t p = fork();
	if (p == 0) {
		m[0] = 11, m[2047] = 12;
		write(a[1], "x", 1);
		read(b[0], &c, 1);
		_exit(m[1] == 21 ? 0 : 1);
	}
	K(read(a[0], &c, 1) == 1 && m[0] == 11 && m[2047] == 12);
	m[1] = 21;
	write(b[1], "x", 1);
	K(conf_status(p) == 0);
	/* another open of the name sees the same object */
	int fd3 = shm_open("/confshm", O_RDONLY, 0);
	int v = 0;
	K(fd3 >= 0 && pread(fd3, &v, sizeof v, 0) == sizeof v && v == 11);
	close(fd3);
	/* glibc's names: any number of leading slashes, none too; a '/'
	   further on, or nothing after the slashes, is no name */
	v = 0;
	fd3 = shm_open("confshm", O_RDONLY, 0);
	K(fd3 >= 0 && pread(fd3, &v, sizeof v, 0) == sizeof v && v == 11);
	close(fd3);
	fd3 = shm_open("//confshm", O_RDONLY, 0);
	K(fd3 >= 0);
	close(fd3);
	KERR(shm_open("/", O_RDWR | O_CREAT, 0600), EINVAL);
	KERR(shm_open("/conf/shm", O_RDWR | O_CREAT, 0600), EINVAL);
	KERR(shm_unlink("conf/shm"), ENOENT);
	char longn[NAME_MAX + 3];
	memset(longn, 'n', NAME_MAX + 1);
	longn[NAME_MAX + 1] = 0;
	KERR(shm_open(longn, O_RDWR | O_CREAT, 0600), ENAMETOOLONG);
	K(shm_unlink("confshm") == 0);
	KERR(shm_unlink("/confshm"), ENOENT);
	fd3 = shm_open("/confshm", O_RDWR | O_CREAT | O_EXCL, 0600);
	K(fd3 >= 0);
	close(fd3);
	K(shm_unlink("/confshm") == 0);
	KERR(shm_unlink("/confshm"), ENOENT);
	KERR(shm_open("/confshm", O_RDWR, 0), ENOENT);
	K(m[0] == 11);                        /* the map outlives the name */
	munmap((void *)m, 8192);
	close(fd);
	close(a[0]), close(a[1]), close(b[0]), close(b[1]);
}

void conf_sysvals(void)
{
	conf_area = "pwd";
	struct passwd *pw = getpwuid(getuid());
	K(pw != 0);
	if (pw) {
		char name[64];
		K(pw->pw_uid == getuid() && pw->pw_name && pw->pw_name[0]);
		K(pw->pw_dir && pw->pw_dir[0] == '/' && pw->pw_shell != 0);
		snprintf(name, sizeof name, "%s", pw->pw_name);
		pw = getpwnam(name);
		K(pw != 0 && pw->pw_uid == getuid());
	}
	errno = 0;
	K(getpwnam("conf-no-such-user") == 0);
	K(getpwuid(54321) == 0);
	struct passwd pwd, *res = 0;
	char buf[512];
	K(getpwuid_r(getuid(), &pwd, buf, sizeof buf, &res) == 0 && res == &pwd);
	K(getpwnam_r("conf-no-such-user", &pwd, buf, sizeof buf, &res) == 0 && res == 0);
	K(getpwuid_r(getuid(), &pwd, buf, 1, &res) == ERANGE && res == 0);

	conf_area = "sysinfo";
	struct sysinfo si;
	K(sysinfo(&si) == 0);
	K(si.mem_unit >= 1 && si.totalram > 0 && si.freeram <= si.totalram);
	K(si.procs >= 1 && si.uptime >= 0);
	long pg = sysconf(_SC_PAGESIZE);
	K((unsigned long long)si.totalram * si.mem_unit / pg ==
	  (unsigned long long)sysconf(_SC_PHYS_PAGES));
	K(sysconf(_SC_AVPHYS_PAGES) > 0 && sysconf(_SC_AVPHYS_PAGES) <= sysconf(_SC_PHYS_PAGES));

	conf_area = "sysconf";
	K(pg == 4096 && getpagesize() == 4096 && sysconf(_SC_PAGE_SIZE) == 4096);
	K(sysconf(_SC_CLK_TCK) == 100);
	struct rlimit rl;
	K(getrlimit(RLIMIT_NOFILE, &rl) == 0 && sysconf(_SC_OPEN_MAX) == (long)rl.rlim_cur);
	K(sysconf(_SC_NPROCESSORS_ONLN) >= 1 &&
	  sysconf(_SC_NPROCESSORS_ONLN) <= sysconf(_SC_NPROCESSORS_CONF));
	K(sysconf(_SC_ARG_MAX) >= 4096);   /* POSIX's least; Anima's is 128 KiB */
	K(sysconf(_SC_CHILD_MAX) == -1 || sysconf(_SC_CHILD_MAX) >= 25);
	K(sysconf(_SC_LINE_MAX) == 2048 && sysconf(_SC_IOV_MAX) == 1024);
	K(sysconf(_SC_HOST_NAME_MAX) == 64);
	errno = 0;
	K(sysconf(-5) == -1 && errno == EINVAL);
	K(pathconf("/", _PC_PATH_MAX) == 4096 && PATH_MAX == 4096);
	K(pathconf("/", _PC_NAME_MAX) == 255);
	K(pathconf("/", _PC_PIPE_BUF) == 4096 && PIPE_BUF == 4096);
	K(pathconf("/", _PC_LINK_MAX) > 0);
	KERR(pathconf("/conf.none", _PC_PATH_MAX), ENOENT);
	KERR(pathconf("/", -5), EINVAL);
	int fds[2];
	pipe(fds);
	K(fpathconf(fds[0], _PC_PIPE_BUF) == 4096);
	close(fds[0]), close(fds[1]);
	KERR(fpathconf(99, _PC_NAME_MAX), EBADF);
}
