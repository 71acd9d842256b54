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
from collections.abc import Callable
from enum import StrEnum

from unit.core import views
from unit.core.clock import EPSILON, Deadlines, GameClock, ceil_seconds, spin_offsets
from unit.core.events import (
    BUTTONS,
    LED_OFF,
    BuildDrawn,
    Button,
    Event,
    LedChanged,
    LedMode,
    Output,
    Pressed,
    Released,
    ScreenChanged,
    SoundPlayed,
    State,
    StateChanged,
    Switched,
    SystemAction,
    SystemRequested,
)
from unit.core.settings import BUILD_RESULTS, BuildResult, Config, PowerControl
from unit.core.sounds import Sound
from unit.core.views import BannerKind

SLOW_BLINK_HZ = 1.0
FAST_BLINK_HZ = 4.0
BANNER_SECONDS = 3.0
FLASH_PERIOD = 0.125  # the build result flashes at 4 Hz...
FLASH_TOGGLES = 6  # ...three times, then stays lit


class Timer(StrEnum):
    """The core's named deadlines.

    Due at the same instant, they fire in this order: a hold before the game end
    before the countdown it may extend, and the screen refresh last.
    """

    HOLD_POWER = "hold:power"
    HOLD_BUILD = "hold:build"
    HOLD_AUCTION = "hold:auction"
    GAME_END = "game_end"
    COUNTDOWN = "countdown"
    HOUR = "hour"
    FINAL_BEEP = "final_beep"
    SPIN = "spin"
    FLASH = "flash"
    SHOW = "show"
    BANNER = "banner"
    CLOCK = "clock"


HOLD_TIMERS = (Timer.HOLD_POWER, Timer.HOLD_BUILD, Timer.HOLD_AUCTION)
HOLD_OF = {Button.POWER: Timer.HOLD_POWER, Button.BUILD: Timer.HOLD_BUILD, Button.AUCTION: Timer.HOLD_AUCTION}
COUNTING_DOWN = (State.COUNTDOWN, State.WARNING)


