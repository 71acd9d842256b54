"""The latency tests on a busy machine (issue 28, item 8): are they red because the machine is busy?

``python benchmarks/busy_latency.py [--runs N] [--hogs N] [--against DIR]`` makes the machine busy the way a
shared one is: ``--hogs`` processes that each keep 300 MB and touch it page by page for ever (CPU, memory
bandwidth, caches), and the browser tests run in a loop (Chromium under Playwright, another Python, a web
service); then it runs ``pytest -m latency`` on the latency tests that need no browser ``--runs`` times, each
time in this tree and, with ``--against``, in another (a worktree of main: ``git worktree add DIR main``),
alternating, so both meet the same minutes; then the rule's own check three times: a display put back on the
timing path must still fail. It prints each run's failures and the load average at its end.

The figures of docs/reliability.md ("The latency tests on a busy machine") come from it. The machine's other
work comes on top (on the shared machine: other sessions' virtual machines and browsers).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LATENCY = ["tests/test_gpio.py", "tests/test_slow_display.py", "tests/test_runtime.py", "tests/test_socket_bound.py"]
NEGATIVE = (
    "tests/test_slow_display.py::test_a_display_put_back_on_the_timing_path_fails_the_contract_however_busy_the_machine"
)
HOG = """
block = bytearray(300 * 1024 * 1024)
while True:
    for i in range(0, len(block), 4096):
        block[i] = (block[i] + 1) & 0xFF
"""
BROWSER = f"while true; do {sys.executable} -m pytest -q -p no:cacheprovider -m browser tests/test_web_browser.py; done"


def load() -> str:
    return " / ".join(f"{v:.1f}" for v in os.getloadavg())


def pytest(tree: Path, *args: str) -> tuple[int, int, list[str]]:
    """Run pytest in ``tree`` (its own ``unit``: the tree is the current folder): (passed, failed or errors,
    the failures' and skips' lines)."""
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfEs", *args],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    passed = sum(int(n) for n in re.findall(r"(\d+) passed", run.stdout))
    failed = sum(int(n) for n in re.findall(r"(\d+) (?:failed|error)", run.stdout))
    lines = [line[:200] for line in run.stdout.splitlines() if line.startswith(("FAILED", "ERROR", "SKIPPED"))]
    return passed, failed, lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--hogs", type=int, default=4)
    parser.add_argument("--against", type=Path, help="another tree to run the same tests in, alternating")
    args = parser.parse_args()
    hogs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(args.hogs)]
    browser = subprocess.Popen(
        ["bash", "-c", BROWSER], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    trees = [("this tree", ROOT)] + ([("against", args.against.resolve())] if args.against else [])
    bad = 0
    try:
        time.sleep(20)  # the hogs' memory touched, the browser started
        print(f"busy: {args.hogs} hogs of 300 MB, the browser tests in a loop; load {load()}", flush=True)
        for n in range(1, args.runs + 1):
            for name, tree in trees:
                began = time.monotonic()
                passed, failed, lines = pytest(tree, "-m", "latency", *LATENCY)
                bad += failed if tree == ROOT else 0
                took = time.monotonic() - began
                print(f"{name} run {n}: {passed} passed, {failed} failed ({took:.0f} s, load {load()})", flush=True)
                for line in lines:
                    print(f"  {line}", flush=True)
        for n in range(1, 4):
            passed, failed, lines = pytest(ROOT, NEGATIVE)
            bad += failed
            said = "still fails the contract" if passed else "was NOT caught"
            print(f"a display on the timing path, run {n}: {said} (load {load()})", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
        os.killpg(browser.pid, signal.SIGTERM)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
