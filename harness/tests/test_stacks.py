"""Thread stacks as ported pthread code expects them (ulib/rt/stack.c,
progs/posix/bigstack.c): 8 MiB by default, main's too (a kthread main's is
the initial stack, demand-zero below its first 256 KiB), costing only the
pages touched, with nothing mapped below, so an overflow kills the space
with a fault just under the stack. Before, a POSIX thread had a 64 KiB
malloc block: a 1 MiB local array killed the program on every package,
and an overflow ran on into the memory below."""
import pytest
from helpers import PACKAGES, done, only, result, self_test, pkg_cases

MIB = 1 << 20


@pytest.mark.parametrize("pkg,smp", pkg_cases())
def test_big_stacks(boot, pkg, smp):
    self_test(boot, "bigstack", pkg, smp, 260)


@pytest.mark.parametrize("pkg", PACKAGES)
def test_stack_overflow_faults_below_the_stack(boot, pkg):
    r = boot(f"run=bigstack,pkg={pkg},overflow run=hello,0", smp=2, timeout=60)
    top = result(r, "bigstack_top")["addr"]
    ex = only(r, "exit", prog="bigstack")
    assert ex["status"] == -1 and ex["killed"] == "page fault", f"{ex}\n{r.tail()}"
    below = top - int(ex["addr"], 16)
    # Just under the 8 MiB stack (its first frame is near the top, under
    # the TLS block): not somewhere inside it, not far below.
    assert 8 * MIB - 64 * 1024 <= below <= 8 * MIB + 8 * 1024, f"{below:#x} below the top\n{r.tail()}"
    assert any(l.startswith(f"bigstack[space {ex['space']}]: killed: page fault at ")
               for l in r.lines), r.tail()
    assert only(r, "exit", prog="hello")["status"] == 0, r.tail()   # the other space ran on
    done(r, 63)
