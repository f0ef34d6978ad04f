"""The header names the Open POSIX suite's conformance/definitions found
missing (progs/posix/hdrdefs.c: its build fails without them): at run
time the added error numbers are positive, distinct from each other and
from the kernel's, and strerror knows each. Constants only: one package."""
from helpers import self_test


def test_header_definitions(boot):
    self_test(boot, "hdrdefs", "fifo", 1, at_least=2000)
