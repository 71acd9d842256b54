"""The ``monopoly-city`` command.

Each subcommand is a small function taking the parsed arguments. A
:class:`~unit.errors.UserError` anywhere becomes one line on stderr and exit
status 2; nothing the user typed or wrote in a file should ever show a
traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import cast

from unit import __version__
from unit.app import config as configuration
from unit.errors import HardwareError, UserError


def _load_config(args: argparse.Namespace, *first: tuple[object, str]) -> configuration.Config:
    """Defaults, then ``first`` layers (a scenario's own block), then --config, which wins."""
    layers = [layer for layer in first if layer[0] is not None]
    if args.config:
        layers.append(configuration.load_file(args.config))
    return configuration.load(*layers)


def cmd_simulate(args: argparse.Namespace) -> int:
    from unit.app import scenario as scenarios
    from unit.app.simulate import simulate
    from unit.app.trace import TraceWriter

    scenario = scenarios.load(args.scenario)
    config = _load_config(args, (scenario.config, f"{scenario.source}: config"))
    steps = scenario.steps(config)
    seed = args.seed if args.seed is not None else scenario.seed
    writer = TraceWriter(sys.stdout, config.language)
    simulate(config, steps, scenario.until, seed, writer.write)
    return 0


def is_raspberry_pi() -> bool:
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as file:
            return "Raspberry Pi" in file.read()
    except OSError:
        return False


def default_backend() -> str:
    """The real hardware on a Raspberry Pi, the emulator window anywhere else."""
    return "gpio" if is_raspberry_pi() else "emulator"


DEFAULT_PI_STATE_DIR = "/var/lib/monopoly-city"


def cmd_run(args: argparse.Namespace) -> int:
    import random
    import signal

    from unit.app import scenario as scenarios
    from unit.app.notify import Notifier
    from unit.app.persist import GameStore
    from unit.app.runtime import Runtime
    from unit.app.trace import TraceWriter
    from unit.core import Unit

    _configure_logging(args.verbose)
    scenario = scenarios.load(args.script) if args.script else None
    config = _load_config(args, (scenario.config, f"{scenario.source}: config") if scenario else (None, ""))
    steps = scenario.steps(config) if scenario else None
    seed = args.seed if args.seed is not None else (scenario.seed if scenario else None)
    trace_file = None
    if args.trace:
        trace_file = sys.stdout if args.trace == "-" else _open_for_writing(args.trace, "trace")
    trace = TraceWriter(trace_file, config.language, flush=True) if trace_file else None
    backend_name = args.backend or default_backend()
    pins = args.pins or ("lgpio" if is_raspberry_pi() else "mock")
    state_dir = args.state_dir
    if state_dir is None and backend_name == "gpio" and pins == "lgpio":
        state_dir = DEFAULT_PI_STATE_DIR
    # Absolute paths now: importing lgpio may chdir() the whole process (to $LG_WD).
    state_dir = os.path.abspath(state_dir) if state_dir else None
    if args.frames:
        args.frames = os.path.abspath(args.frames)
    if args.screenshot:
        args.screenshot = os.path.abspath(args.screenshot)
    backend = _make_backend(backend_name, config, args, pins, trace)
    link = None
    if state_dir:  # the phone companion's socket (monopoly-city serve) lives in the state folder
        from unit.app.link import Link

        link = Link(state_dir, config.language, trace=trace)
    runtime = Runtime(
        Unit(config, random.Random(seed)),
        backend,
        trace=cast(TraceWriter, link) if link is not None else trace,  # the link writes the trace on, and more
        script=steps,
        until=scenario.until if scenario else None,
        store=GameStore(state_dir) if state_dir else None,
        notifier=Notifier(),
    )
    signal.signal(signal.SIGTERM, lambda *_: runtime.stop())
    if link is not None:
        link.attach(runtime)
        link.start()
    try:
        runtime.run()
    finally:
        if link is not None:
            link.close()
        if trace_file not in (None, sys.stdout):
            trace_file.close()
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from unit.web.server import serve
    except ImportError as error:
        raise UserError(
            "serve", f"the phone companion needs the web extra ({error.name} is missing): pip install -e '.[web]'"
        ) from None
    _configure_logging(args.verbose)
    state_dir = args.state_dir or (DEFAULT_PI_STATE_DIR if is_raspberry_pi() else None)
    serve(args.host, args.port, os.path.abspath(state_dir) if state_dir else None, args.lang)
    return 0


def _make_backend(name: str, config: configuration.Config, args: argparse.Namespace, pins: str, trace):
    if name == "gpio":
        from unit.backends.gpio import Gpio

        return Gpio(config, pins=pins, shutdown_command=config.power.shutdown_command, trace=trace)
    if name == "headless":
        from unit.backends.headless import Headless

        return Headless(config.language, frames=args.frames)
    if name == "emulator":
        from unit.backends.emulator import Emulator, has_display

        if not has_display():
            raise UserError(
                "run",
                "no display here for the emulator window: use --backend headless (with --trace/--frames), "
                "or set SDL_VIDEODRIVER=dummy to run the window off-screen",
            )
        try:
            import pygame  # noqa: F401
        except ImportError:
            raise UserError(
                "run", "the emulator needs pygame-ce: pip install -e '.[emulator]' (make run installs it)"
            ) from None
        return Emulator(config, screenshot=args.screenshot)
    raise UserError("run", f"unknown backend {name!r}")


def _open_for_writing(path: str, what: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UserError(path, f"cannot write the {what}: {exc.strerror or exc}") from None


def _configure_logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="monopoly-city: %(message)s")


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

    run = commands.add_parser(
        "run",
        help="start the unit in real time (the emulator window on a laptop)",
        description="Start the unit in real time on a backend: the pygame emulator window, or headless "
        "(no window: a trace and frames). docs/user-guide.en.md explains the buttons.",
    )
    run.add_argument(
        "--backend",
        choices=["emulator", "headless", "gpio"],
        help="default: gpio on a Raspberry Pi, emulator elsewhere",
    )
    run.add_argument(
        "--pins", choices=["lgpio", "mock"], help="gpio: the pin factory (default: lgpio on a Pi, mock elsewhere)"
    )
    run.add_argument(
        "--state-dir",
        metavar="DIR",
        help=f"keep the game in progress here to survive a power cut (default on a Pi: {DEFAULT_PI_STATE_DIR})",
    )
    run.add_argument("--config", metavar="FILE", help="configuration overrides (see unit/app/defaults.yaml)")
    run.add_argument("--script", metavar="SCENARIO.yaml", help="play a scenario's presses in real time, then exit")
    run.add_argument("--seed", type=int, help="seed for the build draws")
    run.add_argument("--trace", metavar="FILE", help="write the JSON Lines trace (as simulate's) to FILE, - for stdout")
    run.add_argument("--frames", metavar="DIR", help="headless: save one PNG per distinct screen frame in DIR")
    run.add_argument("--screenshot", metavar="FILE", help="emulator: save the window to FILE when it closes")
    run.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    run.set_defaults(func=cmd_run)

    serve = commands.add_parser(
        "serve",
        help="serve the phone companion: the unit live on every phone, its remote and settings",
        description="A web page for the phones at the table, beside a running unit (docs/phone.en.md).",
    )
    serve.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every address, 0.0.0.0)")
    serve.add_argument("--port", type=int, default=8080, help="port (default: 8080)")
    serve.add_argument(
        "--state-dir", metavar="DIR", help=f"the running unit's --state-dir (default on a Pi: {DEFAULT_PI_STATE_DIR})"
    )
    serve.add_argument("--lang", choices=["fr", "en"], default="fr", help="the page's default language")
    serve.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    serve.set_defaults(func=cmd_serve)

    from unit.calculator import commands as calculator

    calculator.add_commands(commands, _with_language)
    return parser


def _with_language(handler):
    """Calls a calculator command with the table's language: --lang, else --config's, else French."""

    def call(args: argparse.Namespace) -> int:
        language = args.lang or (_load_config(args).language if args.config else "fr")
        return handler(args, language)

    return call


def hardware_line(error: HardwareError) -> str:
    """The backends name the part that failed; the CLI names the option that chose it."""
    if error.part == "lgpio":
        return f"--pins lgpio: {error.message}; elsewhere use --pins mock"
    return str(error)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except UserError as error:
        print(f"monopoly-city: {error}", file=sys.stderr)
        return error.exit_status
    except HardwareError as error:
        print(f"monopoly-city: {hardware_line(error)}", file=sys.stderr)
        return error.exit_status
    except BrokenPipeError:
        # The reader went away (`... | head`): not an error worth a traceback.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
