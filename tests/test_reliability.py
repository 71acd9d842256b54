"""Reliability: pulled plugs at random moments, and a display that fails now and then.

`make test` pulls the plug 20 times; `make soak` 200 times (MONOPOLY_CITY_POWER_CUTS=200). With
MONOPOLY_CITY_REPORT=FILE the figures are written to FILE for docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import wait_for_record

POWER_CUTS = int(os.environ.get("MONOPOLY_CITY_POWER_CUTS", "20"))
REPORT = os.environ.get("MONOPOLY_CITY_REPORT")


def report(name: str, figures: dict) -> None:
    if not REPORT:
        return
    path = Path(REPORT)
    data = json.loads(path.read_text()) if path.exists() else {}
    data[name] = figures
    path.write_text(json.dumps(data, indent=2))


@pytest.mark.slow
def test_power_cuts_at_random_moments_resume_the_time_played(tmp_path):
    """SIGKILL the mock-backend unit at random moments of a game and restart it each time: the game clock
    resumes within 1 s of the time played, and the state file is always readable."""
    rng = random.Random(20)
    state = tmp_path / "state"
    first = tmp_path / "first.yaml"
    first.write_text("until: 3600\nevents:\n  - {at: 0, press: power}\n")
    later = tmp_path / "later.yaml"
    later.write_text("until: 3600\n")
    errors = []
    powered_on = None
    for run in range(POWER_CUTS + 1):
        trace = tmp_path / f"trace-{run}.jsonl"
        command = [sys.executable, "-m", "unit", "run", "--backend", "gpio", "--pins", "mock"]
        command += ["--state-dir", str(state), "--script", str(first if run == 0 else later), "--trace", str(trace)]
        unit = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            skip = ("screen", "sound", "pin") if run == 0 else ()
            line = wait_for_record(trace, lambda record, skip=skip: record["kind"] not in skip, 15)
            seen = time.time()  # when the record was there: the unit's start-up is timed from this moment
            if run == 0:
                assert line["kind"] == "state" and line["state"] == "ready" and line["t"] < 0.1, line
                powered_on = seen - line["t"]
            else:
                assert line["kind"] == "resume", line
                errors.append(abs(line["elapsed"] - (seen - powered_on)))
            if run == POWER_CUTS:
                break
            time.sleep(rng.uniform(0.05, 0.6))  # the random moment of the cut: the duration is the input
        finally:
            unit.send_signal(signal.SIGKILL)
            unit.wait(10)
        saved = json.loads((state / "game.json").read_text())  # always readable, never half-written
        assert saved["played"] >= 0
    assert len(errors) == POWER_CUTS
    median = sorted(errors)[len(errors) // 2]
    report("power_cuts", {"cuts": POWER_CUTS, "max_error_s": round(max(errors), 3), "median_error_s": round(median, 3)})
    from unit.app.persist import GameStore

    assert GameStore(state).load() is not None  # what the next start-up reads
    assert not list(state.glob(".game-*.tmp"))  # and a write cut short leaves nothing behind once it has
    assert max(errors) < 1.0, errors


def test_a_day_of_random_play_does_not_grow_memory():
    """24 virtual hours of random play through simulate: memory grows by less than 1 MB after the first hour."""
    import gc
    import io
    import tracemalloc

    from unit.app import config as configuration
    from unit.app.scenario import Step
    from unit.app.simulate import run_virtual
    from unit.app.trace import TraceWriter
    from unit.core import Pressed, Released, Unit

    rng = random.Random(24)
    config = configuration.load(({"game": {"minutes": 60}}, "soak"))
    unit = Unit(config, random.Random(1))
    sink = TraceWriter(io.StringIO(), "fr")

    def hour_of_play(start: float) -> list[Step]:
        steps, t = [], start
        while True:
            t += rng.uniform(5, 90)
            if t >= start + 3600:
                return steps
            button = rng.choice(["auction", "auction", "build", "build", "power"])
            length = rng.choice([0.1, 0.1, 0.1, 2.5, 3.5])
            steps += [Step(t, Pressed(button)), Step(t + length, Released(button))]

    def play_hour(hour: int) -> None:
        sink.stream = io.StringIO()  # the trace is written, then dropped, like a pipe would
        run_virtual(unit, hour_of_play(hour * 3600.0), (hour + 1) * 3600.0, sink.write)

    unit.handle(Pressed("power"), 0.0)
    tracemalloc.start()
    play_hour(0)
    gc.collect()
    after_first_hour = tracemalloc.get_traced_memory()[0]
    for hour in range(1, 24):
        if unit.halted:  # a 3.5 s hold of ON/OFF shut it down: switch the next one on
            unit = Unit(config, random.Random(hour))
            unit.handle(Pressed("power"), hour * 3600.0)
        play_hour(hour)
    gc.collect()
    growth = tracemalloc.get_traced_memory()[0] - after_first_hour
    tracemalloc.stop()
    report("soak", {"virtual_hours": 24, "growth_bytes": growth})
    assert growth < 1_000_000, growth
