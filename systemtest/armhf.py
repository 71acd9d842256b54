"""32-bit Raspberry Pi OS, measured rather than assumed: does ``pip install`` of the pinned packages work on armv7l?

A Debian 12 armhf root (Raspberry Pi OS 32-bit's base, Python 3.11) is made with mmdebstrap and run
through qemu-user; in it, the pip of a venv as install.sh makes it looks for a wheel of each package
pinned in systemd/constraints.txt, on PyPI. The result goes in docs/dev/system-test.md.
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
    # The host's certificate authorities (a proxy may sign PyPI's certificate).
    shutil.copy("/etc/ssl/certs/ca-certificates.crt", root / "etc/ssl/certs/ca-certificates.crt")
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    pinned = [line.split("#")[0].strip() for line in (repo / "systemd/constraints.txt").read_text().splitlines()]
    pinned = [spec for spec in pinned if spec]
    work = Path(tempfile.mkdtemp(dir=root / "tmp"))
    inside = "/" + str(work.relative_to(root))
    checks = " ; ".join(
        f"if venv/bin/pip download -q --no-deps --only-binary=:all: -d wheels '{spec}' >/dev/null 2>&1; "
        f"then echo 'wheel   {spec}'; else echo 'NO WHEEL {spec}'; fi"
        for spec in pinned
    )
    script = (
        f'cd {inside} && echo "$(uname -m), $(python3 --version)" && '
        "python3 -m venv --system-site-packages venv && "
        f"export PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 && {checks}"
    )
    result = subprocess.run(["chroot", str(root), "sh", "-c", script], capture_output=True, text=True)
    print(result.stdout, result.stderr[-2000:])
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
