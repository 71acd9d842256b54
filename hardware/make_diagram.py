"""Draw hardware/wiring.svg from hardware/pins.yaml: the 40-pin header and what goes on each pin.

    python hardware/make_diagram.py

Plain SVG text, no dependency but PyYAML; the picture is regenerated whenever the pins change.
"""

from __future__ import annotations

from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
PIN = 22  # spacing of the header's pins in the drawing
HEADER_X, HEADER_Y = 330, 60
COLOURS = {
    "power": "#2b6cb0",
    "auction": "#2f855a",
    "build": "#b7791f",
    "led": "#c53030",
    "buzzer": "#6b46c1",
    "oled": "#319795",
    "ground": "#000000",
}
PARTS = {
    "power": "ON/OFF button",
    "auction": "ENCHÈRES button",
    "build": "CONSTRUCTION button",
    "led": "red LED + 330 Ω",
    "buzzer": "passive piezo",
}


def pin_xy(physical: int) -> tuple[int, int]:
    """Odd pins on the left column, even on the right; pin 1 at the top."""
    row = (physical - 1) // 2
    column = (physical - 1) % 2
    return HEADER_X + column * PIN, HEADER_Y + row * PIN


def draw(pins: dict) -> str:
    out = [
        '<svg xmlns="http://www.w3.org/2000/svg" width="760" height="540" font-family="sans-serif" font-size="13">',
        '<rect width="760" height="540" fill="#ffffff"/>',
        '<text x="20" y="30" font-size="18" font-weight="bold">Monopoly City Unit: wiring (BCM numbers)</text>',
        f'<rect x="{HEADER_X - 14}" y="{HEADER_Y - 14}" width="{PIN + 28}" height="{20 * PIN + 6}" rx="6" '
        'fill="#1a202c"/>',
    ]
    used = {}
    for name, spec in pins.items():
        if name == "oled":
            for signal, detail in spec.items():
                used[detail["physical"]] = ("oled", signal.upper())
        else:
            used[spec["physical"]] = (name, f"GPIO{spec['gpio']}")
            used[spec["ground"]] = ("ground", "GND")
    for physical in range(1, 41):
        x, y = pin_xy(physical)
        colour = COLOURS[used[physical][0]] if physical in used else "#a0aec0"
        out.append(f'<circle cx="{x}" cy="{y}" r="7" fill="{colour}" stroke="#fff" stroke-width="1.5"/>')
    # Parts on the left (odd pins) and right (even pins), each with a line to its signal pin.
    left_y, right_y = 80, 80
    for name, spec in pins.items():
        if name == "oled":
            continue
        x, y = pin_xy(spec["physical"])
        gx, gy = pin_xy(spec["ground"])
        colour = COLOURS[name]
        on_left = spec["physical"] % 2 == 1
        if on_left:
            bx, by = 40, left_y
            left_y += 70
            anchor = bx + 200
        else:
            bx, by = 480, right_y
            right_y += 70
            anchor = bx
        out.append(
            f'<rect x="{bx}" y="{by}" width="200" height="46" rx="6" fill="#f7fafc" stroke="{colour}" '
            'stroke-width="2"/>'
        )
        out.append(f'<text x="{bx + 10}" y="{by + 19}" font-weight="bold" fill="{colour}">{PARTS[name]}</text>')
        label = f"GPIO{spec['gpio']} (pin {spec['physical']}) · GND (pin {spec['ground']})"
        out.append(f'<text x="{bx + 10}" y="{by + 37}" font-size="11">{label}</text>')
        out.append(
            f'<polyline points="{anchor},{by + 16} {(anchor + x) // 2},{by + 16} {(anchor + x) // 2},{y} {x},{y}" '
            f'fill="none" stroke="{colour}" stroke-width="2"/>'
        )
        out.append(
            f'<polyline points="{anchor},{by + 32} {(anchor + gx) // 2 + (6 if on_left else -6)},{by + 32} '
            f'{(anchor + gx) // 2 + (6 if on_left else -6)},{gy} {gx},{gy}" fill="none" stroke="#000" '
            'stroke-width="1.5" stroke-dasharray="4 3"/>'
        )
    # The OLED below the header on the left.
    oled = pins["oled"]
    bx, by = 20, 420
    out.append(
        f'<rect x="{bx}" y="{by}" width="270" height="70" rx="6" fill="#f7fafc" stroke="{COLOURS["oled"]}" '
        'stroke-width="2"/>'
    )
    out.append(f'<text x="{bx + 10}" y="{by + 20}" font-weight="bold">OLED 128x64 I2C (0x3C)</text>')
    wiring = " · ".join(f"{signal.upper()} pin {detail['physical']}" for signal, detail in oled.items())
    out.append(f'<text x="{bx + 10}" y="{by + 40}" font-size="11">{wiring}</text>')
    out.append(f'<text x="{bx + 10}" y="{by + 58}" font-size="11">VCC to 3.3 V, never 5 V on SDA/SCL</text>')
    for detail in oled.values():
        x, y = pin_xy(detail["physical"])
        out.append(
            f'<line x1="{bx + 270}" y1="{by + 35}" x2="{x}" y2="{y}" stroke="{COLOURS["oled"]}" '
            'stroke-width="1.5" stroke-opacity="0.6"/>'
        )
    out.append('<text x="480" y="470" font-size="11">Dashed: ground. Buttons need no resistor:</text>')
    out.append('<text x="480" y="486" font-size="11">the Pi\'s internal pull-ups are used.</text>')
    out.append(f'<text x="{HEADER_X - 24}" y="{HEADER_Y - 20}" font-size="11">pin 1</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    pins = yaml.safe_load((HERE / "pins.yaml").read_text(encoding="utf-8"))
    (HERE / "wiring.svg").write_text(draw(pins), encoding="utf-8")
    print(f"wrote {HERE / 'wiring.svg'}")


if __name__ == "__main__":
    main()
