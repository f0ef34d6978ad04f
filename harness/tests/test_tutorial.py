"""docs/writing-a-thread-package.md builds threadpkgs/tutor/tutor.c step by
step: its ```c code blocks, in order, must be that file, whole — joined by
one blank line each, nothing missing, nothing extra. (Snippets of other
files in the tutorial use other fences.) So the tutorial cannot drift from
the code that the build compiles and the conformance suite runs."""
import re
from harness import ROOT

DOC = ROOT / "docs" / "writing-a-thread-package.md"
SRC = ROOT / "threadpkgs" / "tutor" / "tutor.c"
BLOCK = re.compile(r"^```c\n(.*?)^```$", re.S | re.M)


def test_tutorial_code_is_tutor_c():
    blocks = BLOCK.findall(DOC.read_text())
    assert len(blocks) >= 8, f"only {len(blocks)} ```c blocks in {DOC.name}"
    doc, src = "\n".join(blocks), SRC.read_text()
    if doc != src:
        dl, sl = doc.splitlines(), src.splitlines()
        n = next((i for i, (a, b) in enumerate(zip(dl, sl)) if a != b), min(len(dl), len(sl)))
        raise AssertionError(
            f"{DOC.name} and {SRC.name} differ from line {n + 1} of the file:\n"
            f"  tutorial: {dl[n] if n < len(dl) else '<end>'!r}\n"
            f"  tutor.c:  {sl[n] if n < len(sl) else '<end>'!r}")


def test_tutor_is_found_by_its_folder():
    # The package the tutorial builds is a folder of threadpkgs/: that is
    # all the build, the registry and the conformance suite need.
    import test_conformance
    assert "tutor" in test_conformance.PACKAGES
