"""Anima test harness: builds boot ISOs (iso.py) and runs them in QEMU (qemu.py)."""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("ANIMA_BUILD", ROOT / "build"))
