"""Running the unit on a virtual clock, as fast as the machine goes.

Time jumps straight from one deadline or scripted input to the next, so an
hour of play takes milliseconds and every line lands at its exact time.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from unit.app.config import Config
from unit.app.scenario import Step
from unit.core import Output, Unit

Sink = Callable[[float, list[Output]], None]


def run_virtual(unit: Unit, steps: Iterable[Step], until: float, sink: Sink) -> None:
    """Feed ``steps`` to ``unit`` and fire its deadlines up to ``until``, in time order.

    The unit starts at 0 (the welcome screen); a deadline due at the same
    instant as an input fires first.
    """
    sink(0.0, unit.start(0.0))
    for step in steps:
        _advance_to(unit, step.at, sink)
        sink(step.at, unit.handle(step.event, step.at))
    _advance_to(unit, until, sink)


def _advance_to(unit: Unit, limit: float, sink: Sink) -> None:
    while (deadline := unit.next_deadline()) is not None and deadline <= limit:
        sink(deadline, unit.advance(deadline))


def simulate(config: Config, steps: Iterable[Step], until: float, seed: int | None, sink: Sink) -> Unit:
    unit = Unit(config, random.Random(seed))
    run_virtual(unit, steps, until, sink)
    return unit
