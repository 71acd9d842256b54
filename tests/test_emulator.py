"""The pygame emulator, headless: real pygame mouse and key events in, states, LED and pixels out."""

from __future__ import annotations

import time

import pytest

pygame = pytest.importorskip("pygame")

from helpers import wait_for  # noqa: E402
from PIL import Image  # noqa: E402

from unit.app import config as configuration  # noqa: E402
from unit.app.runtime import Runtime  # noqa: E402
from unit.backends import emulator  # noqa: E402
from unit.backends import oled as screen  # noqa: E402
from unit.core import Unit  # noqa: E402

QUICK = {"auction": {"seconds": 3, "warning_seconds": 1, "cancel_hold_seconds": 0.3}}


@pytest.fixture
def emu(tmp_path):
    """A running emulator window (off-screen) and its runtime; closed afterwards."""
    made = []

    def make(overrides=None, screenshot=None):
        config = configuration.load(({**QUICK, **(overrides or {})}, "test"))
        backend = emulator.Emulator(config, screenshot=screenshot)
        runtime = Runtime(Unit(config), backend)
        runtime.open()
        made.append(runtime)
        return runtime, backend

    yield make
    for runtime in made:
        if pygame.display.get_init():
            runtime.backend.close()


def settle(runtime, seconds=0.0):
    """Hand the loop what was posted, then let it run ``seconds`` more of real time (a key or the mouse held:
    the duration is the input). This thread is the loop's: one step pumps pygame's queue and handles every
    input in it, whatever the machine's load (the core fires what was due before an input's time first)."""
    runtime.step(max_wait=0)
    end = time.monotonic() + seconds
    while time.monotonic() < end and not runtime.stopped:
        runtime.step(max_wait=0.01)


def step_until(runtime, predicate, what=""):
    """Step the loop until ``predicate`` holds (a deadline the core fires in real time)."""
    return wait_for(lambda: runtime.step(max_wait=0.01) or predicate(), what=what)


def click(backend, name, hold=0.0, runtime=None):
    center = backend.buttons[name].center
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=center, button=1))
    if runtime is not None:
        settle(runtime, hold)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=center, button=1))


def key(name, down=True):
    kind = pygame.KEYDOWN if down else pygame.KEYUP
    code = pygame.key.key_code(name)
    pygame.event.post(pygame.event.Event(kind, key=code, mod=0, unicode=name, scancode=0))


def window_image(backend) -> Image.Image:
    surface = backend.window
    return Image.frombytes("RGB", surface.get_size(), pygame.image.tobytes(surface, "RGB"))


def oled_shows(backend, expected: Image.Image) -> bool:
    """Whether the window's OLED area is ``expected`` scaled 4x (sampled at each pixel's centre)."""
    shot = window_image(backend)
    x0, y0 = emulator.OLED_AT
    for y in range(screen.HEIGHT):
        for x in range(screen.WIDTH):
            lit = shot.getpixel((x0 + x * 4 + 2, y0 + y * 4 + 2)) == emulator.PIXEL_ON
            if lit != bool(expected.getpixel((x, y))):
                return False
    return True


def led_pixel(backend):
    return window_image(backend).getpixel(emulator.LED_AT)


def test_mouse_click_on_power_switches_on_and_the_window_shows_the_clock(emu):
    runtime, backend = emu()
    click(backend, "power")
    settle(runtime)
    assert runtime.unit.state == "ready"
    assert oled_shows(backend, screen.render(runtime.unit.view, "fr"))
    assert led_pixel(backend) == emulator.LED_DARK


@pytest.mark.slow
def test_key_starts_an_auction_and_the_led_blinks(emu):
    runtime, backend = emu()
    key("o"), key("o", down=False)
    settle(runtime)
    key("e"), key("e", down=False)
    settle(runtime)
    assert runtime.unit.state == "countdown"
    assert led_pixel(backend) == emulator.LED_LIT  # a blink starts lit
    seen = set()

    def blinked() -> bool:
        seen.add(led_pixel(backend))
        return len(seen) >= 2

    step_until(runtime, blinked, "the LED lit, then dark")
    assert seen == {emulator.LED_LIT, emulator.LED_DARK}  # it blinks: lit, then dark (at 0.5 s), nothing else
    assert oled_shows(backend, screen.render(runtime.unit.view, "fr"))


def test_holding_the_auction_button_with_the_mouse_cancels(emu):
    runtime, backend = emu()
    click(backend, "power")
    settle(runtime)
    click(backend, "auction")
    settle(runtime)
    assert runtime.unit.state == "countdown"
    click(backend, "auction", hold=0.45, runtime=runtime)
    settle(runtime)
    assert runtime.unit.state == "ready"
    assert led_pixel(backend) == emulator.LED_DARK


