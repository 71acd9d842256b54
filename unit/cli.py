"""The ``monopoly-city`` command.

Each subcommand is a small function taking the parsed arguments. A
:class:`~unit.errors.UserError` anywhere becomes one line on stderr and exit
status 2; nothing the user typed or wrote in a file should ever show a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from unit import __version__
from unit import config as configuration
from unit.errors import UserError


def _load_config(args: argparse.Namespace, *first: tuple[object, str]) -> configuration.Config:
    """Defaults, then ``first`` layers (a scenario's own block), then --config, which wins."""
    layers = [layer for layer in first if layer[0] is not None]
    if args.config:
        layers.append(configuration.load_file(args.config))
    return configuration.load(*layers)


def cmd_simulate(args: argparse.Namespace) -> int:
    from unit import scenario as scenarios
    from unit.simulate import simulate
    from unit.trace import TraceWriter

    scenario = scenarios.load(args.scenario)
    config = _load_config(args, (scenario.config, f"{scenario.source}: config"))
    steps = scenario.steps(config)
    seed = args.seed if args.seed is not None else scenario.seed
    writer = TraceWriter(sys.stdout, config.language)
    simulate(config, steps, scenario.until, seed, writer.write)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="monopoly-city",
        description="Monopoly City Unit: the game's electronic trading unit, and a rules and rent calculator.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    sim = commands.add_parser(
        "simulate",
        help="run a scenario on a virtual clock and print what the unit does (JSON Lines)",
        description="Run the unit on a virtual clock, as fast as possible, and print one JSON object "
        "per observable change (docs/simulate.md).",
    )
    sim.add_argument("scenario", metavar="SCENARIO.yaml", help="the scripted presses (docs/simulate.md)")
    sim.add_argument("--seed", type=int, help="seed for the build draws (wins over the scenario's seed)")
    sim.add_argument("--config", metavar="FILE", help="configuration overrides (wins over the scenario's config)")
    sim.set_defaults(func=cmd_simulate)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except UserError as error:
        print(f"monopoly-city: {error}", file=sys.stderr)
        return error.exit_status
    except BrokenPipeError:
        # The reader went away (`... | head`): not an error worth a traceback.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
