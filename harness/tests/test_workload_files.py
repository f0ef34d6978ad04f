"""The workloads that read an input in the published suites (histogram: a
24-bit BMP; linreg: (x, y) byte pairs; wordcount and strmatch: text;
dedup: any bytes) take -i FILE and -o FILE (progs/workloads/wl.h). In one
boot on an ext2 disk, each writes its generated input to a file (-o),
then runs again reading it (-i) with another thread count: the second run
checks itself against a sequential pass over the file, and its figures
(pixels, slope, distinct words, matches, chunks) are the generated run's.
The files come back to the host byte for byte what the host-side
generator (the same program built against glibc) writes, e2fsck finds the
image clean, and a missing file or a wrong format is a clear error."""
import subprocess

import pytest
from helpers import done, needs_e2fsprogs, DEBUGFS

from harness import disk, linux
from test_ext2write import fsck_clean

pytestmark = needs_e2fsprogs

READERS = ["histogram", "linreg", "wordcount", "strmatch", "dedup"]
SAME = {"histogram": ["pixels"], "linreg": ["points", "slope_milli", "icept_milli"],
        "wordcount": ["words", "distinct", "top"], "strmatch": ["words", "matches"],
        "dedup": ["bytes", "chunks"]}   # (which of two equal chunks met at once
                                          # is the duplicate is a race: dups, out vary)


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    d = tmp_path_factory.mktemp("wlfiles")
    (d / "tree").mkdir()
    (d / "tree" / "text.txt").write_bytes(b"not a bitmap\n")
    img = d / "fs.img"
    disk.make_image(d / "tree", img)       # 64 MiB: room for the 25 MB of inputs
    return img


def test_workloads_read_their_inputs_from_files(boot, image, tmp_path):
    steps = [f"{w}+pkg=fifo+-o+/{w}.in+2" for w in READERS]
    steps += [f"{w}+pkg=fifo+-i+/{w}.in+3" for w in READERS]
    steps += ["histogram+pkg=fifo+-i+/text.txt", "strmatch+pkg=fifo+-i+/none.in",
              "kmeans+pkg=fifo+-i+/text.txt"]
    r = boot("run=benchseq," + ",".join(steps), smp=2, timeout=600, disk=image, mem="1G")
    got = {}
    for x in r.results:
        got.setdefault(x.get("workload"), []).append(x)
    for w in READERS:
        gen, read = got[w]
        assert gen["check"] == read["check"] == "ok", (gen, read)
        assert (gen["threads"], read["threads"]) == (2, 3), (gen, read)
        assert [gen[k] for k in SAME[w]] == [read[k] for k in SAME[w]], (gen, read)
    exits = [(e["prog"], e["status"]) for e in r.events("exit")]
    assert exits[-4:-1] == [("histogram", 2), ("strmatch", 3), ("kmeans", 2)], exits
    out = r.tail(200)
    assert "histogram: /text.txt is not a 24-bit BMP" in out, out
    assert "workload: cannot read /none.in: No such file or directory" in out, out
    assert "usage: kmeans [THREADS" in out, out
    done(r, 1)                        # benchseq: some child failed (the three above)
    fsck_clean(image)

    # the guest's files are what the host-side build of the same program writes
    back = tmp_path / "back"
    back.mkdir()
    subprocess.run([DEBUGFS, "-R", f"rdump / {back}", str(image)], check=True, capture_output=True)
    try:
        host = {w: linux.compile_static(linux.source(w), tmp_path / w) for w in READERS}
    except (RuntimeError, FileNotFoundError) as e:
        pytest.skip(f"no static glibc build on this host: {e}")
    for w in READERS:
        subprocess.run([str(host[w]), "-o", str(tmp_path / f"{w}.host"), "2"], check=True,
                       capture_output=True, timeout=120)
        assert (back / f"{w}.in").read_bytes() == (tmp_path / f"{w}.host").read_bytes(), w


def test_linux_reads_the_same_input_file(built, tmp_path):
    """The Linux harness puts a host file in the guest (linux.run files=),
    and the glibc build reads it as Anima's does: same figures."""
    try:
        linux.kernel()
        prog = linux.compile_static(linux.source("linreg"), tmp_path / "linreg")
    except (linux.LinuxUnavailable, RuntimeError, FileNotFoundError) as e:
        pytest.skip(f"no Linux beside us here: {e}")
    subprocess.run([str(prog), "-o", str(tmp_path / "pts.in"), "1"], check=True,
                   capture_output=True, timeout=120)
    r = linux.run(["linreg -i /pts.in 2", "linreg 2"], smp=1, timeout=300,
                  files={"pts.in": tmp_path / "pts.in"})
    assert r.kind == "done" and r.status == 0, r.tail()
    read, gen = r.results
    assert read["check"] == gen["check"] == "ok", r.tail()
    assert [read[k] for k in SAME["linreg"]] == [gen[k] for k in SAME["linreg"]], (read, gen)
