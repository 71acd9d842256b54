"""The ``monopoly-city`` command: its options, and its errors said in one line.

``run`` is composed in :mod:`unit.app.launch`; each subcommand is a small function taking the parsed arguments. A
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
from pathlib import Path
from typing import Any, NoReturn, TextIO, cast

from unit import __version__, backends, i18n
from unit.app import config as configuration
from unit.app.launch import DEFAULT_PI_STATE_DIR, end_startup_pause
from unit.errors import ArgumentError, HardwareError, Text, UserError
from unit.yamlfile import escape, shown

#: ``serve --wifi-status``'s default: unit.core.protocol.WIFI_STATUS_PATH, written out (a test holds them equal)
#: because the unit's run path loads neither the protocol nor the web service before READY.
WIFI_STATUS_PATH = "/run/monopoly-city-wifi/status.json"


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


def cmd_run(args: argparse.Namespace) -> int:
    from unit.app import launch

    _configure_logging(args.verbose)
    scenario = None
    if args.script:
        from unit.app import scenario as scenarios

        scenario = scenarios.load(args.script)
    config = _load_config(args, (scenario.config, f"{scenario.source}: config") if scenario else (None, ""))
    request = launch.Request(
        backend=args.backend,
        pins=args.pins,
        state_dir=args.state_dir,
        seed=args.seed,
        trace=args.trace,
        frames=args.frames,
        screenshot=args.screenshot,
    )
    return launch.run(config, request, scenario)


def cmd_selftest(args: argparse.Namespace) -> int:
    from unit.app import selftest
    from unit.app.launch import default_pins
    from unit.backends.gpio import open_dummy, open_oled, pin_factory

    layers = [configuration.load_file(args.config)] if args.config else []
    if args.lang:
        layers.append(({"language": args.lang}, "--lang"))
    config = configuration.load(*layers)
    pins = args.pins or default_pins()
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
        raise UserError("serve", Text("cli.no_web", name=error.name)) from None
    from unit.app import launch
    from unit.web.store import default_root

    _configure_logging(args.verbose)
    # The unit's folder: --state-dir, else where `run` keeps it on this machine (the Pi service's, make run's).
    state_dir = os.path.abspath(args.state_dir or launch.default_state_dir())
    # The calculator's files: --data, else beside --state-dir, else (a laptop) the user's data folder, as before.
    given = args.state_dir or (DEFAULT_PI_STATE_DIR if launch.is_raspberry_pi() else None)
    data_dir = os.path.abspath(args.data) if args.data else str(default_root(os.path.abspath(given) if given else None))
    # A file where a folder is wanted is one line now, not a server that fails at the first write (issue 28).
    folder_or_refused(state_dir, "state_dir")
    folder_or_refused(data_dir, "data" if args.data else "state_dir")
    # A box's service (--state-dir, as systemd runs it; or on a Pi): the calculator is written from paired phones
    # only, even while the unit is away. A laptop's: only while a unit runs beside it (nobody could pair else).
    serve(
        args.host,
        args.port,
        state_dir,
        args.lang or i18n.REFERENCE,
        data_dir,
        by_default=args.state_dir is None,
        box=given is not None,
        wifi_status=args.wifi_status,
    )
    return 0


def folder_or_refused(path: str, argument: str) -> None:
    """:class:`ArgumentError` naming ``argument`` when ``path`` is not a folder nor can become one: a file there, or a
    file where one of the folders above it should be (the service would start, and fail at its first write)."""
    where = Path(path)
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        raise ArgumentError(argument, Text("cli.folder_wanted", path=path, file=str(where)))


def _configure_logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING, format="monopoly-city: %(message)s")


def _columns() -> int:
    """The terminal's width, as ``shutil.get_terminal_size()`` says it, without importing shutil at every start.

    argparse makes a help formatter for each option it adds, and its formatter asks shutil (1.5 ms of
    CPU here, 15 ms on a tenth of one core, for a help that is rarely printed).
    """
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout (None), closed, or not a terminal
        return 80


#: argparse's own headings (its English: no translation of argparse is installed) and the catalog's key for each.
HEADINGS = {"positional arguments": "cli.argparse.positionals", "options": "cli.argparse.options"}
#: The unit's commands' values (argparse's metavars) and each one's key under ``cli.metavar.``: said in the help's
#: language when a help or an error shows them (the calculator's are said when its parsers are made:
#: :data:`unit.calculator.commands.PLACES`). Not at every start: the unit's start does without the words.
METAVARS = {
    "SCENARIO.yaml": "scenario",
    "FILE": "file",
    "DIR": "dir",
    "SECONDS": "seconds",
    "COMMAND": "command",
    "ACTION": "action",
    "ADDRESS": "address",
    "PORT": "port",
}


def help_values() -> dict[str, object]:
    """The values the help texts name (``{pi_state_dir}``, ``{shipped}``): read from the code, not copied."""
    from unit.calculator.edition import SHIPPED

    return {"pi_state_dir": DEFAULT_PI_STATE_DIR, "shipped": ", ".join(SHIPPED), "wifi_status": WIFI_STATUS_PATH}


class Formatter(argparse.HelpFormatter):
    """argparse's help formatter, as wide as the terminal (:func:`_columns`), saying every text in the help's
    language (:attr:`Parser.language`): a ``help=`` or ``description=`` is a catalog key (``cli.help.*``), and
    argparse's own words (« usage: », its headings) are the catalog's. The words are read only when a help is
    shown: argparse makes a formatter for each option it adds."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=_columns() - 2)  # as argparse leaves two columns free

    @staticmethod
    def said(text: str | None) -> str | None:
        """``text`` in the help's language if it is a catalog key, else as it is."""
        words = i18n.words(Parser.language)
        return words(text, **help_values()) if text is not None and text in words else text

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        if prefix is None:
            prefix = i18n.words(Parser.language)("cli.argparse.usage")
        super().add_usage(usage, actions, groups, prefix)

    def start_section(self, heading: str | None) -> None:
        super().start_section(self.said(HEADINGS.get(heading or "", heading)))

    def add_text(self, text: str | None) -> None:
        super().add_text(self.said(text))

    def _get_help_string(self, action: argparse.Action) -> str | None:
        said = self.said(action.help)
        return said.replace("%", "%%") if said is not None and said != action.help else said  # argparse's % next


