"""``monopoly-city selftest``: a guided test of the wired hardware, one part at a time.

It drives the parts on the configured pins and display (so a wrong pin number
in the configuration shows up here): the LED blinks, the buzzer plays a scale
(and the test says which buzzer type the configuration expects), the OLED
shows a test pattern at each contrast level, then each button is asked for,
with a timeout. The report has one line per part: works, missing, or what to
check. Outputs cannot report back (a pin does not know whether the LED lit),
so for them "works" means driven without an error, and the line says what to
look at if the person saw nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from unit.app.config import Config
from unit.core import BUTTONS

#: BCM GPIO number -> physical pin on the 40-pin header.
PHYSICAL = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21, 25: 22,
    11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip
CONTRASTS = (0, 64, 128, 192, 255)
MAJOR_SCALE = (0, 2, 4, 5, 7, 9, 11, 12)  # semitones above the first note

WORDS = {
    "fr": {
        "status": {"works": "fonctionne", "missing": "absent", "check": "à vérifier"},
        "names": {"led": "LED", "buzzer": "Buzzer", "display": "Écran", "power": "ON/OFF",
                  "auction": "ENCHÈRES", "build": "CONSTRUCTION"},
        "start": "Test du matériel, pièce par pièce, sur les broches de la configuration ({pins}).",
        "mock": "Broches simulées (--pins mock) : personne ne peut appuyer, les boutons resteront sans réponse.",
        "led": "LED sur {where} : elle clignote {n} fois.",
        "led_ok": "pilotée ; restée éteinte ? retournez-la (patte longue vers la résistance et GPIO{gpio})",
        "passive": "La configuration attend un buzzer PASSIF (buzzer.type: passive) : une gamme montante de "
                   "{n} notes, {low} à {high} Hz. Une seule hauteur ou des clics : c'est un buzzer actif "
                   "(buzzer.type: active).",
        "active": "La configuration attend un buzzer ACTIF (buzzer.type: active) : {n} bips de même hauteur. "
                  "Des clics au lieu de bips : c'est un buzzer passif (buzzer.type: passive).",
        "buzzer_ok": "piloté ; silencieux ? vérifiez le + sur GPIO{gpio} et le - à la masse, et buzzer.type",
        "display": "Écran {driver} à l'adresse I2C {address} du bus {port} : mire, puis chaque contraste.",
        "contrast": "contraste {level}",
        "display_ok": "répond ; une ligne manque sur la mire ? vérifiez display.driver (ssd1306 ou sh1106)",
        "display_missing": "pas de réponse ({error}) : vérifiez SDA sur la broche 3, SCL sur la broche 5, "
                           "VCC en 3,3 V, I²C activé (sudo raspi-config nonint do_i2c 0) et "
                           "« sudo i2cdetect -y {port} » qui doit montrer {short}",
        "display_failed": "erreur pendant l'affichage ({error}) : vérifiez les fils et l'alimentation",
        "press": "Appuyez sur {name} ({where}), {timeout:g} s…",
        "flip": "Basculez l'interrupteur {name} ({where}), {timeout:g} s…",
        "pressed": "  reçu.",
        "button_ok": "répond",
        "held": "enfoncé dès le départ : un court-circuit à la masse, ou le mauvais pins.{key} dans la configuration",
        "silent": "pas de réponse en {timeout:g} s : vérifiez le bouton entre GPIO{gpio} (broche {physical}) et "
                  "la masse, et pins.{key} dans la configuration",
        "report": "Bilan :",
        "all_good": "Tout répond.",
        "some_bad": "{n} pièce(s) à revoir (voir ci-dessus).",
    },
    "en": {
        "status": {"works": "works", "missing": "missing", "check": "check"},
        "names": {"led": "LED", "buzzer": "Buzzer", "display": "Display", "power": "ON/OFF",
                  "auction": "AUCTION", "build": "BUILD"},
        "start": "Testing the hardware, one part at a time, on the configured pins ({pins}).",
        "mock": "Mock pins (--pins mock): nobody can press them, so the buttons will not answer.",
        "led": "LED on {where}: it blinks {n} times.",
        "led_ok": "driven; stayed dark? turn it round (long leg towards the resistor and GPIO{gpio})",
        "passive": "The configuration expects a PASSIVE buzzer (buzzer.type: passive): a rising scale of {n} "
                   "notes, {low} to {high} Hz. One pitch only, or clicks: it is an active buzzer "
                   "(buzzer.type: active).",
        "active": "The configuration expects an ACTIVE buzzer (buzzer.type: active): {n} beeps of one pitch. "
                  "Clicks instead of beeps: it is a passive buzzer (buzzer.type: passive).",
        "buzzer_ok": "driven; silent? check + on GPIO{gpio} and - to ground, and buzzer.type",
        "display": "{driver} display at I2C address {address} on bus {port}: a test pattern, then each contrast.",
        "contrast": "contrast {level}",
        "display_ok": "answers; a line missing from the pattern? check display.driver (ssd1306 or sh1106)",
        "display_missing": "no answer ({error}): check SDA on pin 3, SCL on pin 5, VCC on 3.3 V, I2C enabled "
                           "(sudo raspi-config nonint do_i2c 0) and that `sudo i2cdetect -y {port}` shows {short}",
        "display_failed": "error while drawing ({error}): check the wires and the power",
        "press": "Press {name} ({where}), {timeout:g} s...",
        "flip": "Flip the {name} switch ({where}), {timeout:g} s...",
        "pressed": "  got it.",
        "button_ok": "answers",
        "held": "down from the start: a short to ground, or the wrong pins.{key} in the configuration",
        "silent": "no answer in {timeout:g} s: check the button between GPIO{gpio} (pin {physical}) and ground, "
                  "and pins.{key} in the configuration",
        "report": "Report:",
        "all_good": "Every part answered.",
        "some_bad": "{n} part(s) to look at (see above).",
    },
}  # fmt: skip


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
    status: str  # works | missing | check
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
        factory,
        open_display: Callable,
        *,
        say: Callable[[str], None] = print,
        pace: Pace = Pace(),
        sleep: Callable[[float], None] = time.sleep,
        mock: bool = False,
    ):
        self.config = config
        self.settings = config.raw
        self.factory = factory
        self.open_display = open_display
        self.say = say
        self.pace = pace
        self.sleep = sleep
        self.mock = mock
        self.language = config.language if config.language in WORDS else "en"
        self.words = WORDS[self.language]

    def run(self) -> list[Result]:
        w, pins = self.words, self.settings["pins"]
        self.say(w["start"].format(pins=", ".join(f"{k} {v}" for k, v in pins.items())))
        if self.mock:
            self.say(w["mock"])
        results = [self.led(), self.buzzer(), self.display()]
        results += [self.button(name) for name in BUTTONS]
        return results

    def report(self, results: list[Result]) -> list[str]:
        """One line per part, then a summary line."""
        w = self.words
        colon = " : " if self.language == "fr" else ": "
        lines = [w["report"]]
        lines += [f"  {w['names'][r.part]}{colon}{w['status'][r.status]} · {r.detail}" for r in results]
        bad = sum(r.status != "works" for r in results)
        lines.append(w["all_good"] if not bad else w["some_bad"].format(n=bad))
        return lines

    # --- each part ----------------------------------------------------------------------------

    def led(self) -> Result:
        from gpiozero import LED

        gpio, p = self.settings["pins"]["led"], self.pace
        self.say(self.words["led"].format(where=where(gpio, self.language), n=p.blinks))
        with LED(gpio, pin_factory=self.factory) as led:
            led.blink(on_time=p.blink_seconds, off_time=p.blink_seconds, n=p.blinks, background=False)
        return Result("led", "works", self.words["led_ok"].format(gpio=gpio))

    def buzzer(self) -> Result:
        gpio, w = self.settings["pins"]["buzzer"], self.words
        try:
            self._buzz(gpio)
        except Exception as error:  # a tone out of the buzzer's range, a pin that cannot do PWM
            return Result("buzzer", "check", f"{type(error).__name__}: {error}")
        return Result("buzzer", "works", w["buzzer_ok"].format(gpio=gpio))

    def _buzz(self, gpio: int) -> None:
        from gpiozero import Buzzer, TonalBuzzer
        from gpiozero.tones import Tone

        settings, p, w = self.settings["buzzer"], self.pace, self.words
        if settings["type"] == "passive":
            with TonalBuzzer(
                gpio, mid_tone=Tone(frequency=settings["mid_tone_hz"]), octaves=settings["octaves"],
                pin_factory=self.factory,
            ) as buzzer:  # fmt: skip
                notes = scale(buzzer.min_tone.frequency, buzzer.max_tone.frequency)
                self.say(w["passive"].format(n=len(notes), low=round(notes[0]), high=round(notes[-1])))
                for hz in notes:
                    buzzer.play(Tone(frequency=hz))
                    self.sleep(p.note_seconds)
                buzzer.stop()
        else:
            self.say(w["active"].format(n=p.blinks))
            with Buzzer(gpio, pin_factory=self.factory) as buzzer:
                # In the foreground: beep() in the background returns at once, before any sound.
                buzzer.beep(on_time=p.note_seconds, off_time=p.note_seconds, n=p.blinks, background=False)

    def display(self) -> Result:
        from luma.core.render import canvas

        from unit.backends import oled

        settings, w = self.settings["display"], self.words
        address = f"0x{settings['i2c_address']:02X}"
        self.say(w["display"].format(driver=settings["driver"], address=address, port=settings["i2c_port"]))
        try:
            device = self.open_display(settings)
        except Exception as error:  # luma's DeviceNotFoundError, smbus2's OSError, no /dev/i2c-1...
            detail = w["display_missing"].format(
                error=error, port=settings["i2c_port"], short=f"{settings['i2c_address']:02x}"
            )
            return Result("display", "missing", detail)
        try:
            for level in CONTRASTS:
                device.contrast(level)
                label = w["contrast"].format(level=level)
                with canvas(device) as draw:
                    draw_pattern(draw, label, oled)
                self.say(f"  {label}")
                self.sleep(self.pace.contrast_seconds)
            device.contrast(255)
            device.clear()
        except Exception as error:  # an I2C error half-way: the wiring is loose
            return Result("display", "check", w["display_failed"].format(error=error))
        return Result("display", "works", w["display_ok"])

    def button(self, name: str) -> Result:
        from gpiozero import DigitalInputDevice

        gpio, w, timeout = self.settings["pins"][name], self.words, self.pace.press_timeout
        switch = name == "power" and self.config.power.control == "switch"
        device = DigitalInputDevice(
            gpio, pull_up=True, bounce_time=self.settings["buttons"]["bounce_seconds"], pin_factory=self.factory
        )
        with device:
            prompt = w["flip" if switch else "press"]
            self.say(prompt.format(name=w["names"][name], where=where(gpio, self.language), timeout=timeout))
            if switch:  # either position is fine: it must move
                answered = (device.wait_for_inactive if device.is_active else device.wait_for_active)(timeout)
            elif device.is_active:
                return Result(name, "check", w["held"].format(key=name))
            else:
                answered = device.wait_for_active(timeout)
        if not answered:
            return Result(name, "missing", w["silent"].format(timeout=timeout, gpio=gpio,
                                                               physical=PHYSICAL.get(gpio, "?"), key=name))  # fmt: skip
        self.say(w["pressed"])
        return Result(name, "works", w["button_ok"])


def draw_pattern(draw, label: str, oled) -> None:
    """A frame on the edges (a shifted or cut picture shows at once), a checkerboard and the label."""
    width, height = oled.WIDTH, oled.HEIGHT
    draw.rectangle((0, 0, width - 1, height - 1), outline="white")
    for y in range(4, 28, 4):
        for x in range(4 + (y // 4 % 2) * 4, width - 4, 8):
            draw.rectangle((x, y, x + 3, y + 3), fill="white")
    oled.centred(draw, 44, label, oled.fitting_size(label, 16))
