"""The system test's eyes on the OLED (systemtest/ssd1306.py) see what luma.oled really sends.

The unit's own OLED (``open_oled``: luma.oled's ssd1306 over luma.core's i2c) writes to a fake smbus2 bus
that prints each transfer as QEMU's ``-trace i2c_event -trace i2c_send`` does; ``ssd1306.frames`` must give
back the picture, pixel for pixel. The PNG reader and writer are checked against Pillow.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
import smbus2
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

from systemtest import ssd1306
from unit.app import config
from unit.backends.gpio import open_oled

GOLDEN = Path(__file__).parent / "golden"
#: With ``-msg timestamp=on``, QEMU begins each trace line with its thread id and the time.
PREFIX = "4242@1796222604.934313:"


class TracingBus:
    """smbus2.SMBus as luma.core's i2c uses it, each transfer written as QEMU's trace lines: a start, one line
    a byte, a finish (``i2c_rdwr``: a repeated start between messages, as the kernel sends them)."""

    def __init__(self, port: int, prefix: str = ""):
        self.port = port
        self.prefix = prefix
        self.lines: list[str] = []

    def write_i2c_block_data(self, address, register, data, force=None):
        self._messages([(address, [register, *data])])

    def i2c_rdwr(self, *messages):
        self._messages([(message.addr, list(message)) for message in messages])

    def _messages(self, messages):
        for address, data in messages:
            self.lines.append(f"{self.prefix}i2c_event start(addr:0x{address:02x})")
            self.lines += [f"{self.prefix}i2c_send send(addr:0x{address:02x}) data:0x{byte:02x}" for byte in data]
        self.lines.append(f"{self.prefix}i2c_event finish(addr:0x{messages[-1][0]:02x})")

    def close(self):
        pass


@pytest.fixture
def oled(monkeypatch):
    """The unit's OLED as the default configuration opens it, on a tracing bus; (device, bus)."""
    buses = []
    monkeypatch.setattr(smbus2, "SMBus", lambda port: buses.append(TracingBus(port)) or buses[-1])
    device = open_oled(config.load().display)
    return device, buses[0]


def rows_of(image: Image.Image) -> list[list[int]]:
    image = image.convert("1")
    return [[int(image.getpixel((x, y)) > 0) for x in range(128)] for y in range(64)]


@pytest.mark.parametrize("name", ["welcome", "warning", "shutdown"])
def test_a_golden_screen_sent_by_luma_is_seen_pixel_for_pixel(oled, name):
    device, bus = oled
    golden = GOLDEN / "fr" / f"{name}.png"
    device.display(Image.open(golden).convert("1"))
    frames = ssd1306.frames(bus.lines)
    assert frames[0] == bytes(1024)  # luma clears the screen as it opens it
    assert ssd1306.differences(frames[-1], ssd1306.read_png(golden)) == 0
    assert ssd1306.pixels(frames[-1]) == rows_of(Image.open(golden))


def test_the_trace_may_carry_qemus_timestamps(oled, monkeypatch):
    device, bus = oled
    bus.prefix = PREFIX
    device.display(Image.open(GOLDEN / "fr" / "welcome.png").convert("1"))
    assert ssd1306.frames(bus.lines)[-1] == ssd1306.read_png(GOLDEN / "fr" / "welcome.png")
    assert all(line.startswith(PREFIX) for line in bus.lines[-1025:])


def test_only_the_oleds_address_and_changes_make_frames(oled):
    device, bus = oled
    image = Image.open(GOLDEN / "fr" / "welcome.png").convert("1")
    device.display(image)
    device.display(image)  # the same picture again: one frame
    device.contrast(0x10)  # commands alone: no frame
    lines = (
        [line.replace("(addr:0x3c)", "(addr:0x3d)") for line in bus.lines]
        + bus.lines
        + ["unrelated: i2c_send data:0x40"]
    )
    assert ssd1306.frames(lines) == [bytes(1024), ssd1306.read_png(GOLDEN / "fr" / "welcome.png")]
    assert ssd1306.frames(lines, address=0x3D) == ssd1306.frames(bus.lines)


