"""``python -m unit`` and the ``monopoly-city`` command (pyproject's entry point): :func:`unit.cli.main`.

The start-up makes some 30,000 objects (modules, classes, the configuration) that live as long as the
program: the cyclic garbage collector is paused while they are made, rather than walking them again and
again (about 7 % of the start's CPU), and resumed by :func:`unit.app.launch.end_startup_pause` once the
command is under way (for ``run``, once READY=1 is sent).
"""

import gc
import sys


def main() -> int:
    gc.disable()  # resumed by unit.app.launch.end_startup_pause
    from unit.cli import main as command

    return command()


if __name__ == "__main__":
    sys.exit(main())
