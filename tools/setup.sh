#!/usr/bin/env bash
# Install what building and testing Anima needs, if it is missing.
# A fast no-op when everything is there; safe without a terminal (CI).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

# command (or directory) -> Debian package that provides it
need=(
  qemu-system-x86_64:qemu-system-x86
  grub-mkrescue:grub-common
  /usr/lib/grub/i386-pc:grub-pc-bin   # BIOS GRUB: QEMU boots the ISO via BIOS
  xorriso:xorriso
  mformat:mtools
  mke2fs:e2fsprogs                   # disk images for the file tests (debugfs, e2fsck too)
  gcc:gcc
  make:make
  ld:binutils
  nm:binutils
  /usr/lib/x86_64-linux-musl:musl-dev   # its libc.a's math members become build/libm.a
  /usr/include/x86_64-linux-gnu/gnu:libc6-dev   # glibc's libc.a: the Linux runs' static programs (harness/linux.py)
)
pkgs=()
for n in "${need[@]}"; do
  what=${n%%:*} pkg=${n#*:}
  if [[ $what == /* ]]; then [[ -d $what ]] && continue
  else command -v "$what" >/dev/null && continue; fi
  [[ " ${pkgs[*]} " == *" $pkg "* ]] || pkgs+=("$pkg")
done

did=()
if ((${#pkgs[@]})); then
  sudo=; ((EUID == 0)) || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q </dev/null >/dev/null
  $sudo apt-get install -y -q --no-install-recommends "${pkgs[@]}" </dev/null >/dev/null
  did+=("apt: ${pkgs[*]}")
fi

if ! "$PY" -c 'import pytest, xdist, pytest_timeout, matplotlib' 2>/dev/null; then
  # PIP_BREAK_SYSTEM_PACKAGES: allow a Debian (PEP 668) python too.
  PIP_BREAK_SYSTEM_PACKAGES=1 "$PY" -m pip install -q --disable-pip-version-check \
    -r harness/requirements.txt </dev/null
  did+=("pip: $(grep -v '^#' harness/requirements.txt | xargs)")
fi

if ((${#did[@]})); then echo "setup: installed ${did[*]}"; fi
