"""Output errors are one line and never stop the timing.

A real-time trace that cannot be written (a full disk, /dev/full) is dropped with one warning and the
unit goes on; ``simulate`` into a full output ends with one line and exit 2.
"""

from __future__ import annotations

import errno
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.app.trace import TraceWriter
from unit.backends.headless import Headless
from unit.core import Pressed, Released, Unit

ROOT = Path(__file__).resolve().parent.parent
QUICK = {"auction": {"seconds": 0.6, "warning_seconds": 0.2, "cancel_hold_seconds": 0.3}}


class DiskFillsUp(io.StringIO):
    """A file on a disk that is full after ``room`` lines."""

    def __init__(self, room: int):
        super().__init__()
        self.room = room

    def write(self, text):
        if self.getvalue().count("\n") >= self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(text)


@pytest.mark.slow
def test_a_full_disk_while_tracing_drops_the_trace_with_one_warning(caplog):
    config = configuration.load((QUICK, "test"))
    stream = DiskFillsUp(room=3)
    trace = TraceWriter(stream, config.language, flush=True, name="trace.jsonl")
    runtime = Runtime(Unit(config), Headless(config.language), trace=trace, until=1.2)
    runtime.open()
    for event in (Pressed("power"), Released("power"), Pressed("auction"), Released("auction")):
        runtime.post(event)
    states = []
    while not runtime.stopped:
        runtime.step()
        states.append(runtime.unit.state)
    assert "countdown" in states and states[-1] == "ready"  # the auction ran to its end regardless
    assert len(stream.getvalue().splitlines()) == 3  # what fitted
    assert trace.dropped > 5
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [
        "cannot write the trace to trace.jsonl (No space left on device): the trace stops here, the unit goes on"
    ]


@pytest.mark.slow
def test_run_with_the_trace_on_dev_full_keeps_the_unit_going(write_yaml):
    script = write_yaml("quick.yaml", "until: 0.8\nevents:\n  - {at: 0, press: power}\n  - {at: 0.2, press: auction}\n")
    result = subprocess.run(
        [sys.executable, "-m", "unit", "run", "--backend", "headless", "--script", script, "--trace", "/dev/full"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == (
        "monopoly-city: cannot write the trace to /dev/full (No space left on device): "
        "the trace stops here, the unit goes on\n"
    )


def test_simulate_into_a_broken_pipe_still_ends_quietly():
    """`simulate ... | head -1` is not an error (the contract before this change)."""
    command = f"{sys.executable} -m unit simulate {ROOT / 'docs/examples/demo-game.yaml'} | head -1"
    result = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=30)
    assert json.loads(result.stdout)["kind"] in {"state", "led", "sound", "screen"}
    assert result.stderr == ""
