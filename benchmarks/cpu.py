"""CPU per wall second, idle and during a countdown: our unit beside the naive baseline, in one run.

Each case runs in its own process (so ``resource.getrusage`` counts only it, every thread included),
all in the same invocation, so both designs meet the same machine. The display is on (luma's dummy
device), the three buttons are open (on gpiozero's mock pins). The two designs alternate for ``rounds``
rounds and each figure is the median: another program's burst in one window (it doubled both designs'
figures in one 10-second run) then moves no figure.

    python benchmarks/cpu.py [--seconds S] [--rounds N]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(design: str, phase: str, seconds: float) -> float:
    sys.path.insert(0, str(HERE))
    from harness import MockUnit, cpu_seconds

    if design == "ours":
        unit = MockUnit({"auction": {"seconds": seconds + 30}, "game": {"minutes": None}})
        unit.press("power")
        if phase == "countdown":
            unit.press("auction")
        time.sleep(0.3)
        before, start = cpu_seconds(), time.monotonic()
        time.sleep(seconds)  # the unit's own loop runs in its thread meanwhile
        used = cpu_seconds() - before
        elapsed = time.monotonic() - start
        unit.close()
    else:
        from gpiozero.pins.mock import MockFactory, MockPWMPin
        from naive_unit import NaiveUnit

        from unit.app import config as configuration

        factory = MockFactory(pin_class=MockPWMPin)
        naive = NaiveUnit(factory, dataclasses.asdict(configuration.load().pins), auction_seconds=int(seconds) + 30)
        if phase == "countdown":
            factory.pin(dataclasses.asdict(configuration.load().pins)["auction"]).drive_low()
        naive.run(0.3)
        before, start = cpu_seconds(), time.monotonic()
        naive.run(seconds)
        used = cpu_seconds() - before
        elapsed = time.monotonic() - start
        naive.close()
    return used / elapsed


def run_child(design: str, phase: str, seconds: float) -> float:
    argv = [sys.executable, __file__, "--child", design, phase, "--seconds", str(seconds)]
    return json.loads(subprocess.run(argv, capture_output=True, text=True, check=True).stdout)


def measure(seconds: float = 10.0, rounds: int = 3) -> dict:
    out: dict = {}
    for phase in ("idle", "countdown"):
        runs: dict[str, list[float]] = {"ours": [], "naive": []}
        for _ in range(rounds):
            for design in ("ours", "naive"):
                runs[design].append(run_child(design, phase, seconds))
        out[phase] = {design: statistics.median(figures) for design, figures in runs.items()}
        out[phase]["runs"] = runs
        out[phase]["ratio"] = out[phase]["ours"] / out[phase]["naive"]
    out["seconds"], out["rounds"] = seconds, rounds
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="each window (default 10)")
    parser.add_argument("--rounds", type=int, default=3, help="windows per design and phase, medians (default 3)")
    parser.add_argument("--child", nargs=2, metavar=("DESIGN", "PHASE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child, args.seconds)))
        return
    figures = measure(args.seconds, args.rounds)
    for phase in ("idle", "countdown"):
        f = figures[phase]
        print(
            f"{phase:9s} ours {f['ours'] * 1000:.3f} ms CPU/s, naive {f['naive'] * 1000:.3f} ms CPU/s, "
            f"ratio {f['ratio']:.3f}x"
        )
        each = "; ".join(f"{o * 1000:.3f}/{n * 1000:.3f}" for o, n in zip(f["runs"]["ours"], f["runs"]["naive"]))
        print(f"{'':9s} each round, ours/naive ms CPU/s: {each}")


if __name__ == "__main__":
    main()