class Unit:
    """The trading unit: buttons in, state, LED, screen and sounds out.

    ``rng`` draws the build results; pass ``random.Random(seed)`` for a
    reproducible game.
    """

    def __init__(self, config: Config, rng: random.Random | None = None):
        self.config = config
        self.rng = rng if rng is not None else random.Random()
        self.state: State = State.OFF
        self.led: LedChanged = LED_OFF
        self.view: views.View = views.Off()
        self.halted = False  # after a shutdown request: nothing more happens
        self.game: GameClock | None = None
        self._timers: Deadlines[Timer] = Deadlines(tuple(Timer))
        self._handlers: dict[Timer, Callable[[float], None]] = {
            timer: getattr(self, "_on_" + timer.name.lower()) for timer in Timer
        }
        self._held: set[Button] = set()
        self._out: list[Output] = []
        # the running countdown
        self._countdown_end = 0.0
        self._warning_at: float | None = None
        self._overtime = False  # the game ran out while a countdown was running
        # the build draw
        self._result: BuildResult = BUILD_RESULTS[0]  # set by each draw
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
        if self.state == State.OFF and not self.halted:
            self._power_on(now, played=played)
        return self._out

    @property
    def _clock(self) -> GameClock:
        """The running game's clock (only called while a game runs)."""
        assert self.game is not None
        return self.game

    # --- inputs -----------------------------------------------------------------------------

    def _pressed(self, name: str, t: float) -> None:
        if name not in BUTTONS:
            raise ValueError(f"unknown button {name!r}")
        button = Button(name)
        if button in self._held or self.halted:
            return  # a second edge without a release (bounce), or nothing to do any more
        self._held.add(button)
        if button == Button.POWER:
            if self.config.power.control == PowerControl.BUTTON:
                self._toggle_power(t)
                self._timers.set(Timer.HOLD_POWER, t + self.config.power.shutdown_hold_seconds)
        elif button == Button.AUCTION:
            self._press_auction(t)
        else:
            self._press_build(t)

    def _released(self, name: str) -> None:
        if name in BUTTONS:
            button = Button(name)
            self._held.discard(button)
            self._timers.cancel(HOLD_OF[button])

    def _switched(self, on: bool, t: float) -> None:
        if self.halted or self.config.power.control != PowerControl.SWITCH:
            return
        if on and self.state == State.OFF:
            self._power_on(t)
        elif not on and self.state != State.OFF:
            self._power_off()

    def _toggle_power(self, t: float) -> None:
        if self.state == State.OFF:
            self._power_on(t)
        else:
            self._power_off()

    def _press_auction(self, t: float) -> None:
        if self.state == State.READY or (self.state == State.BUILD and self._spin_done):
            self._start_countdown(t)
        elif self.state in COUNTING_DOWN:
            # A short press must not restart a running auction; only a long one cancels it.
            self._timers.set(Timer.HOLD_AUCTION, t + self.config.auction.cancel_hold_seconds)

    def _press_build(self, t: float) -> None:
        if self.state == State.READY:
            self._start_build(t)
        elif self.state == State.BUILD and self._spin_done:
            self._reveal(t, drawn=False)  # once per turn: show the same result again
        elif self.state == State.OFF and self.config.power.control == PowerControl.SWITCH:
            # With a latching switch, holding CONSTRUCTION while off shuts the system down.
            self._timers.set(Timer.HOLD_BUILD, t + self.config.power.shutdown_hold_seconds)

    # --- deadlines --------------------------------------------------------------------------

    def _fire_due(self, now: float) -> None:
        while (due := self._timers.next()) is not None and due[1] <= now + EPSILON:
            name, at = due
            self._timers.cancel(name)
            self._handlers[name](at)

    def _on_hold_power(self, t: float) -> None:
        self._shutdown()

    def _on_hold_build(self, t: float) -> None:
        if self.state == State.OFF:
            self._shutdown()

    def _on_hold_auction(self, t: float) -> None:
        if self.state not in COUNTING_DOWN:
            return
        self._timers.cancel(Timer.COUNTDOWN)
        if self._overtime:
            self._time_up()
        else:
            self._set_state(State.READY)
            self._set_led(LED_OFF)
            self._play(Sound.CANCELLED)
            self._banner(t, BannerKind.CANCELLED)

    def _on_game_end(self, t: float) -> None:
        if self.state in COUNTING_DOWN:
            self._overtime = True  # the auction finishes first; the end signal follows
            self._timers.cancel(Timer.HOUR, Timer.FINAL_BEEP, Timer.CLOCK)
        else:
            self._time_up()

    def _on_countdown(self, t: float) -> None:
        end = self._countdown_end
        if t >= end - EPSILON:
            self._finish_countdown(t)
            return
        if self._warning_at is not None and self.state == State.COUNTDOWN and t >= self._warning_at - EPSILON:
            self._set_state(State.WARNING)
            self._set_led(LedChanged(LedMode.BLINK, FAST_BLINK_HZ))
            self._play(Sound.WARNING)
        elif self.state == State.WARNING:
            self._play(Sound.TICK)
        self._show_countdown(t)

    def _on_hour(self, t: float) -> None:
        hours = round(self._clock.played(t) / 3600)
        self._play(Sound.HOUR)
        if self.state == State.READY:
            self._banner(t, BannerKind.HOUR, hours)
        self._timers.set(Timer.HOUR, self._clock.next_hour_mark(t))

    def _on_final_beep(self, t: float) -> None:
        self._play(Sound.FINAL_BEEP)
        self._timers.set(Timer.FINAL_BEEP, self._clock.next_final_beep(t))

    def _on_clock(self, t: float) -> None:
        if self.state == State.READY and not self._timers.active(Timer.BANNER):
            self._show(self._ready_view(t))
        self._timers.set(Timer.CLOCK, self._clock.next_change(t))

    def _on_banner(self, t: float) -> None:
        if self.state == State.READY:
            self._show(self._ready_view(t))

    def _on_spin(self, t: float) -> None:
        self._spin_step += 1
        self._highlight = (self._highlight + 1) % len(views.BUILD_ICONS)
        if self._spin_step == len(self._spin_times):
            self._reveal(t, drawn=True)
            return
        self._show(views.Build(self._highlight))
        self._play(Sound.SPIN_TICK)
        self._timers.set(Timer.SPIN, self._spin_times[self._spin_step])

    def _on_flash(self, t: float) -> None:
        self._flashes += 1
        lit = self._flashes % 2 == 0
        self._show(views.Build(self._highlight, self._result, lit))
        if self._flashes < FLASH_TOGGLES:
            self._timers.set(Timer.FLASH, t + FLASH_PERIOD)

    def _on_show(self, t: float) -> None:
        self._timers.cancel(Timer.FLASH)
        self._set_state(State.READY)
        self._show(self._ready_view(t))

    # --- actions ----------------------------------------------------------------------------

    def _power_on(self, t: float, played: float = 0.0) -> None:
        game = self.config.game
        self.game = GameClock(start=t - played, length=game.seconds, final_warning=game.final_warning_minutes * 60)
        self._overtime = False
        end = self.game.end
        if end is not None and t >= end - EPSILON:
            self._time_up()
            return
        self._set_state(State.READY)
        self._show(views.Banner(BannerKind.RESUMED) if played else self._ready_view(t))
        self._play(Sound.POWER_ON)
        if played:
            self._timers.set(Timer.BANNER, t + BANNER_SECONDS)
        self._timers.set(Timer.GAME_END, self.game.end)
        self._timers.set(Timer.HOUR, self._clock.next_hour_mark(t))
        self._timers.set(Timer.FINAL_BEEP, self._clock.next_final_beep(t))
        self._timers.set(Timer.CLOCK, self._clock.next_change(t))

    def _power_off(self) -> None:
        self._timers.cancel_all_but(*HOLD_TIMERS)
        self.game = None
        self._overtime = False
        self._set_state(State.OFF)
        self._set_led(LED_OFF)
        self._show(views.Off())
        self._play(Sound.POWER_OFF)

    def _shutdown(self) -> None:
        self._timers.cancel_all_but()
        self._set_state(State.OFF)
        self._set_led(LED_OFF)
        self._show(views.Shutdown())
        self._play(Sound.SHUTDOWN)
        self._out.append(SystemRequested(SystemAction.SHUTDOWN))
        self.halted = True

    def _time_up(self) -> None:
        self._timers.cancel_all_but(*HOLD_TIMERS)
        self._overtime = False
        self._set_state(State.TIME_UP)
        self._set_led(LED_OFF)
        self._show(views.TimeUp())
        self._play(Sound.GAME_OVER)

    def _start_countdown(self, t: float) -> None:
        auction = self.config.auction
        self._timers.cancel(Timer.SPIN, Timer.FLASH, Timer.SHOW, Timer.BANNER)
        self._countdown_end = t + auction.seconds
        self._warning_at = self._countdown_end - auction.warning_seconds if auction.warning_seconds > 0 else None
        self._set_state(State.COUNTDOWN)
        self._set_led(LedChanged(LedMode.BLINK, SLOW_BLINK_HZ))
        self._play(Sound.AUCTION_START)
        self._show_countdown(t)

    def _show_countdown(self, t: float) -> None:
        """Show the seconds left and schedule the next whole second, counted from the end."""
        end = self._countdown_end
        left = ceil_seconds(end - t)
        self._show(views.Countdown(left, self.config.auction.seconds, warning=self.state == State.WARNING))
        next_at = end - (left - 1) if left > 1 else end
        if self.state == State.COUNTDOWN and self._warning_at is not None and t < self._warning_at - EPSILON:
            next_at = min(next_at, self._warning_at)
        self._timers.set(Timer.COUNTDOWN, next_at)

    def _finish_countdown(self, t: float) -> None:
        if self._overtime:
            self._time_up()
            return
        self._set_state(State.READY)
        self._set_led(LED_OFF)
        self._play(Sound.SOLD)
        self._banner(t, BannerKind.SOLD)

    def _start_build(self, t: float) -> None:
        weights = self.config.build.weights
        self._result = self.rng.choices(BUILD_RESULTS, weights=[weights[r] for r in BUILD_RESULTS])[0]
        offsets = spin_offsets(self.config.build.spin_seconds)
        self._spin_times = [t + offset for offset in offsets]
        self._spin_step = 0
        # Start where the highlight, stepping once per spin step, lands on the result.
        self._highlight = (views.BUILD_ICONS.index(self._result) - len(offsets)) % len(views.BUILD_ICONS)
        self._timers.cancel(Timer.BANNER)
        self._set_state(State.BUILD)
        if not offsets:
            self._reveal(t, drawn=True)
            return
        self._show(views.Build(self._highlight))
        self._play(Sound.SPIN_TICK)
        self._timers.set(Timer.SPIN, self._spin_times[0])

    @property
    def _spin_done(self) -> bool:
        return self._spin_step >= len(self._spin_times)

    def _reveal(self, t: float, drawn: bool) -> None:
        if drawn:
            self._out.append(BuildDrawn(self._result))
        self._flashes = 0
        self._show(views.Build(self._highlight, self._result, lit=True))
        self._play(Sound.BUILD_RESULT)
        self._timers.set(Timer.FLASH, t + FLASH_PERIOD)
        self._timers.set(Timer.SHOW, t + self.config.build.show_seconds)

    def _banner(self, t: float, kind: BannerKind, value: int = 0) -> None:
        self._show(views.Banner(kind, value))
        self._timers.set(Timer.BANNER, t + BANNER_SECONDS)

    def _ready_view(self, t: float) -> views.Ready:
        return views.Ready(self._clock.shown(t), self._clock.timed, self.config.game.minutes)

    # --- outputs, emitted only when something changes -----------------------------------------

    def _set_state(self, state: State) -> None:
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

    def _play(self, name: Sound) -> None:
        self._out.append(SoundPlayed(name))
