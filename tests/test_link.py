"""The unit's socket for the phone companion (unit/app/link.py), against a unit running in real time."""

from __future__ import annotations

import json
import os
import socket
import stat
import time

import pytest
from helpers import LinkClient, RunningUnit, wait_for

from unit.app import linkserver, pairing
from unit.app.link import Link
from unit.app.phone_settings import apply_settings
from unit.app.scenario import Step
from unit.core import Pressed, Released, Unit, views
from unit.core.protocol import ScreenRecord
from unit.errors import UserError

SHORT = {"auction": {"seconds": 3, "warning_seconds": 1}}


def without_view(obj: dict) -> dict:
    return {k: v for k, v in obj.items() if k != "view"}


@pytest.mark.slow
def test_a_client_gets_a_snapshot_then_the_same_records_as_the_trace(tmp_path):
    with RunningUnit(tmp_path, SHORT) as unit:
        client = LinkClient(tmp_path)
        snapshot = client.next()
        assert snapshot["kind"] == "snapshot" and snapshot["state"] == "off" and snapshot["unit"] is True
        assert snapshot["settings"]["auction.seconds"] == 3 and snapshot["settings"]["game.minutes"] == 60
        unit.press("power")
        unit.press("auction")
        sold = client.next("sound", name="sold")
        client.next("screen", t=sold["t"])  # the last record of the auction's end (the trace writes it first)
    got = client.seen[1:] + [client.records.get() for _ in range(client.records.qsize())]
    got = [r for r in got if r["kind"] not in ("closed", "pairing")]  # pairing: the link's own record
    trace = json.loads(json.dumps(unit.trace.records))  # from the start: the welcome screen is in the snapshot
    assert got and [without_view(r) for r in got] == trace[-len(got) :]
    assert snapshot["screen"]["text"] == trace[0]["text"]  # what came before the client is in its snapshot
    countdown = [r for r in got if r["kind"] == "screen" and r["view"]["name"] == "countdown"]
    assert [r["view"]["seconds_left"] for r in countdown] == [3, 2, 1]
    assert countdown[-1]["view"]["warning"] is True and countdown[0]["text"] == "ENCHÈRES 3"


def test_a_snapshot_taken_mid_auction_says_where_the_unit_is(tmp_path):
    with RunningUnit(tmp_path, {"auction": {"seconds": 20}}) as unit:
        unit.press("power")
        unit.press("auction")
        # the link has folded the countdown's records into its snapshot (the screen is the last of them)
        wait_for(lambda: isinstance(unit.link.snapshot.screen.view, views.Countdown))
        snapshot = LinkClient(tmp_path).next()
    assert snapshot["state"] == "countdown" and snapshot["led"] == {"mode": "blink", "hz": 1.0}
    assert snapshot["screen"]["view"]["name"] == "countdown" and snapshot["clock"]["name"] == "ready"


def test_presses_from_a_client_reach_the_runtime_and_a_long_press_cancels(tmp_path):
    with RunningUnit(tmp_path, {"auction": {"cancel_hold_seconds": 0.3}}) as unit:
        client = LinkClient(tmp_path)
        client.next("snapshot")
        for verb, button in [("press", "power"), ("release", "power"), ("press", "auction"), ("release", "auction")]:
            client.send({verb: button})
        client.next("state", state="countdown")
        client.send({"press": "auction"})
        time.sleep(0.5)  # the button held past cancel_hold_seconds: the duration is the input
        client.send({"release": "auction"})
        client.next("sound", name="cancelled")
        wait_for(lambda: unit.runtime.unit.state == "ready")


def test_a_client_gone_mid_press_releases_its_button(tmp_path):
    with RunningUnit(tmp_path) as unit:
        posted = []
        real_post = unit.link.post
        unit.link.post = lambda event: (posted.append(event), real_post(event))
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.send({"press": "build"})
        wait_for(lambda: Pressed("build") in posted)
        client.close()
        wait_for(lambda: Released("build") in posted)


def test_settings_are_applied_on_the_loop_and_told_to_every_client(tmp_path):
    with RunningUnit(tmp_path) as unit:
        sender, watcher = LinkClient(tmp_path), LinkClient(tmp_path)
        sender.next("snapshot"), watcher.next("snapshot")
        sender.send({"settings": {"auction.seconds": 30, "game.minutes": None}})
        told = watcher.next("settings")
        assert told["settings"]["auction.seconds"] == 30 and told["settings"]["game.minutes"] is None
        assert sender.next("settings") == told
        assert unit.runtime.unit.config.auction.seconds == 30 and unit.runtime.unit.config.game.minutes is None
        # the next auction is 30 s long
        unit.press("power")
        unit.press("auction")
        assert watcher.next("screen", text="ENCHÈRES 30")
        # a new client's snapshot has the new settings
        assert LinkClient(tmp_path).next("snapshot")["settings"]["auction.seconds"] == 30


