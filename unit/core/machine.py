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
from unit.core.evening import Tally
from unit.core.events import (
    BUTTONS,
    LED_OFF,
    BuildDrawn,
    Button,
    DisplayChanged,
    Event,
    LedChanged,
    LedMode,
    Output,
    Pressed,
    Released,
    ScreenChanged,
    SettingsChanged,
    SoundPlayed,
    State,
    StateChanged,
    Switched,
    SystemAction,
    SystemRequested,
)
from unit.core.menu import MENU_ITEMS, Choices, MenuItem
from unit.core.settings import BUILD_RESULTS, BuildResult, Config, PowerControl
from unit.core.sounds import Sound
from unit.core.views import SUMMARY_PAGES, BannerKind

SLOW_BLINK_HZ = 1.0
FAST_BLINK_HZ = 4.0
BANNER_SECONDS = 3.0
FLASH_PERIOD = 0.125  # the build result flashes at 4 Hz...
FLASH_TOGGLES = 6  # ...three times, then stays lit
SUMMARY_AFTER = 8.0  # at time up, « FIN DE PARTIE » stays this long before the summary
SUMMARY_PAGE_SECONDS = 4.0  # each page of the summary
#: The box's Wi-Fi asked on from the menu, which closed before it was up: its QR code still comes on the welcome
#: screen if it is up within this long (NetworkManager takes seconds; a slow start, a minute or more).
WIFI_QR_WITHIN = 180.0
#: The pixel shift against burn-in steps through these offsets.
SHIFTS: tuple[tuple[int, int], ...] = ((0, 0), (1, 0), (1, 1), (0, 1))


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
    CONFIRM = "confirm"  # the question « ÉTEINDRE ? » goes away
    MENU = "menu"  # the settings menu closes, untouched
    SUMMARY = "summary"  # the next page of the evening's summary
    DIM = "dim"  # untouched for a while: dim the screen
    SHIFT = "shift"  # move the picture by a pixel (burn-in)
    CODE = "code"  # the phone's pairing code is void: off the screen
    PHONE = "phone"  # the phone's address goes back to the welcome screen


HOLD_TIMERS = (Timer.HOLD_POWER, Timer.HOLD_BUILD, Timer.HOLD_AUCTION)
SCREEN_TIMERS = (Timer.DIM, Timer.SHIFT)  # they run in every state
HOLD_OF = {Button.POWER: Timer.HOLD_POWER, Button.BUILD: Timer.HOLD_BUILD, Button.AUCTION: Timer.HOLD_AUCTION}
COUNTING_DOWN = (State.COUNTDOWN, State.WARNING)
IN_GAME = (State.READY, State.COUNTDOWN, State.WARNING, State.BUILD)
#: The screens that can stay up for long: only these move against burn-in.
STILL_STATES = (State.OFF, State.READY, State.TIME_UP, State.SETTINGS)
#: The screens a pairing code may cover: calm ones, never an auction, a draw or a question.
CODE_COVERS = (views.Welcome, views.Ready)


