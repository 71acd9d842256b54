"""Run a command with at most a given share of one CPU core: a slow Raspberry Pi on any Linux machine.

A Pi Zero 2 W is several times slower than a laptop core; 10 % of one core is a pessimistic stand-in.
The limit is a cgroup's CPU quota: ``quota / period`` of one core, enforced by the kernel's CFS
scheduler (the process gets ``cpu.cfs_quota_us`` microseconds of CPU in each ``cpu.cfs_period_us``).

- cgroup v1 (``/sys/fs/cgroup/cpu/`` exists): ``mkdir /sys/fs/cgroup/cpu/NAME``, write 10000 to
  ``cpu.cfs_quota_us`` and 100000 to ``cpu.cfs_period_us``, then the PID to ``tasks``.
- cgroup v2 (``/sys/fs/cgroup/cgroup.controllers``): ``mkdir /sys/fs/cgroup/NAME``, write
  ``"10000 100000"`` to ``cpu.max``, then the PID to ``cgroup.procs``.
- Without write access to either (not root, or a container that hides them): ``systemd-run --scope -p
  CPUQuota=10% COMMAND`` does the same where systemd runs; else the figures cannot be taken (said so).

The child joins the group before it runs anything (``preexec_fn``), so its start-up is limited too.

    python benchmarks/cpulimit.py 10 -- python -c "print('slow')"
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

V1 = Path("/sys/fs/cgroup/cpu")
V2 = Path("/sys/fs/cgroup")
PERIOD_US = 100_000


class CpuLimit:
    """A cgroup holding the processes started through it to ``percent`` % of one core."""

    def __init__(self, percent: float):
        self.percent = percent
        self.name = f"monopoly-city-bench-{uuid.uuid4().hex[:8]}"
        quota = int(PERIOD_US * percent / 100)
        if (V1 / "cpu.cfs_quota_us").exists():
            self.path = V1 / self.name
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota))
            self.tasks = self.path / "tasks"
            self.kind = "cgroup v1"
        elif (V2 / "cgroup.controllers").exists():
            self.path = V2 / self.name
            self.path.mkdir()
            (self.path / "cpu.max").write_text(f"{quota} {PERIOD_US}")
            self.tasks = self.path / "cgroup.procs"
            self.kind = "cgroup v2"
        else:
            raise OSError("no cgroup CPU controller here")

    def describe(self) -> str:
        quota = int(PERIOD_US * self.percent / 100)
        return f"{self.percent:g} % of one core ({self.kind} CPU quota {quota} us per {PERIOD_US} us)"

    def join(self) -> None:
        """Put the calling process in the group (from a child's ``preexec_fn``)."""
        with open(self.tasks, "w") as file:
            file.write(str(os.getpid()))

    def popen(self, argv: list[str], **kwargs) -> subprocess.Popen:
        return subprocess.Popen(argv, preexec_fn=self.join, **kwargs)

    def run(self, argv: list[str], **kwargs) -> subprocess.CompletedProcess:
        with self.popen(argv, **kwargs) as process:
            out, err = process.communicate(timeout=kwargs.pop("timeout", None))
        return subprocess.CompletedProcess(argv, process.returncode, out, err)

    def close(self) -> None:
        try:
            self.path.rmdir()  # once its processes have ended
        except OSError:
            pass

    def __enter__(self) -> CpuLimit:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def available(percent: float = 10) -> tuple[bool, str]:
    """Whether a limit can be set here, and why not."""
    try:
        with CpuLimit(percent) as limit:
            return True, limit.describe()
    except OSError as error:
        return False, f"no CPU limit possible here ({error}); run as root on Linux with cgroups"


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    with CpuLimit(float(sys.argv[1])) as limit:
        return limit.run(sys.argv[3:]).returncode


if __name__ == "__main__":
    sys.exit(main())
