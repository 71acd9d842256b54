"""The hardware side: the Backend interface, OLED drawing, one module per kind of hardware, and their registry.

:data:`REGISTRY` maps each name ``run --backend`` accepts to the factory that makes it from a
:class:`~unit.backends.base.Setup`. A factory imports its backend when called, never before: the gpio
backend's start must not pay for pygame, nor the emulator's for gpiozero, and nothing here is imported
on the way to READY=1 but the chosen backend (``tests/test_startup.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from unit.errors import Text, UserError

if TYPE_CHECKING:
    from unit.backends.base import Backend, Setup


def _emulator(setup: Setup) -> Backend:
    from unit.backends.emulator import Emulator, has_display

    if not has_display():
        raise UserError("run", Text("cli.no_display"))
    try:
        import pygame  # noqa: F401
    except ImportError:
        raise UserError("run", Text("cli.no_pygame")) from None
    return Emulator(setup.config, screenshot=setup.screenshot)


def _headless(setup: Setup) -> Backend:
    from unit.backends.headless import Headless

    return Headless(setup.config.language, frames=setup.frames)


def _gpio(setup: Setup) -> Backend:
    from unit.backends.gpio import Gpio

    config = setup.config
    return Gpio(config, setup.pin_factory, shutdown_command=config.power.shutdown_command, trace=setup.trace)


def _terminal(setup: Setup) -> Backend:
    from unit.backends.terminal import Terminal

    return Terminal(setup.config)


#: ``run --backend NAME`` → the factory that makes it (in the order ``--help`` lists them).
REGISTRY: dict[str, Callable[[Setup], Backend]] = {
    "emulator": _emulator,
    "headless": _headless,
    "gpio": _gpio,
    "terminal": _terminal,
}


def names() -> list[str]:
    """The backends' names, as ``run --backend`` accepts them."""
    return list(REGISTRY)


def create(name: str, setup: Setup) -> Backend:
    """The backend called ``name``, made from ``setup`` (its module imported now)."""
    try:
        factory = REGISTRY[name]
    except KeyError:
        raise UserError("run", Text("cli.unknown_backend", name=repr(name))) from None
    return factory(setup)
