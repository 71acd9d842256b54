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
"""

from __future__ import annotations

import logging
import shlex
import subprocess
import threading
from collections.abc import Callable
from typing import Any

from unit.backends import oled as screen
from unit.backends.base import Backend
from unit.core import (
    BUTTONS,
    Button,
    Config,
    DisplayChanged,
    LedChanged,
    LedMode,
    Pressed,
    Released,
    SoundPlayed,
    Switched,
    views,
)
from unit.core.settings import BuzzerType, DisplayDriver, DisplaySettings, PowerControl, Volume
from unit.errors import HardwareError

log = logging.getLogger(__name__)


def pin_factory(kind: str, on_output_change: Callable | None = None):
    """gpiozero's pin factory for ``kind`` (``lgpio`` or ``mock``), made explicitly."""
    if kind == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        class TracedPin(MockPWMPin):
            """A mock PWM pin that reports what the backend drives on it (for the trace).

            MockPin keeps every change in ``states`` for tests; a unit running for hours on mock pins
            keeps only the most recent ones, so its memory stays flat.
            """

            HISTORY = 1_000

            def _change_state(self, value):
                changed = super()._change_state(value)
                if len(self.states) > self.HISTORY:
                    del self.states[: -self.HISTORY // 2]
                if changed and self._function == "output" and on_output_change is not None:
                    on_output_change(self)
                return changed

            def _set_frequency(self, value):
                before = self._frequency
                super()._set_frequency(value)
                if value != before and on_output_change is not None:
                    on_output_change(self)

        return MockFactory(pin_class=TracedPin)
    if kind == "lgpio":
        try:
            from gpiozero.pins.lgpio import LGPIOFactory

            return LGPIOFactory()
        except Exception as error:  # no lgpio module, or no /dev/gpiochip: not a Pi
            raise HardwareError(
                "lgpio",
                f"cannot open the Raspberry Pi's GPIO ({error}); on a Pi: pip install '.[pi]' "
                "(or apt install python3-lgpio)",
            ) from None
    raise ValueError(f"unknown pin factory {kind!r}")


def open_oled(settings: DisplaySettings):
    """The real OLED on I2C (luma.oled's ssd1306 or sh1106)."""
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306

    driver = {DisplayDriver.SSD1306: ssd1306, DisplayDriver.SH1106: sh1106}[settings.driver]
    serial = i2c(port=settings.i2c_port, address=settings.i2c_address)
    return driver(serial, width=screen.WIDTH, height=screen.HEIGHT, rotate=settings.rotate)


def open_dummy(settings: DisplaySettings):
    from luma.core.device import dummy

    return dummy(width=screen.WIDTH, height=screen.HEIGHT, mode="1")


#: The sound volume as the passive buzzer's PWM duty cycle (0.5 is the loudest square wave).
VOLUME_DUTY = {Volume.OFF: 0.0, Volume.LOW: 0.05, Volume.HIGH: 0.5}


class TonePlayer:
    """Plays one sound at a time on the buzzer, from its own thread; a new sound cuts the old one.

    A passive buzzer gets each tone's frequency (``TonalBuzzer``); an active
    one can only be switched on and off (``Buzzer``), so it beeps the rhythm.
    """

    def __init__(self, buzzer, passive: bool):
        self.buzzer = buzzer
        self.passive = passive
        self.duty = 0.5  # the volume (VOLUME_DUTY); 0: silent
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._next: tuple | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="buzzer", daemon=True)
        self._thread.start()

    def play(self, tones) -> None:
        with self._lock:
            self._next = tuple(tones)
        self._wake.set()

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        self._thread.join(2)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            if self._closed:
                self._silence()
                return
            with self._lock:
                tones, self._next = self._next, None
                self._wake.clear()
            for hz, ms in tones or ():
                self._sound(hz)
                if self._wake.wait(ms / 1000):
                    break  # a newer sound, or closing
            self._silence()

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


