"""A pulled plug does not end the game: the game in progress is saved and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from unit.app import config as configuration
from unit.app.persist import FORMAT, GameStore
from unit.app.runtime import Runtime
from unit.backends.headless import Headless
from unit.core import Pressed, Released, Unit

ROOT = Path(__file__).resolve().parent.parent


def test_save_and_load_round_trip(tmp_path):
    store = GameStore(tmp_path, wall=lambda: 1000.0)
    store.save(played=125.5, minutes=60, state="countdown")
    saved = GameStore(tmp_path, wall=lambda: 1010.0).load()
    assert saved.played == 125.5 and saved.minutes == 60 and saved.state == "countdown"
    assert saved.elapsed(1010.0) == 135.5  # the ten seconds without power count as played
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no temporary file left behind


def test_an_untrustworthy_wall_clock_falls_back_to_the_time_saved(tmp_path, caplog):
    store = GameStore(tmp_path, wall=lambda: 5000.0)
    store.save(played=300.0, minutes=60, state="ready")
    saved = store.load()
    assert saved.elapsed(4000.0) == 300.0  # the clock went back (no RTC before NTP)
    assert saved.elapsed(5000.0 + 48 * 3600) == 300.0  # two days later is not a power cut
    assert "wall clock moved" in caplog.text


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"\x00\xff\x00garbage", b'{"format": "something-else/1", "played": 5}', b"[1, 2, 3]", b""],
    ids=["corrupt", "binary", "foreign", "wrong shape", "empty"],
)
def test_a_corrupt_or_foreign_state_file_is_ignored_with_one_warning(tmp_path, caplog, content):
    (tmp_path / "game.json").write_bytes(content)
    assert GameStore(tmp_path).load() is None
    assert len([r for r in caplog.records if r.levelname == "WARNING"]) == 1


def run_headless(store, events, seconds=0.3, trace=None):
    config = configuration.load()
    runtime = Runtime(Unit(config), Headless(config.language), store=store, until=seconds, trace=trace)
    runtime.open()
    for event in events:
        runtime.post(event)
    while not runtime.stopped:
        runtime.step()
    return runtime


def test_state_changes_save_and_a_deliberate_off_clears(tmp_path):
    store = GameStore(tmp_path)
    runtime = run_headless(store, [Pressed("power"), Released("power")])
    assert runtime.unit.state == "ready"
    assert store.load() is not None
    # Resumes, then switched off on purpose: ON/OFF twice (the second press answers « ÉTEINDRE ? »).
    run = run_headless(store, [Pressed("power"), Released("power"), Pressed("power"), Released("power")])
    assert run.unit.state == "off"
    assert store.load() is None


def test_resume_starts_the_trace_and_shows_that_it_resumed(tmp_path):
    import io

    from unit.app.trace import TraceWriter

    store = GameStore(tmp_path)
    store.save(played=600.0, minutes=60, state="ready")
    out = io.StringIO()
    runtime = run_headless(store, [], trace=TraceWriter(out, "fr"))
    first = json.loads(out.getvalue().splitlines()[0])
    assert first["kind"] == "resume" and first["t"] == 0.0 and 600.0 <= first["elapsed"] < 601.0
    assert runtime.unit.state == "ready"
    assert '"text": "PARTIE REPRISE"' in out.getvalue()
    assert 2999 < runtime.unit.game.end - runtime.start < 3001  # 50 minutes left


def test_a_game_saved_at_its_end_is_not_resumed(tmp_path):
    """It does not boot into the end-of-game tune: the welcome screen, and the trace says why."""
    import io

    from unit.app.trace import TraceWriter

    store = GameStore(tmp_path)
    store.save(played=3700.0, minutes=60, state="time_up")
    out = io.StringIO()
    assert run_headless(store, [], trace=TraceWriter(out, "fr")).unit.state == "off"
    first = json.loads(out.getvalue().splitlines()[0])
    assert first["kind"] == "not_resumed" and first["reason"] == "over"
    assert '"name": "welcome"' in out.getvalue() and "game_over" not in out.getvalue()
    assert store.load() is None


def wait_for_line(path: Path, needle: str, timeout: float = 10.0) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if needle in line:
                    return line
        time.sleep(0.01)
    raise AssertionError(f"{needle!r} never appeared in {path}")


def start_unit(tmp_path: Path, script: str, trace: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "unit", "run", "--backend", "gpio", "--pins", "mock"]
    command += ["--state-dir", str(tmp_path / "state"), "--script", script, "--trace", str(trace)]
    return subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)


def test_sigkill_in_the_middle_of_a_game_then_restart_resumes_the_time_played(tmp_path, write_yaml):
    """A mock-backend unit killed with SIGKILL mid-game resumes with the time played (within 1 s)."""
    long_game = write_yaml("game.yaml", "until: 600\nevents:\n  - {at: 0, press: power}\n")
    first_trace = tmp_path / "first.jsonl"
    unit = start_unit(tmp_path, long_game, first_trace)
    try:
        wait_for_line(first_trace, '"state": "ready"')
        powered_on = time.time()
        time.sleep(1.3)
    finally:
        unit.send_signal(signal.SIGKILL)
        unit.wait(5)
        unit.stderr.close()
    assert json.loads((tmp_path / "state" / "game.json").read_text())["format"] == FORMAT  # readable

    quiet = write_yaml("quiet.yaml", "until: 0.5\n")
    second_trace = tmp_path / "second.jsonl"
    again = start_unit(tmp_path, quiet, second_trace)
    _, stderr = again.communicate(timeout=20)
    assert again.returncode == 0, stderr
    lines = [json.loads(line) for line in second_trace.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["kind"] == "resume" and lines[0]["t"] == 0.0
    played = time.time() - powered_on - 0.5  # the second run lasted 0.5 s after resuming
    assert abs(lines[0]["elapsed"] - played) < 1.0, (lines[0]["elapsed"], played)
    assert {"t": 0.0, "kind": "state", "state": "ready"} in lines
    assert "resuming the game" in stderr
    assert os.path.exists(tmp_path / "state" / "game.json")  # still a game in progress
