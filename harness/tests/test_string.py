"""common/string.c on the host (no QEMU): the kernel and every program
use it, and memcmp compares words, with an overlapping last word and
4-byte pieces for short keys. Built with the host's gcc under other
names and checked against the host's libc on every length to 80, both
buffers at every alignment, the difference at every position (or none)
and both signs."""
import subprocess

from harness import ROOT

NAMES = "memcpy memmove memset memcmp memchr strlen strnlen strcmp strncmp strchr strrchr " \
        "strcpy strncpy strcat strstr".split()

DRIVER = r"""
#include <stdio.h>
#include <string.h>
int an_memcmp(const void *, const void *, size_t);
static int sign(int v) { return (v > 0) - (v < 0); }
int main(void)
{
	static unsigned char a[160], b[160];
	long checks = 0, bad = 0;
	for (size_t n = 0; n <= 80; n++)
		for (int oa = 0; oa < 8; oa++)
			for (int ob = 0; ob < 8; ob++)
				for (long p = -1; p < (long)n; p++)
					for (int up = 0; up < 2; up++) {
						unsigned char *x = a + oa, *y = b + ob;
						for (size_t i = 0; i < n; i++)
							x[i] = y[i] = (unsigned char)(i * 37 + n);
						if (p >= 0) {     /* differ at p, and after it */
							y[p] = (unsigned char)(x[p] + (up ? 1 : -1));
							for (size_t i = p + 1; i < n; i++)
								y[i] = (unsigned char)~x[i];
						}
						int got = an_memcmp(x, y, n);
						int want = p < 0 ? 0 : x[p] - y[p];
						checks++;
						if (got != want || sign(got) != sign(memcmp(x, y, n)))
							if (bad++ < 5)
								printf("n %zu oa %d ob %d p %ld: %d, want %d\n",
								       n, oa, ob, p, got, want);
					}
	printf("checks %ld bad %ld\n", checks, bad);
	return bad != 0;
}
"""


MEMMOVE = r"""
#include <stdio.h>
#include <string.h>
void *an_memmove(void *, const void *, size_t);
int main(void)
{
	static unsigned char got[192], want[192];
	long checks = 0, bad = 0;
	for (size_t n = 0; n <= 80; n++)
		for (int so = 0; so < 24; so++)
			for (int dof = 0; dof < 24; dof++) {
				for (size_t i = 0; i < sizeof got; i++)
					got[i] = want[i] = (unsigned char)(i * 29 + n);
				unsigned char *r = an_memmove(got + 40 + dof, got + 40 + so, n);
				memmove(want + 40 + dof, want + 40 + so, n);
				checks++;
				if (r != got + 40 + dof || memcmp(got, want, sizeof got))
					if (bad++ < 5)
						printf("n %zu src +%d dst +%d\n", n, so, dof);
			}
	printf("checks %ld bad %ld\n", checks, bad);
	return bad != 0;
}
"""


def test_memcmp_against_the_host(tmp_path):
    host_check(tmp_path, DRIVER)


def test_memmove_against_the_host(tmp_path):
    """Every length to 80 with source and destination 0-23 bytes apart
    each way (overlapping down, up and not at all, at every alignment):
    the bytes moved and none beside them touched, the host's memmove
    the model. The upward overlap copies 8 bytes a step from the top."""
    host_check(tmp_path, MEMMOVE)


def host_check(tmp_path, driver):
    """driver, linked with common/string.c under an_ names, ran clean."""
    drv = tmp_path / "drv.c"
    drv.write_text(driver)
    exe = tmp_path / "drv"
    renames = [f"-D{n}=an_{n}" for n in NAMES]
    # string.c alone under -D renames (its header too), the driver with
    # the host's <string.h>: two compilations, one link.
    obj = tmp_path / "string.o"
    subprocess.run(["gcc", "-O2", "-fno-builtin", "-I", str(ROOT / "common/include"), *renames,
                    "-c", str(ROOT / "common/string.c"), "-o", str(obj)], check=True)
    subprocess.run(["gcc", "-O2", str(drv), str(obj), "-o", str(exe)], check=True)
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout
    assert "bad 0" in p.stdout and "checks 0" not in p.stdout, p.stdout
