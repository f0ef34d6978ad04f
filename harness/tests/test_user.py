"""User programs: start with their arguments, exit with their status, and
the run's aggregate status follows the rules in the kernel's @halt."""
import re

import pytest
from helpers import done, only, result


@pytest.mark.parametrize("status", [0, 3, 42, 62])
def test_exit_status(boot, status):
    r = boot(f"run=hello,{status},some,words")
    done(r, status)
    st = only(r, "start", prog="hello")
    ex = only(r, "exit", prog="hello")
    assert ex["status"] == status and ex["space"] == st["space"]
    assert "killed" not in ex
    res = result(r, "hello")
    assert res["argv"] == st["argv"], (res, st)
    assert res["argv"][-3:] == [str(status), "some", "words"]


def test_default_status_and_greeting(boot):
    r = boot("run=hello", smp=2)
    done(r, 0)
    st = only(r, "start", prog="hello")
    assert only(r, "exit", prog="hello")["status"] == 0
    greet = [l for l in r.lines if l.startswith("hello from space")]
    assert len(greet) == 1, r.tail()
    m = re.fullmatch(r"hello from space (\d+) on cpu (\d+)", greet[0])
    assert m and int(m[1]) == st["space"] and 0 <= int(m[2]) < 2, greet


@pytest.mark.parametrize("status,agg", [(63, 63), (64, 63), (100, 63), (255, 63)])
def test_large_status_reports_63(boot, status, agg):
    r = boot(f"run=hello,{status}")
    done(r, agg)
    assert only(r, "exit", prog="hello")["status"] == status


def test_many_spaces_aggregate(boot):
    # Four programs at once, each in its own space. The aggregate is the
    # first nonzero status in command-line order, not in exit order.
    r = boot("run=hello,0 run=hello,7,a run=hello,9,b run=hello,0,c", smp=4)
    done(r, 7)
    starts = r.events("start")
    exits = r.events("exit")
    assert len(starts) == len(exits) == 4, r.tail()
    spaces = [s["space"] for s in starts]
    assert len(set(spaces)) == 4, spaces
    by_space = {e["space"]: e["status"] for e in exits}
    assert sorted(by_space.values()) == [0, 0, 7, 9]
    words = {s["space"]: s["argv"][-1] for s in starts}
    assert by_space[[k for k, w in words.items() if w == "b"][0]] == 9


def test_all_zero_is_zero(boot):
    r = boot("run=hello run=hello,0 run=hello,0,x", smp=2)
    done(r, 0)
    assert [e["status"] for e in r.events("exit")] == [0, 0, 0]
