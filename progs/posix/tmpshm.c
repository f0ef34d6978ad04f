/*
 * tmpshm: temporary files and shared memory objects on the disk
 * (ulib/libc/tmpfile.c, shm.c). With a disk: 200 mkstemp files are 200
 * names, each 0600, read back; mkostemps keeps its suffix; bad templates
 * are EINVAL; mkdtemp makes a 0700 directory; tmpfile is read/write and
 * its name is gone after fclose; shm_open creates, EEXIST with O_EXCL,
 * shares bytes through a second descriptor, ftruncate sizes it, a shared
 * mmap sees and makes the same bytes, shm_unlink removes it (ENOENT
 * after); bad names EINVAL. Without
 * a disk (argument "nodisk"): each fails with its error.
 */
#define CHECK_NAME "tmpshm"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <animalib/result.h>
#include <check.h>

static int ntmp(void)
{
	DIR *d = opendir("/tmp");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void temps(void)
{
	static char names[200][32];
	mkdir("/t", 0755);
	for (int i = 0; i < 200; i++) {
		strcpy(names[i], "/t/fileXXXXXX");
		int fd = mkstemp(names[i]);
		CHECK(fd >= 0 && strncmp(names[i], "/t/file", 7) == 0 && strcmp(names[i] + 7, "XXXXXX"));
		struct stat st;
		CHECK(fstat(fd, &st) == 0 && (st.st_mode & 0777) == 0600);
		char b[32];
		CHECK(write(fd, names[i], 13) == 13 && lseek(fd, 0, SEEK_SET) == 0 && read(fd, b, 13) == 13 &&
		      !memcmp(b, names[i], 13));
		close(fd);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(names[i], names[j]));
	}
	char s[] = "/t/sXXXXXX.txt";
	int fd = mkostemps(s, 4, O_CLOEXEC);
	CHECK(fd >= 0 && !strcmp(s + 10, ".txt") && fcntl(fd, F_GETFD) == FD_CLOEXEC);
	close(fd);
	char bad1[] = "/t/short", bad2[] = "/t/XXXXX";
	errno = 0;
	CHECK(mkstemp(bad1) == -1 && errno == EINVAL);
	errno = 0;
	CHECK(mkstemp(bad2) == -1 && errno == EINVAL);
	char dt[] = "/t/dirXXXXXX";
	struct stat st;
	CHECK(mkdtemp(dt) == dt && stat(dt, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	int before = ntmp();
	FILE *f = tmpfile();
	CHECK(f && fputs("temporary\n", f) >= 0 && fseek(f, 0, SEEK_SET) == 0);
	char line[32] = "";
	CHECK(f && fgets(line, sizeof line, f) && !strcmp(line, "temporary\n"));
	CHECK(ntmp() == before + 1);
	CHECK(f && fclose(f) == 0);
	CHECK(ntmp() == before);
}

static void shm(void)
{
	int a = shm_open("/seg", O_RDWR | O_CREAT | O_EXCL, 0600);
	CHECK(a >= 0);
	errno = 0;
	CHECK(shm_open("/seg", O_RDWR | O_CREAT | O_EXCL, 0600) == -1 && errno == EEXIST);
	int b = shm_open("/seg", O_RDWR, 0);
	CHECK(b >= 0 && ftruncate(a, 4096) == 0);
	struct stat st;
	CHECK(fstat(b, &st) == 0 && st.st_size == 4096);
	char m[6] = "";
	CHECK(pwrite(a, "shared", 6, 100) == 6 && pread(b, m, 6, 100) == 6 && !memcmp(m, "shared", 6));
	/* mapped (kernel/fmap.c): a store through one mapping is read through
	   the other descriptor (one space: fmapcoh.c), and the file's bytes
	   show in the mapping */
	char *p = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
	CHECK(p != MAP_FAILED);
	if (p != MAP_FAILED) {
		CHECK(!memcmp(p + 100, "shared", 6));
		memcpy(p + 200, "mapped", 6);
		CHECK(pread(b, m, 6, 200) == 6 && !memcmp(m, "mapped", 6));
		CHECK(munmap(p, 4096) == 0);
	}
	CHECK(fcntl(a, F_GETFD) == FD_CLOEXEC);
	close(a);
	close(b);
	CHECK(shm_unlink("/seg") == 0);
	errno = 0;
	CHECK(shm_unlink("/seg") == -1 && errno == ENOENT);
	errno = 0;
	CHECK(shm_open("/seg", O_RDWR, 0) == -1 && errno == ENOENT);
	int n = shm_open("noslash", O_RDWR | O_CREAT, 0600);   /* (glibc: the slash is optional) */
	CHECK(n >= 0 && close(n) == 0 && shm_unlink("/noslash") == 0);
	errno = 0;
	CHECK(shm_open("/a/b", O_RDWR | O_CREAT, 0600) == -1 && errno == EINVAL);
	/* "." and "..": the directory of the objects and its parent, never
	   an object (glibc: EINVAL; the opens gave EISDIR) */
	CHECK(shm_open("..", O_RDWR | O_CREAT, 0600) == -1 && errno == EINVAL);
	CHECK(shm_open("/.", O_RDONLY, 0) == -1 && errno == EINVAL);
}

static void nodisk(void)
{
	char t[] = "/tmp/xXXXXXX";
	errno = 0;
	CHECK(mkstemp(t) == -1 && errno == EROFS);
	errno = 0;
	CHECK(tmpfile() == 0 && errno == EROFS);
	errno = 0;
	CHECK(shm_open("/s", O_RDWR | O_CREAT, 0600) == -1 && errno == EROFS);
	errno = 0;
	CHECK(shm_open("/s", O_RDWR, 0) == -1 && errno == ENOENT);
}

int main(int argc, char **argv)
{
	struct result r;
	if (argc > 1 && !strcmp(argv[1], "nodisk"))
		nodisk();
	else {
		temps();
		shm();
	}
	result_begin(&r, "tmpshm");
	result_int(&r, "checks", checks);
	result_int(&r, "failures", failures);
	result_end(&r);
	return failures != 0;
}
