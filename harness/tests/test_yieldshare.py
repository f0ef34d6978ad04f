"""progs/posix/yieldshare.c: sched_yield gives the processor up when
another program shares the CPUs. A forked child computes for good; two
threads take turns, one counting, one yielding 4,000 times and counting
the yields after which the count had not moved. On Linux every yield
runs the other (the public suite's sched_yield 1-1 pins both to one
CPU). Before, naive's yield that found nobody queued returned at once
while the VP holding the counter was off its CPU: at -smp 2, 64-831 of
4,000 missed in 9 of 11 runs (0 in two, where the threads shared a VP
throughout; 0 at -smp 1). After, 0 on naive; kthread, unchanged, misses
0-1 (the two may run at once on two CPUs: nothing pins them). (With a
child per CPU fifo misses too, 464: its yield with an empty local queue
keeps the CPU; the public test forks one fewer than the CPUs. tutor at
-smp 2, unchanged, missed 585 in one of three runs: its yield with an
empty queue keeps the CPU too, unless a warning moved the other thread.)"""
import pytest
from helpers import done, result, PKGS_DET, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_DET))
def test_yieldshare(boot, pkg, smp, request):
    if pkg == "tutor" and smp == 2:
        request.node.add_marker(pytest.mark.xfail(reason="tutor's yield keeps the CPU with nobody queued", strict=False))
    r = boot(f"run=yieldshare,pkg={pkg}", smp=smp, timeout=120)
    res = result(r, "yieldshare")
    assert res["yields"] == 4000, res
    assert res["missed"] <= res["yields"] // 200, (pkg, smp, res)
    done(r, 0)
