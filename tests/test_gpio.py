"""The gpio backend on gpiozero's mock pins: the whole path from a pin edge to the LED, buzzer and OLED."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from helpers import PINS, QUICK, assert_auctions_keep_time, caught_up, wait_for
from PIL import Image, ImageChops

from unit.app import config as configuration
from unit.app.runtime import Runtime
from unit.backends.gpio import Gpio, pin_factory
from unit.core import Pressed, Released, Unit, views
from unit.core.sounds import SOUNDS, Sound

GOLDEN = Path(__file__).parent / "golden"
# The LED pin's edges during a QUICK auction, in seconds after the press: lit at the press, 1 Hz (dark at
# 0.5 s); the warning at 0.75 s lights it, then 4 Hz (0.125 s); the end at 1.2 s finds it dark and keeps it so.
QUICK_AUCTION_EDGES = [(0.0, True), (0.5, False), (0.75, True), (0.875, False), (1.0, True), (1.125, False)]
AT_DEADLINES = (0, 2)  # the press and the warning: the core's; the others, the blink's (timed by the loop too)
WELCOME_TONES = len([hz for hz, _ in SOUNDS[Sound.WELCOME] if hz])


@pytest.mark.slow
@pytest.mark.latency
def test_auction_button_pin_blinks_the_led_pin_as_the_core_says(unit_on_pins):
    """« Lorsque l'unité électronique émet un bip et que la lumière rouge se met à clignoter plus vite,
    il vous reste 5 secondes » — here 1.2 s with 0.45 s of warning, on the mock pins."""
    assert_auctions_keep_time(unit_on_pins(), QUICK_AUCTION_EDGES, AT_DEADLINES)


class PinRecorder:
    """Takes the pin records the gpio backend traces on mock pins (the ``pin`` lines of the trace)."""

    def __init__(self):
        self.records = []

    def write_record(self, record):
        self.records.append(record)

    def tones(self):
        """The frequencies sounded in turn: the buzzer pin driven (duty above 0) at a frequency."""
        return [r["hz"] for r in self.records if r["pin"] == "buzzer" and r["hz"] and r["value"] > 0]

    def quiet_after(self, tones: int) -> bool:
        """At least ``tones`` tones sounded, and the buzzer pin silent since: a sound of that many tones is over."""
        buzzer = [r for r in self.records if r["pin"] == "buzzer"]
        return len(self.tones()) >= tones and buzzer[-1]["value"] == 0


@pytest.mark.slow
def test_buzzer_pin_gets_the_tones(unit_on_pins):
    pins = PinRecorder()
    unit = unit_on_pins(trace=pins)
    wait_for(lambda: pins.quiet_after(WELCOME_TONES), what="the welcome chime to end on the buzzer pin")
    pins.records.clear()
    unit.press("power")
    assert wait_for(lambda: len(pins.tones()) >= 3)
    assert pins.tones()[:3] == [2093, 2637, 3136]  # power_on, through TonalBuzzer
    pins.records.clear()
    unit.press("auction")
    assert wait_for(lambda: len(pins.tones()) >= 2)
    assert pins.tones()[:2] == [1760, 2093]  # auction_start, the rest between is silence


def test_frames_sent_to_the_display_are_the_golden_screens(unit_on_pins):
    unit = unit_on_pins({"auction": {"seconds": 50, "warning_seconds": 5}})
    unit.press("power")
    unit.press("auction")
    assert wait_for(lambda: unit.backend.display and unit.backend.display.view == views.Countdown(50, 50))
    shown = unit.backend.display.device.image
    with Image.open(GOLDEN / "fr" / "countdown.png") as golden:
        assert ImageChops.difference(shown.convert("L"), golden.convert("L")).getbbox() is None


def test_long_press_cancels_and_short_press_does_not(unit_on_pins):
    unit = unit_on_pins({"auction": {"seconds": 5, "warning_seconds": 1, "cancel_hold_seconds": 0.3}})
    unit.press("power")
    unit.press("auction")
    assert wait_for(lambda: unit.runtime.unit.state == "countdown")
    unit.press("auction", hold=0.05)
    caught_up(unit.runtime)  # the loop has handled the short press (the mock pins post it as they change)
    assert unit.runtime.unit.state == "countdown"
    unit.press("auction", hold=0.45)
    assert wait_for(lambda: unit.runtime.unit.state == "ready")
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


@pytest.mark.slow
@pytest.mark.latency
def test_a_failing_display_does_not_stop_the_timing(unit_on_pins, caplog):
    FailingDisplay.failing, FailingDisplay.opened = True, 0
    unit = unit_on_pins(
        {"display": {"retry_seconds": 0.2}},
        open_display=FailingDisplay,
    )
    assert_auctions_keep_time(unit, QUICK_AUCTION_EDGES, AT_DEADLINES)  # the auctions kept their time, on the pin
    warnings = [r for r in caplog.records if "display" in r.getMessage()]
    assert len(warnings) == 1  # one warning for the outage, not one per frame or retry
    assert FailingDisplay.opened >= 3  # retried now and then
    FailingDisplay.failing = False
    assert wait_for(lambda: unit.backend.display is not None and unit.backend.display.view is not None)
    assert unit.backend.display.view == unit.backend.view  # back, showing what the unit shows
    wait_for(lambda: "the display is back" in caplog.text, what="the line saying so")  # said just after the frame


def test_a_missing_display_is_retried(unit_on_pins, caplog):
    def absent(config):
        raise OSError(2, "No such file or directory: '/dev/i2c-1'")

    unit = unit_on_pins({"display": {"retry_seconds": 0.1}}, open_display=absent)
    unit.press("power")
    assert wait_for(lambda: unit.runtime.unit.state == "ready")
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
    backend = HeldAtStart(config, pin_factory("mock"))
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
    backend = HeldAtStart(config, pin_factory("mock"))
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
    # the welcome chime ends: the buzzer pin was on, and is off again
    wait_for(lambda: any(s.state for s in buzzer.states) and not buzzer.state, what="the welcome chime to end")
    buzzer.clear_states()
    unit.press("power")
    assert wait_for(lambda: len(buzzer.states) >= 3)
    assert [s.state for s in buzzer.states[:2]] == [0.0, 1.0]


def test_shutdown_on_mock_pins_only_ends_the_program(unit_on_pins, tmp_path):
    marker = tmp_path / "shut"
    unit = unit_on_pins({"power": {"shutdown_hold_seconds": 0.3}}, shutdown_command=f"touch {marker}")
    unit.press("power")
    unit.press("power", hold=0.5)
    assert wait_for(lambda: unit.runtime.stopped)
    assert not marker.exists()
    assert unit.backend.view == views.Shutdown()


def test_shutdown_on_a_real_pi_runs_the_command(tmp_path):
    marker = tmp_path / "shut"
    config = configuration.load()
    real_pins = object()  # a Pi's lgpio factory, never opened: no hardware needed
    backend = Gpio(config, real_pins, shutdown_command=f"touch {marker}")
    assert backend.request("shutdown") is True
    assert marker.exists()


def test_a_shutdown_command_that_fails_once_is_run_once_more(tmp_path, caplog, monkeypatch):
    """logind may refuse one poweroff (its polkit check raced a closing login session): the unit tries once more
    before it gives up; a command that fails twice still ends the unit with status 1 (systemd restarts it)."""
    monkeypatch.setattr(Gpio, "SHUTDOWN_RETRY", 0.01)
    tries = tmp_path / "tries"
    once = f"sh -c 'echo x >> {tries}; test $(wc -l < {tries}) -ge 2'"  # fails the first time only
    backend = Gpio(configuration.load(), object(), shutdown_command=once)
    assert backend.request("shutdown") is True
    assert tries.read_text().count("x") == 2 and not getattr(backend, "shutdown_failed", False)
    assert "once more" in caplog.text
    never = Gpio(configuration.load(), object(), shutdown_command="false")
    assert never.request("shutdown") is True
    assert never.shutdown_failed
    assert caplog.text.count("the shutdown command was refused") == 2  # each first try: a warning
    assert caplog.text.count("the shutdown command failed") == 1  # the error: only once both tries failed


class FlakyDisplay(FailingDisplay):
    """I2C errors on every other transfer, as a loose wire gives."""

    calls = 0

    def display(self, image):
        FlakyDisplay.calls += 1
        if FlakyDisplay.calls % 2 == 0:
            raise OSError(121, "Remote I/O error")
        self.device.display(image)


@pytest.mark.slow
@pytest.mark.latency
def test_an_intermittent_display_keeps_the_timing_exact(unit_on_pins):
    unit = unit_on_pins({"display": {"retry_seconds": 0.05}}, open_display=FlakyDisplay)
    assert_auctions_keep_time(unit, QUICK_AUCTION_EDGES, AT_DEADLINES)
    assert FlakyDisplay.calls > 3
    assert wait_for(lambda: unit.backend.display is not None and unit.backend.display.view == unit.backend.view)


@pytest.mark.slow
def test_the_settings_menu_on_mock_pins_saves_the_file(tmp_path):
    """Pin presses only: hold ENCHÈRES on the welcome screen, CONSTRUCTION changes, ON/OFF leaves."""
    import json

    from unit.app.settings import FILENAME, SettingsStore

    config = configuration.load(({**QUICK, "menu": {"hold_seconds": 0.2}}, "test"))
    backend = Gpio(config, pin_factory("mock"))
    runtime = Runtime(Unit(config), backend, settings=SettingsStore(tmp_path))
    runtime.open()
    pin = lambda name: backend.factory.pin(PINS[name])  # noqa: E731

    def press(name, hold=0.05):
        """A finger held ``hold`` seconds (the duration is the input) while the test steps the loop itself."""
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
    wait_for(lambda: pins.quiet_after(WELCOME_TONES), what="the welcome chime to end on the buzzer pin")
    pins.records.clear()
    unit.press("power")
    assert wait_for(lambda: len(pins.tones()) >= 3)
    duties = {r["value"] for r in pins.records if r["pin"] == "buzzer" and r["value"] > 0}
    assert duties == {0.05}  # low: a narrow pulse (high is 0.5)


def test_buttons_pressed_high_a_touch_module_or_a_button_to_3v3_switch_on_and_start_an_auction(unit_on_pins):
    """buttons.pressed: high: the inputs use the pull-down, and a rising level is a press (TTP223, QEMU's line)."""
    unit = unit_on_pins({"buttons": {"pressed": "high"}})
    power = unit.pin("power")
    assert power.pull == "down" and power.state == 0  # idle low, not a press held at start-up
    power.drive_high()  # touched: 100 ms high, as QEMU's system_powerdown pulses its line
    time.sleep(0.1)  # the pulse's length is the input
    power.drive_low()
    wait_for(lambda: unit.runtime.unit.state == "ready")
    unit.pin("auction").drive_high()
    time.sleep(0.05)  # a finger on the pad: the duration is the input
    unit.pin("auction").drive_low()
    wait_for(lambda: unit.runtime.unit.state == "countdown")


def test_scripted_presses_drive_the_pressed_level():
    config = configuration.load(({"buttons": {"pressed": "high"}}, "test"))
    backend = Gpio(config, pin_factory("mock"))
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
    backend = Gpio(config, pin_factory("mock"))
    with pytest.raises(UserError) as caught:
        Runtime(Unit(config), backend).open()
    assert caught.value.where == "pins.power" and caught.value.exit_status == 2
    assert "GPIO3 has the Raspberry Pi's own pull-up resistor" in str(caught.value.message)
    assert backend.inputs == {} and backend.led is None  # every pin claimed so far was released


class LateLoop(Runtime):
    """The loop on a virtual clock that wakes every time ``late`` seconds after it asked, and is handed the
    scripted ``presses`` (time, input) when they are due: each wake-up noted."""

    def __init__(self, unit, backend, presses, late, now=100.0):
        self.now, self.presses, self.late, self.wakes = now, list(presses), late, []
        super().__init__(unit, backend, clock=lambda: self.now)

    def _wait(self, timeout):
        until = self.now + (timeout if timeout is not None else 60.0)
        if self.presses and self.presses[0][0] <= until:
            self.now = max(self.now, self.presses[0][0])
            return [self.presses.pop(0)]
        self.now = until + self.late
        self.wakes.append(self.now)
        return []


def test_the_warnings_blink_keeps_the_cores_grid_when_the_loop_wakes_late():
    """The warning's 4 Hz blink counts from the warning's deadline, not from the loop's wake-up just after it:
    every edge is on the core's grid (whole eighths of a second from the press), so the lit edge and the core's
    second are one wake-up. Counted from the late wake-up, each edge sat 1.5 ms off the grid, and a lateness
    that varies then woke the loop twice around each second."""
    config = configuration.load(({"auction": {"seconds": 10, "warning_seconds": 5}}, "test"))
    backend = Gpio(config, pin_factory("mock"))
    press = 101.0
    inputs = [(100.5, Pressed("power")), (100.55, Released("power")), (press, Pressed("auction"))]
    runtime = LateLoop(Unit(config), backend, [*inputs, (press + 0.05, Released("auction"))], late=0.0015)
    runtime.open()
    try:
        while runtime.now < press + 11:
            runtime.step()
        warning = [t - (press + 5) for t in runtime.wakes if press + 5 <= t < press + 10]
        assert len(warning) == 40  # 8 edges a second, the seconds and the end among them
        assert all(abs(t - round(t / 0.125) * 0.125 - 0.0015) < 1e-9 for t in warning), warning
        assert runtime.unit.state == "ready" and backend.factory.pin(config.pins.led).state == 0
    finally:
        backend.close()


def test_a_pin_the_chip_refuses_is_one_line_naming_the_setting_not_a_traceback(monkeypatch):
    """Seen on the flashed card under QEMU's virt machine: the default pins on an 8-line chip, and lgpio's
    « GPIO operation not permitted » ended the unit in a traceback. Here the LED's pin is refused the same way."""
    from gpiozero.pins.mock import MockFactory

    from unit.errors import UserError

    class Refused(Exception):  # what lgpio raises: lgpio.error('GPIO operation not permitted')
        pass

    factory = pin_factory("mock")
    real_pin = MockFactory.pin

    def pin(self, spec, **kwargs):
        if str(spec) in ("23", "GPIO23"):
            raise Refused("'GPIO operation not permitted'")
        return real_pin(self, spec, **kwargs)

    monkeypatch.setattr(MockFactory, "pin", pin)
    config = configuration.load(({"pins": {"led": 23}}, "test"))
    backend = Gpio(config, factory)
    with pytest.raises(UserError) as caught:
        Runtime(Unit(config), backend).open()
    assert caught.value.where == "pins.led" and caught.value.exit_status == 2
    assert str(caught.value) == (
        "pins.led: GPIO23 cannot be used ('GPIO operation not permitted'): another program or a device-tree "
        "overlay may hold it, or this board has no such line (gpioinfo lists them); choose another pin"
    )
    assert backend.inputs == {} and backend.led is None  # the buttons claimed before it were released