class Parser(argparse.ArgumentParser):
    """argparse, with its own errors said like every other error: one line, exit 2, in the table's language,
    and its help in the language asked for (:class:`Formatter`).

    argparse prints the usage and then its message, in English; here the message is put into words from
    the catalog (``cli.argparse.*``), on one line that says where the help is.
    """

    language = i18n.REFERENCE  # read from the command line before parsing (--lang), see main()
    argv: list[str] = []  # the command line being parsed, see main(): an amount typed with a minus is named

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)  # the subcommands' parsers too
        helped = kwargs.get("add_help", True)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        if helped:  # argparse's own -h, its line said by the formatter
            self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help="cli.help.help")

    def format_usage(self) -> str:
        self._say_metavars()
        return super().format_usage()

    def format_help(self) -> str:
        self._say_metavars()
        return super().format_help()

    def _say_metavars(self) -> None:
        """The unit's metavars (:data:`METAVARS`) in the help's language, once a help or a usage is shown."""
        words = i18n.words(self.language)
        for action in self._actions:
            if isinstance(action.metavar, str) and action.metavar in METAVARS:
                action.metavar = words(f"cli.metavar.{METAVARS[action.metavar]}")

    def error(self, message: str) -> NoReturn:
        words = i18n.words(self.language)
        slip = negative_amount(self.argv, self._negative_number_matcher)
        if slip is not None:  # argparse read « -500k » as an option: the slip is the sign, said as such
            line = words("cli.argparse.negative_amount", typed=slip, amount=slip[1:])
            if self.argv[:1] == ["pay"]:  # the direction of a payment is its order, not a sign
                line += words("cli.argparse.negative_payment", amount=slip[1:])
            self.exit(2, f"monopoly-city: {escape(line)}\n")
        self.exit(2, f"monopoly-city: {escape(argparse_said(message, words))} ({self.prog} --help)\n")


#: An amount typed with a minus sign that argparse takes for an option (« -500k », « -1,5M »; not « -5 » nor « -500 »,
#: which it reads as negative numbers and the rules refuse with their own sentence).
NEGATIVE_AMOUNT = r"-(?:\d[\d\s.,\u202f]*[kKmM]|\d*[,]\d+|\d[\d\s\u202f]*\d)"


def negative_amount(argv: list[str], read_as_number: re.Pattern[str] | None = None) -> str | None:
    """The first value of ``argv`` that is an amount written with a minus and that argparse calls an option.

    ``read_as_number``: argparse's own pattern for a negative number (``-500``): such a value is read as one (a
    ``--seed -12``), never the slip an error is about. A value with a space in it argparse reads as a value too.
    """
    for arg in argv:
        if arg == "--":
            return None
        if " " in arg or (read_as_number is not None and read_as_number.match(arg)):
            continue
        if arg.startswith("-") and re.fullmatch(NEGATIVE_AMOUNT, arg.strip()):
            return arg.strip()
    return None


