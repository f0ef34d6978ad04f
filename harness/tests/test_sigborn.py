"""A kill of the process while threads are being made, each blocking
the signal by the mask it inherits (progs/posix/sigborn.c), on every
package, det and det=par, at -smp 1 and 2: every handler run is in the one thread that
lets the signal through, with its mask. A new thread may start on
another VP before its creator gives it its mask (ulib/libc/signal.c,
__sig_inherit); its slot blocks everything until then (born), so that
a signal for the process is neither handed to it nor taken by it.
Counted: 100 signals, each handled once."""
import pytest
from helpers import done, only, PKGS_PAR, pkg_cases


@pytest.mark.parametrize("pkg,smp", pkg_cases(PKGS_PAR))
def test_handler_only_where_unblocked(boot, pkg, smp):
    r = boot(f"run=sigborn,pkg={pkg},100", smp=smp, timeout=240)
    res = only(r, "result", name="sigborn")
    assert res["failures"] == 0 and res["runs"] == 100, r.tail()
    assert res["wrong_thread"] == 0 and res["wrong_mask"] == 0, r.tail()
    done(r)
