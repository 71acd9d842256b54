"""The unit's state machine: pure Python on an injected clock.

:class:`Unit` takes input events with the time they happened and returns what
the unit does, as plain values: the new state, the LED mode, the screen view,
the sound to play, a build draw, a request to the system. It never reads a
clock, sleeps, starts a thread or touches hardware. Timed behaviour is a set of
absolute deadlines: a runtime asks :meth:`Unit.next_deadline`, waits until then
(or until an input arrives) and calls :meth:`Unit.advance` or
:meth:`Unit.handle`. The same object therefore drives the real GPIO, the
pygame emulator and ``simulate``'s virtual clock.

The behaviour is specified in docs/simulate.md and the user guides.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from unit.app.config import BUILD_RESULTS, Config
from unit.core import sounds, views
from unit.core.clock import EPSILON, Deadlines, GameClock, ceil_seconds, spin_offsets

BUTTONS = ("power", "auction", "build")

SLOW_BLINK_HZ = 1.0
FAST_BLINK_HZ = 4.0
BANNER_SECONDS = 3.0
FLASH_PERIOD = 0.125  # the build result flashes at 4 Hz...
FLASH_TOGGLES = 6  # ...three times, then stays lit


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pressed:
    button: str


@dataclass(frozen=True)
class Released:
    button: str


@dataclass(frozen=True)
class Switched:
    """The latching power switch moved (``power.control: switch``)."""

    on: bool


Event = Pressed | Released | Switched


# --- outputs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class StateChanged:
    state: str


@dataclass(frozen=True)
class LedChanged:
    mode: str  # off | on | blink
    hz: float | None = None


@dataclass(frozen=True)
class ScreenChanged:
    view: views.View


@dataclass(frozen=True)
class SoundPlayed:
    name: str

    @property
    def tones(self) -> sounds.Tones:
        return sounds.SOUNDS[self.name]


@dataclass(frozen=True)
class BuildDrawn:
    result: int | str


@dataclass(frozen=True)
class SystemRequested:
    action: str  # shutdown


Output = StateChanged | LedChanged | ScreenChanged | SoundPlayed | BuildDrawn | SystemRequested

LED_OFF = LedChanged("off")

# Deadlines due at the same instant fire in this order: a hold before the game
# end before the countdown it may extend, and the screen refresh last.
TIMERS = (
    "hold:power",
    "hold:build",
    "hold:auction",
    "game_end",
    "countdown",
    "hour",
    "final_beep",
    "spin",
    "flash",
    "show",
    "banner",
    "clock",
)
HOLD_TIMERS = tuple(name for name in TIMERS if name.startswith("hold:"))


class Unit:
    """The trading unit: buttons in, state, LED, screen and sounds out.

    ``rng`` draws the build results; pass ``random.Random(seed)`` for a
    reproducible game.
    """

    def __init__(self, config: Config, rng: random.Random | None = None):
        self.config = config
        self.rng = rng if rng is not None else random.Random()
        self.state = "off"
        self.led: LedChanged = LED_OFF
        self.view: views.View = views.Off()
        self.halted = False  # after a shutdown request: nothing more happens
        self.game: GameClock | None = None
        self._timers = Deadlines(TIMERS)
        self._handlers = {name: getattr(self, "_on_" + name.replace("hold:", "hold_")) for name in TIMERS}
        self._held: set[str] = set()
        self._out: list[Output] = []
        # the running countdown
        self._countdown_end = 0.0
        self._warning_at: float | None = None
        self._overtime = False  # the game ran out while a countdown was running
        # the build draw
        self._result: int | str | None = None
        self._highlight = 0
        self._spin_times: list[float] = []
        self._spin_step = 0
        self._flashes = 0

    # --- the public interface ---------------------------------------------------------------

    def next_deadline(self) -> float | None:
        """The absolute time of the next timed event, or ``None`` when nothing is pending."""
        due = self._timers.next()
        return None if due is None else due[1]

    def advance(self, now: float) -> list[Output]:
        """Fire every deadline up to ``now``, each at its own time, in order."""
        self._out = []
        self._fire_due(now)
        return self._out

    def handle(self, event: Event, now: float) -> list[Output]:
        """Apply an input that happened at ``now`` (after any deadline due by then)."""
        self._out = []
        self._fire_due(now)
        if isinstance(event, Pressed):
            self._pressed(event.button, now)
        elif isinstance(event, Released):
            self._released(event.button)
        elif isinstance(event, Switched):
            self._switched(event.on, now)
        else:
            raise TypeError(f"not an input event: {event!r}")
        return self._out

    def power_on(self, now: float, *, played: float = 0.0) -> list[Output]:
        """Switch on with ``played`` seconds already on the game clock (a resumed game)."""
        self._out = []
        self._fire_due(now)
        if self.state == "off" and not self.halted:
            self._power_on(now, played=played)
        return self._out

    # --- inputs -----------------------------------------------------------------------------

    def _pressed(self, button: str, t: float) -> None:
        if button not in BUTTONS:
            raise ValueError(f"unknown button {button!r}")
        if button in self._held or self.halted:
            return  # a second edge without a release (bounce), or nothing to do any more
        self._held.add(button)
        if button == "power":
            if self.config.power.control == "button":
                self._toggle_power(t)
                self._timers.set("hold:power", t + self.config.power.shutdown_hold_seconds)
        elif button == "auction":
            self._press_auction(t)
        else:
            self._press_build(t)

    def _released(self, button: str) -> None:
        self._held.discard(button)
        self._timers.cancel(f"hold:{button}")

    def _switched(self, on: bool, t: float) -> None:
        if self.halted or self.config.power.control != "switch":
            return
        if on and self.state == "off":
            self._power_on(t)
        elif not on and self.state != "off":
            self._power_off()

    def _toggle_power(self, t: float) -> None:
        if self.state == "off":
            self._power_on(t)
        else:
            self._power_off()

    def _press_auction(self, t: float) -> None:
        if self.state == "ready" or (self.state == "build" and self._spin_done):
            self._start_countdown(t)
        elif self.state in ("countdown", "warning"):
            # A short press must not restart a running auction; only a long one cancels it.
            self._timers.set("hold:auction", t + self.config.auction.cancel_hold_seconds)

    def _press_build(self, t: float) -> None:
        if self.state == "ready":
            self._start_build(t)
        elif self.state == "build" and self._spin_done:
            self._reveal(t, drawn=False)  # once per turn: show the same result again
        elif self.state == "off" and self.config.power.control == "switch":
            # With a latching switch, holding CONSTRUCTION while off shuts the system down.
            self._timers.set("hold:build", t + self.config.power.shutdown_hold_seconds)

    # --- deadlines --------------------------------------------------------------------------

    def _fire_due(self, now: float) -> None:
        while (due := self._timers.next()) is not None and due[1] <= now + EPSILON:
            name, at = due
            self._timers.cancel(name)
            self._handlers[name](at)

    def _on_hold_power(self, t: float) -> None:
        self._shutdown()

    def _on_hold_build(self, t: float) -> None:
        if self.state == "off":
            self._shutdown()

    def _on_hold_auction(self, t: float) -> None:
        if self.state not in ("countdown", "warning"):
            return
        self._timers.cancel("countdown")
        if self._overtime:
            self._time_up()
        else:
            self._set_state("ready")
            self._set_led(LED_OFF)
            self._play("cancelled")
            self._banner(t, "cancelled")

    def _on_game_end(self, t: float) -> None:
        if self.state in ("countdown", "warning"):
            self._overtime = True  # the auction finishes first; the end signal follows
            self._timers.cancel("hour", "final_beep", "clock")
        else:
            self._time_up()

    def _on_countdown(self, t: float) -> None:
        end = self._countdown_end
        if t >= end - EPSILON:
            self._finish_countdown(t)
            return
        if self._warning_at is not None and self.state == "countdown" and t >= self._warning_at - EPSILON:
            self._set_state("warning")
            self._set_led(LedChanged("blink", FAST_BLINK_HZ))
            self._play("warning")
        elif self.state == "warning":
            self._play("tick")
        self._show_countdown(t)

    def _on_hour(self, t: float) -> None:
        hours = round(self.game.played(t) / 3600)
        self._play("hour")
        if self.state == "ready":
            self._banner(t, "hour", hours)
        self._timers.set("hour", self.game.next_hour_mark(t))

    def _on_final_beep(self, t: float) -> None:
        self._play("final_beep")
        self._timers.set("final_beep", self.game.next_final_beep(t))

    def _on_clock(self, t: float) -> None:
        if self.state == "ready" and not self._timers.active("banner"):
            self._show(self._ready_view(t))
        self._timers.set("clock", self.game.next_change(t))

    def _on_banner(self, t: float) -> None:
        if self.state == "ready":
            self._show(self._ready_view(t))

    def _on_spin(self, t: float) -> None:
        self._spin_step += 1
        self._highlight = (self._highlight + 1) % len(views.BUILD_ICONS)
        if self._spin_step == len(self._spin_times):
            self._reveal(t, drawn=True)
            return
        self._show(views.Build(self._highlight))
        self._play("spin_tick")
        self._timers.set("spin", self._spin_times[self._spin_step])

    def _on_flash(self, t: float) -> None:
        self._flashes += 1
        lit = self._flashes % 2 == 0
        self._show(views.Build(self._highlight, self._result, lit))
        if self._flashes < FLASH_TOGGLES:
            self._timers.set("flash", t + FLASH_PERIOD)

    def _on_show(self, t: float) -> None:
        self._timers.cancel("flash")
        self._set_state("ready")
        self._show(self._ready_view(t))

    # --- actions ----------------------------------------------------------------------------

    def _power_on(self, t: float, played: float = 0.0) -> None:
        game = self.config.game
        self.game = GameClock(start=t - played, length=game.seconds, final_warning=game.final_warning_minutes * 60)
        self._overtime = False
        if self.game.timed and t >= self.game.end - EPSILON:
            self._time_up()
            return
        self._set_state("ready")
        self._show(views.Banner("resumed") if played else self._ready_view(t))
        self._play("power_on")
        if played:
            self._timers.set("banner", t + BANNER_SECONDS)
        self._timers.set("game_end", self.game.end)
        self._timers.set("hour", self.game.next_hour_mark(t))
        self._timers.set("final_beep", self.game.next_final_beep(t))
        self._timers.set("clock", self.game.next_change(t))

    def _power_off(self) -> None:
        self._timers.cancel_all_but(*HOLD_TIMERS)
        self.game = None
        self._overtime = False
        self._set_state("off")
        self._set_led(LED_OFF)
        self._show(views.Off())
        self._play("power_off")

    def _shutdown(self) -> None:
        self._timers.cancel_all_but()
        self._set_state("off")
        self._set_led(LED_OFF)
        self._show(views.Shutdown())
        self._play("shutdown")
        self._out.append(SystemRequested("shutdown"))
        self.halted = True

    def _time_up(self) -> None:
        self._timers.cancel_all_but(*HOLD_TIMERS)
        self._overtime = False
        self._set_state("time_up")
        self._set_led(LED_OFF)
        self._show(views.TimeUp())
        self._play("game_over")

    def _start_countdown(self, t: float) -> None:
        auction = self.config.auction
        self._timers.cancel("spin", "flash", "show", "banner")
        self._countdown_end = t + auction.seconds
        self._warning_at = self._countdown_end - auction.warning_seconds if auction.warning_seconds > 0 else None
        self._set_state("countdown")
        self._set_led(LedChanged("blink", SLOW_BLINK_HZ))
        self._play("auction_start")
        self._show_countdown(t)

    def _show_countdown(self, t: float) -> None:
        """Show the seconds left and schedule the next whole second, counted from the end."""
        end = self._countdown_end
        left = ceil_seconds(end - t)
        self._show(views.Countdown(left, self.config.auction.seconds, warning=self.state == "warning"))
        next_at = end - (left - 1) if left > 1 else end
        if self.state == "countdown" and self._warning_at is not None and t < self._warning_at - EPSILON:
            next_at = min(next_at, self._warning_at)
        self._timers.set("countdown", next_at)

    def _finish_countdown(self, t: float) -> None:
        if self._overtime:
            self._time_up()
            return
        self._set_state("ready")
        self._set_led(LED_OFF)
        self._play("sold")
        self._banner(t, "sold")

    def _start_build(self, t: float) -> None:
        weights = self.config.build.weights
        self._result = self.rng.choices(BUILD_RESULTS, weights=[weights[r] for r in BUILD_RESULTS])[0]
        offsets = spin_offsets(self.config.build.spin_seconds)
        self._spin_times = [t + offset for offset in offsets]
        self._spin_step = 0
        # Start where the highlight, stepping once per spin step, lands on the result.
        self._highlight = (views.BUILD_ICONS.index(self._result) - len(offsets)) % len(views.BUILD_ICONS)
        self._timers.cancel("banner")
        self._set_state("build")
        if not offsets:
            self._reveal(t, drawn=True)
            return
        self._show(views.Build(self._highlight))
        self._play("spin_tick")
        self._timers.set("spin", self._spin_times[0])

    @property
    def _spin_done(self) -> bool:
        return self._spin_step >= len(self._spin_times)

    def _reveal(self, t: float, drawn: bool) -> None:
        if drawn:
            self._out.append(BuildDrawn(self._result))
        self._flashes = 0
        self._show(views.Build(self._highlight, self._result, lit=True))
        self._play("build_result")
        self._timers.set("flash", t + FLASH_PERIOD)
        self._timers.set("show", t + self.config.build.show_seconds)

    def _banner(self, t: float, kind: str, value: int = 0) -> None:
        self._show(views.Banner(kind, value))
        self._timers.set("banner", t + BANNER_SECONDS)

    def _ready_view(self, t: float) -> views.Ready:
        return views.Ready(self.game.shown(t), self.game.timed, self.config.game.minutes)

    # --- outputs, emitted only when something changes -----------------------------------------

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self._out.append(StateChanged(state))

    def _set_led(self, led: LedChanged) -> None:
        if led != self.led:
            self.led = led
            self._out.append(led)

    def _show(self, view: views.View) -> None:
        if view != self.view:
            self.view = view
            self._out.append(ScreenChanged(view))

    def _play(self, name: str) -> None:
        self._out.append(SoundPlayed(name))
