"""A fifo thread's SSE and x87 registers and MXCSR survive its being
interrupted (progs/tests/fpkeep.c): the runtime keeps only the part of
the FXSAVE image the processor defines (FPU_IMAGE, 416 bytes of 512) in
each descriptor. Shown to fail with 400 bytes (XMM15 lost: bad 5). One
VP on one CPU, and two VPs on two CPUs, where threads also resume on
another VP's page."""
import pytest
from helpers import done, result


@pytest.mark.parametrize("vps", [1, 2])
def test_fpu_state_survives_interrupts(boot, vps):
    r = boot(f"run=fpkeep,{vps}", smp=vps, timeout=120)
    res = result(r, "fpkeep")
    assert res["bad"] == 0 and res["ok"] is True, f"{res}\n{r.tail()}"
    # every thread was interrupted mid-spin at least twice (each spins
    # until all have been: a count of events, not of time)
    assert res["threads"] == 3 * vps and res["min_hit"] >= 2, res
    done(r, 0)
