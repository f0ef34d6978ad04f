"""stdio on files (ulib/libc/ffile.c, fio.c), the working directory and
relative paths (cwd.c), preadv/readv on files: progs/posix/stdfiles.c
reads a tree made here (harness.disk.make_image) and its figures are
compared with the host's bytes: fgets line by line (lines longer than its
buffer come in pieces), getline, fread in odd-sized pieces, fseek/ftell
at 2,000 offsets checked against pread, four threads sharing one FILE
(each byte read once), chdir and relative paths, realpath, openat/fstatat,
the modes and their errors, writing files in every mode (read back,
appends, an exclusive create, a big file in odd pieces, remove), the
write path through pipes, fclose freeing what fopen took, and exit
flushing a stream left unflushed."""
import random

import pytest
from harness import disk
from helpers import done, only, fnv, needs_e2fsprogs, pkg_cases

pytestmark = needs_e2fsprogs


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    d = tmp_path_factory.mktemp("stdio")
    rng = random.Random(33)
    t = d / "tree" / "t"
    (t / "sub").mkdir(parents=True)
    lines = [bytes(rng.randrange(32, 127) for _ in range(rng.choice([0, 1, 5, 40, 98, 99, 100, 250])))
             for _ in range(3000)]
    (t / "text.txt").write_bytes(b"\n".join(lines) + b"tail without a newline")
    (t / "bin.dat").write_bytes(bytes(rng.randrange(256) for _ in range(300007)))
    (t / "sub" / "inner.txt").write_bytes(b"inner\n")
    image = d / "fs.img"
    disk.make_image(d / "tree", image)
    return image, t


def pieces(data, n):
    """What fgets(buf, n) returns, piece by piece."""
    out, at = [], 0
    while at < len(data):
        end = data.find(b"\n", at, at + n - 1)
        end = at + n - 1 if end < 0 else end + 1
        out.append(data[at:end])
        at = end
    return out


@pytest.mark.parametrize("pkg,smp", pkg_cases(["fifo", "kthread"]))
def test_stdio_on_files(boot, tree, pkg, smp):
    image, t = tree
    r = boot(f"run=stdfiles,pkg={pkg},/t", smp=smp, timeout=120, disk=image)
    text, data = (t / "text.txt").read_bytes(), (t / "bin.dat").read_bytes()
    got = {e.get("part"): e for e in r.events("result") if e.get("name") == "stdfiles"}
    lines = got["lines"]
    want = pieces(text, 100)
    assert lines["pieces"] == len(want) and lines["newlines"] == text.count(b"\n"), lines
    assert lines["hash"] == fnv(text) == lines["getline_hash"], lines
    assert lines["getlines"] == text.count(b"\n") + 1, lines
    assert got["fread"]["size"] == len(data) and got["fread"]["hash"] == fnv(data), got["fread"]
    assert got["seek"]["checked"] == 2000 and got["seek"]["bad"] == 0, got["seek"]
    assert got["shared"]["bytes"] == len(data) and got["shared"]["sum"] == sum(data), got["shared"]
    res = got[None]
    assert res["failures"] == 0, r.tail(40)
    assert res["checks"] >= 100, res
    done(r, 0)
    at_exit = [i for i, l in enumerate(r.lines) if l == "stdfiles: written at exit"]
    last = max(i for i, l in enumerate(r.lines) if l.startswith("@result"))
    assert len(at_exit) == 1 and at_exit[0] > last, r.tail(10)   # exit flushed the stream
