"""How late the real-time loop is: scripted auctions on the headless backend.

For each run, a 6-second auction (configuration override `auction.seconds: 6`)
is started by a scripted press; the figures are how long after its exact time
the warning (5 s left) and the end (LED off) reached the backend.

    python benchmarks/timing_accuracy.py [--runs N] [--seconds S]
"""

from __future__ import annotations

import argparse
import random
import statistics

from unit import config as configuration
from unit.core import LedChanged, Pressed, Released, StateChanged, Unit
from unit.headless import Headless
from unit.runtime import Runtime
from unit.scenario import Step


class Recorder(Headless):
    """A headless backend that notes when the LED changes, on the loop's clock."""

    def __init__(self, language):
        super().__init__(language)
        self.led_changes: list[tuple[float, LedChanged]] = []

    def set_led(self, led):
        self.led_changes.append((self.clock(), led))


def one_auction(seconds: float, warning: float) -> tuple[float, float]:
    config = configuration.load(({"auction": {"seconds": seconds, "warning_seconds": warning}}, "benchmark"))
    backend = Recorder(config.language)
    unit = Unit(config, random.Random(0))
    script = [Step(0.0, Pressed("power")), Step(0.05, Released("power")), Step(0.2, Pressed("auction"))]
    script.append(Step(0.3, Released("auction")))
    runtime = Runtime(unit, backend, script=script, until=0.2 + seconds + 0.3)
    started = {}
    original = runtime.apply

    def apply(at, outputs):
        if StateChanged("countdown") in outputs:
            started["at"] = at  # the press time the core counted from
        original(at, outputs)

    runtime.apply = apply
    runtime.run()
    start = started["at"]
    (warned, _), (ended, _) = backend.led_changes[1], backend.led_changes[2]
    return warned - (start + seconds - warning), ended - (start + seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    results = [one_auction(args.seconds, 5.0) for _ in range(args.runs)]
    for label, values in (("warning", [w for w, _ in results]), ("end", [e for _, e in results])):
        ms = [v * 1000 for v in values]
        print(f"{label:8s} lateness over {args.runs} runs: median {statistics.median(ms):.3f} ms, max {max(ms):.3f} ms")


if __name__ == "__main__":
    main()