def test_build_button_draws(emu):
    runtime, backend = emu({"build": {"spin_seconds": 0.2, "weights": {1: 0, 2: 0, 3: 0, "station": 1}}})
    click(backend, "power")
    settle(runtime)
    click(backend, "build")
    step_until(runtime, lambda: getattr(runtime.unit.view, "result", None) is not None, "the spin to land")
    assert runtime.unit.state == "build"
    assert runtime.unit.view.result == "station"


def test_switch_control_flips_with_each_click(emu):
    runtime, backend = emu({"power": {"control": "switch"}})
    click(backend, "power")
    settle(runtime)
    assert runtime.unit.state == "ready"
    click(backend, "power")
    settle(runtime)
    assert runtime.unit.state == "off"


def test_escape_quits_cleanly(emu):
    runtime, backend = emu()
    key("escape")
    settle(runtime)
    assert runtime.stopped


def test_closing_the_window_quits_and_saves_the_screenshot(emu, tmp_path):
    shot = tmp_path / "window.png"
    runtime, backend = emu(screenshot=str(shot))
    click(backend, "power")
    settle(runtime)
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    settle(runtime)
    assert runtime.stopped
    backend.close()
    with Image.open(shot) as image:
        assert image.size == emulator.WINDOW


def test_square_wave_has_the_right_length_and_pitch():
    data = emulator.square_wave([(1000, 10), (0, 5)], rate=8000, channels=1)
    assert len(data) == 2 * (80 + 40)
    samples = memoryview(data).cast("h")
    assert samples[0] > 0 and samples[4] < 0 and samples[8] > 0  # 1 kHz at 8 kHz: 4 samples per half
    assert set(samples[80:]) == {0}


def test_no_audio_device_runs_mute_with_one_log_line(emu, monkeypatch, caplog):
    def no_device(*args, **kwargs):
        raise pygame.error("ALSA: Couldn't open audio device")

    monkeypatch.setattr(pygame.mixer, "init", no_device)
    runtime, backend = emu()
    assert backend.audio is False
    click(backend, "power")
    settle(runtime)
    assert runtime.unit.state == "ready"  # the power-on chime was simply not played
    assert [r.getMessage() for r in caplog.records if "mute" in r.getMessage()] == [
        "no audio device (ALSA: Couldn't open audio device): the emulator runs mute"
    ]


@pytest.mark.slow
def test_the_settings_menu_by_keys_saves_and_applies_at_once(tmp_path):
    """Hold E on the welcome screen, C changes the game length, E moves on, C switches to English, O leaves."""
    import json

    from unit.app.settings import FILENAME, SettingsStore

    config = configuration.load(({"menu": {"hold_seconds": 0.2}}, "test"))
    backend = emulator.Emulator(config)
    runtime = Runtime(Unit(config), backend, settings=SettingsStore(tmp_path))
    runtime.open()
    try:
        key("e")
        settle(runtime, 0.3)
        key("e", down=False)
        settle(runtime)
        assert runtime.unit.state == "settings"
        for name in ("c", "e", "e", "c"):  # game 1 h -> 1 h 30; auction; language -> English
            key(name)
            settle(runtime)
            key(name, down=False)
            settle(runtime)
        saved = json.loads((tmp_path / FILENAME).read_text(encoding="utf-8"))["settings"]
        assert saved["game"] == {"minutes": 90} and saved["language"] == "en"
        # At once: the window's words and the OLED are in English.
        assert backend.words("emulator.auction") == "AUCTION"
        assert oled_shows(backend, screen.render(runtime.unit.view, "en"))
        key("o")
        settle(runtime)
        key("o", down=False)
        settle(runtime)
        assert runtime.unit.state == "off"
    finally:
        backend.close()


def test_contrast_and_volume_follow_the_settings(emu):
    from unit.core import DisplayChanged, SoundPlayed
    from unit.core.settings import Brightness

    runtime, backend = emu()
    backend.set_display(DisplayChanged(Brightness.LOW, dimmed=True))
    assert backend.pixel_colour() < emulator.PIXEL_ON  # a dimmed OLED glows less
    backend.set_display(DisplayChanged(Brightness.HIGH))
    assert backend.pixel_colour() == emulator.PIXEL_ON
    backend.retune(configuration.load(({"buzzer": {"volume": "off"}, "language": "en"}, "test")))
    backend.play(SoundPlayed("click"))
    assert backend._channel is None and backend.words("emulator.build") == "BUILD"