class Gpio(Backend):
    """Buttons, LED, buzzer and OLED on real or mock pins."""

    name = "gpio"

    def __init__(
        self,
        config: Config,
        *,
        pins: str = "mock",
        open_display: Callable | None = None,
        shutdown_command: str | None = None,
        trace=None,
    ):
        self.config = config
        self.pins = pins
        self.open_display = open_display or (open_dummy if pins == "mock" else open_oled)
        self.shutdown_command = shutdown_command
        self.trace = trace  # with mock pins, LED and buzzer pin changes are traced
        self.display: screen.Display | None = None
        self.view: views.View = views.Off()
        self.display_state: DisplayChanged | None = None  # brightness, dimming, pixel shift
        self._display_retry_at: float | None = None
        self._display_outage = False
        self._ignored_until_released: set[Button] = set()
        self._tracing_pins = False
        self._last_pin_values: dict[str, tuple] = {}
        # Claimed by open(), released by close(): None until then, so close() is always safe.
        self.factory: Any = None
        self.inputs: dict[Button, Any] = {}
        self.led: Any = None
        self.buzzer: Any = None
        self.player: TonePlayer | None = None

    # --- opening ------------------------------------------------------------------------------

    def open(self, post, clock) -> None:
        """Claim the pins and open the display; if anything fails halfway, release what was claimed."""
        super().open(post, clock)
        try:
            self._open_devices()
            self._open_display()
            self._wire_inputs()
        except BaseException:
            self.close()
            raise
        self._tracing_pins = True

    def _open_devices(self) -> None:
        from gpiozero import LED, Buzzer, DigitalInputDevice, TonalBuzzer
        from gpiozero.tones import Tone

        self.factory = pin_factory(self.pins, self._pin_changed if self.trace is not None else None)
        pins, buzzer = self.config.pins, self.config.buzzer
        for button in BUTTONS:
            self.inputs[button] = DigitalInputDevice(
                getattr(pins, button),
                pull_up=True,
                bounce_time=self.config.buttons.bounce_seconds,
                pin_factory=self.factory,
            )
        self.led = LED(pins.led, pin_factory=self.factory)
        passive = buzzer.type == BuzzerType.PASSIVE
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

    def _pin_changed(self, pin) -> None:
        """A mock output pin changed: trace it, on the same clock as the rest of the trace."""
        if not self._tracing_pins:
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

    # --- the display, which may be missing or failing ---------------------------------------

    def _open_display(self) -> None:
        self._display_retry_at = None
        try:
            device = self.open_display(self.config.display)
        except Exception as error:  # luma raises DeviceNotFoundError, smbus2 OSError, ...
            self._display_failed(f"cannot open the display: {error}")
            return
        self.display = screen.Display(device, self.config.language)
        if self.display_state is not None:
            self.set_display(self.display_state)
        self._draw(self.view)
        if self.display is not None and self._display_outage:
            log.warning("the display is back")
            self._display_outage = False

    def _display_failed(self, why: str) -> None:
        if not self._display_outage:  # one warning per outage, not one per frame or retry
            log.warning("%s; timing goes on with the LED and the buzzer, retrying", why)
            self._display_outage = True
        self.display = None
        self._display_retry_at = self.clock() + self.config.display.retry_seconds

    def _draw(self, view: views.View) -> None:
        if self.display is None:
            return
        try:
            self.display.show(view)
        except Exception as error:  # an I2C error: the unit must keep its time regardless
            self._display_failed(f"display error: {error}")

    def next_deadline(self) -> float | None:
        return self._display_retry_at

    def tick(self, now: float) -> None:
        if self._display_retry_at is not None and now >= self._display_retry_at:
            self._open_display()

    # --- outputs ------------------------------------------------------------------------------

    def show(self, view: views.View) -> None:
        self.view = view
        self._draw(view)

    def set_led(self, led: LedChanged) -> None:
        if led.mode == LedMode.BLINK and led.hz:
            half = 1 / (2 * led.hz)
            self.led.blink(on_time=half, off_time=half, background=True)
        elif led.mode == LedMode.ON:
            self.led.on()
        else:
            self.led.off()

    def play(self, sound: SoundPlayed) -> None:
        if self.player is not None:
            self.player.play(sound.tones)

    def set_display(self, display: DisplayChanged) -> None:
        self.display_state = display
        if self.display is None:
            return
        try:
            self.display.adjust(display)  # the contrast command, and a redraw when the picture moves
        except Exception as error:  # an I2C error: as for a frame
            self._display_failed(f"display error: {error}")

    def retune(self, config: Config) -> None:
        self.config = config
        if self.player is not None:
            self.player.duty = VOLUME_DUTY[config.buzzer.volume]
        if self.display is not None:
            try:
                self.display.set_language(config.language)
            except Exception as error:
                self._display_failed(f"display error: {error}")

    def inject(self, event) -> None:
        """Scripted inputs drive the mock pins, so the whole path from the pin edge runs."""
        if self.pins != "mock":
            super().inject(event)
            return
        if isinstance(event, Switched):
            pin, down = self.factory.pin(self.config.pins.power), event.on
        else:
            pin, down = self.factory.pin(getattr(self.config.pins, event.button)), isinstance(event, Pressed)
        if down:
            pin.drive_low()  # pull-up: pressed (or switched on) is low
        else:
            pin.drive_high()

    def request(self, action: str) -> bool:
        if action == "shutdown":
            if self.display is not None:
                self.display.device.persist = True  # keep "shutting down" on the glass
            if self.pins == "mock" or not self.shutdown_command:
                log.info("shutdown requested (not on a real Pi: the program only ends)")
            else:
                log.info("shutting down: %s", self.shutdown_command)
                try:
                    subprocess.run(shlex.split(self.shutdown_command), check=True, timeout=30)
                except (OSError, subprocess.SubprocessError) as error:
                    log.error("the shutdown command failed: %s", error)
        return True

    def close(self) -> None:
        """Release every pin claimed (safe to call twice, and after an open that failed halfway)."""
        if self.player is not None:
            self.player.close()
            self.player = None
        for device in [*self.inputs.values(), self.led, self.buzzer]:
            if device is not None:
                device.close()
        self.inputs, self.led, self.buzzer = {}, None, None