@pytest.mark.parametrize(
    ("changes", "error"),
    [
        ({"auction.seconds": -3}, "settings: auction.seconds: expected one of 30, 40, 50, 60, 90"),
        ({"auction.seconds": 20}, "the device menu's values"),
        ({"buzzer.volume": "loud"}, "settings: buzzer.volume"),
        ({"pins.led": 4}, "settings: pins.led: not a setting the phone may change"),
        ({}, "expected a mapping of settings"),
        ("60", "expected a mapping of settings"),
    ],
)
def test_bad_settings_are_refused_to_the_sender_and_change_nothing(tmp_path, changes, error):
    with RunningUnit(tmp_path) as unit:
        before = unit.runtime.unit.config
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.send({"settings": changes})
        answer = client.next("error")
        assert error in answer["error"]
        assert unit.runtime.unit.config == before


def test_a_setting_from_the_phone_is_the_menu_s_own_saved_and_kept_across_a_restart(tmp_path):
    """The same path as the device's menu: the core applies it, settings.json keeps it, the menu shows it."""
    from unit.app import config as configuration
    from unit.app.runtime import Runtime
    from unit.app.settings import SettingsStore
    from unit.backends.base import Backend
    from unit.core.menu import Choices

    config = configuration.load()
    runtime = Runtime(Unit(config), Backend(), settings=SettingsStore(tmp_path))
    settings = apply_settings(runtime, {"game.minutes": 90, "language": "en", "buzzer.volume": "low"}, 0.0)
    assert settings["game.minutes"] == 90 and settings["language"] == "en" and settings["buzzer.volume"] == "low"
    shown = Choices.of(runtime.unit.config)  # what the menu shows for each item
    assert (shown.game_minutes, shown.language, str(shown.volume)) == (90, "en", "low")
    runtime.step(max_wait=0.0)  # the loop writes settings.json at its next moment clear of deadlines
    restarted = SettingsStore(tmp_path).apply(configuration.load())  # the unit starts again: same choices
    assert Choices.of(restarted) == shown
    assert runtime.unit.config.pins == config.pins  # nothing else moved
    with pytest.raises(UserError, match="settings: game.minutes"):
        apply_settings(runtime, {"game.minutes": 0.5}, 1.0)


def test_pairing_codes_are_shown_once_checked_once_and_void_after_five_mistakes(tmp_path):
    shown = []
    now = [100.0]
    link = Link(tmp_path, "fr", on_code=shown.append, clock=lambda: now[0])
    code = link.new_code()
    assert shown == [code] and len(code) == 6 and code.isdigit()
    wrong = "000000" if code != "000000" else "111111"
    assert not link.check_code(wrong)
    assert link.check_code(code)
    assert not link.check_code(code)  # one phone per code
    code = link.new_code()
    for _ in range(pairing.CODE_TRIES):
        assert not link.check_code(wrong)
    assert not link.check_code(code)  # void after five mistakes
    code = link.new_code()
    now[0] += pairing.CODE_SECONDS
    assert not link.check_code(code)  # expired
    assert not link.check_code(None) and not link.check_code(123456)


def test_pairing_over_the_socket(tmp_path):
    with RunningUnit(tmp_path) as unit:
        codes = []
        unit.link.on_code = codes.append
        client = LinkClient(tmp_path)
        generation = client.next("snapshot")["pairing"]
        client.send({"pair": "request"})
        assert client.next("pairing")["code_pending"] is True
        client.send({"pair": {"code": "x", "id": "a"}})
        assert client.next("paired") == {"kind": "paired", "id": "a", "ok": False}
        client.send({"pair": {"code": codes[0], "id": "b"}})
        assert client.next("paired") == {"kind": "paired", "id": "b", "ok": True, "generation": generation}
        assert all(codes[0] not in json.dumps(r) for r in client.seen if r["kind"] != "paired")


