"""The host's eyes on the box's OLED: QEMU's I²C trace read back the way an SSD1306 controller reads it.

QEMU has no SSD1306 (its ``ssd0303`` only answers at the address), but ``-trace i2c_event -trace i2c_send``
prints every byte the guest sends on the bus, one line each, on QEMU's stderr (or into ``-D FILE``)::

    i2c_event start(addr:0x3c)
    i2c_send send(addr:0x3c) data:0x40
    i2c_event finish(addr:0x3c)

(with ``-msg timestamp=on`` each line begins ``PID@SECONDS.MICROSECONDS:``). :func:`frames` replays those bytes
into a model of the controller's display RAM (GDDRAM: 8 pages of 128 columns, a byte a column, its bit 0 on
top), and gives the RAM after each transaction that wrote to it: the pictures the box showed, in order.
:func:`read_png` gives a golden PNG in the same layout, :func:`differences` counts the pixels apart and
:func:`write_png` keeps a picture for a person to open. Python's standard library only (the host side of the
system test runs without the project's venv).
"""

from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Iterable
from pathlib import Path

WIDTH, HEIGHT, PAGES = 128, 64, 8
#: One frame: the 1024 bytes of the display RAM, page after page, column after column.
FRAME_BYTES = WIDTH * PAGES

TRACE = re.compile(r"(?:\d+@\d+\.\d+:)?i2c_(event|send) (\w+)\(addr:0x([0-9a-f]+)\)(?: data:0x([0-9a-f]+))?")

#: The commands that take parameters, and how many (the others are one byte): contrast, charge pump,
#: multiplex, display offset, clock, precharge, COM pins, VCOMH; addressing mode; column and page windows;
#: vertical scroll area; the scrolls.
PARAMETERS = {0x81: 1, 0x8D: 1, 0xA8: 1, 0xD3: 1, 0xD5: 1, 0xD9: 1, 0xDA: 1, 0xDB: 1, 0x20: 1, 0x21: 2, 0x22: 2}
PARAMETERS |= {0xA3: 2, 0x26: 6, 0x27: 6, 0x29: 5, 0x2A: 5}
HORIZONTAL, VERTICAL, PAGE = 0, 1, 2


class Controller:
    """An SSD1306's command decoder and display RAM, as its datasheet says (the parts that place pixels).

    After a reset: page addressing, the pointer at page 0, column 0, the windows the whole RAM. The RAM starts
    dark here (on a real chip it holds noise until written).
    """

    def __init__(self) -> None:
        self.ram = bytearray(FRAME_BYTES)
        self.mode = PAGE
        self.columns = (0, WIDTH - 1)  # the column window (horizontal and vertical addressing)
        self.pages = (0, PAGES - 1)  # the page window
        self.column = 0
        self.page = 0
        self.page_column_start = 0  # where page addressing wraps to (set by 0x00-0x1F)
        self._command: list[int] = []  # a command waiting for its parameters

    def transaction(self, data: bytes) -> bool:
        """One I²C write to the controller (the bytes after its address); whether it wrote to the RAM.

        Each control byte says what follows: D/C# (0x40) data or commands; Co (0x80) set, one byte and then
        another control byte, clear, every byte to the end of the transaction.
        """
        wrote = False
        at = 0
        while at < len(data):
            control = data[at]
            end = at + 2 if control & 0x80 else len(data)
            for byte in data[at + 1 : end]:
                if control & 0x40:
                    self._write(byte)
                    wrote = True
                else:
                    self._take(byte)
            at = end
        return wrote

    def _take(self, byte: int) -> None:
        """A command byte: the first of a command or one of its parameters (kept across control bytes)."""
        self._command.append(byte)
        if len(self._command) <= PARAMETERS.get(self._command[0], 0):
            return
        command, self._command = self._command, []
        code, parameters = command[0], command[1:]
        if code == 0x20 and parameters[0] & 3 != 3:  # 3 is invalid: the mode stays
            self.mode = parameters[0] & 3
        elif code == 0x21:
            self.columns = (parameters[0] & 0x7F, parameters[1] & 0x7F)
            self.column = self.columns[0]
        elif code == 0x22:
            self.pages = (parameters[0] & 7, parameters[1] & 7)
            self.page = self.pages[0]
        elif self.mode == PAGE and 0xB0 <= code <= 0xB7:
            self.page = code & 7
        elif self.mode == PAGE and code <= 0x0F:
            self.page_column_start = self.column = (self.column & 0xF0) | code
        elif self.mode == PAGE and 0x10 <= code <= 0x1F:
            self.page_column_start = self.column = (self.column & 0x0F) | ((code & 0x07) << 4)

    def _write(self, byte: int) -> None:
        """A data byte into the RAM at the pointer, which moves on as the addressing mode says."""
        self.ram[self.page * WIDTH + self.column] = byte
        (first_column, last_column), (first_page, last_page) = self.columns, self.pages
        if self.mode == PAGE:
            self.column = self.column + 1 if self.column < WIDTH - 1 else self.page_column_start
        elif self.mode == HORIZONTAL:
            if self.column < last_column:
                self.column += 1
            else:
                self.column = first_column
                self.page = self.page + 1 if self.page < last_page else first_page
        elif self.page < last_page:
            self.page += 1
        else:
            self.page = first_page
            self.column = self.column + 1 if self.column < last_column else first_column


