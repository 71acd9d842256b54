"""Random presses, holds and switch flips thrown at the core: its invariants always hold.

The phone companion joins in: pairing codes asked for at any moment, and its address coming and going.

Besides the random sessions, the hazards of an evening at the table: two buttons at once, a button held
through a change of state, a press during the welcome chime, a press in the settings menu at the very
instant it times out.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from unit.app import config as configuration
from unit.core import (
    DisplayChanged,
    LedChanged,
    Pressed,
    Released,
    SoundPlayed,
    StateChanged,
    Switched,
    SystemRequested,
    Unit,
    views,
)
from unit.core.clock import Deadlines
from unit.core.machine import Timer
from unit.core.menu import MenuItem
from unit.core.sounds import SOUNDS, Sound

BUTTONS = ("power", "auction", "build")
#: What the web service may report: none, an address, and the box's own Wi-Fi available (off) or on.
PHONES = (
    None,
    views.SAMPLE_ADDRESS,
    views.PhoneAddress(views.SAMPLE_ADDRESS.lines, views.SAMPLE_ADDRESS.qr, views.BoxWifi(False)),
    views.SAMPLE_WIFI_ADDRESS,
)

gestures = st.one_of(
    st.tuples(st.just("press"), st.sampled_from(BUTTONS), st.just(0.1)),
    st.tuples(st.just("hold"), st.sampled_from(BUTTONS), st.floats(0.2, 6.0)),
    st.tuples(st.just("switch"), st.booleans(), st.just(0.0)),
    st.tuples(st.just("code"), st.sampled_from(["042917", "123456"]), st.floats(1.0, 200.0)),
    st.tuples(st.just("phone"), st.integers(0, 3), st.just(0.0)),
)
sessions = st.lists(st.tuples(st.floats(0.0, 200.0), gestures), max_size=60)
configs = st.fixed_dictionaries(
    {
        "game": st.fixed_dictionaries(
            {"minutes": st.sampled_from([None, 1, 2, 5]), "final_warning_minutes": st.sampled_from([0, 0.5, 1])}
        ),
        "auction": st.fixed_dictionaries({"seconds": st.sampled_from([6, 20, 50]), "warning_seconds": st.just(5)}),
        "power": st.fixed_dictionaries(
            {"control": st.sampled_from(["button", "switch"]), "confirm_off": st.booleans()}
        ),
        "build": st.fixed_dictionaries({"spin_seconds": st.sampled_from([0, 1.5]), "show_seconds": st.just(10)}),
    }
)


class Observer:
    """Checks every output against the invariants as it is produced."""

    def __init__(self, unit: Unit, minutes: float | None):
        self.unit = unit
        self.game_seconds = None if minutes is None else minutes * 60
        self.state = "off"
        self.powered_at: float | None = None
        self.last_t = 0.0
        self.pressed_now = False
        self.started = False
        self.code_until = float("-inf")  # when the last pairing code shown is void

    def see(self, t: float, outputs: list) -> None:
        assert t >= self.last_t, "the clock ran backwards"
        self.last_t = t
        before = self.state
        for output in outputs:
            if isinstance(output, SoundPlayed) and output.name == "auction_start":
                assert before not in ("countdown", "warning"), "a second countdown started"
            if isinstance(output, StateChanged):
                if self.state == "off" and output.state == "ready":
                    self.powered_at = t
                    minutes = self.unit.config.game.minutes  # the settings menu may have changed it
                    self.game_seconds = None if minutes is None else minutes * 60
                if output.state == "time_up":
                    assert self.game_seconds is not None, "an untimed game ended"
                    assert t >= self.powered_at + self.game_seconds - 1e-6, "time_up came early"
                self.state = output.state
            if isinstance(output, SystemRequested) and output.action in ("wifi-on", "wifi-off"):
                assert before == "settings", f"the box's Wi-Fi asked in {before}"
                assert self.unit.phone is not None and self.unit.phone.wifi is not None, "asked of a box without"
            if isinstance(output, DisplayChanged) and output.dimmed:
                assert not self.pressed_now, "a press left the screen dimmed"
        self.pressed_now = False
        led: LedChanged = self.unit.led
        if led.mode != "off":
            assert self.unit.state in ("countdown", "warning"), f"LED {led} lit in {self.unit.state}"
        assert self.unit.state == self.state
        unit = self.unit
        if unit.state == "settings":
            assert unit.game is None and isinstance(unit.view, views.Menu), "a menu with a game running"
            wifi = unit.phone is not None and unit.phone.wifi is not None
            assert unit.view.count == len(MenuItem) - (not wifi) and 1 <= unit.view.position <= unit.view.count
            assert (unit.view.item == MenuItem.WIFI) <= wifi, "the Wi-Fi item on a box without"
        if isinstance(unit.view, views.Confirm):
            assert unit.state in ("ready", "countdown", "warning", "build"), f"asked to switch off in {unit.state}"
        if self.started and not unit.halted:
            assert not isinstance(unit.view, views.Off), "a dark screen after the start"
        if isinstance(unit.view, views.Pairing):  # over a calm screen only, never an auction or a draw
            assert unit.state in ("off", "ready") and unit.led.mode == "off", f"a pairing code in {unit.state}"
            assert t < self.code_until, "a pairing code on the screen after its time"
        if isinstance(unit.view, views.Phone):
            assert unit.state == "off", f"the phone's address in {unit.state}"
            assert unit.view.page in views.phone_pages(unit.view.address), f"a page with nothing: {unit.view}"


def play(unit: Unit, observer: Observer, session) -> None:
    """Apply gestures at increasing times, firing deadlines in between, like the runtime does."""
    pending: list[tuple[float, int, object]] = []
    t = 0.0
    for n, (gap, (kind, what, seconds)) in enumerate(session):
        t += gap
        if kind == "switch":
            pending.append((t, 2 * n, Switched(what)))
        elif kind == "code":
            pending.append((t, 2 * n, ("code", what, seconds)))
        elif kind == "phone":
            pending.append((t, 2 * n, ("phone", PHONES[what], 0.0)))
        else:
            pending.append((t, 2 * n, Pressed(what)))
            pending.append((t + seconds, 2 * n + 1, Released(what)))
    pending.sort(key=lambda p: (p[0], p[1]))
    down: set[str] = set()
    observer.see(0.0, unit.start(0.0))
    observer.started = True
    for at, _, event in pending:
        if isinstance(event, Pressed):
            if event.button in down:
                continue  # a real button cannot go down twice
            down.add(event.button)
        elif isinstance(event, Released):
            if event.button not in down:
                continue
            down.discard(event.button)
        while (deadline := unit.next_deadline()) is not None and deadline <= at:
            observer.see(deadline, unit.advance(deadline))
        observer.pressed_now = isinstance(event, Pressed | Switched)
        if isinstance(event, tuple) and event[0] == "code":
            observer.code_until = at + event[2]
            observer.see(at, unit.show_code(event[1], event[2], at))
        elif isinstance(event, tuple):
            observer.see(at, unit.set_phone(event[1], at))
        else:
            observer.see(at, unit.handle(event, at))
    end = t + 4000
    while (deadline := unit.next_deadline()) is not None and deadline <= end:
        observer.see(deadline, unit.advance(deadline))


@given(session=sessions, overrides=configs, seed=st.integers(0, 2**32))
def test_random_play_keeps_the_invariants(session, overrides, seed):
    config = configuration.load((overrides, "hypothesis"))
    unit = Unit(config, random.Random(seed))
    play(unit, Observer(unit, config.game.minutes), session)


# --- the hazards of an evening ----------------------------------------------------------------

CHIME = sum(ms for _, ms in SOUNDS[Sound.WELCOME]) / 1000
MENU_TIMEOUT = 30.0
OPEN_AT = 0.25  # ENCHÈRES goes down during the welcome chime; the menu opens 2 s later, at 2.25
#: Gaps that make the hazards likely: at once, within the chime, on the menu's timeout exactly
#: (30 s after the last press in the menu, or 32 s after the hold that opened it), or anything.
hazard_gaps = st.one_of(
    st.just(0.0), st.floats(0.0, CHIME), st.just(MENU_TIMEOUT), st.just(MENU_TIMEOUT + 2.0), st.floats(0.0, 40.0)
)
hazard_sessions = st.lists(st.tuples(hazard_gaps, gestures), max_size=30)


@given(session=hazard_sessions, menu_first=st.booleans(), overrides=configs, seed=st.integers(0, 2**32))
def test_the_hazards_of_an_evening_keep_the_invariants(session, menu_first, overrides, seed):
    menu = {"hold_seconds": 2, "leave_after_seconds": MENU_TIMEOUT}
    config = configuration.load(({**overrides, "menu": menu}, "hazards"))
    unit = Unit(config, random.Random(seed))
    if menu_first:
        session = [(OPEN_AT, ("hold", "auction", 2.5)), *session]
    play(unit, Observer(unit, config.game.minutes), session)


def test_a_press_at_the_instant_the_menu_times_out_acts_on_the_welcome_screen():
    """The deadline fires first (as everywhere): the menu has closed, so ON/OFF switches on."""
    unit = Unit(configuration.load())
    unit.start(0.0)
    unit.handle(Pressed("auction"), 0.25)
    unit.advance(2.25)
    unit.handle(Released("auction"), 2.5)
    assert unit.state == "settings"
    out = unit.handle(Pressed("power"), 32.25)
    assert [o.state for o in out if isinstance(o, StateChanged)] == ["off", "ready"]


@given(
    st.dictionaries(
        st.sampled_from(list(Timer)), st.sampled_from([0.0, 0.5, 1.0, 1.0 + 1e-12, 2.0, 50.0]), max_size=len(Timer)
    )
)
def test_the_next_deadline_is_the_earliest_and_on_a_tie_the_first_in_order(due):
    """Deadlines.next: the earliest time; of several at that very time, the first in the given order."""
    deadlines = Deadlines(tuple(Timer))
    for name, at in due.items():
        deadlines.set(name, at)
    order = list(Timer)
    expected = min(due.items(), key=lambda item: (item[1], order.index(item[0]))) if due else None
    assert deadlines.next() == expected