class Unit:
    """The trading unit: buttons in, state, LED, screen and sounds out.

    ``rng`` draws the build results; pass ``random.Random(seed)`` for a
    reproducible game.
    """

    def __init__(self, config: Config, rng: random.Random | None = None, *, factory: Config | None = None):
        self.config = config
        self.factory = factory if factory is not None else config  # what « factory settings » restores
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
        # the screen: a question over the game, dimming, the pixel shift
        self._base: views.View = self.view  # what the screen shows under the question
        self._asking = False
        self.display = DisplayChanged(config.display.brightness)
        self._shift_step = 0
        # the settings menu and the evening's summary
        self._menu_item = MENU_ITEMS[0]  # the item, not its place: the Wi-Fi's may come and go
        self._menu_done = False
        self.tally = Tally()
        self._final_played = 0.0
        self._summary_page: int | None = None
        # the phone companion: its address, and a pairing code on the screen
        self.phone: views.PhoneAddress | None = None
        self._code: str | None = None
        self._wifi_asked: bool | None = None  # the box's own Wi-Fi asked on (off) from the menu, not yet so
        self._wifi_qr_asked: float | None = None  # when it was asked on: its QR code is wanted once it is up

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
        if not isinstance(event, Released) and not self.halted:
            self._touch(now)
        if isinstance(event, Pressed):
            self._pressed(event.button, now)
        elif isinstance(event, Released):
            self._released(event.button)
        elif isinstance(event, Switched):
            self._switched(event.on, now)
        else:
            raise TypeError(f"not an input event: {event!r}")
        return self._out

    def start(self, now: float) -> list[Output]:
        """The program starts (power plugged in): the welcome screen and its chime."""
        self._out = []
        self._fire_due(now)
        if self.state == State.OFF and not self.halted:
            self._show(self._welcome())
            self._play(Sound.WELCOME)
            self._touch(now)
        return self._out

    def power_on(self, now: float, *, played: float = 0.0, tally: Tally | None = None) -> list[Output]:
        """Switch on with ``played`` seconds already on the game clock (a resumed game) and its counts."""
        self._out = []
        self._fire_due(now)
        if self.state == State.OFF and not self.halted:
            self._power_on(now, played=played, tally=tally)
        return self._out

    @property
    def _clock(self) -> GameClock:
        """The running game's clock (only called while a game runs)."""
        assert self.game is not None
        return self.game

    def configure(self, choices: Choices, now: float) -> list[Output]:
        """The menu's five settings changed from outside the menu (the phone): as if chosen in it."""
        self._out = []
        self._fire_due(now)
        self._configure(choices.apply(self.config), choices)
        if self.state == State.SETTINGS:
            self._show_menu()
        return self._out

    def set_phone(self, address: views.PhoneAddress | None, now: float) -> list[Output]:
        """The web service reported where the phones find it (None: it went away)."""
        self._out = []
        self._fire_due(now)
        self.phone = address
        wifi_on = address is not None and address.wifi_on
        asked, self._wifi_asked = self._wifi_asked, (None if self._wifi_asked == wifi_on else self._wifi_asked)
        qr_asked = self._wifi_qr_asked is not None and now - self._wifi_qr_asked <= WIFI_QR_WITHIN
        if wifi_on:
            self._wifi_qr_asked = None
        if self.state == State.SETTINGS and asked and wifi_on:
            # Asked for in the menu and now up: what a phone needs to join it, at once.
            self._leave_menu()
            self._show_phone(views.PhonePage.WIFI, now)
        elif self.state == State.OFF and isinstance(self._base, views.Welcome) and qr_asked and wifi_on:
            # The menu closed before it was up, and nothing has happened since: its QR code all the same.
            self._show_phone(views.PhonePage.WIFI, now)
        elif self.state == State.SETTINGS:
            if self._menu_item not in self._menu_items():  # the Wi-Fi's item went: the one before it
                self._menu_item = MENU_ITEMS[MENU_ITEMS.index(self._menu_item) - 1]
            self._show_menu()
        elif isinstance(self._base, views.Welcome):
            self._show(self._welcome())
        elif isinstance(self._base, views.Phone):
            self._show(views.Phone(address, self._phone_page(self._base.page)))
        return self._out

    def show_code(self, code: str, seconds: float, now: float) -> list[Output]:
        """A phone asked to pair: show ``code`` for ``seconds`` over the calm screens.

        It waits under an auction or a draw and comes back with the clock; any
        press takes it away (the unit is in use: the journal has it too).
        """
        self._out = []
        self._fire_due(now)
        if not self.halted:
            self._code = code
            self._timers.set(Timer.CODE, now + seconds)
            self._touch(now)
            self._put(self._on_top())
        return self._out

    def hide_code(self, now: float) -> list[Output]:
        """The code was used, or void: off the screen."""
        self._out = []
        self._fire_due(now)
        self._drop_code()
        return self._out

    # --- inputs -----------------------------------------------------------------------------

    def _pressed(self, name: str, t: float) -> None:
        if name not in BUTTONS:
            raise ValueError(f"unknown button {name!r}")
        button = Button(name)
        if button in self._held or self.halted:
            return  # a second edge without a release (bounce), or nothing to do any more
        self._held.add(button)
        self._drop_code()
        if self._asking and button != Button.POWER:
            self._stop_asking()  # anything else keeps the game running, and does what it always does
        if button == Button.POWER:
            if self.config.power.control == PowerControl.BUTTON:
                self._press_power(t)
                self._timers.set(Timer.HOLD_POWER, t + self.config.power.shutdown_hold_seconds)
        elif self.state == State.SETTINGS:
            self._press_in_menu(button, t)
        elif self.state == State.TIME_UP:
            self._next_summary_page(t)
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
        if self.state == State.SETTINGS:
            self._leave_menu()
        if on and self.state == State.OFF:
            self._power_on(t)
        elif not on and self.state != State.OFF:
            self._power_off()

    def _press_power(self, t: float) -> None:
        """A push button: on, or leave the menu, or off (during a game, after asking)."""
        if self.state == State.OFF:
            self._power_on(t)
        elif self.state == State.SETTINGS:
            self._leave_menu()
        elif self.state in IN_GAME and self.config.power.confirm_off and not self._asking:
            self._asking = True
            self._put(self._on_top())
            self._play(Sound.CONFIRM)
            self._timers.set(Timer.CONFIRM, t + self.config.power.confirm_seconds)
        else:
            self._power_off()

    def _press_auction(self, t: float) -> None:
        if self.state == State.READY or (self.state == State.BUILD and self._spin_done):
            self._start_countdown(t)
        elif self.state in COUNTING_DOWN:
            # A short press must not restart a running auction; only a long one cancels it.
            self._timers.set(Timer.HOLD_AUCTION, t + self.config.auction.cancel_hold_seconds)
        elif self.state == State.OFF:
            # Held on the welcome screen, ENCHÈRES opens the settings menu.
            self._timers.set(Timer.HOLD_AUCTION, t + self.config.menu.hold_seconds)

    def _press_build(self, t: float) -> None:
        if self.state == State.READY:
            self._start_build(t)
        elif self.state == State.BUILD and self._spin_done:
            self._reveal(t, drawn=False)  # once per turn: show the same result again
        elif self.state == State.OFF and self.config.power.control == PowerControl.SWITCH:
            # With a latching switch, holding CONSTRUCTION while off shuts the system down.
            self._timers.set(Timer.HOLD_BUILD, t + self.config.power.shutdown_hold_seconds)
        if self.state == State.OFF:
            self._next_phone_page(t)

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
        if self.state == State.OFF:
            self._open_menu(t)
            return
        if self.state not in COUNTING_DOWN:
            return
        self._timers.cancel(Timer.COUNTDOWN)
        self.tally = self.tally.ended_cancelled()
        if self._overtime:
            self._time_up(t)
        else:
            self._set_state(State.READY, t)
            self._set_led(LED_OFF)
            self._play(Sound.CANCELLED)
            self._banner(t, BannerKind.CANCELLED)

    def _on_game_end(self, t: float) -> None:
        if self.state in COUNTING_DOWN:
            self._overtime = True  # the auction finishes first; the end signal follows
            self._timers.cancel(Timer.HOUR, Timer.FINAL_BEEP, Timer.CLOCK)
        else:
            self._time_up(t)

    def _on_countdown(self, t: float) -> None:
        end = self._countdown_end
        if t >= end - EPSILON:
            self._finish_countdown(t)
            return
        if self._warning_at is not None and self.state == State.COUNTDOWN and t >= self._warning_at - EPSILON:
            self._set_state(State.WARNING, t)
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
        self._set_state(State.READY, t)
        self._show(self._ready_view(t))

    def _on_confirm(self, t: float) -> None:
        self._stop_asking()

    def _on_menu(self, t: float) -> None:
        self._leave_menu()

    def _on_summary(self, t: float) -> None:
        self._next_summary_page(t)

    def _on_code(self, t: float) -> None:
        self._drop_code()

    def _on_phone(self, t: float) -> None:
        if self.state == State.OFF and isinstance(self._base, views.Phone):
            self._show(self._welcome())

    def _on_dim(self, t: float) -> None:
        self._set_display(dimmed=True)

    def _on_shift(self, t: float) -> None:
        self._shift_step = (self._shift_step + 1) % len(SHIFTS)
        self._set_display()
        self._timers.set(Timer.SHIFT, t + self.config.display.shift_minutes * 60)

    # --- actions ----------------------------------------------------------------------------

    def _power_on(self, t: float, played: float = 0.0, tally: Tally | None = None) -> None:
        game = self.config.game
        self.game = GameClock(start=t - played, length=game.seconds, final_warning=game.final_warning_minutes * 60)
        self._overtime = False
        self.tally = tally if tally is not None else Tally()  # a new game counts from zero
        end = self.game.end
        if end is not None and t >= end - EPSILON:
            self._time_up(t)
            return
        self._set_state(State.READY, t)
        self._show(views.Banner(BannerKind.RESUMED) if played else self._ready_view(t))
        self._play(Sound.POWER_ON)
        if played:
            self._timers.set(Timer.BANNER, t + BANNER_SECONDS)
        self._timers.set(Timer.GAME_END, self.game.end)
        self._timers.set(Timer.HOUR, self._clock.next_hour_mark(t))
        self._timers.set(Timer.FINAL_BEEP, self._clock.next_final_beep(t))
        self._timers.set(Timer.CLOCK, self._clock.next_change(t))

    def _power_off(self) -> None:
        self._timers.cancel_all_but(*HOLD_TIMERS, *SCREEN_TIMERS)
        self._asking = False
        self._code = None  # the end of a game voids it (the link forgets the pairings too)
        self.game = None
        self._overtime = False
        self._summary_page = None
        self._set_state(State.OFF)
        self._set_led(LED_OFF)
        self._show(self._welcome())
        self._play(Sound.POWER_OFF)

    def _shutdown(self) -> None:
        self._timers.cancel_all_but()
        self._asking = False
        self._set_state(State.OFF)
        self._set_led(LED_OFF)
        self._set_display(dimmed=False)
        self._show(views.Shutdown())
        self._play(Sound.SHUTDOWN)
        self._out.append(SystemRequested(SystemAction.SHUTDOWN))
        self.halted = True

    def _time_up(self, t: float) -> None:
        self._timers.cancel_all_but(*HOLD_TIMERS, *SCREEN_TIMERS, Timer.CODE)  # a pending code keeps its time
        self._asking = False
        self._overtime = False
        self._final_played = self._clock.played(t)
        self._set_state(State.TIME_UP, t)
        self._set_led(LED_OFF)
        self._show(views.TimeUp())
        self._play(Sound.GAME_OVER)
        self._summary_page = None
        self._timers.set(Timer.SUMMARY, t + SUMMARY_AFTER)  # then the evening's summary, once

    def _start_countdown(self, t: float) -> None:
        auction = self.config.auction
        self._timers.cancel(Timer.SPIN, Timer.FLASH, Timer.SHOW, Timer.BANNER)
        self._countdown_end = t + auction.seconds
        self._warning_at = self._countdown_end - auction.warning_seconds if auction.warning_seconds > 0 else None
        self.tally = self.tally.started()
        self._set_state(State.COUNTDOWN, t)
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
        self.tally = self.tally.ended_sold()
        if self._overtime:
            self._time_up(t)
            return
        self._set_state(State.READY, t)
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
        self._set_state(State.BUILD, t)
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
            self.tally = self.tally.drew(self._result)
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

    def _welcome(self) -> views.Welcome:
        return views.Welcome(self.config.menu.hold_seconds, phone=self.phone is not None)

    # --- the phone companion ------------------------------------------------------------------

    def _next_phone_page(self, t: float) -> None:
        """CONSTRUCTION on the welcome screen: the box's own Wi-Fi (when on), the address, its QR code, back."""
        base = self._base
        pages = self._phone_pages()
        if isinstance(base, views.Welcome):
            self._show_phone(pages[0], t)
        elif isinstance(base, views.Phone) and base.page in pages[:-1]:
            self._show_phone(pages[pages.index(base.page) + 1], t)
        else:
            self._show(self._welcome())
            self._timers.cancel(Timer.PHONE)

    def _phone_pages(self) -> tuple[views.PhonePage, ...]:
        return views.phone_pages(self.phone)

    def _phone_page(self, page: views.PhonePage) -> views.PhonePage:
        """``page`` if it still has something to show, else the address as text."""
        return page if page in self._phone_pages() else views.PhonePage.TEXT

    def _show_phone(self, page: views.PhonePage, t: float) -> None:
        pages = self._phone_pages()
        self._show(views.Phone(self.phone, page if page in pages else pages[0]))
        self._timers.set(Timer.PHONE, t + self.config.menu.leave_after_seconds)  # silent: holding on shuts down

    def _drop_code(self) -> None:
        if self._code is not None:
            self._code = None
            self._timers.cancel(Timer.CODE)
            self._put(self._on_top())

    # --- the question before switching off ----------------------------------------------------

    def _stop_asking(self) -> None:
        """The game goes on: the screen under the question comes back."""
        self._asking = False
        self._timers.cancel(Timer.CONFIRM)
        self._put(self._on_top())

    # --- the settings menu --------------------------------------------------------------------

    def _open_menu(self, t: float) -> None:
        self._menu_item = MENU_ITEMS[0]
        self._menu_done = False
        self._set_state(State.SETTINGS, t)
        self._show_menu()
        self._play(Sound.CLICK)
        self._timers.set(Timer.MENU, t + self.config.menu.leave_after_seconds)

    def _press_in_menu(self, button: Button, t: float) -> None:
        """ENCHÈRES moves to the next item, CONSTRUCTION changes the value; each change applies at once."""
        items = self._menu_items()
        item = self._menu_item
        if button == Button.AUCTION:
            self._menu_item = items[(items.index(item) + 1) % len(items)]
            self._menu_done = False
        elif item == MenuItem.WIFI:
            on = not self._wifi_value().startswith(("on", "starting"))
            self._wifi_asked = on
            self._wifi_qr_asked = t if on else None
            self._out.append(SystemRequested(SystemAction.WIFI_ON if on else SystemAction.WIFI_OFF))
        elif item == MenuItem.RESET:
            self._configure(self.factory, Choices.of(self.factory), reset=True)
            self._menu_done = True
        else:
            choices = Choices.of(self.config).changed(item)
            self._configure(choices.apply(self.config), choices)
        self._show_menu()
        self._play(Sound.CLICK)
        self._timers.set(Timer.MENU, t + self.config.menu.leave_after_seconds)

    def _configure(self, config: Config, choices: Choices, reset: bool = False) -> None:
        self.config = config
        self._out.append(SettingsChanged(choices, reset))
        self._set_display()

    def _menu_items(self) -> tuple[MenuItem, ...]:
        """The menu's items: the box's own Wi-Fi only where the web service says the box can make one."""
        wifi = self.phone is not None and self.phone.wifi is not None
        return tuple(item for item in MENU_ITEMS if item != MenuItem.WIFI or wifi)

    def _wifi_value(self) -> str:
        """The Wi-Fi item's value: on or off, or on its way (asked from the menu, not yet so)."""
        on = self.phone is not None and self.phone.wifi_on
        if self._wifi_asked is not None and self._wifi_asked != on:
            return "starting" if self._wifi_asked else "stopping"
        return "on" if on else "off"

    def _show_menu(self) -> None:
        items, item = self._menu_items(), self._menu_item
        value = self._wifi_value() if item == MenuItem.WIFI else Choices.of(self.config).value(item)
        self._show(views.Menu(item, value, items.index(item) + 1, len(items), self._menu_done))

    def _leave_menu(self) -> None:
        """Back to the welcome screen; every change is already saved."""
        self._wifi_asked = None  # not come in the menu's time: the menu will say what it is next time
        self._timers.cancel(Timer.MENU)
        self._set_state(State.OFF)
        self._show(self._welcome())

    # --- the evening's summary ----------------------------------------------------------------

    def _next_summary_page(self, t: float) -> None:
        """The next page in turn, then « FIN DE PARTIE » again; a press shows the next page at once."""
        page = 0 if self._summary_page is None else self._summary_page + 1
        if page >= len(SUMMARY_PAGES):
            self._summary_page = None
            self._timers.cancel(Timer.SUMMARY)
            self._show(views.TimeUp())
            return
        self._summary_page = page
        tally = self.tally
        self._show(
            views.Summary(
                SUMMARY_PAGES[page],
                played=int(self._final_played),
                sold=tally.sold,
                cancelled=tally.cancelled,
                builds=tally.builds,
                longest_streak=tally.longest_streak,
            )
        )
        self._timers.set(Timer.SUMMARY, t + SUMMARY_PAGE_SECONDS)

    # --- dimming and the pixel shift ----------------------------------------------------------

    def _touch(self, t: float) -> None:
        """Someone is there (a press, a new state): full brightness, and dim again later."""
        self._timers.set(Timer.DIM, t + self.config.display.dim_after_minutes * 60)
        if not self._timers.active(Timer.SHIFT):
            self._timers.set(Timer.SHIFT, t + self.config.display.shift_minutes * 60)
        self._set_display(dimmed=False)

    def _set_display(self, dimmed: bool | None = None) -> None:
        shift = SHIFTS[self._shift_step] if self.state in STILL_STATES else (0, 0)
        dimmed = self.display.dimmed if dimmed is None else dimmed
        display = DisplayChanged(self.config.display.brightness, dimmed, shift)
        if display != self.display:
            self.display = display
            self._out.append(display)

    # --- outputs, emitted only when something changes -----------------------------------------

    def _set_state(self, state: State, t: float | None = None) -> None:
        if state != self.state:
            self.state = state
            self._out.append(StateChanged(state))
            if t is not None:
                self._touch(t)  # a new state is worth seeing in full
            else:
                self._set_display()

    def _set_led(self, led: LedChanged) -> None:
        if led != self.led:
            self.led = led
            self._out.append(led)

    def _show(self, view: views.View) -> None:
        """Show ``view``, or keep it under the question or the pairing code until they go."""
        self._base = view
        self._put(self._on_top())

    def _on_top(self) -> views.View:
        """What the screen shows: the question, else the pairing code over a calm screen, else the view."""
        if self._asking:
            return views.Confirm()
        if self._code is not None and isinstance(self._base, CODE_COVERS):
            return views.Pairing(self._code)
        return self._base

    def _put(self, view: views.View) -> None:
        if view != self.view:
            self.view = view
            self._out.append(ScreenChanged(view))

    def _play(self, name: Sound) -> None:
        self._out.append(SoundPlayed(name))
