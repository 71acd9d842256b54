"""``monopoly-city selftest`` on mock pins: every part driven, each button asked for, one report line each."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from luma.core.device import dummy

from unit import i18n
from unit.app import config as configuration
from unit.app import selftest
from unit.backends.gpio import pin_factory

FAST = selftest.Pace(blink_seconds=0.01, blinks=3, note_seconds=0.0, contrast_seconds=0.0, press_timeout=1.0)


class Recorder:
    """What the test said, and every output pin change (pin, value, Hz)."""

    def __init__(self):
        self.said: list[str] = []
        self.pins: list[tuple[str, float, float | None]] = []

    def say(self, line: str) -> None:
        self.said.append(line)

    def pin(self, pin) -> None:
        self.pins.append((pin.info.name, float(pin.state), pin.frequency))


class RecordingDummy(dummy):
    """luma's dummy device, remembering each contrast and each frame."""

    def __init__(self):
        super().__init__(width=128, height=64, mode="1")
        self.contrasts: list[int] = []
        self.frames = []

    def contrast(self, level):
        self.contrasts.append(level)

    def display(self, image):
        super().display(image)
        self.frames.append(self.image)


def run(overrides=None, press=("power", "auction", "build"), open_display=None, language="fr"):
    """Run the self-test; a "person" presses each button in ``press`` when asked for it."""
    config = configuration.load(({"language": language, **(overrides or {})}, "test"))
    record = Recorder()
    factory = pin_factory("mock", record.pin)
    device = RecordingDummy()
    pins = dataclasses.asdict(config.pins)

    def say(line: str) -> None:
        record.say(line)
        for name in press:
            label = i18n.words(language)(f"selftest.names.{name}")
            if label in line and f"GPIO{pins[name]}" in line and line.rstrip(".…").endswith(" s"):
                pin = factory.pin(pins[name])
                threading.Timer(0.05, pin.drive_high if pin.state == 0 else pin.drive_low).start()

    test = selftest.SelfTest(config, factory, open_display or (lambda settings: device), say=say, pace=FAST)
    results = test.run()
    factory.close()
    return results, test.report(results), record, device


def by_part(results):
    return {r.part: r.status for r in results}


def test_every_part_answers_exit_report_and_outputs():
    results, report, record, device = run()
    assert by_part(results) == dict.fromkeys(["led", "buzzer", "display", "power", "auction", "build"], "works")
    assert len(report) == 1 + 6 + 1 and report[-1] == "Tout répond."
    # The LED blinked three times on GPIO23.
    led = [value for name, value, _ in record.pins if name == "GPIO23"]
    assert led == [1.0, 0.0] * 3
    # The buzzer played a rising scale of eight notes on GPIO18, inside the passive buzzer's range, then stopped.
    tones = [hz for name, value, hz in record.pins if name == "GPIO18" and value > 0]
    assert len(tones) == 8 and tones == sorted(tones) and 1244 < tones[0] and tones[-1] < 4979
    assert record.pins[-1][0] != "GPIO18" or record.pins[-1][1] == 0
    assert any("PASSIF" in line for line in record.said)
    # The display: the test pattern at each contrast level, then the contrast back up and the screen cleared.
    assert device.contrasts == [*selftest.CONTRASTS, 255]
    assert len(device.frames) >= len(selftest.CONTRASTS)
    pattern = device.frames[0]
    assert pattern.getpixel((0, 0)) and pattern.getpixel((127, 63))  # the frame's corners
    assert not device.image.getbbox()  # cleared at the end


@pytest.mark.slow
def test_a_button_that_never_answers_is_reported_with_what_to_check():
    results, report, _, _ = run(press=("power", "build"))
    assert by_part(results)["auction"] == "missing" and by_part(results)["build"] == "works"
    line = next(line for line in report if line.startswith("  ENCHÈRES"))
    assert "absent" in line and "GPIO27 (broche 13)" in line and "pins.auction" in line
    assert report[-1] == "1 pièce(s) à revoir (voir ci-dessus)."


@pytest.mark.slow
def test_a_wrong_pin_in_the_configuration_shows_up_as_a_silent_button():
    # The button is wired to 27, the configuration says 5: pressing GPIO27 is not seen.
    config = configuration.load(({"pins": {"auction": 5}}, "test"))
    record = Recorder()
    factory = pin_factory("mock", record.pin)

    def say(line):
        if "ENCHÈRES" in line:
            threading.Timer(0.05, factory.pin(27).drive_low).start()

    results = selftest.SelfTest(config, factory, lambda s: RecordingDummy(), say=say, pace=FAST).run()
    factory.close()
    assert by_part(results)["auction"] == "missing"