def test_page_and_vertical_addressing_and_single_byte_control():
    """What luma does not send: page addressing (the reset mode), vertical addressing in a window, and
    control bytes with Co set (one byte each)."""
    controller = ssd1306.Controller()
    assert controller.transaction(bytes([0x80, 0xB2, 0x80, 0x05, 0x80, 0x11, 0x40, 0xAA, 0xBB]))
    assert controller.ram[2 * 128 + 0x15 : 2 * 128 + 0x17] == bytes([0xAA, 0xBB])  # page 2, column 0x15
    # Vertical addressing (its parameter after a control byte of its own), columns 10-11, pages 6-7.
    assert not controller.transaction(bytes([0x80, 0x20, 0x80, 0x01, 0x00, 0x21, 10, 11, 0x22, 6, 7]))
    assert controller.transaction(bytes([0xC0, 1, 0xC0, 2, 0x40, 3, 4, 5]))
    written = {(page, column): controller.ram[page * 128 + column] for page in (6, 7) for column in (10, 11)}
    assert written == {(6, 10): 5, (7, 10): 2, (6, 11): 3, (7, 11): 4}  # 5: the window wrapped to its start


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*/*.png")), ids=lambda path: f"{path.parent.name}-{path.stem}")
def test_read_png_reads_every_golden_image_as_pillow_does(path):
    assert ssd1306.pixels(ssd1306.read_png(path)) == rows_of(Image.open(path))


@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_read_png_reads_grey_and_colour(tmp_path, mode):
    channels = [Image.effect_noise((128, 64), 60 + 20 * i) for i in range(3)]
    image = channels[0] if mode == "L" else Image.merge("RGB", channels)
    image.save(tmp_path / "noise.png")  # Pillow picks a filter per row: sub, up and Paeth here
    grey = list(image.convert("L").getdata())
    expected = [[int(grey[y * 128 + x] >= 128) for x in range(128)] for y in range(64)]
    assert ssd1306.pixels(ssd1306.read_png(tmp_path / "noise.png")) == expected


@pytest.mark.parametrize("kind", range(5))
def test_read_png_undoes_each_filter(tmp_path, kind):
    """Each of PNG's five filters (none, sub, up, average, Paeth) on every row of an 8-bit grey image, written
    here (Pillow writes no average rows); Pillow reads the same picture from it."""
    grey = Image.effect_noise((128, 64), 80).tobytes()
    rows = [grey[y * 128 : (y + 1) * 128] for y in range(64)]
    raw = b"".join(bytes([kind]) + _filtered(kind, row, rows[y - 1] if y else bytes(128)) for y, row in enumerate(rows))
    header = struct.pack(">IIBBBBB", 128, 64, 8, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw)) + _chunk(b"IEND", b"")
    (tmp_path / "filtered.png").write_bytes(png)
    expected = [[int(p >= 128) for p in row] for row in rows]
    assert rows_of(Image.open(tmp_path / "filtered.png").point(lambda p: 255 * (p >= 128))) == expected
    assert ssd1306.pixels(ssd1306.read_png(tmp_path / "filtered.png")) == expected


def _filtered(kind, row, up):
    out = bytearray(len(row))
    for i, byte in enumerate(row):
        left, above, corner = (row[i - 1] if i else 0), up[i], (up[i - 1] if i else 0)
        guess = left + above - corner
        paeth = min((abs(guess - left), 0, left), (abs(guess - above), 1, above), (abs(guess - corner), 2, corner))[2]
        out[i] = (byte - [0, left, above, (left + above) // 2, paeth][kind]) & 0xFF
    return bytes(out)


def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_write_png_is_read_back_by_pillow(tmp_path):
    frame = ssd1306.read_png(GOLDEN / "fr" / "warning.png")
    ssd1306.write_png(frame, tmp_path / "seen.png")
    seen = Image.open(tmp_path / "seen.png")
    assert (seen.mode, seen.size) == ("1", (128, 64))
    assert rows_of(seen) == ssd1306.pixels(frame)


@given(st.binary(min_size=1024, max_size=1024))
def test_any_picture_sent_by_luma_is_seen_pixel_for_pixel(picture):
    bus = TracingBus(1)
    original = smbus2.SMBus
    smbus2.SMBus = lambda port: bus  # not monkeypatch: a function-scoped fixture and @given do not mix
    try:
        device = open_oled(config.load().display)
    finally:
        smbus2.SMBus = original
    image = Image.frombytes("1", (128, 64), picture)
    device.display(image)
    assert ssd1306.pixels(ssd1306.frames(bus.lines)[-1]) == rows_of(image)