def frames(lines: Iterable[str], address: int = 0x3C) -> list[bytes]:
    """The display RAM after each transaction to ``address`` that wrote to it; one snapshot of each run of
    identical ones. ``lines``: QEMU's trace (other lines are skipped)."""
    controller = Controller()
    shown: list[bytes] = []
    sent: bytearray | None = None  # the bytes of the transaction under way to the controller

    def finish() -> None:
        if sent is not None and controller.transaction(bytes(sent)):
            snapshot = bytes(controller.ram)
            if not shown or shown[-1] != snapshot:
                shown.append(snapshot)

    for line in lines:
        match = TRACE.fullmatch(line.strip())
        if match is None:
            continue
        kind, what, target, data = match.group(1), match.group(2), int(match.group(3), 16), match.group(4)
        if kind == "send":
            if target == address and sent is not None and data is not None:
                sent.append(int(data, 16))
        elif what in ("start", "start_async"):  # a repeated start also ends the transaction under way
            finish()
            sent = bytearray() if target == address else None
        elif what == "finish" and target == address:
            finish()
            sent = None
    return shown


def pixels(frame: bytes) -> list[list[int]]:
    """The 64 rows of 128 pixels (1 lit, 0 dark) a frame shows: pixel (x, y) is bit y % 8 of page y // 8's
    column x (luma.oled's layout, its segment remap and COM scan matching the modules' mounting)."""
    _check(frame)
    return [[frame[(y // 8) * WIDTH + x] >> (y % 8) & 1 for x in range(WIDTH)] for y in range(HEIGHT)]


def from_pixels(rows: list[list[int]]) -> bytes:
    """The frame of 64 rows of 128 pixels (any true value lit): the inverse of :func:`pixels`."""
    ram = bytearray(FRAME_BYTES)
    for y, row in enumerate(rows):
        for x, lit in enumerate(row):
            if lit:
                ram[(y // 8) * WIDTH + x] |= 1 << (y % 8)
    return bytes(ram)


def differences(a: bytes, b: bytes) -> int:
    """How many pixels differ between two frames."""
    _check(a)
    _check(b)
    return sum((x ^ y).bit_count() for x, y in zip(a, b, strict=True))


def read_png(path: Path) -> bytes:
    """A 128x64 PNG as a frame: greyscale of 1 or 8 bits or 8-bit RGB, not interlaced (the golden images are
    1-bit grey). A pixel is lit when its grey (RGB: luma, as Pillow's ``convert("L")``) is 128 or more."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    chunks: dict[bytes, bytes] = {}
    at = 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        chunks[kind] = chunks.get(kind, b"") + body
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    supported = (depth, colour) in {(1, 0), (8, 0), (8, 2)}  # grey of 1 or 8 bits, RGB of 8
    if (width, height) != (WIDTH, HEIGHT) or not supported or interlace:
        raise ValueError(f"{path}: {width}x{height}, colour type {colour}, {depth} bits, interlace {interlace}")
    channels = 3 if colour == 2 else 1
    step = max(1, depth * channels // 8)  # bytes per pixel, as the filters count them
    stride = (width * depth * channels + 7) // 8
    raw = zlib.decompress(chunks[b"IDAT"])
    rows: list[list[int]] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            line[i] = (line[i] + _predict(kind, left, up, corner)) & 0xFF
        previous = line
        if depth == 1:
            rows.append([line[x // 8] >> (7 - x % 8) & 1 for x in range(width)])
        elif channels == 1:
            rows.append([line[x] >= 128 for x in range(width)])
        else:
            rows.append([_luma(*line[3 * x : 3 * x + 3]) >= 128 for x in range(width)])
    return from_pixels(rows)


def write_png(frame: bytes, path: Path) -> None:
    """The frame as a 128x64 1-bit greyscale PNG (lit pixels white, as on the OLED)."""
    packed = [
        bytes(sum(bit << (7 - i) for i, bit in enumerate(row[x : x + 8])) for x in range(0, WIDTH, 8))
        for row in pixels(frame)
    ]
    raw = b"".join(b"\0" + row for row in packed)  # filter 0 (none) on each row

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 1, 0, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    Path(path).write_bytes(png)


def _predict(kind: int, left: int, up: int, corner: int) -> int:
    """What PNG filter ``kind`` (0 to 4: none, sub, up, average, Paeth) adds back to a byte."""
    if kind == 0:
        return 0
    if kind == 1:
        return left
    if kind == 2:
        return up
    if kind == 3:
        return (left + up) // 2
    if kind == 4:
        guess = left + up - corner
        near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
        return near[2]
    raise ValueError(f"PNG filter {kind}")


def _luma(red: int, green: int, blue: int) -> int:
    """Pillow's grey of an RGB pixel (ITU-R 601-2 luma, in Pillow's fixed point: ``convert("L")``)."""
    return (red * 19595 + green * 38470 + blue * 7471 + 0x8000) >> 16


def _check(frame: bytes) -> None:
    if len(frame) != FRAME_BYTES:
        raise ValueError(f"a frame is {FRAME_BYTES} bytes, not {len(frame)}")