#: argparse's messages (Python 3.11+) and the catalog's key for each; what they hold is kept as it is.
ARGPARSE = (
    (r"the following arguments are required: (?P<names>.*)", "required"),
    (r"unrecognized arguments: (?P<names>.*)", "unrecognized"),
    (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "invalid_choice"),
    (r"invalid (?P<type>\w+) value: (?P<value>.*)", "invalid_value"),
    (r"expected one argument", "expected_one"),
    (r"expected at most one argument", "expected_at_most_one"),
    (r"expected at least one argument", "expected_at_least_one"),
    (r"expected (?P<n>\d+) arguments?", "expected_n"),
    (r"not allowed with argument (?P<other>.*)", "not_allowed_with"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", "ambiguous"),
    (r"ignored explicit argument (?P<value>.*)", "ignored_explicit"),
    (r"one of the arguments (?P<names>.*) is required", "one_of_required"),
)


def argparse_said(message: str, words: i18n.Words) -> str:
    """argparse's English ``message`` in the language of ``words`` (as it is when no pattern fits)."""
    name, sep, rest = message.partition(": ") if message.startswith("argument ") else ("", "", message)
    for pattern, key in ARGPARSE:
        if match := re.fullmatch(pattern, rest):  # compiled on an error only, not at every start
            values = match.groupdict()
            if len(values.get("value", "")) > 60:  # a 5,000-digit --dice is said in a line, not a page
                values["value"] = values["value"][:57] + "..."
            if "names" in values:  # the unit's metavars, as its help says them
                values["names"] = ", ".join(metavar_said(n, words) for n in values["names"].split(", "))
            if f"cli.argparse.type.{values.get('type')}" in words:  # « nombre entier », not int
                values["type"] = words(f"cli.argparse.type.{values['type']}")
            rest = words(f"cli.argparse.{key}", **values)
            break
    if sep:
        return words("cli.argparse.argument", name=metavar_said(name.removeprefix("argument "), words), message=rest)
    return rest


def metavar_said(name: str, words: i18n.Words) -> str:
    """A metavar of the unit's commands (:data:`METAVARS`) in the language of ``words``; others as they are."""
    key = METAVARS.get(name)
    return name if key is None else words(f"cli.metavar.{key}")


def _port(text: str) -> int:
    """serve --port: a TCP port, 1 to 65535 (a bigger number is no port: said here, not by the socket)."""
    port = int(text) if text.isascii() and text.isdigit() and len(text) <= 5 else 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(i18n.words(Parser.language)("cli.bad_port", got=shown(text)))
    return port


def _press_timeout(text: str) -> float:
    """selftest --timeout: a number of seconds from 0.1 to 600."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0.1 <= seconds <= 600:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(i18n.words(Parser.language)("cli.bad_timeout", got=shown(text)))
    return seconds


#: The unit's own commands: they never need the calculator.
UNIT_COMMANDS = ("simulate", "run", "selftest", "serve")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with ``command``, one of :data:`UNIT_COMMANDS`, only that command's parser.

    One command is all a command line naming it can need: its usage, its help and its errors are its own
    parser's. A faster start: ``run`` parses without the other unit commands' 14 arguments (0.7 ms of CPU
    before READY=1) and without the calculator's commands (4 ms).
    """
    parser = Parser(
        prog="monopoly-city",
        description="cli.help.main.description",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}", help="cli.help.version")
    # --lang before the command (monopoly-city --lang en --help): the command's own --lang when it has none
    parser.add_argument("--lang", choices=i18n.languages(), dest="main_lang", help="cli.help.main.lang")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    if command in (None, "simulate"):
        sim = commands.add_parser(
            "simulate",
            help="cli.help.simulate.summary",
            description="cli.help.simulate.description",
        )
        sim.add_argument("scenario", metavar="SCENARIO.yaml", help="cli.help.simulate.scenario")
        sim.add_argument("--seed", type=int, metavar="N", help="cli.help.simulate.seed")
        sim.add_argument("--config", metavar="FILE", help="cli.help.simulate.config")
        sim.add_argument("--lang", choices=i18n.languages(), help="cli.help.common.unit_lang")
        sim.set_defaults(func=cmd_simulate)

    if command in (None, "run"):
        run = commands.add_parser(
            "run",
            help="cli.help.run.summary",
            description="cli.help.run.description",
        )
        run.add_argument(
            "--backend",
            choices=backends.names(),
            help="cli.help.run.backend",
        )
        run.add_argument("--pins", choices=["lgpio", "mock"], help="cli.help.run.pins")
        run.add_argument(
            "--state-dir",
            metavar="DIR",
            help="cli.help.run.state_dir",
        )
        run.add_argument("--config", metavar="FILE", help="cli.help.run.config")
        run.add_argument("--lang", choices=i18n.languages(), help="cli.help.common.unit_lang")
        run.add_argument("--script", metavar="SCENARIO.yaml", help="cli.help.run.script")
        run.add_argument("--seed", type=int, metavar="N", help="cli.help.run.seed")
        run.add_argument("--trace", metavar="FILE", help="cli.help.run.trace")
        run.add_argument("--frames", metavar="DIR", help="cli.help.run.frames")
        run.add_argument("--screenshot", metavar="FILE", help="cli.help.run.screenshot")
        run.add_argument("-v", "--verbose", action="store_true", help="cli.help.common.verbose")
        run.set_defaults(func=cmd_run)

    if command in (None, "selftest"):
        check = commands.add_parser(
            "selftest",
            help="cli.help.selftest.summary",
            description="cli.help.selftest.description",
        )
        check.add_argument("--config", metavar="FILE", help="cli.help.selftest.config")
        check.add_argument("--pins", choices=["lgpio", "mock"], help="cli.help.selftest.pins")
        check.add_argument("--lang", choices=i18n.languages(), help="cli.help.selftest.lang")
        check.add_argument(
            "--timeout",
            type=_press_timeout,
            default=10.0,
            metavar="SECONDS",
            help="cli.help.selftest.timeout",
        )
        check.set_defaults(func=cmd_selftest)

    if command in (None, "serve"):
        serve = commands.add_parser(
            "serve",
            help="cli.help.serve.summary",
            description="cli.help.serve.description",
        )
        serve.add_argument("--host", default="0.0.0.0", metavar="ADDRESS", help="cli.help.serve.host")
        serve.add_argument("--port", type=_port, default=8080, metavar="PORT", help="cli.help.serve.port")
        serve.add_argument("--state-dir", metavar="DIR", help="cli.help.serve.state_dir")
        serve.add_argument("--lang", choices=i18n.languages(), help="cli.help.serve.lang")
        serve.add_argument(
            "--data",
            metavar="DIR",
            help="cli.help.serve.data",
        )
        serve.add_argument(
            "--wifi-status",
            default=WIFI_STATUS_PATH,
            metavar="FILE",
            help="cli.help.serve.wifi_status",
        )
        serve.add_argument("-v", "--verbose", action="store_true", help="cli.help.common.verbose")
        serve.set_defaults(func=cmd_serve)

    if command is None:
        from unit.calculator import commands as calculator_commands

        calculator_commands.add_commands(commands, _with_language)
    return parser


Handler = Callable[[argparse.Namespace, str], int]


def _with_language(handler: Handler) -> Callable[[argparse.Namespace], int]:
    """Calls a calculator command with the table's language: --lang, else --config's, else French."""

    def call(args: argparse.Namespace) -> int:
        config = _load_config(args) if args.config else None  # checked even when --lang wins
        language = args.lang or (config.language if config else "fr")
        stdout = sys.stdout
        sys.stdout = cast(TextIO, _Printable(stdout))  # names come from files: no escape code reaches the terminal
        try:
            status = handler(args, language)
            sys.stdout.flush()  # what is still buffered: a full disk said now, not as a traceback at exit
            return status
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
    """A text stream that escapes control and invisible characters (keeping newlines and tabs), and says a failed
    write (a full disk, ``> /dev/full``) as the one line: :func:`output_error`."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(escape(text, keep="\n\t"))
        except OSError as error:
            raise output_error(error) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            raise output_error(error) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def output_error(error: OSError) -> OSError | UserError:
    """A write to stdout that failed, as the line ``stdout: cannot write the output: No space left on device``; a
    reader gone away (``| head``) stays a BrokenPipeError, which ends the command quietly."""
    if isinstance(error, BrokenPipeError):
        return error
    return UserError("stdout", Text("cli.cannot_write", what=Text("cli.output"), why=error.strerror or error))


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
    Parser.argv = argv
    parser = build_parser(argv[0] if argv and argv[0] in UNIT_COMMANDS else None)
    args = parser.parse_args(argv)
    if getattr(args, "lang", None) is None and args.main_lang is not None:  # --lang given before the command
        args.lang = args.main_lang
    func: Callable[[argparse.Namespace], int] = args.func
    if func is not cmd_run:
        end_startup_pause()  # run's lasts until READY=1 (unit/__main__.py)
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
