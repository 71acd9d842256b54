"""The ``monopoly-city`` command.

Each subcommand is a small function taking the parsed arguments. A
:class:`~unit.errors.UserError` anywhere becomes one line on stderr and exit
status 2, said in the table's language (``--lang``, else the configuration's
once it is read, else French); nothing the user typed or wrote in a file should
ever show a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from typing import NoReturn, cast

from unit import __version__, i18n
from unit.app import config as configuration
from unit.errors import ArgumentError, HardwareError, Text, UserError
from unit.yamlfile import escape


def _load_config(args: argparse.Namespace, *first: tuple[object, str]) -> configuration.Config:
    """Defaults, then ``first`` layers (a scenario's own block), then --config, which wins."""
    layers = [layer for layer in first if layer[0] is not None]
    if args.config:
        layers.append(configuration.load_file(args.config))
    if getattr(args, "lang", None):
        layers.append(({"language": args.lang}, "--lang"))
    config = configuration.load(*layers)
    args.language = config.language  # errors from now on are said in the table's language
    return config


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
    writer.finish()
    return 0


def is_raspberry_pi() -> bool:
    try:
        with open("/proc/device-tree/model", encoding="ascii", errors="replace") as file:
            return "Raspberry Pi" in file.read()
    except OSError:
        return False


def default_backend() -> str:
    """The real hardware on a Raspberry Pi, the emulator window where there is a display, else the terminal."""
    if is_raspberry_pi():
        return "gpio"
    from unit.backends.emulator import has_display

    return "emulator" if has_display() else "terminal"


DEFAULT_PI_STATE_DIR = "/var/lib/monopoly-city"


def cmd_run(args: argparse.Namespace) -> int:
    import random
    import signal

    from unit.app.notify import Notifier
    from unit.app.persist import GameStore
    from unit.app.runtime import Runtime
    from unit.app.settings import SettingsStore, user_config_dir
    from unit.app.trace import TraceWriter
    from unit.core import Unit

    _configure_logging(args.verbose)
    scenario = None
    if args.script:
        from unit.app import scenario as scenarios

        scenario = scenarios.load(args.script)
    config = _load_config(args, (scenario.config, f"{scenario.source}: config") if scenario else (None, ""))
    backend_name = args.backend or default_backend()
    pins = args.pins or ("lgpio" if is_raspberry_pi() else "mock")
    state_dir = args.state_dir
    if state_dir is None and backend_name == "gpio" and pins == "lgpio":
        state_dir = DEFAULT_PI_STATE_DIR
    elif state_dir is None and backend_name in ("emulator", "terminal") and not scenario:
        state_dir = str(user_config_dir())  # a laptop: the settings menu's choices are kept there
    # Absolute paths now: importing lgpio may chdir() the whole process (to $LG_WD).
    state_dir = os.path.abspath(state_dir) if state_dir else None
    factory = config  # what « factory settings » in the menu restores: --config without the menu's choices
    settings = SettingsStore(state_dir) if state_dir else None
    if settings is not None:
        config = settings.apply(config)
    steps = scenario.steps(config) if scenario else None
    seed = args.seed if args.seed is not None else (scenario.seed if scenario else None)
    if backend_name == "terminal" and args.trace == "-":
        raise UserError("--trace -", Text("cli.terminal_owns_stdout"))
    trace_file = None
    if args.trace:
        trace_file = sys.stdout if args.trace == "-" else _open_for_writing(args.trace, "trace")
    trace = TraceWriter(trace_file, config.language, flush=True, name=args.trace) if trace_file else None
    if args.frames:
        args.frames = os.path.abspath(args.frames)
        _make_folder(args.frames, "frames")
    if args.screenshot:
        args.screenshot = os.path.abspath(args.screenshot)
    backend = _make_backend(backend_name, config, args, pins, trace)
    link = None
    if state_dir:  # the phone companion's socket (monopoly-city serve) lives in the state folder
        from unit.app.link import Link

        link = Link(state_dir, config.language, trace=trace)
    runtime = Runtime(
        Unit(config, random.Random(seed), factory=factory),
        backend,
        trace=cast(TraceWriter, link) if link is not None else trace,  # the link writes the trace on, and more
        script=steps,
        until=scenario.until if scenario else None,
        store=GameStore(state_dir) if state_dir else None,
        notifier=Notifier(),
        settings=settings,
    )
    signal.signal(signal.SIGTERM, lambda *_: runtime.stop())
    if backend_name == "headless" and not args.script:  # say why nothing happens
        words = i18n.words(config.language)
        print(f"monopoly-city: {words('cli.headless_waits')}", file=sys.stderr, flush=True)
    if link is not None:
        link.attach(runtime)
        link.start()
    try:
        runtime.run()
    finally:
        if link is not None:
            link.close()
        if trace_file not in (None, sys.stdout):
            try:
                trace_file.close()
            except OSError:
                pass  # already reported once by the trace writer
    # A shutdown that failed (no polkit, say) must not leave the unit ended on « ARRÊT… »: exit 1 and
    # systemd (Restart=on-failure) starts it again, switched off and ready.
    return 1 if getattr(backend, "shutdown_failed", False) else 0


def cmd_selftest(args: argparse.Namespace) -> int:
    from unit.app import selftest
    from unit.backends.gpio import open_dummy, open_oled, pin_factory

    layers = [configuration.load_file(args.config)] if args.config else []
    if args.lang:
        layers.append(({"language": args.lang}, "--lang"))
    config = configuration.load(*layers)
    pins = args.pins or ("lgpio" if is_raspberry_pi() else "mock")
    factory = pin_factory(pins)
    test = selftest.SelfTest(
        config,
        factory,
        open_dummy if pins == "mock" else open_oled,
        say=lambda line: print(line, flush=True),
        pace=selftest.Pace(press_timeout=args.timeout),
        mock=pins == "mock",
    )
    try:
        results = test.run()
    finally:
        factory.close()
    print("\n".join(test.report(results)), flush=True)
    return 0 if all(r.status == "works" for r in results) else 1


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from unit.web.server import serve
    except ImportError as error:
        raise UserError(
            "serve", f"the phone companion needs the web extra ({error.name} is missing): pip install -e '.[web]'"
        ) from None
    _configure_logging(args.verbose)
    state_dir = args.state_dir or (DEFAULT_PI_STATE_DIR if is_raspberry_pi() else None)
    state_dir = os.path.abspath(state_dir) if state_dir else None
    data_dir = os.path.abspath(args.data) if args.data else None  # None: the default beside the state (store.py)
    serve(args.host, args.port, state_dir, args.lang, data_dir)
    return 0


def _make_backend(name: str, config: configuration.Config, args: argparse.Namespace, pins: str, trace):
    if name == "gpio":
        from unit.backends.gpio import Gpio

        return Gpio(config, pins=pins, shutdown_command=config.power.shutdown_command, trace=trace)
    if name == "headless":
        from unit.backends.headless import Headless

        return Headless(config.language, frames=args.frames)
    if name == "terminal":
        from unit.backends.terminal import Terminal

        return Terminal(config)
    if name == "emulator":
        from unit.backends.emulator import Emulator, has_display

        if not has_display():
            raise UserError(
                "run",
                Text("cli.no_display"),
            )
        try:
            import pygame  # noqa: F401
        except ImportError:
            raise UserError("run", Text("cli.no_pygame")) from None
        return Emulator(config, screenshot=args.screenshot)
    raise UserError("run", Text("cli.unknown_backend", name=repr(name)))


def _open_for_writing(path: str, what: str):
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UserError(path, Text("cli.cannot_write", what=Text(f"cli.{what}"), why=exc.strerror or exc)) from None


def _make_folder(path: str, what: str) -> None:
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise UserError(path, Text("cli.not_a_folder", what=Text(f"cli.{what}"))) from None
    except OSError as exc:
        raise UserError(
            path, Text("cli.cannot_create_folder", what=Text(f"cli.{what}"), why=exc.strerror or exc)
        ) from None


def _configure_logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="monopoly-city: %(message)s")


