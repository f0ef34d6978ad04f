"""progs/workloads/: the Phoenix- and PARSEC-style programs (our own code)
that make bench runs beside Linux. Each checks its own answer (the
generator's counts, a sequential recomputation, Freivalds' product
check, put-call parity, decoding dedup's output) and prints check "ok";
here all of them run in one boot on fifo and on kthread at -smp 2 with
4 threads, and on Linux (glibc's NPTL). Correctness only: no timing."""
import pytest
from helpers import done

from harness import linux
from harness.experiments import WORKLOADS


def check(r, system):
    got = {x["workload"]: x for x in r.results if "workload" in x}
    assert sorted(got) == sorted(WORKLOADS), r.tail()
    for w, x in got.items():
        assert x["check"] == "ok" and x["threads"] == 4 and x["scale"] == 1, (w, x)
        assert x["name"] == f"workload.{w}.{system}" and x["ns"] > 0, (w, x)


@pytest.mark.parametrize("pkg", ["fifo", "kthread"])
def test_workloads_check_out(boot, pkg):
    steps = ",".join(f"{w}+pkg={pkg}+4" for w in WORKLOADS)
    r = boot(f"run=benchseq,{steps}", smp=2, timeout=300)
    check(r, pkg)
    done(r, 0)


def test_workloads_check_out_on_linux(built):
    try:
        linux.kernel()
    except linux.LinuxUnavailable as e:
        pytest.skip(f"Debian's linux-image-6.1 cannot be had here: {e}")
    r = linux.run([f"{w} 4" for w in WORKLOADS], smp=2, timeout=300)
    assert r.kind == "done" and r.status == 0, r.tail()
    check(r, "linux")
