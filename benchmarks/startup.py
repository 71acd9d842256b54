"""Start-up: from process start to READY=1 (the hardware open), and the package's import time.

python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time

IMPORTS = "import unit.cli, unit.runtime, unit.gpio, unit.screen, unit.core"


def time_to_ready() -> float:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "notify.sock")
        server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        server.bind(path)
        server.settimeout(30)
        env = dict(os.environ, NOTIFY_SOCKET=path)
        started = time.perf_counter()
        unit = subprocess.Popen(
            [sys.executable, "-m", "unit", "run", "--backend", "gpio", "--pins", "mock"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while server.recv(64) != b"READY=1":
                pass
            ready = time.perf_counter() - started
        finally:
            unit.terminate()
            unit.wait(10)
            server.close()
    return ready


def import_time_ms() -> float:
    """The cumulative import time of the unit's modules, as ``python -X importtime`` reports it."""
    result = subprocess.run([sys.executable, "-X", "importtime", "-c", IMPORTS], capture_output=True, text=True)
    total = 0
    for line in result.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if match and not match.group(2).startswith(" ") and match.group(2).startswith("unit"):
            total += int(match.group(1))
    return total / 1000


def measure(runs: int = 5) -> dict:
    ready = [time_to_ready() for _ in range(runs)]
    imports = [import_time_ms() for _ in range(runs)]
    return {
        "runs": runs,
        "ready_median_s": statistics.median(ready),
        "ready_max_s": max(ready),
        "import_median_ms": statistics.median(imports),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    f = measure(parser.parse_args().runs)
    print(f"process start to READY=1: median {f['ready_median_s'] * 1000:.0f} ms, max {f['ready_max_s'] * 1000:.0f} ms")
    print(f"import time of the package (python -X importtime): median {f['import_median_ms']:.0f} ms")


if __name__ == "__main__":
    main()
