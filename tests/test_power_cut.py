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
from helpers import wait_for_record

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


def start_unit(tmp_path: Path, script: str, trace: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "unit", "run", "--backend", "gpio", "--pins", "mock"]
    command += ["--state-dir", str(tmp_path / "state"), "--script", script, "--trace", str(trace)]
    return subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_sigkill_in_the_middle_of_a_game_then_restart_resumes_the_time_played(tmp_path, write_yaml):
    """A mock-backend unit killed with SIGKILL mid-game resumes with the time played (within 1 s)."""
    long_game = write_yaml("game.yaml", "until: 600\nevents:\n  - {at: 0, press: power}\n")
    first_trace = tmp_path / "first.jsonl"
    unit = start_unit(tmp_path, long_game, first_trace)
    try:
        wait_for_record(first_trace, lambda record: record.get("state") == "ready")
        powered_on = time.time()
        time.sleep(1.3)  # the time played before the plug is pulled: the duration is the input
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


# --- a broken state folder never stops start-up: the bad file is moved aside, the game begins clean ------


def warnings_of(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


def load_within(store: GameStore, seconds: float = 5.0):
    """``store.load()`` in a thread: a hang (a FIFO read) fails the test instead of blocking it."""
    import threading

    result = []
    thread = threading.Thread(target=lambda: result.append(store.load()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "load() hung"
    return result[0]


GAME = '{"format": "%s", "played": PLAYED, "saved_at": 0, "minutes": 60, "state": "ready"}' % FORMAT  # noqa: UP031


@pytest.mark.parametrize(
    "make, why",
    [
        (lambda p: p.write_text("[" * 30_000 + "]" * 30_000), "not a saved game (RecursionError"),
        (lambda p: p.write_text(GAME.replace("PLAYED", "1" + "0" * 400)), "not a saved game (OverflowError"),
        (lambda p: p.write_text(GAME.replace("PLAYED", "NaN")), "not a finite number"),
        (lambda p: os.mkfifo(p), "a named pipe"),
        (lambda p: p.symlink_to("/dev/zero"), "a symbolic link"),
        (lambda p: p.mkdir(), "a directory"),
        (lambda p: p.write_bytes(b" " * 100_000), "too large"),
    ],
    ids=["deeply nested", "huge number", "not a number", "fifo", "link to /dev/zero", "directory", "too large"],
)
def test_a_bad_game_file_is_moved_aside_with_one_line(tmp_path, caplog, make, why):
    make(tmp_path / "game.json")
    assert load_within(GameStore(tmp_path)) is None
    (line,) = warnings_of(caplog)
    assert why in line and "moved to game.json.bad-1" in line, line
    assert os.path.lexists(tmp_path / "game.json.bad-1")  # kept for diagnosis
    assert not os.path.lexists(tmp_path / "game.json")  # the next save starts clean
    GameStore(tmp_path).save(played=5.0, minutes=60, state="ready")
    assert GameStore(tmp_path).load().played == 5.0


def test_only_the_last_few_bad_files_are_kept(tmp_path):
    for _ in range(6):
        (tmp_path / "game.json").write_text("{not json")
        GameStore(tmp_path).load()
    kept = sorted(p.name for p in tmp_path.iterdir())
    assert kept == ["game.json.bad-4", "game.json.bad-5", "game.json.bad-6"]


def test_a_leftover_temporary_directory_is_moved_aside(tmp_path, caplog):
    GameStore(tmp_path).save(played=30.0, minutes=60, state="ready")
    (tmp_path / ".game-abc.tmp").mkdir()
    (tmp_path / ".game-abc.tmp" / "inside").write_text("x")
    (tmp_path / ".game-def.tmp").write_text("half a write")
    assert load_within(GameStore(tmp_path)).played == 30.0  # the game itself is fine
    (line,) = warnings_of(caplog)
    assert ".game-abc.tmp" in line and "moved to .game-abc.tmp.bad-1" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [".game-abc.tmp.bad-1", "game.json"]


def test_a_read_only_state_folder_still_starts(tmp_path, caplog, monkeypatch):
    """After a power cut the file system may come back read-only: nothing can be removed or renamed."""
    import errno

    GameStore(tmp_path).save(played=30.0, minutes=60, state="ready")
    (tmp_path / ".game-abc.tmp").write_text("half a write")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(Path, "unlink", read_only)
    monkeypatch.setattr(os, "rename", read_only)
    monkeypatch.setattr(os, "replace", read_only)
    store = GameStore(tmp_path)
    assert load_within(store).played == 30.0
    store.save(played=35.0, minutes=60, state="ready")  # cannot: one warning
    store.save(played=40.0, minutes=60, state="ready")  # still cannot: no second warning
    lines = warnings_of(caplog)
    assert len(lines) == 2, lines
    assert "cannot move it aside (Read-only file system)" in lines[0]
    assert "cannot save the game" in lines[1]


def test_the_unit_starts_whatever_is_in_the_state_folder(tmp_path, write_yaml):
    """The real command, before READY=1: a FIFO as game.json, a leftover directory; exit 0, one line each."""
    state = tmp_path / "state"
    state.mkdir()
    os.mkfifo(state / "game.json")
    (state / ".game-x.tmp").mkdir()
    quiet = write_yaml("quiet.yaml", "until: 0.3\nevents:\n  - {at: 0.1, press: power}\n")
    trace = tmp_path / "trace.jsonl"
    result = subprocess.run(
        [sys.executable, "-m", "unit", "run", "--backend", "gpio", "--pins", "mock", "--state-dir", str(state)]
        + ["--script", quiet, "--trace", str(trace)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 2, lines
    assert any("game.json: a named pipe; moved to game.json.bad-1" in line for line in lines)
    assert any(".game-x.tmp" in line and "moved to" in line for line in lines)
    assert '"state": "ready"' in trace.read_text()  # a new game
    assert GameStore(state).load() is not None


# --- the game clock without a real-time clock ------------------------------------------------------


class FakeClocks:
    """The clocks a save and a restart read, set by the test."""

    def __init__(self, wall=1000.0, synchronised=True, boot="boot-1", since_boot=50.0):
        self.wall_now, self.synced, self.boot_now, self.since = wall, synchronised, boot, since_boot

    def clocks(self):
        from unit.app.persist import Clocks

        return Clocks(
            wall=lambda: self.wall_now,
            synchronised=lambda: self.synced,
            boot=lambda: self.boot_now,
            since_boot=lambda: self.since,
        )


def saved_then_restarted(tmp_path, before: FakeClocks, after: FakeClocks) -> float:
    GameStore(tmp_path, clocks=before.clocks()).save(played=600.0, minutes=60, state="ready")
    store = GameStore(tmp_path, clocks=after.clocks())
    return store.resume_elapsed(store.load())


JUMPS = {"argnames": "wall_jump", "argvalues": [-3 * 3600, -20.0, +20.0, +3 * 3600]}
JUMPS["ids"] = ["behind 3 h", "behind", "ahead", "ahead 3 h"]


@pytest.mark.parametrize(**JUMPS)
def test_a_program_restart_counts_the_boot_clock_whatever_the_wall_clock_did(tmp_path, wall_jump):
    before = FakeClocks(wall=1000.0, synchronised=False, since_boot=50.0)
    after = FakeClocks(wall=1000.0 + wall_jump, synchronised=True, since_boot=58.5)  # same boot, 8.5 s later
    assert saved_then_restarted(tmp_path, before, after) == 608.5


@pytest.mark.parametrize(**JUMPS)
def test_after_a_reboot_an_unsynchronised_wall_clock_is_not_believed(tmp_path, wall_jump, caplog):
    """A Pi without RTC, restarted without network: whatever its clock says, the game resumes at the time
    saved (at most SAVE_EVERY seconds old), never ahead."""
    before = FakeClocks(wall=1000.0, synchronised=True, boot="boot-1")
    after = FakeClocks(wall=1000.0 + wall_jump, synchronised=False, boot="boot-2", since_boot=20.0)
    assert saved_then_restarted(tmp_path, before, after) == 600.0
    assert "not synchronised" in caplog.text


@pytest.mark.parametrize("wall_gap", [+20.0, +3 * 3600], ids=["20 s", "3 h"])
def test_a_clock_synchronised_during_the_game_never_pushes_it_forward(tmp_path, wall_gap):
    """Saved while the clock was still wrong (no NTP yet), restarted after NTP set it: the gap is the clock's
    jump, not play."""
    before = FakeClocks(wall=1000.0, synchronised=False, boot="boot-1")
    after = FakeClocks(wall=1000.0 + wall_gap, synchronised=True, boot="boot-2")
    assert saved_then_restarted(tmp_path, before, after) == 600.0


def test_after_a_reboot_a_synchronised_wall_clock_counts_the_outage(tmp_path):
    before = FakeClocks(wall=1000.0, synchronised=True, boot="boot-1")
    after = FakeClocks(wall=1045.0, synchronised=True, boot="boot-2", since_boot=20.0)
    assert saved_then_restarted(tmp_path, before, after) == 645.0
    behind = FakeClocks(wall=900.0, synchronised=True, boot="boot-2")
    assert saved_then_restarted(tmp_path, before, behind) == 600.0  # a clock set back: never counted


def test_a_running_game_is_saved_every_few_seconds(tmp_path, monkeypatch):
    """What a restart without a trustworthy clock can lose: the time since the last save (here 5 s, run at
    a tenth of a second on a virtual clock: the saves in order, at their exact times)."""
    from unit.app import runtime as runtimes

    assert runtimes.SAVE_EVERY <= 5.0
    monkeypatch.setattr(runtimes, "SAVE_EVERY", 0.1)
    saves = []

    class Counting(GameStore):
        def save(self, played, minutes, state, counts=None):
            saves.append(played)
            super().save(played, minutes, state, counts)

    now = [0.0]
    config = configuration.load()
    runtime = Runtime(
        Unit(config), Headless(config.language), store=Counting(tmp_path), until=0.65, clock=lambda: now[0]
    )
    runtime.open()
    runtime.post(Pressed("power"))
    runtime.post(Released("power"))
    while not runtime.stopped:
        runtime.step(max_wait=0)  # no sleeping: the clock jumps to the next deadline
        now[0] = runtime.next_wake()
    assert saves == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])  # switched on, then every 0.1 s


def test_a_state_folder_that_is_a_file_costs_one_line(tmp_path, caplog):
    not_a_folder = tmp_path / "state"
    not_a_folder.write_text("")
    store = GameStore(not_a_folder)
    assert load_within(store) is None
    store.save(played=5.0, minutes=60, state="ready")
    store.save(played=10.0, minutes=60, state="ready")
    assert warnings_of(caplog) == [f"cannot save the game in {not_a_folder}: not a folder"]
