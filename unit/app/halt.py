"""The box's "safe to unplug" sign: the last picture on the OLED once the Pi has halted.

``python -m unit.app.halt --config FILE`` is run by systemd at the very end of a
poweroff (systemd/system-shutdown.sh). It draws « ÉTEINT · VOUS POUVEZ
DÉBRANCHER » and leaves it on the glass: the OLED keeps its picture for as long
as it has power, so from outside the box the unit's own screen says when the
plug can be pulled (before that, the running unit shows « ARRÊT… »).
It never fails loudly: a missing display or a bad file only means no sign.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from unit.app import config as configuration

if TYPE_CHECKING:
    from luma.core.device import device as Device
    from PIL.ImageDraw import ImageDraw

    from unit.core.settings import DisplaySettings

WORDS = {
    "fr": ("ÉTEINT", "VOUS POUVEZ", "DÉBRANCHER"),
    "en": ("OFF", "SAFE TO", "UNPLUG"),
}


def draw(draw_on: ImageDraw, language: str) -> None:
    """The sign, drawn with the OLED's own font and layout helpers."""
    from unit.backends import oled

    title, first, second = WORDS.get(language, WORDS["en"])
    oled.centred(draw_on, 15, title, oled.fitting_size(title, 20))
    draw_on.line((8, 28, oled.WIDTH - 9, 28), fill=oled.ON)
    oled.centred(draw_on, 40, first, oled.fitting_size(first, 13))
    oled.centred(draw_on, 56, second, oled.fitting_size(second, 13))


def show(device: Device, language: str) -> None:
    from luma.core.render import canvas

    with canvas(device) as on:
        draw(on, language)
    device.persist = True  # luma clears the screen at exit unless told to keep it


def main(argv: list[str] | None = None, open_display: Callable[[DisplaySettings], Device] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m unit.app.halt", description=__doc__.splitlines()[0])
    parser.add_argument("--config", metavar="FILE")
    args = parser.parse_args(argv)
    try:
        layers = [configuration.load_file(args.config)] if args.config else []
        config = configuration.load(*layers)
    except Exception as error:  # a bad file: the sign in the default language on the default display
        print(f"monopoly-city: {error}; using the defaults", file=sys.stderr)
        config = configuration.load()
    if open_display is None:
        from unit.backends.gpio import open_oled

        open_display = open_oled
    try:
        show(open_display(config.display), config.language)
    except Exception as error:  # no display: nothing to show, the Pi halts anyway
        print(f"monopoly-city: no safe-to-unplug sign: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
