"""progs/posix/altjoin.c: a thread on a stack the program gave it
(pthread_attr_setstack, from malloc) blocks on a mutex; another thread
joined to it is cancelled in the join. Every package runs it through.
det=par keeps the heap in every thread's view, so a thread on a heap
stack lost its own frame's stores made after its block's commit when it
resumed on another VP: before the fix, a jump to 0 at -smp 2 and a false
deadlock verdict at -smp 1 (the public suite's pthread_join 4-1). Such a
thread now runs on a stack of the runtime's (threadpkgs/det/par.c)."""
import pytest
from helpers import done, result, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("conf,smp", pkg_cases([f"pkg={p}" for p in PKGS_PAR]))
def test_thread_on_program_stack_joins_and_cancels(boot, conf, smp):
    r = boot(f"run=altjoin,{conf},1,3", smp=smp, timeout=120)
    res = result(r, "altjoin")
    assert res["ok"] == 3 and res["bad"] == 0, r.tail()
    done(r, 0)
