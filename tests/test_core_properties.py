"""Random presses, holds and switch flips thrown at the core: its invariants always hold."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from unit.app import config as configuration
from unit.core import LedChanged, Pressed, Released, SoundPlayed, StateChanged, Switched, Unit

BUTTONS = ("power", "auction", "build")

gestures = st.one_of(
    st.tuples(st.just("press"), st.sampled_from(BUTTONS), st.just(0.1)),
    st.tuples(st.just("hold"), st.sampled_from(BUTTONS), st.floats(0.2, 6.0)),
    st.tuples(st.just("switch"), st.booleans(), st.just(0.0)),
)
sessions = st.lists(st.tuples(st.floats(0.0, 200.0), gestures), max_size=60)
configs = st.fixed_dictionaries(
    {
        "game": st.fixed_dictionaries(
            {"minutes": st.sampled_from([None, 1, 2, 5]), "final_warning_minutes": st.sampled_from([0, 0.5, 1])}
        ),
        "auction": st.fixed_dictionaries({"seconds": st.sampled_from([6, 20, 50]), "warning_seconds": st.just(5)}),
        "power": st.fixed_dictionaries({"control": st.sampled_from(["button", "switch"])}),
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
        led: LedChanged = self.unit.led
        if led.mode != "off":
            assert self.unit.state in ("countdown", "warning"), f"LED {led} lit in {self.unit.state}"
        assert self.unit.state == self.state


def play(unit: Unit, observer: Observer, session) -> None:
    """Apply gestures at increasing times, firing deadlines in between, like the runtime does."""
    pending: list[tuple[float, int, object]] = []
    t = 0.0
    for n, (gap, (kind, what, seconds)) in enumerate(session):
        t += gap
        if kind == "switch":
            pending.append((t, 2 * n, Switched(what)))
        else:
            pending.append((t, 2 * n, Pressed(what)))
            pending.append((t + seconds, 2 * n + 1, Released(what)))
    pending.sort(key=lambda p: (p[0], p[1]))
    down: set[str] = set()
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
        observer.see(at, unit.handle(event, at))
    end = t + 4000
    while (deadline := unit.next_deadline()) is not None and deadline <= end:
        observer.see(deadline, unit.advance(deadline))


@given(session=sessions, overrides=configs, seed=st.integers(0, 2**32))
def test_random_play_keeps_the_invariants(session, overrides, seed):
    config = configuration.load((overrides, "hypothesis"))
    unit = Unit(config, random.Random(seed))
    play(unit, Observer(unit, config.game.minutes), session)
