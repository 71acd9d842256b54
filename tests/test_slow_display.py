"""The display is off the timing path, and the buzzer thread never dies: on gpiozero's mock pins.

A display that blocks for seconds on open, on every write, or never returns from a write, holds its
own thread only: the auction's warning and end reach the LED pin within 5 ms of their deadlines. A
buzzer that fails at every tone is logged once; the sounds and the timing go on.
"""

from __future__ import annotations

import logging
import threading
import time

import pytest
from helpers import assert_auctions_keep_time, edge_lateness, wait_for

from unit.backends.gpio import TonePlayer
from unit.core import views

# An auction of 1.3 s with 0.55 s of warning: the LED lit at the press, 1 Hz (dark at 0.5 s); the warning
# lights it (0.75 s, a 4 Hz blink starts lit) and the end darkens it (1.3 s, in a lit half-period), so the
# press, the warning and the end are edges on the pin, the core's deadlines; the others are the blink's.
AUCTION = {"auction": {"seconds": 1.3, "warning_seconds": 0.55, "cancel_hold_seconds": 0.3}}
AUCTION_EDGES = [(0.0, True), (0.5, False), (0.75, True), (0.875, False), (1.0, True), (1.125, False)]
AUCTION_EDGES += [(1.25, True), (1.3, False)]
AT_DEADLINES = (0, 2, 7)


class Glass:
    """A luma-like device whose ``display`` may be slowed down or stopped by the test."""

    mode, size, width, height = "1", (128, 64), 128, 64

    def __init__(self, write_seconds: float = 0.0, hang: threading.Event | None = None):
        from luma.core.device import dummy

        self.device = dummy(width=128, height=64, mode="1")
        self.persist = False
        self.write_seconds = write_seconds
        self.hang = hang  # a write after the first waits for this event (never, in the test)
        self.writes = 0

    def display(self, image):
        self.writes += 1
        if self.hang is not None and self.writes > 1:
            self.hang.wait()
        time.sleep(self.write_seconds)
        self.device.display(image)

    @property
    def image(self):
        return self.device.image


@pytest.fixture
def release():
    """Set at the end of the test: lets a never-returning write return, so no thread outlives the suite."""
    event = threading.Event()
    yield event
    event.set()


class OpeningBlocks:
    """Missing at start, then every retry blocks 2 s (an I2C open stuck on a bus that does not answer)."""

    def __init__(self):
        self.calls = 0

    def __call__(self, config):
        self.calls += 1
        if self.calls == 1:
            raise OSError(2, "No such file or directory: '/dev/i2c-1'")
        time.sleep(2.0)
        return Glass()


@pytest.mark.parametrize(
    "make_display",
    [
        lambda release: OpeningBlocks(),
        lambda release: lambda config: Glass(write_seconds=0.4),
        lambda release: lambda config: Glass(hang=release),
        lambda release: lambda config: Glass(),
    ],
    ids=["blocks on open", "blocks on every write", "a write never returns", "a good display"],
)
@pytest.mark.slow
@pytest.mark.latency
def test_the_led_keeps_exact_time_whatever_the_display_does(unit_on_pins, release, make_display):
    """Up to three auctions, each with every edge of AUCTION_EDGES and no other: every edge within 50 ms of
    its time (a stalled loop would be 0.4 s, 2 s or forever late), and one auction with the press, the
    warning and the end within 5 ms of their deadlines, both beyond what the machine did to the unit meanwhile
    (helpers.WakeUpNoise: a test machine busy with other work delays any thread, by 100 ms and more with QEMU
    and Chromium beside it); a display on the timing path delays the loop alone, every time."""
    unit = unit_on_pins({**AUCTION, "display": {"retry_seconds": 0.1}}, open_display=make_display(release))
    assert_auctions_keep_time(unit, AUCTION_EDGES, AT_DEADLINES)


@pytest.mark.slow
def test_a_display_put_back_on_the_timing_path_fails_the_contract_however_busy_the_machine(unit_on_pins):
    """The contract's own check, failing where it must (docs/dev/principles.md): frames written by the loop itself,
    as an I2C write of 0.4 s would be, make the LED's blink late (from the warning's frame, 0.275 s at least) beyond
    any noise the machine adds to a bare thread, in every auction, or lose its edges: the machine's noise excuses a
    busy machine, never this."""
    unit = unit_on_pins(AUCTION)
    drawn = unit.backend.show

    def on_the_loop(view):  # the frame's write, on the loop's thread
        time.sleep(0.4)
        drawn(view)

    unit.backend.show = on_the_loop
    with pytest.raises(AssertionError, match=r"LED edges late by|the LED's edges|no try within"):
        assert_auctions_keep_time(unit, AUCTION_EDGES, AT_DEADLINES)


