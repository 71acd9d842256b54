"""The gpio backend on gpiozero's mock pins: the whole path from a pin edge to the LED, buzzer and OLED."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio
from unit.core import Unit, views

GOLDEN = Path(__file__).parent / "golden"
QUICK = {"auction": {"seconds": 1.2, "warning_seconds": 0.45, "cancel_hold_seconds": 0.3}}
PINS = dataclasses.asdict(configuration.load().pins)
# The LED pin during a QUICK auction: 1 Hz, lit 0.5 s, dark until the warning at 0.75 s; then 4 Hz
# (0.125 s) until the end at 1.2 s, dark after.
QUICK_AUCTION_BLINKS = [
    (0.0, False),
    (0.0, True),
    (0.5, False),
    (0.25, True),
    (0.125, False),
    (0.125, True),
    (0.125, False),
]


class Running:
    """A gpio runtime on mock pins, looping in a thread like the real service."""

    def __init__(self, overrides=None, **backend_options):
        self.config = configuration.load(({**QUICK, **(overrides or {})}, "test"))
        self.backend = Gpio(self.config, pins="mock", **backend_options)
        self.runtime = Runtime(Unit(self.config), self.backend)
        self.runtime.open()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        try:
            while not self.runtime.stopped:
                self.runtime.step()
        finally:
            self.backend.close()

    def pin(self, name):
        return self.backend.factory.pin(PINS[name])

    def press(self, name, hold=0.02):
        self.pin(name).drive_low()
        time.sleep(hold)
        self.pin(name).drive_high()
        time.sleep(0.02)

    def wait_for(self, predicate, timeout=3.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if predicate():
                return True
            time.sleep(0.005)
        return False

    def stop(self):
        self.runtime.stop()
        self.thread.join(3)
        assert not self.thread.is_alive()


@pytest.fixture
def unit_on_pins():
    made = []

    def make(overrides=None, **options):
        running = Running(overrides, **options)
        made.append(running)
        return running

    yield make
    for running in made:
        if running.thread.is_alive():
            running.stop()


def quick_auction(unit: Running):
    """Switch on, press the auction button pin, wait for the end: the LED pin, its history from the press."""
    unit.press("power")
    assert unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    led = unit.pin("led")
    led.clear_states()
    unit.press("auction")
    assert unit.wait_for(lambda: unit.runtime.unit.state == "ready" and unit.runtime.unit.led.mode == "off", 3)
    time.sleep(0.1)
    return led


def test_auction_button_pin_blinks_the_led_pin_as_the_core_says(unit_on_pins):
    """« Lorsque l'unité électronique émet un bip et que la lumière rouge se met à clignoter plus vite,
    il vous reste 5 secondes » — here 1.2 s with 0.45 s of warning, on the mock pins."""
    led = quick_auction(unit_on_pins())
    led.assert_states_and_times(QUICK_AUCTION_BLINKS)
    assert len(led.states) == 7  # and dark after the end
    assert led.state == 0


class PinRecorder:
    """Takes the pin records the gpio backend traces on mock pins (the ``pin`` lines of the trace)."""

    def __init__(self):
        self.records = []

    def write_record(self, record):
        self.records.append(record)

    def tones(self):
        """The frequencies sounded in turn: the buzzer pin driven (duty above 0) at a frequency."""
        return [r["hz"] for r in self.records if r["pin"] == "buzzer" and r["hz"] and r["value"] > 0]


def test_buzzer_pin_gets_the_tones(unit_on_pins):
    pins = PinRecorder()
    unit = unit_on_pins(trace=pins)
    time.sleep(0.6)  # the welcome chime ends
    pins.records.clear()
    unit.press("power")
    assert unit.wait_for(lambda: len(pins.tones()) >= 3)
    assert pins.tones()[:3] == [2093, 2637, 3136]  # power_on, through TonalBuzzer
    pins.records.clear()
    unit.press("auction")
    assert unit.wait_for(lambda: len(pins.tones()) >= 2)
    assert pins.tones()[:2] == [1760, 2093]  # auction_start, the rest between is silence


def test_frames_sent_to_the_display_are_the_golden_screens(unit_on_pins):
    unit = unit_on_pins({"auction": {"seconds": 50, "warning_seconds": 5}})
    unit.press("power")
    unit.press("auction")
    assert unit.wait_for(lambda: unit.backend.display and unit.backend.display.view == views.Countdown(50, 50))
    shown = unit.backend.display.device.image
    with Image.open(GOLDEN / "fr" / "countdown.png") as golden:
        assert ImageChops.difference(shown.convert("L"), golden.convert("L")).getbbox() is None


def test_long_press_cancels_and_short_press_does_not(unit_on_pins):
    unit = unit_on_pins({"auction": {"seconds": 5, "warning_seconds": 1, "cancel_hold_seconds": 0.3}})
    unit.press("power")
    unit.press("auction")
    assert unit.wait_for(lambda: unit.runtime.unit.state == "countdown")
    unit.press("auction", hold=0.05)
    time.sleep(0.1)
    assert unit.runtime.unit.state == "countdown"
    unit.press("auction", hold=0.45)
    assert unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    assert unit.pin("led").state == 0


class FailingDisplay:
    """A luma device whose I2C transfers fail while ``failing`` is set."""

    failing = True
    opened = 0

    def __init__(self, config):
        from luma.core.device import dummy

        FailingDisplay.opened += 1
        self.device = dummy(width=128, height=64, mode="1")
        self.mode, self.size, self.width, self.height = "1", (128, 64), 128, 64
        self.persist = False

    def display(self, image):
        if FailingDisplay.failing:
            raise OSError(121, "Remote I/O error")
        self.device.display(image)

    @property
    def image(self):
        return self.device.image


def test_a_failing_display_does_not_stop_the_timing(unit_on_pins, caplog):
    FailingDisplay.failing, FailingDisplay.opened = True, 0
    unit = unit_on_pins(
        {"display": {"retry_seconds": 0.2}},
        open_display=FailingDisplay,
    )
    unit.press("power")
    started = time.monotonic()
    unit.press("auction")
    assert unit.wait_for(lambda: unit.runtime.unit.state == "ready" and unit.runtime.unit.led.mode == "off", 3)
    assert 1.1 < time.monotonic() - started < 1.5  # the auction ended on time
    warnings = [r for r in caplog.records if "display" in r.getMessage()]
    assert len(warnings) == 1  # one warning for the outage, not one per frame or retry
    assert FailingDisplay.opened >= 3  # retried now and then
    FailingDisplay.failing = False
    assert unit.wait_for(lambda: unit.backend.display is not None and unit.backend.display.view is not None)
    assert unit.backend.display.view == unit.backend.view  # back, showing what the unit shows
    assert "the display is back" in caplog.text


def test_a_missing_display_is_retried(unit_on_pins, caplog):
    def absent(config):
        raise OSError(2, "No such file or directory: '/dev/i2c-1'")

    unit = unit_on_pins({"display": {"retry_seconds": 0.1}}, open_display=absent)
    unit.press("power")
    assert unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    assert "cannot open the display" in caplog.text


class HeldAtStart(Gpio):
    """Pins already low when the backend wires its callbacks: a held button, a switch left on."""

    held = ("power",)

    def _wire_inputs(self):
        for name in self.held:
            self.factory.pin(PINS[name]).drive_low()
        super()._wire_inputs()


def test_a_button_held_at_start_up_does_not_fire(caplog):
    config = configuration.load((QUICK, "test"))
    backend = HeldAtStart(config, pins="mock")
    runtime = Runtime(Unit(config), backend)
    runtime.open()
    runtime.step(max_wait=0.05)
    assert runtime.unit.state == "off"  # the held button did not switch on
    assert "held down at start-up" in caplog.text
    pin = backend.factory.pin(PINS["power"])
    pin.drive_high()  # released: from now on it works
    runtime.step(max_wait=0.05)
    assert runtime.unit.state == "off"
    pin.drive_low()
    pin.drive_high()
    runtime.step(max_wait=0.05)
    assert runtime.unit.state == "ready"
    backend.close()


def test_latching_switch_position_at_start_is_the_state():
    config = configuration.load(({"power": {"control": "switch"}}, "test"))
    backend = HeldAtStart(config, pins="mock")
    runtime = Runtime(Unit(config), backend)
    runtime.open()
    runtime.step(max_wait=0.05)
    assert runtime.unit.state == "ready"
    backend.factory.pin(PINS["power"]).drive_high()
    runtime.step(max_wait=0.05)
    assert runtime.unit.state == "off"
    backend.close()


def test_active_buzzer_beeps_the_rhythm(unit_on_pins):
    unit = unit_on_pins({"buzzer": {"type": "active"}})
    buzzer = unit.pin("buzzer")
    time.sleep(0.6)  # the welcome chime ends
    buzzer.clear_states()
    unit.press("power")
    assert unit.wait_for(lambda: len(buzzer.states) >= 3)
    assert [s.state for s in buzzer.states[:2]] == [0.0, 1.0]


def test_shutdown_on_mock_pins_only_ends_the_program(unit_on_pins, tmp_path):
    marker = tmp_path / "shut"
    unit = unit_on_pins({"power": {"shutdown_hold_seconds": 0.3}}, shutdown_command=f"touch {marker}")
    unit.press("power")
    unit.press("power", hold=0.5)
    assert unit.wait_for(lambda: unit.runtime.stopped)
    assert not marker.exists()
    assert unit.backend.view == views.Shutdown()


def test_shutdown_on_a_real_pi_runs_the_command(tmp_path):
    marker = tmp_path / "shut"
    config = configuration.load()
    backend = Gpio(config, pins="mock", shutdown_command=f"touch {marker}")
    backend.pins = "lgpio"  # as on a Pi, without opening any hardware
    assert backend.request("shutdown") is True
    assert marker.exists()


class FlakyDisplay(FailingDisplay):
    """I2C errors on every other transfer, as a loose wire gives."""

    calls = 0

    def display(self, image):
        FlakyDisplay.calls += 1
        if FlakyDisplay.calls % 2 == 0:
            raise OSError(121, "Remote I/O error")
        self.device.display(image)


def test_an_intermittent_display_keeps_the_timing_exact(unit_on_pins):
    unit = unit_on_pins({"display": {"retry_seconds": 0.05}}, open_display=FlakyDisplay)
    quick_auction(unit).assert_states_and_times(QUICK_AUCTION_BLINKS)
    assert FlakyDisplay.calls > 3
    assert unit.wait_for(lambda: unit.backend.display is not None and unit.backend.display.view == unit.backend.view)


def test_the_settings_menu_on_mock_pins_saves_the_file(tmp_path):
    """Pin presses only: hold ENCHÈRES on the welcome screen, CONSTRUCTION changes, ON/OFF leaves."""
    import json

    from unit.app.settings import FILENAME, SettingsStore

    config = configuration.load(({**QUICK, "menu": {"hold_seconds": 0.2}}, "test"))
    backend = Gpio(config, pins="mock")
    runtime = Runtime(Unit(config), backend, settings=SettingsStore(tmp_path))
    runtime.open()
    pin = lambda name: backend.factory.pin(PINS[name])  # noqa: E731

    def press(name, hold=0.05):
        pin(name).drive_low()
        end = time.monotonic() + hold
        while time.monotonic() < end:
            runtime.step(max_wait=0.01)
        pin(name).drive_high()
        for _ in range(5):
            runtime.step(max_wait=0.01)

    try:
        press("auction", hold=0.35)
        assert runtime.unit.state == "settings"
        press("auction")  # the auction length
        press("build")  # 1.2 s (QUICK) -> 30 s, the first of the list above it
        press("auction")
        press("auction")
        press("build")  # sound: high -> off
        saved = json.loads((tmp_path / FILENAME).read_text(encoding="utf-8"))["settings"]
        assert saved["auction"] == {"seconds": 30} and saved["buzzer"] == {"volume": "off"}
        assert backend.player.duty == 0.0  # silent at once
        press("power")
        assert runtime.unit.state == "off"
        assert runtime.unit.config.auction.seconds == 30
    finally:
        backend.close()


def test_the_volume_is_the_buzzer_pins_duty_cycle(unit_on_pins):
    pins = PinRecorder()
    unit = unit_on_pins({"buzzer": {"volume": "low"}}, trace=pins)
    time.sleep(0.6)  # the welcome chime ends
    pins.records.clear()
    unit.press("power")
    assert unit.wait_for(lambda: len(pins.tones()) >= 3)
    duties = {r["value"] for r in pins.records if r["pin"] == "buzzer" and r["value"] > 0}
    assert duties == {0.05}  # low: a narrow pulse (high is 0.5)


def test_buttons_pressed_high_a_touch_module_or_a_button_to_3v3_switch_on_and_start_an_auction(unit_on_pins):
    """buttons.pressed: high: the inputs use the pull-down, and a rising level is a press (TTP223, QEMU's line)."""
    unit = unit_on_pins({"buttons": {"pressed": "high"}})
    power = unit.pin("power")
    assert power.pull == "down" and power.state == 0  # idle low, not a press held at start-up
    power.drive_high()  # touched: 100 ms high, as QEMU's system_powerdown pulses its line
    time.sleep(0.1)
    power.drive_low()
    assert unit.wait_for(lambda: unit.runtime.unit.state == "ready")
    unit.pin("auction").drive_high()
    time.sleep(0.05)
    unit.pin("auction").drive_low()
    assert unit.wait_for(lambda: unit.runtime.unit.state == "countdown")


def test_scripted_presses_drive_the_pressed_level():
    config = configuration.load(({"buttons": {"pressed": "high"}}, "test"))
    backend = Gpio(config, pins="mock")
    runtime = Runtime(Unit(config), backend)
    runtime.open()
    from unit.core import Button, Pressed

    backend.inject(Pressed(Button.POWER))
    assert backend.factory.pin(PINS["power"]).state == 1
    backend.close()


def test_a_button_pressed_high_on_an_i2c_pin_with_the_boards_pull_up_is_one_line_not_a_traceback():
    """GPIO2 and GPIO3 have the Pi's own 1.8 kOhm pull-ups: a pull-down there is impossible (seen under QEMU)."""
    from unit.errors import UserError

    config = configuration.load(({"buttons": {"pressed": "high"}, "pins": {"power": 3, "led": 24}}, "test"))
    backend = Gpio(config, pins="mock")
    with pytest.raises(UserError) as caught:
        Runtime(Unit(config), backend).open()
    assert caught.value.where == "pins.power" and caught.value.exit_status == 2
    assert "GPIO3 has the Raspberry Pi's own pull-up resistor" in str(caught.value.message)
    assert backend.inputs == {} and backend.led is None  # every pin claimed so far was released