class Parser(argparse.ArgumentParser):
    """argparse, with its own errors said like every other error: one line, exit 2, in the table's language.

    argparse prints the usage and then its message, in English; here the message is put into words from
    the catalog (``cli.argparse.*``), on one line that says where the help is.
    """

    language = i18n.REFERENCE  # read from the command line before parsing (--lang), see main()

    def error(self, message: str) -> NoReturn:
        words = i18n.words(self.language)
        self.exit(2, f"monopoly-city: {escape(argparse_said(message, words))} ({self.prog} --help)\n")


#: argparse's messages (Python 3.11+) and the catalog's key for each; what they hold is kept as it is.
ARGPARSE = (
    (r"the following arguments are required: (?P<names>.*)", "required"),
    (r"unrecognized arguments: (?P<names>.*)", "unrecognized"),
    (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "invalid_choice"),
    (r"invalid (?P<type>\w+) value: (?P<value>.*)", "invalid_value"),
    (r"expected one argument", "expected_one"),
    (r"not allowed with argument (?P<other>.*)", "not_allowed_with"),
)


def argparse_said(message: str, words: i18n.Words) -> str:
    """argparse's English ``message`` in the language of ``words`` (as it is when no pattern fits)."""
    name, sep, rest = message.partition(": ") if message.startswith("argument ") else ("", "", message)
    for pattern, key in ARGPARSE:
        if match := re.fullmatch(pattern, rest):  # compiled on an error only, not at every start
            rest = words(f"cli.argparse.{key}", **match.groupdict())
            break
    if sep:
        return words("cli.argparse.argument", name=name.removeprefix("argument "), message=rest)
    return rest


