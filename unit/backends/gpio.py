"""The ``gpio`` backend: gpiozero buttons, LED and buzzer, and the OLED through luma.oled.

The pin factory is chosen explicitly, never by gpiozero's fallback chain:
``lgpio`` on a Raspberry Pi, gpiozero's ``MockFactory`` with PWM pins anywhere
else (``--pins mock``), where the OLED is luma's ``dummy`` device. The mock is
a first-class backend: the whole path (pin edge, callback, queue, core,
LED pin, buzzer pin, display) runs as on the Pi.

gpiozero only does I/O here. Callbacks only enqueue; every game timing lives
in the core. The buttons are ``DigitalInputDevice``s: unlike ``Button`` they
start no HoldThread waking ten times a second, and long presses are core
deadlines anyway.

The OLED opens after READY=1 (:meth:`Gpio.ready`): the buttons, the LED and the
buzzer are what make the unit ready; PIL and luma are imported, and the first
frame drawn, a moment later on the display's own thread: about 19 ms of CPU
here, 200 ms on a tenth of one core (docs/performance.md).
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import queue
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from unit.backends.base import Backend, Clock, Post, led_at
from unit.core import (
    BUTTONS,
    Button,
    Config,
    DisplayChanged,
    Event,
    LedChanged,
    Pressed,
    Released,
    SoundPlayed,
    Switched,
    views,
)
from unit.core.events import LED_OFF
from unit.core.settings import BuzzerType, DisplayDriver, DisplaySettings, PowerControl, Volume
from unit.core.sounds import Tones
from unit.errors import HardwareError, Text, UserError

if TYPE_CHECKING:
    from unit.backends import oled as screen
    from unit.backends.base import RecordSink

log = logging.getLogger(__name__)


@contextlib.contextmanager
def _no_entry_points_import() -> Iterator[None]:
    """Import gpiozero without ``importlib.metadata`` (8 ms of CPU here: 80 ms on a tenth of one core).

    gpiozero imports it only to find pin factories and mock pin classes by name (entry points),
    which a factory made explicitly, as here, never does. It tries the name ``importlib_metadata``
    first: while gpiozero's modules are imported, that name is a stand-in whose ``entry_points``
    imports the real one when called, so nothing is lost; afterwards the name is released.
    ``importlib_resources`` likewise (``files``): gpiozero reads a font with it only when a segment display
    is made, and importing it costs 3 ms more (tempfile, shutil, bz2, lzma).
    """
    if "importlib_metadata" in sys.modules or "importlib.metadata" in sys.modules:
        yield  # already paid for (tests, or the backport in use): nothing to save
        return

    def entry_points(**selection: Any) -> Any:
        from importlib.metadata import entry_points

        return entry_points(**selection)

    def files(anchor: Any) -> Any:
        from importlib.resources import files

        return files(anchor)

    stand_in = types.ModuleType("importlib_metadata", "gpiozero's entry points, imported when first used")
    stand_in.entry_points = entry_points  # type: ignore[attr-defined]
    fonts = types.ModuleType("importlib_resources", "gpiozero's fonts, imported when first used")
    fonts.files = files  # type: ignore[attr-defined]
    sys.modules["importlib_metadata"] = stand_in
    sys.modules.setdefault("importlib_resources", fonts)  # the backport, if installed and imported, stays
    try:
        yield
    finally:
        for name, module in (("importlib_metadata", stand_in), ("importlib_resources", fonts)):
            if sys.modules.get(name) is module:
                del sys.modules[name]


#: How long a GPIO chip that exists but cannot be opened yet is tried again (udev at boot), and how often.
# How long a chip that exists is tried again at boot: udev gave it its group 52 s after the unit's first try on
# an emulated Pi under a slow host (20 s was too short there: exit 2, never restarted, a box dead).
GPIO_OPEN_RETRY_SECONDS = 120.0
GPIO_OPEN_RETRY_INTERVAL = 0.5
BOOTING_SECONDS = 600.0  # "at boot": this soon after the kernel started (a slow boot reached the GPIO at 186 s)


def just_booted() -> bool:
    """The system started moments ago (udev may still be giving devices their groups)."""
    try:
        return time.clock_gettime(time.CLOCK_BOOTTIME) < BOOTING_SECONDS
    except (AttributeError, OSError):  # not Linux
        return False


def pin_factory(
    kind: str,
    on_output_change: Callable[[Any], None] | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """gpiozero's pin factory for ``kind`` (``lgpio`` or ``mock``), made explicitly (by the launch, not the backend).

    The mock factory's output pins call its ``on_output_change`` (settable: the gpio backend sets it to
    trace them) with the pin, each time what the backend drives on them changes. A real chip that cannot be
    opened yet just after boot is tried again (``clock`` and ``sleep`` passed in for the tests).
    """
    if kind == "mock":
        with _no_entry_points_import():
            from gpiozero.pins.mock import MockFactory, MockPWMPin

        class TracedPin(MockPWMPin):  # type: ignore[misc]
            """A mock PWM pin that reports what the backend drives on it (for the trace).

            MockPin keeps every change in ``states`` for tests; a unit running for hours on mock pins
            keeps only the most recent ones, so its memory stays flat.
            """

            HISTORY = 1_000

            def _change_state(self, value: float) -> bool:
                changed: bool = super()._change_state(value)
                if len(self.states) > self.HISTORY:
                    del self.states[: -self.HISTORY // 2]
                if changed and self._function == "output" and self.factory.on_output_change is not None:
                    self.factory.on_output_change(self)  # no call more: the LED's edges run on a loop woken cold
                return changed

            def _set_frequency(self, value: float | None) -> None:
                before = self._frequency
                super()._set_frequency(value)
                if value != before:
                    self._report()

            def _report(self) -> None:
                report = getattr(self.factory, "on_output_change", None)
                if report is not None:
                    report(self)

        factory = MockFactory(pin_class=TracedPin)
        factory.on_output_change = on_output_change
        return factory
    if kind == "lgpio":
        # Importing lgpio makes a FIFO in the current folder, or in $LG_WD after chdir()ing there:
        # give it a writable folder of its own rather than whatever folder the command was run from.
        if "LG_WD" not in os.environ:  # the service sets it: then no tempfile before READY=1 (3 ms of CPU)
            import tempfile

            os.environ["LG_WD"] = tempfile.gettempdir()
        try:
            with _no_entry_points_import():
                from gpiozero.pins.lgpio import LGPIOFactory
        except ImportError as error:  # no lgpio module (or the empty 0.0.0.2 placeholder)
            raise HardwareError(
                "lgpio",
                f"no lgpio module ({error}); on a Pi: pip install '.[pi]' (or apt install python3-lgpio)",
            ) from None
        deadline = clock() + GPIO_OPEN_RETRY_SECONDS
        while True:
            try:
                return LGPIOFactory()
            except Exception as error:  # no /dev/gpiochip (not a Pi), no permission, pins in use
                # At boot the service can start before udev gives the chip to the gpio group (seen in the
                # system test: "can not open gpiochip", then fine a second later, or 52 s later on a slow host): a
                # chip that exists is tried again for up to 2 minutes rather than failing for good (exit 2 is
                # not restarted).
                if glob.glob("/dev/gpiochip*") and just_booted() and clock() < deadline:
                    sleep(GPIO_OPEN_RETRY_INTERVAL)
                    continue
                failure = error
                break
        raise HardwareError(
            "lgpio",
            f"cannot open the Raspberry Pi's GPIO ({failure}); on a Pi, check that the user is in the gpio "
            f"group, that it can write in LG_WD={os.environ['LG_WD']}, and that the service is not running "
            "(sudo systemctl stop monopoly-city-unit)",
        ) from None
    raise ValueError(f"unknown pin factory {kind!r}")


def is_mock(factory: object) -> bool:
    """Whether ``factory`` is gpiozero's mock (without importing the mock module on a Pi: unused, not loaded)."""
    mock = sys.modules.get("gpiozero.pins.mock")
    return mock is not None and isinstance(factory, mock.MockFactory)


