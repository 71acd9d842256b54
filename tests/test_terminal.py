"""The terminal backend: the frame as braille or half blocks, keys in; and the unit run in a real tmux."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from helpers import wait_for
from PIL import Image

from unit.app import config as configuration
from unit.backends import oled, terminal
from unit.backends.base import STOP
from unit.core import Pressed, Released, ScreenChanged, Switched, Unit, views
from unit.core.menu import MENU_ITEMS, Choices, MenuItem

ROOT = Path(__file__).resolve().parent.parent


def test_braille_sets_one_dot_per_lit_pixel():
    image = Image.new("1", (4, 8))
    image.putpixel((0, 0), 1)  # dot 1
    image.putpixel((1, 3), 1)  # dot 8
    image.putpixel((2, 5), 1)  # second cell of the second line, dot 2
    assert terminal.braille(image) == ["\u2881\u2800", "\u2800\u2802"]


def test_half_blocks_pair_rows():
    image = Image.new("1", (4, 2))
    image.putpixel((0, 0), 1)
    image.putpixel((1, 1), 1)
    image.putpixel((2, 0), 1)
    image.putpixel((2, 1), 1)
    assert terminal.half_blocks(image) == ["▀▄█ "]


def test_the_frame_is_the_oleds_image_in_both_styles():
    image = oled.render(views.Countdown(seconds_left=42, total=50), "fr")
    for style, (width, height) in {"braille": (64, 16), "blocks": (128, 32)}.items():
        lines = terminal.frame_lines(image, style)
        assert len(lines) == height + 2 and {len(line) for line in lines} == {width + 2}
    # Every lit pixel of the OLED is a dot, and nothing else is.
    dots = sum(bin(ord(c) - 0x2800).count("1") for line in terminal.braille(image) for c in line)
    assert dots == sum(1 for p in image.getdata() if p)


def test_style_follows_the_terminal_size():
    assert terminal.pick_style(80, 24) == "braille"
    assert terminal.pick_style(130, 39) == "blocks"
    assert terminal.pick_style(200, 30) == "braille"


class Posted(list):
    def __call__(self, event):
        self.append(event)


def open_terminal(overrides=None, language="fr"):
    config = configuration.load(({"language": language, **(overrides or {})}, "test"))
    read_fd, write_fd = os.pipe()
    out = io.StringIO()
    backend = terminal.Terminal(config, out=out, keys_fd=read_fd)
    posted = Posted()
    backend.open(posted, time.monotonic)
    return backend, posted, write_fd, out


def test_keys_short_press_hold_release_and_quit():
    backend, posted, keys, out = open_terminal()
    try:
        os.write(keys, b"o")
        assert wait_for(lambda: len(posted) == 2)
        assert posted == [Pressed("power"), Released("power")]
        os.write(keys, b"E")  # capital: held down...
        assert wait_for(lambda: len(posted) == 3) and posted[2] == Pressed("auction")
        assert backend.held == {"auction"} and "maintenu : ENCHÈRES" in backend.lines("braille")[-1]
        os.write(keys, b"e")  # ...until its own key, which only lets go
        assert wait_for(lambda: len(posted) == 4) and posted[3] == Released("auction") and not backend.held
        os.write(keys, b"E")  # held again; another button's key lets go and presses that button (not swallowed)
        os.write(keys, b"c")
        assert wait_for(lambda: len(posted) == 8)
        assert posted[4:] == [Pressed("auction"), Released("auction"), Pressed("build"), Released("build")]
        os.write(keys, b"\x1b[A")  # an arrow key is no button and does not quit
        os.write(keys, b"x")
        os.write(keys, b"q")
        assert wait_for(lambda: len(posted) == 9) and posted[8] is STOP
    finally:
        backend.close()
        os.close(keys)
        os.close(backend.keys_fd)
    assert out.getvalue().endswith(terminal.LEAVE)


def test_a_latching_switch_flips_with_each_key_and_sounds_ring_the_bell_unless_muted():
    backend, posted, keys, out = open_terminal({"power": {"control": "switch"}}, language="en")
    try:
        os.write(keys, b"o")
        assert wait_for(lambda: posted == [Switched(True)])
        os.write(keys, b"p")
        assert wait_for(lambda: posted == [Switched(True), Switched(False)])
        from unit.core import SoundPlayed

        backend.play(SoundPlayed("sold"))
        assert out.getvalue().count("\a") == 1 and "♪ sold" in backend.lines("braille")[-4]
        os.write(keys, b"s")
        assert wait_for(lambda: not backend.bell)
        backend.play(SoundPlayed("tick"))
        assert out.getvalue().count("\a") == 1 and "sound: muted" in backend.lines("braille")[-1]
    finally:
        backend.close()
        os.close(keys)
        os.close(backend.keys_fd)


# --- the whole unit in a real terminal ----------------------------------------------------------

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


class Tmux:
    """One tmux server of our own (its own socket), one pane of a given size."""

    def __init__(self, folder: Path):
        self.socket = str(folder / "tmux.sock")

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-S", self.socket, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> list[str]:
        return self("capture-pane", "-p", "-t", "unit").splitlines()

    def showing(self, predicate, timeout=10.0) -> list[str]:
        """The pane's lines, once ``predicate`` holds for them."""
        shown: list[list[str]] = []

        def holds() -> bool:
            shown[:] = [self.screen()]
            return predicate(shown[0])

        wait_for(holds, timeout, lambda: "the pane to show it; it shows:\n" + "\n".join(shown[0]))
        return shown[0]


