"""What a Raspberry Pi needs beyond the mock pins: lgpio's folder, a shutdown that fails, the unplug sign."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import types
from pathlib import Path

import pytest
from luma.core.device import dummy
from PIL import Image

from unit.app import config as configuration
from unit.app import halt
from unit.backends import gpio
from unit.backends.oled import render
from unit.core import views
from unit.errors import HardwareError

ROOT = Path(__file__).resolve().parent.parent


def test_lgpio_gets_a_writable_folder_of_its_own_not_the_current_one(monkeypatch):
    monkeypatch.delenv("LG_WD", raising=False)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)  # no lgpio here: ImportError
    with pytest.raises(HardwareError) as caught:
        gpio.pin_factory("lgpio")
    assert os.environ["LG_WD"] == tempfile.gettempdir()
    assert "no lgpio module" in str(caught.value) and "pip install '.[pi]'" in str(caught.value)


def test_lgpio_failing_to_open_does_not_advise_installing_it(monkeypatch):
    monkeypatch.setenv("LG_WD", "/run/monopoly-city")  # the service's own is kept

    class LGPIOFactory:
        def __init__(self):
            raise OSError("can not open gpiochip")

    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", types.SimpleNamespace(LGPIOFactory=LGPIOFactory))
    with pytest.raises(HardwareError) as caught:
        gpio.pin_factory("lgpio")
    message = str(caught.value)
    assert "can not open gpiochip" in message and "gpio group" in message and "LG_WD=/run/monopoly-city" in message
    assert "pip install" not in message and "\n" not in message


def test_a_failed_shutdown_command_is_noted():
    config = configuration.load()
    real_pins = object()  # a Pi's lgpio factory, never opened: no GPIO needed
    backend = gpio.Gpio(config, real_pins, shutdown_command="false")
    assert backend.request("shutdown") is True
    assert backend.shutdown_failed


def test_a_failed_shutdown_exits_1_so_systemd_restarts_the_unit(monkeypatch, write_yaml):
    """Without polkit `systemctl poweroff` fails: the unit must not end on « ARRÊT… » with status 0."""
    from unit import backends, cli

    class NoPolkit(gpio.Gpio):
        def request(self, action):
            super().request(action)
            self.shutdown_failed = True
            return True

    def make(setup):
        return NoPolkit(setup.config, setup.pin_factory, shutdown_command=setup.config.power.shutdown_command)

    monkeypatch.setitem(backends.REGISTRY, "gpio", make)
    script = write_yaml(
        "hold.yaml",
        "until: 2\nconfig: {power: {shutdown_hold_seconds: 0.2}}\nevents:\n  - {at: 0.1, hold: power, seconds: 0.5}\n",
    )
    assert cli.main(["run", "--backend", "gpio", "--pins", "mock", "--script", script]) == 1


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_safe_to_unplug_sign_stays_on_the_screen(language, tmp_path, write_yaml):
    device = dummy(width=128, height=64, mode="1")
    config = write_yaml("table.yaml", f"language: {language}\n")
    assert halt.main(["--config", config], open_display=lambda settings: device) == 0
    assert device.persist  # luma does not clear it at exit
    image = device.image
    assert image.getbbox() is not None and image != render(views.Shutdown(), language)
    image.save(tmp_path / f"unplug-{language}.png")
    # The golden sign (make golden), which the system test also finds in QEMU's I²C trace of a real shutdown.
    golden = Image.open(ROOT / "tests" / "golden" / language / "unplug.png").convert("1")
    assert list(image.convert("1").getdata()) == list(golden.getdata())


def test_no_display_means_no_sign_and_one_line(capsys):
    def missing(settings):
        raise OSError(121, "Remote I/O error")

    assert halt.main([], open_display=missing) == 1
    assert capsys.readouterr().err.count("\n") == 1


def test_the_shutdown_hook_only_acts_on_poweroff_and_halt():
    hook = ROOT / "systemd/system-shutdown.sh"
    for action in ("reboot", "kexec", ""):
        result = subprocess.run(["sh", str(hook), action], capture_output=True, text=True, timeout=10)
        assert result.returncode == 0 and result.stdout + result.stderr == ""
    text = hook.read_text(encoding="utf-8")
    assert "-m unit.app.halt --config /etc/monopoly-city/config.yaml" in text
    # Bounded, but not so tightly that a slow Pi's Python start is killed before the sign (a blank screen).
    assert "exec timeout 30 " in text


def test_pillow_lays_text_out_as_the_golden_images_expect():
    """Without FriBiDi Pillow falls back to its basic layout and every golden image differs by a pixel or two."""
    from PIL import features

    assert features.check("raqm") and features.check("fribidi"), (
        "Pillow cannot load libfribidi: install it (apt install libfribidi0; .ci/run does it)"
    )


def test_at_boot_a_gpio_chip_not_yet_given_to_the_gpio_group_is_tried_again(monkeypatch):
    """Seen in the system test: the service started before udev gave /dev/gpiochip0 to the gpio group."""
    import sys
    import types

    from unit.backends import gpio

    tries = []

    class LGPIOFactory:
        def __init__(self):
            tries.append(now[0])
            if len(tries) < 3:
                raise RuntimeError("can not open gpiochip")

    fake = types.ModuleType("gpiozero.pins.lgpio")
    fake.LGPIOFactory = LGPIOFactory
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", fake)
    monkeypatch.setattr(gpio.glob, "glob", lambda pattern: ["/dev/gpiochip0"])
    monkeypatch.setattr(gpio, "just_booted", lambda: True)
    now = [0.0]

    def sleep(seconds):
        now[0] += seconds

    factory = gpio.pin_factory("lgpio", clock=lambda: now[0], sleep=sleep)
    assert isinstance(factory, LGPIOFactory) and tries == [0.0, 0.5, 1.0]
    # On a slow boot udev gave the chip its group 52 s after the unit's first try (the system test held to 0.4
    # of one core): still opened.
    tries.clear()
    given = now[0] + 52

    class SlowUdevFactory:
        def __init__(self):
            tries.append(now[0])
            if now[0] < given:
                raise RuntimeError("can not open gpiochip")

    fake.LGPIOFactory = SlowUdevFactory
    assert isinstance(gpio.pin_factory("lgpio", clock=lambda: now[0], sleep=sleep), SlowUdevFactory)
    fake.LGPIOFactory = LGPIOFactory
    # Long after boot (or no chip at all), a failure is said at once, in one line.
    tries.clear()
    monkeypatch.setattr(gpio, "just_booted", lambda: False)
    with pytest.raises(HardwareError) as caught:
        gpio.pin_factory("lgpio", clock=lambda: now[0], sleep=sleep)
    assert len(tries) == 1 and "can not open gpiochip" in str(caught.value)
