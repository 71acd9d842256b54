"""Backends behave like gpiozero's devices: close() is safe twice, and an open that fails halfway
releases what it had claimed."""

from __future__ import annotations

import gc
import sys

import pytest
from gpiozero import LED, DigitalInputDevice
from gpiozero.exc import GPIOPinInUse

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.backends.headless import Headless
from unit.core import LedChanged, LedMode, Unit
from unit.core.events import LED_OFF

CONFIG = configuration.load()
PINS = CONFIG.pins


class Interrupted(BaseException):
    """Ctrl-C (or systemd's stop) arriving while the backend opens: not an Exception, nothing catches it."""


class InterruptedAfterTheButtons(Gpio):
    """Interrupted once the buttons, the LED and the buzzer are claimed, before the callbacks are wired."""

    def _wire_inputs(self):
        raise Interrupted


def test_an_open_that_fails_after_the_buttons_are_claimed_frees_the_pins():
    backend = InterruptedAfterTheButtons(CONFIG, pin_factory("mock"))
    runtime = Runtime(Unit(CONFIG), backend, until=1.0)
    with pytest.raises(Interrupted):
        runtime.run()
    factory = backend.factory
    assert factory is not None  # the buttons and the LED had been claimed...
    for pin in (PINS.power, PINS.auction, PINS.build):  # ...and are free again
        DigitalInputDevice(pin, pin_factory=factory).close()
    LED(PINS.led, pin_factory=factory).close()


def test_a_display_that_fails_to_open_does_not_fail_the_open():
    """The display opens in its own worker: missing, it is retried while the LED and the buzzer keep time."""

    def missing(settings):
        raise OSError("no I2C device at 0x3C")

    backend = Gpio(CONFIG, pin_factory("mock"), open_display=missing)
    runtime = Runtime(Unit(CONFIG), backend, until=0.2)
    runtime.run()
    assert runtime.stopped
    DigitalInputDevice(PINS.power, pin_factory=backend.factory).close()  # and everything released at the end


def test_pins_stay_claimed_while_open_and_close_is_safe_twice():
    backend = Gpio(CONFIG, pin_factory("mock"))
    backend.open(lambda event: None, lambda: 0.0)
    with pytest.raises(GPIOPinInUse):
        DigitalInputDevice(PINS.auction, pin_factory=backend.factory)
    backend.close()
    backend.close()
    DigitalInputDevice(PINS.auction, pin_factory=backend.factory).close()


def test_close_before_open_is_safe():
    Gpio(CONFIG, pin_factory("mock")).close()
    Headless("fr").close()


def test_a_backend_is_a_context_manager():
    with Gpio(CONFIG, pin_factory("mock")) as backend:
        backend.open(lambda event: None, lambda: 0.0)
        factory = backend.factory
    DigitalInputDevice(PINS.build, pin_factory=factory).close()


def test_the_gpio_backend_blinks_the_led_pin_at_absolute_times_from_the_change():
    """The loop times the blink (no gpiozero thread): lit first, each edge at the change's time plus whole
    half-periods, whatever the lateness of the wake-up before (an accumulated sleep would drift)."""
    now = 100.0
    backend = Gpio(CONFIG, pin_factory("mock"))
    backend.open(lambda event: None, lambda: now)
    try:
        pin = backend.factory.pin(PINS.led)
        backend.set_led(LedChanged(LedMode.BLINK, 1.0), 99.9)  # the core's time: the press, a moment ago
        assert pin.state == 1  # lit first, at once
        assert backend.next_deadline() == pytest.approx(100.4)
        now = 100.43  # the loop woke 30 ms late
        backend.tick(now)
        assert pin.state == 0
        assert backend.next_deadline() == pytest.approx(100.9)  # from the start, not from the late edge
        now = 100.9
        backend.tick(now)
        assert pin.state == 1
        backend.set_led(LedChanged(LedMode.BLINK, 4.0), 100.95)  # the warning: 4 Hz from its own time
        assert pin.state == 1 and backend.next_deadline() == pytest.approx(101.075)
        now = 101.2
        backend.tick(now)  # lit 100.95, dark 101.075, lit again 101.2: counted from the change
        assert pin.state == 1 and backend.next_deadline() == pytest.approx(101.325)
        backend.set_led(LED_OFF, 101.25)
        assert pin.state == 0 and backend.next_deadline() is None
        backend.set_led(LedChanged(LedMode.ON), 102.0)
        assert pin.state == 1 and backend.next_deadline() is None
    finally:
        backend.close()


class Busy(Exception):
    """lgpio.error as lgpio raises it when the kernel still holds a line (EBUSY)."""

    def __init__(self) -> None:
        super().__init__("'GPIO busy'")


def busy_for(pin, times: int) -> list[int]:
    """Make ``pin``'s close fail ``times`` times with « GPIO busy » (lgpio's re-claim of a button's line while its
    alert thread still polls it), then close for real; the list counts the tries."""
    tries: list[int] = []
    real_close = pin.close

    def close() -> None:
        tries.append(1)
        if len(tries) <= times:
            raise Busy
        real_close()

    pin.close = close
    return tries


def test_a_pin_busy_for_a_moment_at_close_is_released_on_a_later_try(monkeypatch, caplog):
    """Seen at shutdown on the Pi 3 B boot: « lgpio.error: 'GPIO busy' » from a button's close, a traceback, and
    the LED and the buzzer never closed. A moment later the line is free: tried again, released, nothing said."""
    monkeypatch.setattr("unit.backends.gpio.CLOSE_RETRY_INTERVAL", 0.0)
    backend = Gpio(CONFIG, pin_factory("mock"))
    backend.open(lambda event: None, lambda: 0.0)
    tries = busy_for(backend.factory.pin(PINS.auction), times=2)
    backend.close()
    assert len(tries) == 3
    assert [r.getMessage() for r in caplog.records if r.levelname != "DEBUG"] == []
    for pin in (PINS.power, PINS.auction, PINS.build):
        DigitalInputDevice(pin, pin_factory=backend.factory).close()
    LED(PINS.led, pin_factory=backend.factory).close()
    LED(PINS.buzzer, pin_factory=backend.factory).close()


def test_a_pin_that_stays_busy_is_one_line_and_the_others_are_still_released(monkeypatch, caplog):
    monkeypatch.setattr("unit.backends.gpio.CLOSE_RETRY_INTERVAL", 0.0)
    unraisable: list[str] = []  # gpiozero's __del__ closing the device again at exit: « Exception ignored in »
    monkeypatch.setattr(sys, "unraisablehook", lambda hook: unraisable.append(repr(hook.exc_value)))
    backend = Gpio(CONFIG, pin_factory("mock"))
    backend.open(lambda event: None, lambda: 0.0)
    stuck = backend.factory.pin(PINS.auction)
    busy_for(stuck, times=1_000)
    backend.close()  # no exception: the unit is ending, and the kernel frees the line when it exits
    said = [r.getMessage() for r in caplog.records if r.levelname != "DEBUG"]
    assert said == [
        f"the auction button (GPIO{PINS.auction}) not released cleanly ('GPIO busy'): the system frees it as the "
        "unit ends"
    ]
    for pin in (PINS.power, PINS.build):  # the buttons after it, the LED and the buzzer: closed all the same
        DigitalInputDevice(pin, pin_factory=backend.factory).close()
    LED(PINS.led, pin_factory=backend.factory).close()
    LED(PINS.buzzer, pin_factory=backend.factory).close()
    assert backend.inputs == {} and backend.led is None and backend.buzzer is None
    gc.collect()
    assert unraisable == []
    del stuck.close  # the line free at last (for the factory's own close)
