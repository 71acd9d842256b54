"""32-bit Raspberry Pi OS, measured rather than assumed: does ``pip install`` of the pinned packages work on armv7l?

A Debian 12 armhf root (Raspberry Pi OS 32-bit's base, Python 3.11) is made with mmdebstrap and run
through qemu-user; in it, a venv as install.sh makes it (``--system-site-packages``) installs the
project with ``-c systemd/constraints.txt`` from PyPI. The result goes in docs/dev/system-test.md.
Not part of ``make system-test`` (it needs PyPI): ``python3 -m systemtest.armhf``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from systemtest.image import MIRROR, SUITE, cache_root, ensure_binfmt


def main() -> int:
    repo = Path(__file__).resolve().parent.parent
    root = cache_root() / "armhf-root"
    log = sys.stdout
    if not (root / "usr/bin/python3").exists():
        ensure_binfmt(log)
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run(["update-binfmts", "--enable", "qemu-arm"], check=False)
        subprocess.run(
            ["mmdebstrap", "--mode=root", "--variant=apt", "--arch=armhf",
             "--include=python3-venv,ca-certificates", SUITE, str(root), MIRROR],
            check=True,
        )  # fmt: skip
    work = Path(tempfile.mkdtemp(dir=root / "tmp"))
    for name in ("pyproject.toml", "README.md", "unit", "systemd"):
        source = repo / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, work / name)
    inside = "/" + str(work.relative_to(root))
    script = (
        f"cd {inside} && uname -m && python3 --version && python3 -m venv --system-site-packages venv && "
        "venv/bin/pip install --disable-pip-version-check --only-binary=:all: -c systemd/constraints.txt "
        "'.[pi,web]' 2>&1; echo \"pip exit status: $?\""
    )
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    result = subprocess.run(["chroot", str(root), "sh", "-c", script], capture_output=True, text=True)
    print(result.stdout[-4000:], result.stderr[-2000:])
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
