"""What one OLED frame costs: drawing it and packing it for the SSD1306 (measured), and sending it over
I2C at 100 and 400 kHz (computed).

The frame goes through luma.oled's real ssd1306 driver onto a serial interface that only counts bytes.

    python benchmarks/frame_cost.py [--frames N]
"""

from __future__ import annotations

import argparse
import time

from luma.oled.device import ssd1306

from unit.backends import oled as screen
from unit.core import views


class CountingSerial:
    """luma's serial interface, without a bus: it counts what would be sent."""

    def __init__(self):
        self.command_bytes = 0
        self.data_bytes = 0

    def command(self, *cmd):
        self.command_bytes += len(cmd)

    def data(self, data):
        self.data_bytes += len(data)

    def cleanup(self):
        pass


def i2c_ms(data_bytes: int, command_bytes: int, hz: int) -> float:
    """Bus time: luma sends data in 32-byte writes, each with the address and a control byte; commands
    one write each with the address and a control byte; 9 clocks per byte (8 bits and the ACK)."""
    writes = -(-data_bytes // 32)
    total = data_bytes + 2 * writes + 3 * command_bytes
    return total * 9 / hz * 1000


def measure(frames: int = 500) -> dict:
    serial = CountingSerial()
    device = ssd1306(serial, width=128, height=64)
    device.persist = True
    display = screen.Display(device, "fr")
    a, b = views.Countdown(50, 50), views.Countdown(49, 50)
    serial.command_bytes = serial.data_bytes = 0
    start = time.perf_counter()
    for i in range(frames):
        display.show(a if i % 2 else b)
    per_frame = (time.perf_counter() - start) / frames
    data, commands = serial.data_bytes // frames, serial.command_bytes // frames
    return {
        "frames": frames,
        "draw_and_pack_ms": per_frame * 1000,
        "data_bytes": data,
        "command_bytes": commands,
        "i2c_100khz_ms": i2c_ms(data, commands, 100_000),
        "i2c_400khz_ms": i2c_ms(data, commands, 400_000),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=500)
    f = measure(parser.parse_args().frames)
    print(f"draw + pack one SSD1306 frame: {f['draw_and_pack_ms']:.3f} ms (measured, {f['frames']} frames)")
    print(
        f"on the I2C bus ({f['data_bytes']} data + {f['command_bytes']} command bytes): "
        f"{f['i2c_100khz_ms']:.1f} ms at 100 kHz, {f['i2c_400khz_ms']:.1f} ms at 400 kHz (computed)"
    )


if __name__ == "__main__":
    main()