def open_button(config: Config, button: str, factory: Any) -> Any:
    """A button's input (pull-up or pull-down as ``buttons.pressed`` says); a pin that cannot take that pull
    (GPIO2 and GPIO3 have the board's I2C pull-ups) is a configuration error, in one line."""
    with _no_entry_points_import():
        from gpiozero import DigitalInputDevice
        from gpiozero.exc import PinFixedPull

    gpio = getattr(config.pins, button)
    try:
        return DigitalInputDevice(
            gpio,
            pull_up=config.buttons.pull_up,  # buttons.pressed: low (to ground) or high (3.3 V, TTP223)
            bounce_time=config.buttons.bounce_seconds,
            pin_factory=factory,
        )
    except PinFixedPull:
        raise UserError(f"pins.{button}", Text("errors.fixed_pull", pin=gpio)) from None


@contextlib.contextmanager
def refused_pin(name: str, gpio: int) -> Iterator[None]:
    """A pin the GPIO chip refuses (held by another program or a device-tree overlay, or a chip with fewer lines,
    as lgpio says: « GPIO operation not permitted », « GPIO busy ») is one line naming the setting, not a traceback."""
    try:
        yield
    except UserError:
        raise
    except Exception as error:  # lgpio.error, gpiozero's PinInvalidPin, GPIOPinInUse...
        raise UserError(f"pins.{name}", Text("errors.pin_refused", pin=gpio, reason=str(error))) from None


