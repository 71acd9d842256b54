"""Resident memory of the unit (gpio backend, mock pins, display on): after start-up and after 1000 auctions.

Runs in a child process so that nothing else is counted.

    python benchmarks/memory.py [--auctions N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(auctions: int) -> dict:
    sys.path.insert(0, str(HERE))
    from harness import MockUnit, rss_kib

    # Short auctions (configuration), so that a thousand of them take seconds.
    unit = MockUnit({"auction": {"seconds": 0.02, "warning_seconds": 0.01}, "game": {"minutes": None}})
    unit.press("power")
    unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    after_start = rss_kib()
    for n in range(1, auctions + 1):
        unit.press("auction")
        # Counted, not watched: on a busy machine a 20 ms countdown can be over before a look at it.
        unit.wait_for(lambda n=n: unit.runtime.unit.tally.auctions == n and unit.runtime.unit.state == "ready")
    after_auctions = rss_kib()
    unit.close()
    return {"auctions": auctions, "after_start_kib": after_start, "after_auctions_kib": after_auctions}


def measure(auctions: int = 1000) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--child", "--auctions", str(auctions)], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--auctions", type=int, default=1000)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.auctions)))
        return
    f = measure(args.auctions)
    print(
        f"resident memory: {f['after_start_kib'] / 1024:.1f} MiB after start-up, "
        f"{f['after_auctions_kib'] / 1024:.1f} MiB after {f['auctions']} auctions"
    )


if __name__ == "__main__":
    main()