def shows(view, language="fr"):
    """A predicate: the pane holds the braille frame of ``view`` exactly."""
    frame = terminal.frame_lines(oled.render(view, language), "braille")

    def check(lines: list[str]) -> bool:
        return any(lines[i : i + len(frame)] == frame for i in range(len(lines) - len(frame) + 1))

    return check


@needs_tmux
@pytest.mark.slow
def test_the_unit_in_tmux_power_on_auction_long_press_cancels_and_quit(tmp_path):
    config_file = tmp_path / "table.yaml"
    config_file.write_text("language: fr\n", encoding="utf-8")
    status_file = tmp_path / "status"
    command = (
        f"{sys.executable} -m unit run --backend terminal --config {config_file}; echo $? > {status_file}; sleep 60"
    )
    tmux = Tmux(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # the menu's choices go there, not in the real ~/.config
    subprocess.run(
        ["tmux", "-S", tmux.socket, "new-session", "-d", "-s", "unit", "-x", "80", "-y", "24", command],
        check=True,
        cwd=ROOT,
        env=env,
        timeout=10,
    )
    try:
        config = configuration.load(({"language": "fr"}, "test"))
        ready = next(o.view for o in Unit(config).handle(Pressed("power"), 0.0) if isinstance(o, ScreenChanged))
        tmux.showing(shows(views.Welcome()))  # the welcome screen at start
        tmux("send-keys", "-t", "unit", "o")
        lines = tmux.showing(shows(ready))
        assert any("♪ mise en marche" in line for line in lines)
        tmux("send-keys", "-t", "unit", "e")
        counting = [shows(views.Countdown(seconds_left=s, total=50.0)) for s in range(45, 51)]
        lines = tmux.showing(lambda lines: any(check(lines) for check in counting))
        tmux.showing(lambda lines: any("LED ●" in line for line in lines))  # the LED blinks
        tmux("send-keys", "-t", "unit", "E")  # held: 2 s cancel the auction
        lines = tmux.showing(shows(views.Banner("cancelled")), timeout=6)
        assert any("♪ annulé" in line for line in lines)
        assert any("maintenu : ENCHÈRES" in line for line in lines)
        tmux("send-keys", "-t", "unit", "e")  # released
        tmux.showing(lambda lines: not any("maintenu" in line for line in lines))
        tmux("send-keys", "-t", "unit", "q")
        assert wait_for(lambda: status_file.exists() and status_file.read_text().strip() == "0", 10)
        assert not any("Traceback" in line for line in tmux.screen())
    finally:
        subprocess.run(["tmux", "-S", tmux.socket, "kill-server"], capture_output=True, timeout=10)


def start_in_tmux(tmux: Tmux, tmp_path: Path, command: str, size=("80", "24")) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    subprocess.run(
        ["tmux", "-S", tmux.socket, "new-session", "-d", "-s", "unit", "-x", size[0], "-y", size[1], command],
        check=True,
        cwd=ROOT,
        env=env,
        timeout=10,
    )


@needs_tmux
def test_in_tmux_the_menus_choice_is_kept_the_words_follow_it_and_a_resize_redraws(tmp_path):
    """The user guide's promise on a laptop: the menu's choices are kept (in ~/.config/monopoly-city)."""
    status_file = tmp_path / "status"
    command = f"{sys.executable} -m unit run --backend terminal --lang fr; echo $? >> {status_file}; sleep 60"
    tmux = Tmux(tmp_path)
    start_in_tmux(tmux, tmp_path, command)
    try:
        tmux.showing(shows(views.Welcome()))
        tmux("send-keys", "-t", "unit", "E")  # hold ENCHÈRES 2 s on the welcome screen: the settings menu
        # The menu's first item itself, not « anything but the welcome »: a frame caught half drawn on a busy
        # machine is not the welcome either, and letting go then is a short press (CI saw it).
        choices = Choices.of(configuration.load(({"language": "fr"}, "test")))
        items = [item for item in MENU_ITEMS if item != MenuItem.WIFI]  # no box's own Wi-Fi on a laptop
        first = views.Menu(items[0], choices.value(items[0]), 1, len(items), False)
        tmux.showing(shows(first), timeout=6)
        tmux("send-keys", "-t", "unit", "e")  # its own key only lets go: still on the first setting
        tmux("send-keys", "-t", "unit", "e", "e", "c")  # two settings on: the language; CONSTRUCTION: English
        tmux.showing(lambda lines: any("keys: o ON/OFF" in line for line in lines))  # the words followed
        kept = tmp_path / "config" / "monopoly-city" / "settings.json"
        assert wait_for(lambda: kept.exists() and '"en"' in kept.read_text(encoding="utf-8"))
        # Too small: one line says how big it must be; big again: the frame is back.
        tmux("resize-window", "-t", "unit", "-x", "50", "-y", "15")
        tmux.showing(lambda lines: any("Terminal too small: it needs 66x22" in line for line in lines))
        tmux("resize-window", "-t", "unit", "-x", "140", "-y", "45")
        tmux.showing(lambda lines: sum("█" in line or "▀" in line or "▄" in line for line in lines) > 5)
        tmux("send-keys", "-t", "unit", "q")
        assert wait_for(lambda: status_file.exists() and status_file.read_text().split() == ["0"], 10)
    finally:
        subprocess.run(["tmux", "-S", tmux.socket, "kill-server"], capture_output=True, timeout=10)
    # Started again: English from the first frame, as chosen in the menu (a tmux server of its own).
    (tmp_path / "again").mkdir()
    tmux = Tmux(tmp_path / "again")
    start_in_tmux(tmux, tmp_path, command)
    try:
        tmux.showing(lambda lines: any("keys: o ON/OFF" in line for line in lines))
        tmux.showing(shows(views.Welcome(), "en"))
    finally:
        subprocess.run(["tmux", "-S", tmux.socket, "kill-server"], capture_output=True, timeout=10)


def test_a_terminal_too_small_for_the_frame_says_so():
    backend, _, keys, _ = open_terminal(language="en")
    try:
        assert backend.too_small(80, 24) is None and backend.too_small(66, 22) is None
        line = backend.too_small(65, 30)
        assert line == ["Terminal too small: it needs 66x22 characters, it has 65x30. Make it bigger (q: quit)."]
        assert backend.too_small(66, 21) is not None
    finally:
        backend.close()
        os.close(keys)
        os.close(backend.keys_fd)


def test_a_resize_while_a_frame_is_being_drawn_leaves_the_new_size_on_the_screen(monkeypatch):
    """The loop's redraw (a new screen) and the resize's (the key thread) at once: the last word on the terminal is
    for its size now. Before, a frame composed for the old size was written after the resize's « too small »
    (seen once in tmux, with the suite on both cores)."""
    size = [os.terminal_size((80, 24))]
    monkeypatch.setattr(terminal.shutil, "get_terminal_size", lambda: size[0])
    backend, _, keys, out = open_terminal(language="en")
    compose = backend.lines
    resizing: list[threading.Thread] = []

    def lines_during_a_resize(style):
        if not resizing:  # the terminal shrinks while this frame is composed; its redraw comes from another thread
            size[0] = os.terminal_size((50, 15))
            resizing.append(threading.Thread(target=backend.redraw))
            resizing[0].start()
            resizing[0].join(0.5)  # it ran to its end before (the bug), or it waits for this frame's write
        return compose(style)

    try:
        monkeypatch.setattr(backend, "lines", lines_during_a_resize)
        backend.redraw()
        resizing[0].join(10)
        last = out.getvalue().rpartition(terminal.HOME_CLEAR)[2]
        assert last.startswith("Terminal too small: it needs 66x22 characters, it has 50x15.")
    finally:
        backend.close()
        os.close(keys)
        os.close(backend.keys_fd)


def test_the_menus_language_and_volume_reach_the_terminal():
    backend, _, keys, out = open_terminal(language="fr")
    try:
        english = configuration.load(({"language": "en", "buzzer": {"volume": "off"}}, "test"))
        backend.retune(english)
        assert "keys: o ON/OFF" in backend.lines("braille")[-3]
        from unit.core import SoundPlayed

        backend.play(SoundPlayed("sold"))
        assert "\a" not in out.getvalue()  # volume off: no bell
    finally:
        backend.close()
        os.close(keys)
        os.close(backend.keys_fd)


# --- choosing the backend -----------------------------------------------------------------------


def test_without_a_display_the_default_backend_is_the_terminal(monkeypatch):
    from unit.app import launch

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(launch, "is_raspberry_pi", lambda: False)
    assert launch.default_backend() == "terminal"
    monkeypatch.setenv("DISPLAY", ":0")
    assert launch.default_backend() == "emulator"
    monkeypatch.setattr(launch, "is_raspberry_pi", lambda: True)
    assert launch.default_backend() == "gpio"


def test_the_terminal_refuses_to_share_stdout_with_the_trace(capsys):
    from unit.cli import main

    assert main(["run", "--backend", "terminal", "--trace", "-"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_headless_without_a_script_says_what_it_is_doing():
    with subprocess.Popen(
        [sys.executable, "-m", "unit", "run", "--backend", "headless", "--lang", "en"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as unit:
        try:
            line = unit.stderr.readline()
        finally:
            unit.terminate()
            unit.wait(10)
    assert "no buttons and no script" in line and "--script" in line and "Ctrl-C" in line


def test_every_sound_has_its_name_in_every_language():
    """The terminal says which sound played in the table's language (« ♪ adjugé »), never the trace's id."""
    from unit import i18n
    from unit.core.sounds import Sound

    for language in i18n.languages():
        words = i18n.words(language)
        for sound in Sound:
            assert f"terminal.sounds.{sound.value}" in words, (language, sound)
    assert i18n.words("fr")("terminal.sounds.sold") == "adjugé"
