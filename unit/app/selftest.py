"""``monopoly-city selftest``: a guided test of the wired hardware, one part at a time.

It drives the parts on the configured pins and display (so a wrong pin number
in the configuration shows up here): the LED blinks, the buzzer plays a scale
(and the test says which buzzer type the configuration expects), the OLED
shows a test pattern at each contrast level, then each button is asked for,
with a timeout. The report has one line per part: works, missing, or what to
check. Outputs cannot report back (a pin does not know whether the LED lit),
so for them "works" means driven without an error, and the line says what to
look at if the person saw nothing.

On mock pins (``--pins mock``, a laptop) every part still runs its whole path,
but nothing real is tested: each line says « simulé » (*simulated*), and the
test presses the mock buttons itself instead of waiting for a person.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from unit import i18n
from unit.core import BUTTONS, Button, Config
from unit.core.settings import BuzzerType, DisplaySettings, PowerControl
from unit.errors import Text, UserError

#: BCM GPIO number -> physical pin on the 40-pin header.
PHYSICAL = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21, 25: 22,
    11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip
CONTRASTS = (0, 64, 128, 192, 255)
MAJOR_SCALE = (0, 2, 4, 5, 7, 9, 11, 12)  # semitones above the first note


@dataclass(frozen=True)
class Pace:
    """How long each step lasts (a test shortens them all)."""

    blink_seconds: float = 0.4
    blinks: int = 3
    note_seconds: float = 0.25
    contrast_seconds: float = 1.0
    press_timeout: float = 10.0


@dataclass(frozen=True)
class Result:
    part: str  # led, buzzer, display, power, auction, build
    status: str  # works | missing | check | simulated (mock pins: driven, but no real part was tested)
    detail: str


def where(gpio: int, language: str) -> str:
    pin = "broche" if language == "fr" else "pin"
    physical = PHYSICAL.get(gpio)
    return f"GPIO{gpio}, {pin} {physical}" if physical else f"GPIO{gpio}"


def scale(low_hz: float, high_hz: float) -> list[float]:
    """A rising major scale of eight notes from the middle of the range down an octave, inside [low, high]."""
    first = max(low_hz, min(high_hz / 2, (low_hz * high_hz) ** 0.5 / 2**0.5))
    return [min(high_hz, first * 2 ** (s / 12)) for s in MAJOR_SCALE]


class SelfTest:
    """Runs each part's test on ``factory``'s pins and ``open_display``'s device, saying what to watch."""

    def __init__(
        self,
        config: Config,
        factory: Any,  # gpiozero's pin factory
        open_display: Callable[[DisplaySettings], Any],
        *,
        say: Callable[[str], None] = print,
        pace: Pace = Pace(),
        sleep: Callable[[float], None] = time.sleep,
        mock: bool = False,
    ):
        self.config = config
        self.factory = factory
        self.open_display = open_display
        self.say = say
        self.pace = pace
        self.sleep = sleep
        self.mock = mock
        self.language = config.language
        self.words = i18n.words(config.language)

    def run(self) -> list[Result]:
        w, pins = self.words, dataclasses.asdict(self.config.pins)
        self.say(w("selftest.start", pins=", ".join(f"{k} {v}" for k, v in pins.items())))
        if self.mock:
            self.say(w("selftest.mock"))
        results = [self.led(), self.buzzer(), self.display()]
        results += [self.button(name) for name in BUTTONS]
        return results

    def report(self, results: list[Result]) -> list[str]:
        """One line per part, then a summary line."""
        w = self.words
        colon = " : " if self.language == "fr" else ": "
        lines = [w("selftest.report")]
        lines += [
            f"  {w(f'selftest.names.{r.part}')}{colon}{w(f'selftest.status.{r.status}')} · {r.detail}" for r in results
        ]
        bad = sum(r.status not in ("works", "simulated") for r in results)
        if bad:
            lines.append(w("selftest.some_bad", n=bad))
        elif any(r.status == "simulated" for r in results):
            lines.append(w("selftest.all_simulated"))
        else:
            lines.append(w("selftest.all_good"))
        return lines

    def _driven(self, part: str, detail: str) -> Result:
        """An output driven without an error: it works on real pins, it was only simulated on mock ones."""
        if self.mock:
            return Result(part, "simulated", self.words("selftest.simulated_output"))
        return Result(part, "works", detail)

    # --- each part ----------------------------------------------------------------------------

    def led(self) -> Result:
        from gpiozero import LED

        gpio, p = self.config.pins.led, self.pace
        self.say(self.words("selftest.led", where=where(gpio, self.language), n=p.blinks))
        with LED(gpio, pin_factory=self.factory) as led:
            led.blink(on_time=p.blink_seconds, off_time=p.blink_seconds, n=p.blinks, background=False)
        return self._driven("led", self.words("selftest.led_ok", gpio=gpio))

    def buzzer(self) -> Result:
        gpio, w = self.config.pins.buzzer, self.words
        try:
            self._buzz(gpio)
        except Exception as error:  # a tone out of the buzzer's range, a pin that cannot do PWM
            return Result("buzzer", "check", f"{type(error).__name__}: {error}")
        return self._driven("buzzer", w("selftest.buzzer_ok", gpio=gpio))

    def _buzz(self, gpio: int) -> None:
        from gpiozero import Buzzer, TonalBuzzer
        from gpiozero.tones import Tone

        settings, p, w = self.config.buzzer, self.pace, self.words
        if settings.type == BuzzerType.PASSIVE:
            with TonalBuzzer(
                gpio, mid_tone=Tone(frequency=settings.mid_tone_hz), octaves=settings.octaves,
                pin_factory=self.factory,
            ) as buzzer:  # fmt: skip
                notes = scale(buzzer.min_tone.frequency, buzzer.max_tone.frequency)
                self.say(w("selftest.passive", n=len(notes), low=round(notes[0]), high=round(notes[-1])))
                for hz in notes:
                    buzzer.play(Tone(frequency=hz))
                    self.sleep(p.note_seconds)
                buzzer.stop()
        else:
            self.say(w("selftest.active", n=p.blinks))
            with Buzzer(gpio, pin_factory=self.factory) as buzzer:
                # In the foreground: beep() in the background returns at once, before any sound.
                buzzer.beep(on_time=p.note_seconds, off_time=p.note_seconds, n=p.blinks, background=False)

    def display(self) -> Result:
        from luma.core.render import canvas

        from unit.backends import oled

        settings, w = self.config.display, self.words
        address = f"0x{settings.i2c_address:02X}"
        self.say(w("selftest.display", driver=settings.driver, address=address, port=settings.i2c_port))
        try:
            device = self.open_display(settings)
        except Exception as error:  # luma's DeviceNotFoundError, smbus2's OSError, no /dev/i2c-1...
            detail = w(
                "selftest.display_missing", error=error, port=settings.i2c_port, short=f"{settings.i2c_address:02x}"
            )
            return Result("display", "missing", detail)
        try:
            for level in CONTRASTS:
                device.contrast(level)
                label = w("selftest.contrast", level=level)
                with canvas(device) as draw:
                    draw_pattern(draw, label, oled)
                self.say(f"  {label}")
                self.sleep(self.pace.contrast_seconds)
            device.contrast(255)
            device.clear()
        except Exception as error:  # an I2C error half-way: the wiring is loose
            return Result("display", "check", w("selftest.display_failed", error=error))
        if self.mock:
            return Result("display", "simulated", w("selftest.simulated_display"))
        return Result("display", "works", w("selftest.display_ok"))

    def button(self, name: str) -> Result:
        from unit.backends.gpio import open_button

        gpio, w, timeout = getattr(self.config.pins, name), self.words, self.pace.press_timeout
        switch = name == Button.POWER and self.config.power.control == PowerControl.SWITCH
        buttons = self.config.buttons
        rail = w("selftest.ground" if buttons.pull_up else "selftest.supply")  # what a press connects the pin to
        try:
            device = open_button(self.config, name, self.factory)
        except UserError as error:  # a pin that cannot take the pull buttons.pressed asks for
            message = error.message
            return Result(name, "check", message.say(w) if isinstance(message, Text) else message)
        with device:
            prompt = "selftest.flip" if switch else "selftest.press"
            names = w(f"selftest.names.{name}")
            self.say(w(prompt, name=names, where=where(gpio, self.language), timeout=timeout))
            if self.mock:  # nobody can press a mock pin: the test does, so the path still runs
                pin = self.factory.pin(gpio)
                pressed = not device.is_active
                (pin.drive_low if pressed == buttons.pull_up else pin.drive_high)()
                answered = device.wait_for_active(timeout) if pressed else device.wait_for_inactive(timeout)
            elif switch:  # either position is fine: it must move
                answered = (device.wait_for_inactive if device.is_active else device.wait_for_active)(timeout)
            elif device.is_active:
                return Result(name, "check", w("selftest.held", key=name, rail=rail))
            else:
                answered = device.wait_for_active(timeout)
        if not answered:
            physical = PHYSICAL.get(gpio, "?")
            detail = w("selftest.silent", timeout=timeout, gpio=gpio, physical=physical, key=name, rail=rail)
            return Result(name, "missing", detail)
        self.say(w("selftest.pressed"))
        if self.mock:
            return Result(name, "simulated", w("selftest.simulated_button"))
        return Result(name, "works", w("selftest.button_ok"))


def draw_pattern(draw: Any, label: str, oled: ModuleType) -> None:
    """A frame on the edges (a shifted or cut picture shows at once), a checkerboard and the label."""
    width, height = oled.WIDTH, oled.HEIGHT
    draw.rectangle((0, 0, width - 1, height - 1), outline="white")
    for y in range(4, 28, 4):
        for x in range(4 + (y // 4 % 2) * 4, width - 4, 8):
            draw.rectangle((x, y, x + 3, y + 3), fill="white")
    oled.centred(draw, 44, label, oled.fitting_size(label, 16))
