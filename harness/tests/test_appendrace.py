"""Two processes append records to one file at once (progs/posix/
appendrace.c, issue 34) and every record is checked whole, over many
rounds: any bad record fails.

sep: each process opens the file with O_APPEND itself (confproc's
check: 100 appends of 100 bytes each, 1 KiB blocks), 40 rounds. An
append's first step cut its copy at the block of its open file's offset,
not of the end it appends at, which the other process had moved: the
copy ran past the 1 KiB block (over a neighbour in the cache's 4 KiB
buffer, or past the buffer's page: 'kfree: not a heap block' panics) and
the record's tail stayed zeros. Before the fix 15 of 50 boots of the ten
cases failed (1 to 23 bad records in 40 rounds; tutor at -smp 1 too, and
2 panics); after, 0 of 50."""
import pytest
from helpers import PACKAGES, done, needs_e2fsprogs, program_image, result

pytestmark = needs_e2fsprogs

CASES = {"sep": (40, 100, 100)}


@pytest.mark.parametrize("smp", [1, 2])
@pytest.mark.parametrize("pkg", [p for p in PACKAGES if p != "det"])
@pytest.mark.parametrize("mode", list(CASES))
def test_appends_from_two_processes_land_whole(boot, tmp_path, mode, pkg, smp):
    rounds, n, size = CASES[mode]
    img = program_image(tmp_path, "appendrace")
    r = boot(f"run=appendrace,{mode},{rounds},{n},{size},pkg={pkg}", smp=smp, timeout=300, disk=img)
    res = result(r, "appendrace")
    assert res["rounds"] == rounds and res["failed_rounds"] == 0, res
    assert res["bad_records"] == 0 and res["bad_rounds"] == 0, (res, r.tail())
    done(r, 0)