def _press_timeout(text: str) -> float:
    """selftest --timeout: a number of seconds from 0.1 to 600."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0.1 <= seconds <= 600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(i18n.words(Parser.language)("cli.bad_timeout", got=repr(text)))
    return seconds


#: The unit's own commands: they never need the calculator.
UNIT_COMMANDS = ("simulate", "run", "selftest", "serve")


def build_parser(calculator: bool = True) -> argparse.ArgumentParser:
    """The whole command line; without ``calculator``, only the unit's commands (a faster start)."""
    parser = Parser(
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
    sim.add_argument("--lang", choices=i18n.languages(), help="language of the screens and errors (wins over --config)")
    sim.set_defaults(func=cmd_simulate)

    run = commands.add_parser(
        "run",
        help="start the unit in real time (the emulator window on a laptop)",
        description="Start the unit in real time on a backend: the pygame emulator window, or headless "
        "(no window: a trace and frames). docs/user-guide.en.md explains the buttons.",
    )
    run.add_argument(
        "--backend",
        choices=["emulator", "headless", "gpio", "terminal"],
        help="default: gpio on a Raspberry Pi, emulator where there is a display, terminal elsewhere",
    )
    run.add_argument(
        "--pins", choices=["lgpio", "mock"], help="gpio: the pin factory (default: lgpio on a Pi, mock elsewhere)"
    )
    run.add_argument(
        "--state-dir",
        metavar="DIR",
        help="keep the game in progress and the settings menu's choices here, to survive a power cut "
        f"(default on a Pi: {DEFAULT_PI_STATE_DIR}; with the emulator: the user's configuration folder)",
    )
    run.add_argument("--config", metavar="FILE", help="configuration overrides (see unit/app/defaults.yaml)")
    run.add_argument("--lang", choices=i18n.languages(), help="language of the screens and errors (wins over --config)")
    run.add_argument("--script", metavar="SCENARIO.yaml", help="play a scenario's presses in real time, then exit")
    run.add_argument("--seed", type=int, help="seed for the build draws")
    run.add_argument("--trace", metavar="FILE", help="write the JSON Lines trace (as simulate's) to FILE, - for stdout")
    run.add_argument("--frames", metavar="DIR", help="headless: save one PNG per distinct screen frame in DIR")
    run.add_argument("--screenshot", metavar="FILE", help="emulator: save the window to FILE when it closes")
    run.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    run.set_defaults(func=cmd_run)

    check = commands.add_parser(
        "selftest",
        help="test the wired hardware part by part (LED, buzzer, display, buttons)",
        description="A guided test of the hardware on the configured pins and display: the LED blinks, the "
        "buzzer plays a scale, the display shows a test pattern at each contrast, then each button is asked "
        "for. One report line per part; exit status 0 only when every part answered, 1 otherwise. On a Pi, "
        "stop the service first: sudo systemctl stop monopoly-city-unit.",
    )
    check.add_argument("--config", metavar="FILE", help="configuration overrides (the pins and display to test)")
    check.add_argument(
        "--pins", choices=["lgpio", "mock"], help="the pin factory (default: lgpio on a Pi, mock elsewhere)"
    )
    check.add_argument("--lang", choices=i18n.languages(), help="language of the test (default: the configuration's)")
    check.add_argument(
        "--timeout",
        type=_press_timeout,
        default=10.0,
        metavar="SECONDS",
        help="wait this long for each button (default 10)",
    )
    check.set_defaults(func=cmd_selftest)

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
    serve.add_argument("--lang", choices=i18n.languages(), default="fr", help="the page's default language")
    serve.add_argument(
        "--data",
        metavar="DIR",
        help="the calculator's editions and games (default: STATE_DIR/calculator with --state-dir, "
        "else $XDG_DATA_HOME/monopoly-city or ~/.local/share/monopoly-city)",
    )
    serve.add_argument("-v", "--verbose", action="store_true", help="log what happens")
    serve.set_defaults(func=cmd_serve)

    if calculator:
        from unit.calculator import commands as calculator_commands

        calculator_commands.add_commands(commands, _with_language)
    return parser


def _with_language(handler):
    """Calls a calculator command with the table's language: --lang, else --config's, else French."""

    def call(args: argparse.Namespace) -> int:
        config = _load_config(args) if args.config else None  # checked even when --lang wins
        language = args.lang or (config.language if config else "fr")
        stdout = sys.stdout
        sys.stdout = _Printable(stdout)  # names come from files: no escape code reaches the terminal
        try:
            return handler(args, language)
        finally:
            sys.stdout = stdout

    return call


def hardware_line(error: HardwareError) -> str:
    """The backends name the part that failed; the CLI names the option that chose it."""
    if error.part == "lgpio":
        return f"--pins lgpio: {error.message}; elsewhere use --pins mock"
    return str(error)


def _error_language(args: argparse.Namespace) -> str:
    """--lang, else the language of the configuration once read, else French (the unit's default)."""
    language = getattr(args, "lang", None) or getattr(args, "language", None) or i18n.REFERENCE
    return language if language in i18n.languages() else i18n.REFERENCE


def flag_name(argument: str) -> str:
    """The flag of a value the rules name: ``dice`` -> ``--dice``, ``card value 3`` -> ``--card value 3``."""
    first, _, rest = argument.partition(" ")
    return f"--{first.replace('_', '-')}" + (f" {rest}" if rest else "")


class _Printable:
    """A text stream that escapes control and invisible characters (keeping newlines and tabs)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(escape(text, keep="\n\t"))

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _drop_unwritable_stdout() -> None:
    """After an output error, send what stdout still buffers to /dev/null: no second error at exit."""
    try:
        sys.stdout.flush()
    except OSError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass


def _argv_language(argv: list[str]) -> str:
    """The language asked for on the command line (``--lang en``, ``--lang=en``), else French."""
    for i, arg in enumerate(argv):
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else arg.removeprefix("--lang=")
        if (arg == "--lang" or arg.startswith("--lang=")) and value in i18n.languages():
            return value
    return i18n.REFERENCE


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # The calculator and its editions load only for a command that may need them: on a slow Pi
    # they are about a fifth of the unit's start (benchmarks/startup.py).
    Parser.language = _argv_language(argv)
    parser = build_parser(calculator=not (argv and argv[0] in UNIT_COMMANDS))
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] = args.func
    try:
        return func(args)
    except ArgumentError as error:
        words = i18n.words(_error_language(args))
        line = f"{flag_name(error.argument)}: {error.say(words).partition(': ')[2]}"
        print(f"monopoly-city: {escape(line)}", file=sys.stderr)
        return error.exit_status
    except UserError as error:
        _drop_unwritable_stdout()
        line = error.say(i18n.words(_error_language(args)))
        print(f"monopoly-city: {escape(line)}", file=sys.stderr)  # one line, no escape codes
        return error.exit_status
    except HardwareError as error:
        print(f"monopoly-city: {escape(hardware_line(error))}", file=sys.stderr)
        return error.exit_status
    except BrokenPipeError:
        # The reader went away (`... | head`): not an error worth a traceback.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