def test_two_edges_a_late_loop_never_drove_are_told_from_late_ones():
    """A loop woken at 1.15 s (a stall from the warning's frame) finds the LED due dark again: the 0.875 and 1.0
    edges are never driven, the 1.125 one is 25 ms late; each pin edge goes to its own expected edge, not the
    first of its state, and an edge the blink never makes is no lateness but a failure."""
    late = [(0.0, True), (0.5, False), (0.75, True), (1.15, False), (1.25, True), (1.3, False)]
    assert [None if x is None else round(x, 3) for x in edge_lateness(late, AUCTION_EDGES)] == [
        0.0,
        0.0,
        0.0,
        None,
        None,
        0.025,
        0.0,
        0.0,
    ]
    on_time = [(due + 0.0002, lit) for due, lit in AUCTION_EDGES]
    assert max(edge_lateness(on_time, AUCTION_EDGES)) < 0.001
    with pytest.raises(AssertionError, match="the LED's edges"):
        edge_lateness([*on_time[:3], (0.8, False), (0.81, True), *on_time[3:]], AUCTION_EDGES)


@pytest.mark.slow
def test_the_newest_frame_wins(unit_on_pins):
    """While a slow write is on the bus, newer views replace each other: only the newest is drawn next."""
    glass = Glass(write_seconds=0.3)
    unit = unit_on_pins(AUCTION, open_display=lambda config: glass)
    assert wait_for(lambda: glass.writes == 1)  # the first frame, being written
    unit.press("power")
    unit.press("auction")
    assert wait_for(lambda: unit.runtime.unit.state == "ready" and unit.runtime.unit.led.mode == "off", 4)
    assert wait_for(lambda: unit.backend.display.view == unit.backend.view, 2)
    assert glass.writes < 8  # a frame a second plus start and end views would be more, one at a time


def test_a_shutdown_waits_for_its_screen(unit_on_pins):
    glass = Glass(write_seconds=0.2)
    unit = unit_on_pins({"power": {"shutdown_hold_seconds": 0.3}}, open_display=lambda config: glass)
    unit.press("power")
    unit.press("power", hold=0.5)
    assert wait_for(lambda: unit.runtime.stopped, 4)
    assert unit.backend.display.view == views.Shutdown()  # drawn before the program ended


# --- the buzzer thread ----------------------------------------------------------------------------------


class BrokenBuzzer:
    """A TonalBuzzer whose every tone fails (a range gpiozero refuses, a pin error)."""

    def __init__(self):
        self.tried = 0
        self.stops = 0

    def play(self, hz):
        self.tried += 1
        raise ValueError("tone is out of the device's range")

    def stop(self):
        self.stops += 1


def test_a_buzzer_failing_at_every_tone_is_logged_once_and_the_thread_lives(caplog):
    buzzer = BrokenBuzzer()
    player = TonePlayer(buzzer, passive=True)
    try:
        for sounds in range(1, 4):
            player.play(((2093, 10), (0, 5), (2637, 10)))
            wait_for(lambda sounds=sounds: buzzer.tried >= 2 * sounds, 2, lambda: f"{buzzer.tried} tones tried")
        assert buzzer.tried == 6  # every tone of every sound was tried
        assert player._thread.is_alive()
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1 and "buzzer error: tone is out of the device's range" in errors[0].getMessage()
    finally:
        player.close()


def test_a_dead_buzzer_thread_is_restarted_by_the_next_sound(caplog):
    class Buzzer:
        played: list = []

        def play(self, hz):
            self.played.append(hz)

        def stop(self):
            pass

    buzzer = Buzzer()
    player = TonePlayer(buzzer, passive=True)
    player._closed = True  # end the thread as if it had died
    player._wake.set()
    player._thread.join(2)
    player._closed = False
    player.play(((2093, 10),))
    wait_for(lambda: buzzer.played, 2, "a tone")
    assert buzzer.played == [2093]
    assert "the buzzer thread had stopped: restarted" in caplog.text
    player.close()


@pytest.mark.slow
@pytest.mark.latency
def test_a_failing_buzzer_does_not_touch_the_led_timing(unit_on_pins, caplog):
    unit = unit_on_pins(AUCTION)
    unit.backend.player.buzzer = BrokenBuzzer()
    assert_auctions_keep_time(unit, AUCTION_EDGES, AT_DEADLINES)  # as above: every edge, one auction within 5 ms
    assert unit.backend.player._thread.is_alive()
    assert len([r for r in caplog.records if "buzzer error" in r.getMessage()]) == 1


def test_a_dead_display_thread_is_restarted_by_the_next_frame(unit_on_pins, caplog):
    glass = Glass()
    unit = unit_on_pins(AUCTION, open_display=lambda config: glass)
    old = unit.backend.worker
    old._closing.set()  # end the thread as if it had died
    old._wake.put(None)
    old._thread.join(2)
    old._closing.clear()
    unit.press("power")
    assert wait_for(lambda: unit.backend.worker is not old)
    assert wait_for(lambda: unit.backend.display and unit.backend.display.view == unit.backend.view)
    assert "the display thread had stopped: restarted" in caplog.text
