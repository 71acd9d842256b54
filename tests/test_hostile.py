"""A few hostile inputs in every `make test` (`make soak` runs hundreds): benchmarks/hostile.py keeps working
and every outcome is clear or a still-valid file."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import hostile  # noqa: E402


@pytest.mark.slow
def test_a_few_mutated_files_give_only_clear_lines():
    result = hostile.hostile_run(count=len(hostile.MUTATIONS), seed=2026, special=False, arguments=False)
    assert result["runs"] >= 4 * len(hostile.MUTATIONS)
    assert result["failures"] == [], result["failures"]
    assert result["clear"] > result["accepted"]


@pytest.mark.slow
def test_the_command_line_attacks_give_only_clear_lines():
    """Huge numbers, newlines in names, serve's port, outputs on /dev/full, full and read-only disks."""
    result = hostile.hostile_run(count=0, special=False)
    assert result["attacks"] >= 40
    assert result["failures"] == [], result["failures"]


@pytest.mark.slow
@pytest.mark.parametrize("box", [False, True], ids=["a laptop's service", "the box's, its unit away"])
def test_no_route_answers_500_to_the_hostile_generator(box):
    """Issue 28, item 6: every route, every field it reads given each odd value in turn (5,000 digits, '²', an
    escape code...), then random requests: 0 answers of 500, no traceback. On the box with its unit away, every
    write is refused: nothing is written."""
    pytest.importorskip("starlette", reason="the web extra is not installed")
    result = hostile.route_attacks_in_process(count=200, seed=2028, box=box)
    assert result["requests"] >= 2000 and result["failures"] == [], result["failures"][:5]
    assert result["statuses"].get(303, 0) > (0 if box else 50)  # a laptop's forms reach their work
    assert result["written"] is not box


def test_an_auction_ends_lateness_is_read_from_the_trace():
    """The sold sound against the countdown's start plus the auction's seconds, in ms, one figure per auction;
    an auction cancelled (no sold) counts for nothing and the next one is measured from its own start."""
    trace = [
        {"t": 0.0, "kind": "sound", "name": "welcome"},
        {"t": 1.0, "kind": "state", "state": "countdown"},
        {"t": 2.0, "kind": "state", "state": "warning"},
        {"t": 3.0, "kind": "sound", "name": "sold"},
        {"t": 3.4, "kind": "state", "state": "countdown"},
        {"t": 3.9, "kind": "sound", "name": "cancelled"},
        {"t": 4.2, "kind": "state", "state": "countdown"},
        {"t": 6.213, "kind": "sound", "name": "sold"},
        {"t": 6.8, "kind": "sound", "name": "sold"},  # not an auction's end: no countdown before it
    ]
    assert hostile.auction_ends(trace, 2.0) == [0.0, 13.0]
    early = [{"t": 1.001, "kind": "state", "state": "countdown"}, {"t": 3.0, "kind": "sound", "name": "sold"}]
    assert hostile.auction_ends(early, 2.0) == [-1.0]  # a millisecond of rounding either way
    exact = [{"t": 1.1, "kind": "state", "state": "countdown"}, {"t": 3.1, "kind": "sound", "name": "sold"}]
    assert [math.copysign(1.0, late) for late in hostile.auction_ends(exact, 2.0)] == [1.0]  # 0.0, never -0.0


def test_a_trace_being_written_is_read_to_its_last_whole_line(tmp_path):
    path = tmp_path / "trace.jsonl"
    assert hostile.read_trace(path) == []
    path.write_text('{"t": 0.0, "kind": "state", "state": "off"}\n{"t": 0.5, "ki')
    assert hostile.read_trace(path) == [{"t": 0.0, "kind": "state", "state": "off"}]


@pytest.mark.slow
def test_the_units_timing_is_measured_quiet_then_attacked_in_one_run(monkeypatch):
    """make soak's timing measure on a real unit with its web service: the attack starts once the quiet auctions
    have ended, gets the box (the service's port, the state folder), and its auctions are counted apart."""
    import contextlib
    import http.client

    seen = {}

    @contextlib.contextmanager
    def looking(box):
        conn = http.client.HTTPConnection("127.0.0.1", box.port, timeout=10)
        conn.request("GET", "/remote", headers={"Host": f"127.0.0.1:{box.port}"})
        seen["page"] = conn.getresponse().status
        conn.close()
        seen["socket"] = (box.state / "unit.sock").exists()
        yield {"looked": True}

    monkeypatch.setattr(hostile, "SETTLING_AUCTIONS", 1)
    result = hostile.unit_timing(looking, quiet=2, attacked=2, seconds=1.0)
    assert seen == {"page": 200, "socket": True}
    assert result["unit_exit"] == 0 and result["unit_tracebacks"] == 0 and result["looked"]
    assert result["quiet"]["auctions"] == 2 and result["attacked"]["auctions"] in (2, 3)
    assert set(result["attacked"]) == {"auctions", "p50_ms", "p99_ms", "max_ms"}