def test_switching_off_forgets_the_pairings_and_a_restart_keeps_them(tmp_path):
    with RunningUnit(tmp_path) as unit:
        client = LinkClient(tmp_path)
        first = client.next("snapshot")["pairing"]
        unit.press("power")  # on: a phone paired while the unit was off keeps its pairing
        client.next("state", state="ready")
        assert unit.link.generation == first
        unit.press("power")  # « ÉTEINDRE ? »
        unit.press("power")  # off: the game is over, so are its pairings
        renewed = client.next("pairing")["generation"]
        assert renewed != first
    assert Link(tmp_path, "fr").generation == renewed  # the unit restarted (a power cut): still paired


@pytest.mark.slow
def test_a_client_that_never_reads_is_dropped_and_the_others_miss_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(linkserver, "QUEUE_SIZE", 50)
    link = Link(tmp_path, "fr")
    assert link.start()
    try:
        stuck = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stuck.connect(str(link.path))
        reader = LinkClient(tmp_path)
        reader.next("snapshot")
        big = "x" * 2000
        slowest = 0.0
        for n in range(3000):
            started = time.perf_counter()
            link.publish(ScreenRecord(n, big))
            slowest = max(slowest, time.perf_counter() - started)
            if n % 10 == 0:
                time.sleep(0.002)  # the reader keeps up; the stuck client does not
        wait_for(lambda: link.dropped >= 1, what="the stuck client to be dropped")
        assert link.dropped == 1
        got = [reader.next("screen")["t"] for _ in range(3000)]
        assert got == list(range(3000))
        print(f"slowest publish with a stuck client: {slowest * 1e3:.2f} ms")  # measured, not asserted
    finally:
        link.close()
        stuck.close()


def test_garbage_and_oversized_messages_are_answered_not_obeyed(tmp_path):
    with RunningUnit(tmp_path) as unit:
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.sock.sendall(b"not json\n")
        assert "one JSON object" in client.next("error")["error"]
        client.send({"press": "self-destruct"})
        assert client.next("error")["error"] == "unknown message 'press'"
        client.send({"press": "auction", "release": "auction"})
        client.next("error")
        client.sock.sendall(b"x" * (linkserver.MAX_LINE + 10))
        assert "longer than" in client.next("error")["error"]
        assert client.next("closed")
        assert unit.runtime.unit.state == "off" and unit.thread.is_alive()


def test_the_socket_is_for_this_user_and_its_group_only_and_a_bad_place_does_not_stop_the_unit(tmp_path):
    link = Link(tmp_path, "fr")
    assert link.start()
    try:
        assert stat.S_IMODE(os.stat(link.path).st_mode) == 0o660  # the web service connects by group
    finally:
        link.close()
    assert not link.path.exists()
    deep = tmp_path / ("d" * 120)
    assert not Link(deep, "fr").start()  # too long a path for a Unix socket: a warning, no link


def test_scripted_runs_with_a_link_still_end(tmp_path):
    script = [Step(0.05, Pressed("power")), Step(0.1, Released("power"))]
    with RunningUnit(tmp_path, script=script) as unit:
        wait_for(lambda: unit.runtime.unit.state == "ready")


def test_a_settings_handler_that_fails_does_not_stop_the_unit(tmp_path):
    with RunningUnit(tmp_path) as unit:
        unit.link.settings_handler = lambda unit, changes: 1 / 0
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.send({"settings": {"auction.seconds": 20}})
        assert client.next("error")["error"] == "settings: the unit could not apply them"
        unit.press("power")
        client.next("state", state="ready")
        assert unit.thread.is_alive()


def test_the_factory_settings_forget_the_pairings(tmp_path):
    """« Réglages d'usine » in the device's menu: every phone must pair again."""
    from unit.app import config as configuration
    from unit.core import SettingsChanged
    from unit.core.menu import Choices

    link = Link(tmp_path, "fr")
    before = link.generation
    choices = Choices.of(configuration.load())
    link.write(1.0, [SettingsChanged(choices, reset=False)])
    assert link.generation == before  # a choice keeps the pairings
    link.write(2.0, [SettingsChanged(choices, reset=True)])
    assert link.generation != before


def test_a_message_nested_too_deeply_is_answered_not_obeyed(tmp_path):
    with RunningUnit(tmp_path) as unit:
        client = LinkClient(tmp_path)
        client.next("snapshot")
        client.sock.sendall(b"[" * 2000 + b"]" * 2000 + b"\n")  # under the line limit, over json's depth
        assert "one JSON object" in client.next("error")["error"]
        client.send({"press": "power"})  # the same client is still served
        wait_for(lambda: unit.runtime.unit.state == "ready")