def test_a_missing_display_is_reported_and_the_rest_still_runs():
    def no_display(settings):
        raise OSError(121, "Remote I/O error")

    results, report, _, _ = run(open_display=no_display, language="en")
    assert by_part(results) == {
        "led": "works",
        "buzzer": "works",
        "display": "missing",
        "power": "works",
        "auction": "works",
        "build": "works",
    }
    line = next(line for line in report if line.startswith("  Display"))
    assert "missing" in line and "Remote I/O error" in line and "i2cdetect -y 1" in line and "3c" in line
    assert report[-1] == "1 part(s) to look at (see above)."


def test_a_display_failing_half_way_says_what_to_check():
    class Flaky(RecordingDummy):
        def contrast(self, level):
            if level > 64:
                raise OSError(5, "Input/output error")

    results, report, _, _ = run(open_display=lambda settings: Flaky())
    assert by_part(results)["display"] == "check"


def test_an_active_buzzer_beeps_in_the_foreground_and_the_test_says_which_type_it_expects():
    results, _, record, _ = run({"buzzer": {"type": "active"}}, language="en")
    assert by_part(results)["buzzer"] == "works"
    beeps = [value for name, value, _ in record.pins if name == "GPIO18"]
    assert beeps == [1.0, 0.0] * 3  # all three beeps happened before the test moved on
    assert any("ACTIVE buzzer" in line for line in record.said)


@pytest.mark.slow
def test_a_button_held_down_from_the_start_is_a_short_or_a_wrong_pin():
    config = configuration.load()
    factory = pin_factory("mock")

    def say(line):  # stuck down as the test reaches it (before it waits for a press)
        if "CONSTRUCTION" in line:
            factory.pin(22).drive_low()

    results = selftest.SelfTest(config, factory, lambda s: RecordingDummy(), say=say, pace=FAST).run()
    factory.close()
    assert by_part(results)["build"] == "check"


def test_a_latching_switch_is_asked_to_move():
    results, _, record, _ = run({"power": {"control": "switch"}})
    assert by_part(results)["power"] == "works"
    assert any(line.startswith("Basculez l'interrupteur ON/OFF") for line in record.said)


@pytest.mark.slow
def test_on_mock_pins_every_line_says_simulated_and_the_test_presses_the_buttons_itself(capsys, monkeypatch):
    from unit.cli import main

    monkeypatch.setattr(selftest, "Pace", lambda press_timeout: FAST)
    assert main(["selftest", "--pins", "mock", "--lang", "fr"]) == 1  # nothing real answered
    out = capsys.readouterr().out
    report = out[out.index("Bilan :") :].splitlines()
    assert len(report) == 8 and report[-1] == "Tout est simulé (--pins mock) : aucune pièce réelle n'a été testée."
    assert all(": simulé · " in line and "simulé · simulé" not in line for line in report[1:7]), report
    assert "Broches simulées" in out and "appuie lui-même" in out and "reçu." in out


def test_buttons_pressed_high_touch_modules_or_3v3_wiring_answer_on_a_rising_level():
    results, report, _, _ = run({"buttons": {"pressed": "high"}})
    assert by_part(results) == dict.fromkeys(["led", "buzzer", "display", "power", "auction", "build"], "works")
    # A silent one names the 3.3 V side, not ground.
    results, report, _, _ = run({"buttons": {"pressed": "high"}}, press=("power", "build"))
    line = next(line for line in report if line.startswith("  ENCHÈRES"))
    assert "absent" in line and "et le 3,3 V" in line and "buttons.pressed" in line


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "ten", "1e9"])
def test_a_bad_timeout_is_refused_before_any_pin_is_touched(value, capsys):
    from unit.cli import main

    with pytest.raises(SystemExit) as caught:
        main(["selftest", "--pins", "mock", "--timeout", value, "--lang", "en"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "expected a number of seconds from 0.1 to 600" in err and "Traceback" not in err


def test_a_button_pressed_high_on_an_i2c_pin_is_reported_not_raised():
    results, report, _, _ = run({"buttons": {"pressed": "high"}, "pins": {"auction": 2}}, press=("power", "build"))
    assert by_part(results)["auction"] == "check"
    line = next(line for line in report if line.startswith("  ENCHÈRES"))
    assert "GPIO2 a la résistance de tirage" in line
