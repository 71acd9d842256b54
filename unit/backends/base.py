"""The interface every backend implements: inputs in, screen, LED and sounds out.

The split follows gpiozero's devices and pins: :class:`~unit.app.runtime.Runtime`
is the device logic, written once; a :class:`Backend` is the pin factory, one per
kind of hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from unit.core import views
from unit.core.events import DisplayChanged, Event, LedChanged, LedMode, SoundPlayed
from unit.core.settings import Config

Clock = Callable[[], float]


class Stop:
    """Posted instead of an input to end the loop (the window closed, Escape, SIGTERM)."""


STOP = Stop()
Post = Callable[[Event | Stop], None]


if TYPE_CHECKING:  # a type only: not made at every start

    class RecordSink(Protocol):
        """Where a backend writes records of its own (the gpio backend's mock pin changes): the trace."""

        def write_record(self, obj: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Setup:
    """What the launch decided for a backend: the registry's factories (:mod:`unit.backends`) take it.

    Each backend reads what concerns it; the gpiozero pin factory is made by the launch, never looked up
    by the backend (tests pass a ``MockFactory``).
    """

    config: Config
    trace: RecordSink | None = None  # gpio on mock pins: the LED and buzzer pin changes
    pin_factory: Any = None  # gpio: gpiozero's pin factory (lgpio on a Pi, mock elsewhere)
    frames: str | None = None  # headless: a folder for one PNG per distinct frame
    screenshot: str | None = None  # emulator: the window saved there when it closes


class Backend:
    """The hardware side: inputs in, screen, LED and sounds out.

    Subclasses override what their hardware has; the defaults do nothing, so a
    backend without a screen simply does not draw.
    """

    name = "backend"

    def open(self, post: Post, clock: Clock) -> None:
        """Open the hardware; from now on call ``post(event)`` (from any thread) for each input."""
        self.post = post
        self.clock = clock
        self.started = clock()

    def ready(self) -> None:
        """The unit is ready (READY=1 sent): open what may come a moment later (the gpio backend's display)."""

    def show(self, view: views.View) -> None:
        """Put ``view`` on the screen."""

    def set_led(self, led: LedChanged, at: float) -> None:
        """Drive the LED: off, on, or blinking at ``led.hz``, as the core set it at ``at`` (on the loop's clock:
        a blink's edges are counted from there, in step with the core's own deadlines)."""

    def play(self, sound: SoundPlayed) -> None:
        """Start playing ``sound``, replacing any sound still playing."""

    def set_display(self, display: DisplayChanged) -> None:
        """Set the screen's brightness (or dim it) and move the picture by ``display.shift``."""

    def retune(self, config: Config) -> None:
        """The settings menu changed ``config``: follow its language and sound volume from now on."""

    def inject(self, event: Event) -> None:
        """Apply a scripted input as if it came from the hardware."""
        self.post(event)

    def request(self, action: str) -> bool:
        """The core asks the system for ``action`` (``shutdown``); return True to end the loop."""
        return True

    def wait(self, timeout: float | None) -> None:
        """Block up to ``timeout`` seconds for the backend's own inputs.

        Only a backend whose inputs must be pumped from the main thread (a
        window) overrides this; others post from their own threads and the
        runtime waits on its queue.
        """
        raise NotImplementedError

    def next_deadline(self) -> float | None:
        """When the backend itself next needs the loop (an animation), or None."""
        return None

    def tick(self, now: float) -> None:
        """Called after each wake-up, for the backend's own timed work."""

    def close(self) -> None:
        """Release the hardware; safe to call twice, and after an open that failed halfway."""

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class DrawnLed(Backend):
    """A backend that draws the LED itself (a window, a terminal) instead of driving a pin.

    It blinks the drawing as gpiozero's ``blink`` blinks a pin (lit first), and asks the loop to
    wake at each change (:meth:`next_deadline`), so nothing polls. Subclasses draw in :meth:`redraw`
    and read :meth:`led_lit`.
    """

    led = LedChanged(LedMode.OFF)
    led_since = 0.0
    _led_lit = False  # as last drawn

    def redraw(self) -> None:
        """Draw everything again (the LED as :meth:`led_lit` says, and ``self._led_lit`` with it)."""

    def set_led(self, led: LedChanged, at: float) -> None:
        self.led = led
        self.led_since = at
        self.redraw()

    def led_lit(self, now: float) -> bool:
        return led_lit(self.led, self.led_since, now)

    def next_deadline(self) -> float | None:
        return next_led_edge(self.led, self.led_since, self.clock())

    def tick(self, now: float) -> None:
        if self.led_lit(now) != self._led_lit:
            self.redraw()


# The LED's blink, timed by the loop (the gpio backend's pin, the drawn LEDs): each edge at an absolute time
# from the blink's start, ``since + k`` half-periods, never a sleep added to the edge before, so nothing drifts.
# Lit first, as gpiozero's ``blink``.


def led_at(led: LedChanged, since: float, now: float) -> tuple[bool, float | None]:
    """Whether the LED set to ``led`` at ``since`` is lit at ``now``, and when it next changes (None unless it
    blinks). One call: the gpio backend asks at each edge, on a loop woken cold."""
    if led.mode != LedMode.BLINK or not led.hz:
        return led.mode == LedMode.ON, None
    half = 1 / (2 * led.hz)
    done = int((now - since) / half + 1e-9)  # 1e-9: a wake-up at the edge's float time counts as at it
    return done % 2 == 0, since + (done + 1) * half


def led_lit(led: LedChanged, since: float, now: float) -> bool:
    """Whether the LED set to ``led`` at ``since`` is lit at ``now``."""
    return led_at(led, since, now)[0]


def next_led_edge(led: LedChanged, since: float, now: float) -> float | None:
    """When the LED set to ``led`` at ``since`` next changes after ``now``: None unless it blinks."""
    return led_at(led, since, now)[1]