#: How often, and how far apart, closing a device or the pin factory is tried (:func:`close_calmly`).
CLOSE_TRIES = 5
CLOSE_RETRY_INTERVAL = 0.05


def close_calmly(thing: Any, what: str, sleep: Callable[[float], None] = time.sleep) -> bool:
    """Close a gpiozero device or pin factory; a failure is tried again a moment later, then is one line.

    gpiozero resets a closed pin by claiming it again as an input. For a button, lgpio first frees the line
    while its alert thread may still be in ``ppoll()`` on it (lgPthAlerts.c: 0.5 ms polls; lgGpioFree waits
    2 ms for it), and the kernel releases the line only when that poll returns: the claim fails with
    « GPIO busy » on a loaded Pi (seen at shutdown in the system test's Pi 3 B boot, a traceback in the
    journal). A moment later it succeeds. Whatever still fails is one line, and left: the unit is ending, and
    the kernel frees every line of a process that exits.
    """
    for attempt in range(1, CLOSE_TRIES + 1):
        try:
            thing.close()
            return True
        except Exception as error:  # lgpio.error('GPIO busy'), a pin already gone...
            if attempt == CLOSE_TRIES:
                log.warning("%s not released cleanly (%s): the system frees it as the unit ends", what, str(error))
                # Not again from gpiozero's __del__, which would print « Exception ignored in ... » at exit.
                thing.close = lambda: None
                return False
            sleep(CLOSE_RETRY_INTERVAL)
    return False  # not reached


