"""
Disk images from host folders and back (e2fsprogs): `--disk DIR` on
`python3 -m harness run` makes an ext2 image of DIR (the host's DIR/x/y is
the guest's /x/y), and `--out OUTDIR` copies the image's whole tree back
after the run (the guest's /x/y lands at OUTDIR/x/y). A `--disk` that is
a file is attached as it is.
"""
import shutil
import subprocess
from pathlib import Path


def tool(name):
    path = shutil.which(name) or f"/usr/sbin/{name}"
    if not Path(path).exists():
        raise FileNotFoundError(f"{name} missing: install e2fsprogs (tools/setup.sh)")
    return path


def tree_bytes(folder):
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file())


def make_image(folder, image, block=4096):
    """An ext2 image of `folder` at `image`: twice its bytes plus 16 MiB,
    at least 64 MiB, with 256-byte inodes (room for the nanoseconds and
    the dates past 2038 of kernel/ext2time.c, whatever mke2fs.conf says)."""
    size = max(64 << 20, 2 * tree_bytes(folder) + (16 << 20))
    subprocess.run([tool("mke2fs"), "-q", "-F", "-t", "ext2", "-b", str(block), "-I", "256", "-d", str(folder),
                    str(image), f"{size // 1024}k"], check=True, capture_output=True)
    return image


def copy_back(image, outdir):
    """The image's tree into outdir (made if missing)."""
    Path(outdir).mkdir(parents=True, exist_ok=True)
    subprocess.run([tool("debugfs"), "-R", f"rdump / {outdir}", str(image)], check=True,
                   capture_output=True)