def open_oled(settings: DisplaySettings) -> Any:
    """The real OLED on I2C (luma.oled's ssd1306 or sh1106)."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306

    from unit.backends import oled as screen

    driver = {DisplayDriver.SSD1306: ssd1306, DisplayDriver.SH1106: sh1106}[settings.driver]
    serial = i2c(port=settings.i2c_port, address=settings.i2c_address)
    return driver(serial, width=screen.WIDTH, height=screen.HEIGHT, rotate=settings.rotate)


def open_dummy(settings: DisplaySettings) -> Any:
    from luma.core.device import dummy

    from unit.backends import oled as screen

    return dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1")


#: The sound volume as the passive buzzer's PWM duty cycle (0.5 is the loudest square wave).
VOLUME_DUTY = {Volume.OFF: 0.0, Volume.LOW: 0.05, Volume.HIGH: 0.5}


class TonePlayer:
    """Plays one sound at a time on the buzzer, from its own thread; a new sound cuts the old one.

    A passive buzzer gets each tone's frequency (``TonalBuzzer``); an active
    one can only be switched on and off (``Buzzer``), so it beeps the rhythm.
    The thread never dies of a buzzer error: it logs the first one of an
    outage and goes on with the next tone (the configuration already refuses
    a range that cannot play the unit's tones). Should the thread end anyway,
    the next sound starts a new one.
    """

    def __init__(self, buzzer: Any, passive: bool) -> None:
        self.buzzer = buzzer
        self.passive = passive
        self.duty = 0.5  # the volume (VOLUME_DUTY); 0: silent
        self.errors = 0  # buzzer calls that failed
        self._failing = False
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._next: Tones | None = None
        self._closed = False
        self._thread = self._start()

    def _start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, name="buzzer", daemon=True)
        thread.start()
        return thread

    def play(self, tones: Tones) -> None:
        with self._lock:
            self._next = tuple(tones)
            if not self._thread.is_alive() and not self._closed:
                log.error("the buzzer thread had stopped: restarted")
                self._thread = self._start()
        self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        self._thread.join(2)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if self._closed:
                self._safely(self._silence)
                return
            with self._lock:
                tones, self._next = self._next, None
                self._wake.clear()
            for hz, ms in tones or ():
                self._safely(self._sound, hz)
                if self._wake.wait(ms / 1000):
                    break  # a newer sound, or closing
            self._safely(self._silence)

    def _safely(self, action: Callable[..., None], *args: float) -> None:
        """Run one buzzer call; an error is logged once per outage, and the sound goes on."""
        try:
            action(*args)
        except Exception as error:  # a tone out of range, a pin error: the timing does not depend on sound
            self.errors += 1
            if not self._failing:
                log.error("buzzer error: %s; the unit goes on (silent while it lasts)", error)
                self._failing = True
        else:
            if self._failing and action is self._sound:
                log.warning("the buzzer plays again")
                self._failing = False

    def _sound(self, hz: float) -> None:
        if hz <= 0 or self.duty <= 0:
            self._silence()
        elif self.passive and self.duty == 0.5:
            self.buzzer.play(hz)
        elif self.passive:  # quieter: the same tone with a narrower pulse (TonalBuzzer.play is always 0.5)
            self.buzzer.pwm_device.pin.frequency = hz
            self.buzzer.pwm_device.value = self.duty
        else:
            self.buzzer.on()

    def _silence(self) -> None:
        if self.passive:
            self.buzzer.stop()
        else:
            self.buzzer.off()


class DisplayWorker:
    """Sends frames to the OLED from its own thread, so the display never delays the LED or the buzzer.

    The newest frame wins: a view asked for while a frame is being written
    replaces any view still waiting. Opening the device, and opening it again
    ``retry_seconds`` after a failure, happen here too: an I2C open that blocks
    for seconds, or a write that never returns, holds this thread only. One
    warning per outage, and one line when the display is back.

    Drawing a frame is Python and PIL work that holds the GIL: the loop thread,
    woken at a deadline, would wait up to the interpreter's switch interval
    (5 ms by default) for it. The worker lowers that interval to 1 ms.

    The loop wakes the thread with a token on a ``SimpleQueue`` (C, not the
    Python-level condition of an ``Event``): a countdown hands it a view every
    second, and every call there costs (docs/performance.md). For the same
    reason "shown" is two counters under the lock the frame is handed over
    with, not an ``Event`` cleared and set each second: a condition is
    notified only when someone waits (:meth:`wait_shown`, before a shutdown).
    """

    SWITCH_INTERVAL = 0.001

    def __init__(self, open_device: Callable[[], object], language: str, retry_seconds: float):
        self.open_device = open_device
        self.language = language
        self.retry_seconds = retry_seconds
        self.display: screen.Display | None = None
        self.view: views.View | None = None  # the newest view asked for
        self.state: DisplayChanged | None = None  # the newest brightness, dimming and pixel shift
        self._outage = False
        self._applied: tuple[DisplayChanged | None, str] | None = None  # the state and language the display has
        self._wake: queue.SimpleQueue[None] = queue.SimpleQueue()  # a token: something asked for since
        self._closing = threading.Event()
        self._lock = threading.Lock()
        # Frames asked for and frames on the glass (or that cannot be): the first is the one after the open.
        self._asked, self._shown = 1, 0
        self._all_shown = threading.Condition(self._lock)  # notified when _shown catches up, if anyone waits
        self._waiting = 0  # threads in wait_shown
        if sys.getswitchinterval() > self.SWITCH_INTERVAL:
            sys.setswitchinterval(self.SWITCH_INTERVAL)
        self._running = True  # until _run ends
        self._thread = threading.Thread(target=self._run, name="display", daemon=True)
        self._thread.start()

    def show(self, view: views.View) -> None:
        self.settle(view=view)

    def settle(
        self, *, view: views.View | None = None, state: DisplayChanged | None = None, language: str | None = None
    ) -> None:
        """Ask for a view, a contrast and shift, or a language: the thread applies the newest of each."""
        with self._lock:
            self.view = view if view is not None else self.view
            self.state = state if state is not None else self.state
            self.language = language if language is not None else self.language
            if self.display is not None:  # else nothing will be drawn before the next retry
                self._asked += 1
            self._wake.put(None)  # under the lock: the thread drains and reads under it, so no token outlives its view

    @property
    def alive(self) -> bool:
        """The thread runs (or was told to end). A flag it clears as it ends: asked before every frame, where
        ``Thread.is_alive``'s Python costs (docs/performance.md)."""
        return self._running or self._closing.is_set()

    def wait_shown(self, timeout: float) -> bool:
        """Wait until the newest view is on the glass (before a shutdown); False after ``timeout``."""
        with self._lock:
            self._waiting += 1
            try:
                return self._all_shown.wait_for(lambda: self._shown >= self._asked, timeout)
            finally:
                self._waiting -= 1

    def close(self, timeout: float = 0.2) -> None:
        """Stop the thread; a write that never returns is left behind (the thread is a daemon)."""
        self._closing.set()
        self._wake.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            self._serve()
        finally:
            self._running = False

    def _serve(self) -> None:
        retry_at = 0.0
        while not self._closing.is_set():
            if self.display is None:
                self._drain()  # the views asked for meanwhile: the newest is drawn once open
                if self._closing.wait(max(0.0, retry_at - time.monotonic())):
                    return
                if not self._open():
                    retry_at = time.monotonic() + self.retry_seconds
                    with self._lock:
                        self._caught_up()  # nothing to wait for: the view cannot be shown now
                    continue
                self._wake.put(None)  # draw the newest view on the new device
            self._wake.get()
            if self._closing.is_set():
                return
            with self._lock:
                self._drain()  # one frame for all that was asked for until now (a later token: another frame)
                view, state, language = wanted = (self.view, self.state, self.language)
            if view is not None and not self._draw(view, state, language):
                retry_at = time.monotonic() + self.retry_seconds
                with self._lock:
                    self._caught_up()
                continue
            with self._lock:
                if (self.view, self.state, self.language) == wanted:
                    self._caught_up()

    def _caught_up(self) -> None:
        """Every frame asked for is on the glass, or cannot be shown now: whoever waits stops (under the lock)."""
        self._shown = self._asked
        if self._waiting:
            self._all_shown.notify_all()

    def _drain(self) -> None:
        while not self._wake.empty():
            self._wake.get_nowait()

    def _open(self) -> bool:
        from unit.backends import oled as screen  # PIL and luma: imported here, after READY=1

        try:
            device = self.open_device()
        except Exception as error:  # luma raises DeviceNotFoundError, smbus2 OSError, ...
            self._failed(f"cannot open the display: {error}")
            return False
        self.display = screen.Display(device, self.language)
        self._applied = None
        return True

    def _draw(self, view: views.View, state: DisplayChanged | None, language: str) -> bool:
        if self.display is None:
            return False
        try:
            if (state, language) != self._applied:  # a frame like the last: nothing else to set (once a second)
                self.display.set_language(language)  # the settings menu may change it
                if state is not None:
                    self.display.adjust(state)  # the contrast command, and a redraw when the picture moves
                self._applied = (state, language)
            self.display.show(view)
        except Exception as error:  # an I2C error: the unit keeps its time regardless
            self._failed(f"display error: {error}")
            return False
        if self._outage:  # opened and drawn: really back
            log.warning("the display is back")
            self._outage = False
        return True

    def _failed(self, why: str) -> None:
        if not self._outage:  # one warning per outage, not one per frame or retry
            log.warning("%s; timing goes on with the LED and the buzzer, retrying", why)
            self._outage = True
        self.display = None


class Gpio(Backend):
    """Buttons, LED, buzzer and OLED on real or mock pins."""

    name = "gpio"
    #: Seconds before the shutdown command is run a second time, after it failed once (:meth:`request`).
    SHUTDOWN_RETRY = 2.0

    def __init__(
        self,
        config: Config,
        pin_factory: Any,
        *,
        open_display: Callable[[DisplaySettings], Any] | None = None,
        shutdown_command: str | None = None,
        trace: RecordSink | None = None,
    ) -> None:
        self.config = config
        self.factory = pin_factory  # the caller's (the launch, a test): made, and closed, by it
        self.mock = is_mock(pin_factory)  # no real Pi: luma's dummy display, scripted presses on the pins
        self.open_display = open_display or (open_dummy if self.mock else open_oled)
        self.shutdown_command = shutdown_command
        self.trace = trace  # with mock pins, LED and buzzer pin changes are traced
        self.view: views.View = views.Off()
        self.display_state: DisplayChanged | None = None  # brightness, dimming, pixel shift
        self._ignored_until_released: set[Button] = set()
        self.worker: DisplayWorker | None = None  # the display's own thread, once open
        self._tracing_pins = False
        self._last_pin_values: dict[str, tuple[float, float | None]] = {}
        self.shutdown_failed = False
        # Claimed by open(), released by close(): None until then, so close() is always safe.
        self.inputs: dict[Button, Any] = {}
        self.led: Any = None
        self.led_wanted, self.led_since = LED_OFF, 0.0  # as the core last set it, and when (the blink counts from it)
        self._led_lit = False  # as last driven on the pin
        self._led_next: float | None = None  # the blink's next edge
        self.buzzer: Any = None
        self.player: TonePlayer | None = None

    # --- opening ------------------------------------------------------------------------------

    def open(self, post: Post, clock: Clock) -> None:
        """Claim the pins; if anything fails halfway, release what was claimed. The display waits for ready()."""
        super().open(post, clock)
        try:
            self._open_devices()
            self._wire_inputs()
        except BaseException:
            self.close()
            raise
        self._tracing_pins = True

    def ready(self) -> None:
        """READY=1 is sent: now the display's thread imports PIL and luma, opens the OLED and draws the
        newest view (the welcome screen, a moment after the LED and the buzzer are live)."""
        if self.led is not None and self.worker is None:
            self._open_display()

    def _open_devices(self) -> None:
        with _no_entry_points_import():
            from gpiozero import LED, Buzzer, TonalBuzzer
            from gpiozero.tones import Tone

        if self.trace is not None and self.mock:
            self.factory.on_output_change = self._pin_changed  # pin_factory("mock")'s pins report to it
        pins, buzzer = self.config.pins, self.config.buzzer
        for button in BUTTONS:
            with refused_pin(button, getattr(pins, button)):
                self.inputs[button] = open_button(self.config, button, self.factory)
        with refused_pin("led", pins.led):
            self.led = LED(pins.led, active_high=True, pin_factory=self.factory)  # _drive_led writes its pin
        passive = buzzer.type == BuzzerType.PASSIVE
        with refused_pin("buzzer", pins.buzzer):
            if passive:
                self.buzzer = TonalBuzzer(
                    pins.buzzer,
                    mid_tone=Tone(frequency=buzzer.mid_tone_hz),
                    octaves=buzzer.octaves,
                    pin_factory=self.factory,
                )
            else:
                self.buzzer = Buzzer(pins.buzzer, pin_factory=self.factory)
        self.player = TonePlayer(self.buzzer, passive=passive)
        self.player.duty = VOLUME_DUTY[buzzer.volume]

    def _wire_inputs(self) -> None:
        switch = self.config.power.control == PowerControl.SWITCH
        for name, device in self.inputs.items():
            if name == Button.POWER and switch:
                device.when_activated = lambda: self.post(Switched(True))
                device.when_deactivated = lambda: self.post(Switched(False))
                self.post(Switched(device.is_active))  # the switch's position at start-up is the state
                continue
            if device.is_active:
                # Held down at start-up (a stuck key, a leaning box): it fires only after a release.
                log.warning("the %s button is held down at start-up: ignored until released", name)
                self._ignored_until_released.add(name)
            device.when_activated = lambda name=name: self._edge(name, True)
            device.when_deactivated = lambda name=name: self._edge(name, False)

    def _edge(self, name: Button, down: bool) -> None:
        if name in self._ignored_until_released:
            if not down:
                self._ignored_until_released.discard(name)
            return
        self.post(Pressed(name) if down else Released(name))

    def _pin_changed(self, pin: Any) -> None:
        """A mock output pin changed: trace it, on the same clock as the rest of the trace."""
        if not self._tracing_pins or self.trace is None:
            return  # the devices setting their pins up
        value, hz = float(pin.state), pin.frequency
        if self._last_pin_values.get(pin.info.name) == (value, hz):
            return  # PWM stop() changes the frequency and the state: one record
        self._last_pin_values[pin.info.name] = (value, hz)
        number = int(pin.info.name.removeprefix("GPIO"))
        name = {self.config.pins.led: "led", self.config.pins.buzzer: "buzzer"}.get(number)
        record = {"t": round(self.clock() - self.started, 3), "kind": "pin", "pin": name or pin.info.name}
        record |= {"gpio": number, "value": value, "hz": hz}
        self.trace.write_record(record)

    # --- the display, which may be missing, failing or slow: its own thread -----------------

    def _open_display(self) -> None:
        settings = self.config.display
        self.worker = DisplayWorker(lambda: self.open_display(settings), self.config.language, settings.retry_seconds)
        self.worker.settle(view=self.view, state=self.display_state)

    @property
    def display(self) -> screen.Display | None:
        """The display as last opened, or None (missing, failing, or not opened yet)."""
        return self.worker.display if self.worker is not None else None

    # --- outputs ------------------------------------------------------------------------------

    def show(self, view: views.View) -> None:
        self.view = view
        if self.worker is None:
            return
        if not self.worker.alive:  # never expected: the worker catches every display error
            log.error("the display thread had stopped: restarted")
            self._open_display()
        self.worker.settle(view=view)

    def set_led(self, led: LedChanged, at: float) -> None:
        """Drive the LED pin now; a blink's next edges come from the loop (:meth:`next_deadline`, :meth:`tick`),
        each at ``at`` plus whole half-periods: on the core's own grid (a countdown's seconds count from the
        same press), so the loop wakes once for both.

        gpiozero's ``LED.blink`` is not used for this: its thread woke twice a second during a countdown,
        each wake-up about 0.18 ms of CPU here (a cold thread and an ``Event``'s condition), and the lit edge
        fell beside the loop's own wake-up for the same second (docs/performance.md). The pin is still
        driven through gpiozero's ``LED``.
        """
        self.led_wanted, self.led_since = led, at
        self._drive_led(self.clock())

    def next_deadline(self) -> float | None:
        """The blink's next edge: the loop wakes for it at its absolute time (no thread of gpiozero's)."""
        return self._led_next

    def tick(self, now: float) -> None:
        if self._led_next is not None and now >= self._led_next - 1e-6:  # an edge is due (led_at: 1e-9 early)
            self._drive_led(now)

    def _drive_led(self, now: float) -> None:
        """The pin as the blink has it at ``now``, and when it next changes (the loop's next deadline)."""
        lit, self._led_next = led_at(self.led_wanted, self.led_since, now)
        if self.led is not None and lit != self._led_lit:
            # The LED's own pin, written directly (the LED is active-high: the pin's state is its value).
            # ``LED.value`` would first look for a blink of gpiozero's to stop: about 30 us more per edge on
            # a thread woken cold (measured with the caches flushed, docs/performance.md).
            self.led.pin.state = lit
            self._led_lit = lit

    def play(self, sound: SoundPlayed) -> None:
        if self.player is not None:
            self.player.play(sound.tones)

    def set_display(self, display: DisplayChanged) -> None:
        self.display_state = display
        if self.worker is not None:
            self.worker.settle(state=display)

    def retune(self, config: Config) -> None:
        """New settings from the menu: the volume at once, the words on the next frame."""
        self.config = config
        if self.player is not None:
            self.player.duty = VOLUME_DUTY[config.buzzer.volume]
        if self.worker is not None:
            self.worker.settle(language=config.language)

    def inject(self, event: Event) -> None:
        """Scripted inputs drive the mock pins, so the whole path from the pin edge runs."""
        if not self.mock:
            super().inject(event)
            return
        if isinstance(event, Switched):
            pin, down = self.factory.pin(self.config.pins.power), event.on
        else:
            pin, down = self.factory.pin(getattr(self.config.pins, event.button)), isinstance(event, Pressed)
        if down == self.config.buttons.pull_up:  # pressed (or switched on) is low with the pull-up
            pin.drive_low()
        else:
            pin.drive_high()

    def request(self, action: str) -> bool:
        if action == "shutdown":
            if self.worker is not None:
                self.worker.wait_shown(2.0)  # "shutting down" on the glass before the power goes
            if self.display is not None:
                self.display.device.persist = True  # and kept there
            if self.mock or not self.shutdown_command:
                log.info("shutdown requested (not on a real Pi: the program only ends)")
            else:
                import shlex
                import subprocess

                log.info("shutting down: %s", self.shutdown_command)
                command = shlex.split(self.shutdown_command)
                try:
                    try:
                        subprocess.run(command, check=True, timeout=30)
                    except subprocess.CalledProcessError as error:
                        # Once more: logind refuses a poweroff whose polkit check raced a login session that was
                        # closing ("Call to PowerOff failed: Stale file handle", seen in the system test).
                        log.warning(
                            "the shutdown command was refused (%s): once more in %g s", error, self.SHUTDOWN_RETRY
                        )
                        time.sleep(self.SHUTDOWN_RETRY)  # the unit is going down: nothing else is timed now
                        subprocess.run(command, check=True, timeout=30)
                except (OSError, subprocess.SubprocessError) as error:
                    log.error("the shutdown command failed: %s", error)
                    self.shutdown_failed = True  # exit 1: systemd restarts the unit, not left on the screen
        return True

    def close(self) -> None:
        """Release every pin claimed (safe to call twice, and after an open that failed halfway)."""
        if self.worker is not None:  # kept: it still knows the last frame shown
            self.worker.wait_shown(0.5)
            self.worker.close()
        if self.player is not None:
            self.player.close()
            self.player = None
        pins = self.config.pins
        devices = [(f"the {name} button (GPIO{getattr(pins, name)})", device) for name, device in self.inputs.items()]
        devices += [(f"the LED (GPIO{pins.led})", self.led), (f"the buzzer (GPIO{pins.buzzer})", self.buzzer)]
        for what, device in devices:
            if device is not None:
                close_calmly(device, what)  # each one, whatever the one before did
        self.inputs, self.led, self.buzzer = {}, None, None
