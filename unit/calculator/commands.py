"""The rules and rent calculator's commands: ``rent``, ``fortune``, ``check``, ``salary``, ``tax``,
``mortgage``, ``sell``, ``game new``, ``board`` and ``edition template``.

This is the command layer: it names the flags (through :class:`~unit.errors.ArgumentError`, which the CLI
prints as ``--dice: ...``); the rules modules below it only name values. Every word comes from the
``calculator.`` entries of unit/locales/, in the table's language (French unless ``--lang``).

Their options and JSON output are a public contract (docs/calculator.md).
Text output is for the table, in its language: amounts as ``M 1,5M`` for
Monopoly City and plain numbers for the classic game.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

from unit import i18n, yamlfile
from unit.calculator import edition as editions
from unit.calculator import ledger as ledgers
from unit.calculator import money, rules
from unit.calculator import position as positions
from unit.calculator.city import MonopolyCity
from unit.calculator.names import Names, player_name
from unit.calculator.rulebook import CheckReport, Deal, FortuneReport, Problem, RentReport, Rules, Situation
from unit.calculator.words import Joined, said, words
from unit.errors import ArgumentError, Text, UserError
from unit.fields import name_key
from unit.yamlfile import printed_lines

#: A command: its parsed arguments and the table's language in, its exit status out.
Handler = Callable[[argparse.Namespace, str], int]


def emit(args: argparse.Namespace, obj: dict[str, Any], lines: list[str]) -> None:
    if args.json:
        print(json.dumps(obj, ensure_ascii=False))
    else:
        print(printed_lines(lines))  # a newline in a name cannot fake a line


def bullets(explanation: Iterable[Text], w: i18n.Words) -> list[str]:
    """The parts of a computation, one ``  • `` line each."""
    return [f"  • {line.say(w)}" for line in explanation]


# --- rent -------------------------------------------------------------------------------------


def parse_card(text: str, language: str) -> list[int]:
    values = text.split()
    if len(values) != 9:
        raise ArgumentError("card", words(language, "args.card_count", n=len(values)))
    return [money.parse(v, words(language, "args.card_value", n=i), language) for i, v in enumerate(values)]


BLOCK_FLAGS = ("residential", "industrial")
CLASSIC_FLAGS = ("houses", "hotel", "group")


def situation_of(args: argparse.Namespace) -> Situation:
    """What ``rent --card`` or ``rent --edition`` describes with its flags."""
    return Situation(
        residential=args.residential,
        industrial=args.industrial,
        hazard=args.hazard,
        skyscraper=args.skyscraper,
        tower=args.tower,
        mortgaged=args.mortgaged,
        houses=args.houses,
        hotel=args.hotel,
        group=args.group,
        dice=args.dice,
    )


def cmd_rent(args: argparse.Namespace, language: str) -> int:
    w = i18n.words(language)
    if args.card is not None:
        if args.game or args.square or args.edition:
            raise UserError("rent", words(language, "args.card_or_game"))
        city = MonopolyCity()
        situation = situation_of(args)
        city.situation(situation)
        report = city.card(parse_card(args.card, language), situation)
        emit(args, rent_object(report, w), rent_lines(report, w))
        return 0
    if args.edition is not None:
        if args.game and args.square:
            raise UserError("rent", words(language, "args.edition_or_game"))
        typed = args.square or args.game
        if not typed:
            raise UserError("rent", words(language, "args.rent_usage"))
        edition = editions.load(args.edition, language=language)
        report = needs_dice_given(rules.of(edition).what_if(edition, typed, situation_of(args)))
        emit(args, rent_object(report, w), rent_lines(report, w))
        return 0
    if not args.game or not args.square:
        raise UserError("rent", words(language, "args.rent_usage"))
    for flag in BLOCK_FLAGS:
        if getattr(args, flag):
            raise ArgumentError(flag, words(language, "args.only_with_card"))
    for flag in CLASSIC_FLAGS:
        if getattr(args, flag):
            raise ArgumentError(flag, words(language, "args.only_with_edition"))
    game = positions.load(args.game, language)
    report = needs_dice_given(rent_report(game, args.square, args.dice, language, rules.of(game)))
    emit(args, rent_object(report, w), rent_lines(report, w))
    return 0


def rent_report(
    game: positions.Game, typed: str, dice: int | None, language: str | None = None, kind: Rules | None = None
) -> RentReport:
    """``rent GAME SQUARE [--dice N]``: the report the command prints and the phone's page shows (a name not
    found is a :class:`UserError` whose sentence the caller says; ``language`` is not needed). ``kind``: the game's
    rules, as the caller looked them up once."""
    return (kind or rules.of(game)).rent_of(game, typed, dice)


def needs_dice_given(report: RentReport) -> RentReport:
    """The command line asks for ``--dice`` where the rent is a multiple of the throw and none was given."""
    if report.needs_dice:
        raise ArgumentError("dice", report.explanation[0])
    return report


def rent_object(report: RentReport, w: i18n.Words) -> dict[str, Any]:
    """``rent --json``: ``square``, ``owner``, ``rent``, ``explanation``, and City's ``exemption`` (a game file) or
    ``blocks_counted`` (a card, an edition's district)."""
    explanation = [line.say(w) for line in report.explanation]
    if report.square is None:
        return {"rent": report.rent, "blocks_counted": report.blocks_counted, "explanation": explanation}
    obj: dict[str, Any] = {"square": report.square, "owner": report.owner, "rent": report.rent}
    obj["explanation"] = explanation
    if report.exemption_card:
        obj["exemption"] = report.exemption if report.owner else None
    if report.blocks_counted is not None:
        obj["blocks_counted"] = report.blocks_counted
    return obj


def rent_lines(report: RentReport, w: i18n.Words) -> list[str]:
    """The rent as the table reads it: the square (and its owner), the reasons, the total."""
    title = [] if report.square is None else [report.title]
    return title + bullets(report.explanation, w) + [report.total.say(w)]


# --- fortune ----------------------------------------------------------------------------------


def cmd_fortune(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    kind = rules.of(game)
    report = fortune_report(game, args.variant, kind)
    w = i18n.words(language)
    emit(args, fortune_object(report), fortune_lines(game, report, w, kind))
    return 0


def fortune_report(game: positions.Game, variant: str | None, kind: Rules | None = None) -> FortuneReport:
    """``fortune GAME [--variant V]``: every player's fortune, richest first."""
    return (kind or rules.of(game)).fortunes(game, variant)


def fortune_object(report: FortuneReport) -> dict[str, Any]:
    players = [{"name": p.name, "cash": p.cash, "assets": p.assets, "fortune": p.fortune} for p in report.players]
    return {"variant": report.variant, "players": players, "winners": list(report.winners)}


def fortune_lines(game: positions.Game, report: FortuneReport, w: i18n.Words, kind: Rules | None = None) -> list[str]:
    """The title, one ranked line per player (cash and assets in brackets), the winner."""
    write = (kind or rules.of(game)).write
    width = max(len(p.name) for p in report.players)
    lines = [positions.titled(game, report.title.say(w), w)]
    for rank, p in enumerate(report.players, 1):
        detail = w("calculator.fortune.detail", c=write(p.cash, w), a=write(p.assets, w))
        lines.append(f"  {rank}. {p.name:<{width}}  {write(p.fortune, w)}  ({detail})")
    return lines + [report.verdict.say(w)]


# --- check ------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    report = check_report(game, args.variant, rules.of(game), ledger=True)
    w = i18n.words(language)
    emit(args, check_object(report, w), check_lines(report, w))
    return 0 if report.ok else 1


def check_report(
    game: positions.Game, variant: str | None, kind: Rules | None = None, ledger: bool = False
) -> CheckReport:
    """``check GAME [--variant V]``: the rules the position breaks (``variant``: classic only); with ``ledger``, also
    where the position is not its start and its history (:func:`unit.calculator.ledger.differences`: a change made
    by hand, rule ``ledger``, which ``record`` writes down as an entry)."""
    report = (kind or rules.of(game)).check(game, variant)
    if not ledger:
        return report
    found = ledgers.differences(game)
    if not found:
        return report
    text = Joined([d.text for d in found], "bank.hand.separator")
    problem = Problem(None, None, "ledger", said("check.ledger", d=text))
    return replace(report, problems=(*report.problems, problem))


@dataclass(frozen=True)
class SaidProblem:
    """A problem of :class:`~unit.calculator.rulebook.Problem`, its sentence said in one language."""

    player: str | None
    square: str | None
    rule: str
    message: str


def problems_of(
    game: positions.Game, variant: str | None, language: str, kind: Rules | None = None, ledger: bool = False
) -> list[SaidProblem]:
    """The position's broken rules in ``language`` (``variant``: classic only, ``timed`` or ``quick``; ``kind``: the
    game's rules, as the caller looked them up once); with ``ledger``, a change made by hand too
    (:func:`check_report`)."""
    w = i18n.words(language)
    report = check_report(game, variant, kind, ledger=ledger)
    return [SaidProblem(p.player, p.square, p.rule, p.message.say(w)) for p in report.problems]


def check_object(report: CheckReport, w: i18n.Words) -> dict[str, Any]:
    problems = [
        {"player": p.player, "square": p.square, "rule": p.rule, "message": p.message.say(w)} for p in report.problems
    ]
    return {"ok": report.ok, "problems": problems}


def check_lines(report: CheckReport, w: i18n.Words) -> list[str]:
    """One line per problem: « Alice · Docks: … [rule] », or the sentence alone when it is about no player nor square
    (the ledger's: no empty « : » in front)."""
    if report.ok:
        return ["OK"]
    lines = []
    for p in report.problems:
        where = " · ".join(part for part in (p.player, p.square) if part)
        lines.append((f"{where}: " if where else "") + f"{p.message.say(w)} [{p.rule}]")
    return lines


# --- the bank: salary, tax, mortgage, sell ------------------------------------------------------


def _deal(args: argparse.Namespace, obj: dict[str, Any], title: str, deal: Deal, total: Text, language: str) -> int:
    w = i18n.words(language)
    obj = {**obj, "amount": deal.amount, "explanation": [line.say(w) for line in deal.explanation]}
    emit(args, obj, [title] + bullets(deal.explanation, w) + [total.say(w)])
    return 0


def cmd_salary(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    kind = rules.of(game)
    player = game.player(args.player, "PLAYER", language)
    deal = kind.salary(game, player)
    return _deal(args, {"player": player.name}, player.name, deal, kind.total("salary.total", deal.amount), language)


def cmd_tax(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    kind = rules.of(game)
    kind.offers("tax")
    player = game.player(args.player, "PLAYER", language)
    deal = kind.industry_tax(game, player)
    return _deal(args, {"player": player.name}, player.name, deal, kind.total("tax.total", deal.amount), language)


def _owned(game: positions.Game, kind: Rules, typed: str, language: str) -> tuple[str, positions.Player, Any]:
    """The square or district ``typed`` names and who holds it; a clear error when nobody does."""
    name = kind.owned(game, typed)
    held = game.holding(name)
    if held is None:
        raise UserError("SQUARE", words(language, "args.nobody_owns", s=name))
    return name, held[0], held[1]


def cmd_mortgage(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    kind = rules.of(game)
    name, player, holding = _owned(game, kind, args.square, language)
    found = kind.mortgage(game, name)
    obj = {
        "square": name,
        "owner": player.name,
        "mortgaged": holding.mortgaged,
        "mortgage": found.value,
        "lift": found.lift,
    }
    total = kind.total("mortgage.total_lift" if holding.mortgaged else "mortgage.total_take", found.deal.amount)
    return _deal(args, obj, f"{name} ({player.name})", found.deal, total, language)


def cmd_sell(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    kind = rules.of(game)
    kind.offers("sell")
    name, player, holding = _owned(game, kind, args.square, language)
    deal = kind.sell(game, name, args.variant)
    obj = {"square": name, "owner": player.name, "houses": holding.houses, "hotel": holding.hotel}
    return _deal(args, obj, f"{name} ({player.name})", deal, kind.total("sell.total", deal.amount), language)


# --- board and edition ------------------------------------------------------------------------


def cmd_board(args: argparse.Namespace, language: str) -> int:
    edition = editions.load(args.edition, language=language)
    print(printed_lines(board_lines(edition, language)))
    return 0


def board_lines(edition: editions.Edition, language: str) -> list[str]:
    """``board``: an edition's cards as a table (City's groups and districts, or classic's squares in order)."""
    lines = [edition.name, ""]
    if isinstance(edition, editions.CityEdition):

        def fmt(amount: int | None) -> str:
            return "—" if amount is None else money.city(amount, language)

        for group in edition.groups.values():
            lines.append(
                words(
                    language,
                    "board.group",
                    g=group.name,
                    c=fmt(group.skyscraper_cost),
                )
            )
            for name in group.districts:
                d = edition.districts[name]
                rents = " / ".join(fmt(r) for r in d.rents) if d.rents else "—"
                lines.append(f"  {d.name:<24} {fmt(d.price):>9}  {fmt(d.residential_cost)} | {fmt(d.industrial_cost)}")
                lines.append(f"    {words(language, 'board.city_rents')}: {rents}")
        hazards = ", ".join(
            f"{positions.building_name(k, language)} {v if v is not None else '—'}" for k, v in edition.hazards.items()
        )
        lines += ["", words(language, "board.hazards", h=hazards)]
        lines.append(
            words(
                language,
                "board.city_rules",
                s=fmt(edition.go_salary),
                t=fmt(edition.industry_tax),
                c=fmt(edition.starting_cash),
            )
        )
        return lines
    rules = edition.rules
    lines.append(
        words(
            language,
            "board.rules",
            s=rules.go_salary,
            j=rules.jail_fine,
            h=rules.bank_houses,
            t=rules.bank_hotels,
        )
    )
    lines += [words(language, f"board.flag.{flag}") for flag in editions.RULE_FLAGS if rules.flag(flag)]
    if not edition.complete:
        lines.append(
            words(
                language,
                "board.no_deeds",
            )
        )
        return lines
    header = words(
        language,
        "board.square",
    )
    lines.append(
        f"{'#':>2}  {header:<42} {words(language, 'board.price'):>5}  "
        + words(
            language,
            "board.columns",
        )
    )
    for square in edition.squares.values():
        if isinstance(square, editions.Street):
            detail = "/".join(map(str, square.rent)) + f" · {square.house_cost} · {square.mortgage}"
            colour = edition.groups[square.group]["fr"].split(" ")[0] if language == "fr" else square.group
            label = f"{square.name} ({colour})"
            lines.append(f"{square.pos:>2}  {label:<42} {square.price:>5}  {detail}")
        elif isinstance(square, editions.Tax):
            lines.append(
                f"{square.pos:>2}  {square.name:<42} {'':>5}  " + words(language, "board.tax", a=square.amount)
            )
        elif square.kind == "station":
            rents = "/".join(str(edition.station_rents[n]) for n in sorted(edition.station_rents))
            lines.append(f"{square.pos:>2}  {square.name:<42} {square.price:>5}  {rents} · — · {square.mortgage}")
        else:
            factors = " / ".join(f"{edition.utility_multipliers[n]}×" for n in sorted(edition.utility_multipliers))
            lines.append(
                f"{square.pos:>2}  {square.name:<42} {square.price:>5}  "
                + words(language, "board.dice", f=factors)
                + f" · — · {square.mortgage}"
            )
    return lines


TEMPLATES = editions.TEMPLATES  # the pages list them too


def cmd_edition(args: argparse.Namespace, language: str) -> int:
    if args.kind not in TEMPLATES:
        hint = Names({k: k for k in TEMPLATES}, "template").hint(args.kind)
        raise UserError(
            "edition template",
            said("args.unknown_template", name=repr(args.kind), hint=hint, expected=", ".join(TEMPLATES)),
        )
    folder = resources.files("unit.calculator").joinpath("editions")
    translated = folder.joinpath(TEMPLATES[args.kind].replace(".yaml", f".{language}.yaml"))
    template = translated if translated.is_file() else folder.joinpath(TEMPLATES[args.kind])
    sys.stdout.write(template.read_text(encoding="utf-8"))
    return 0


def players_of(typed: str | None) -> list[str]:
    """``--players``: names separated by commas (« Alice,Bob,Chloé »; a name may hold spaces: « Jean Paul,Léa »).
    Without a comma, words separated by spaces are refused with how to write them: « Alice Bob Chloé » could be
    three players or one with a long name, and guessing would make the wrong game file."""
    if typed is None:  # checked after the edition: « game new city » first learns where City's editions come from
        raise ArgumentError("players", said("args.players_missing"))
    names = [name.strip() for name in typed.split(",")]
    if not all(names):
        raise ArgumentError("players", said("args.players_list", got=repr(typed)))
    for name in names:  # one line each, no control character: refused here, never written escaped (issue 28)
        try:
            player_name(name, "players")
        except UserError as error:
            raise ArgumentError("players", error.message) from None
    if len(names) == 1 and len(names[0].split()) > 1:
        raise ArgumentError("players", said("args.players_spaces", got=repr(typed), fix=",".join(names[0].split())))
    return names


def cmd_game_new(args: argparse.Namespace, language: str) -> int:
    """A starting position to fill in: every player with the edition's starting cash, nothing owned."""
    edition = editions.load(args.edition, language=language)
    names = players_of(args.players)
    seen: set[str] = set()
    for name in names:
        if name_key(name) in seen:
            raise ArgumentError("players", words(language, "args.players_twice", name=repr(name)))
        seen.add(name_key(name))
    kind = rules.of(edition)
    cash = kind.starting_cash(edition)
    if cash is None:
        raise UserError(edition.source, words(language, "game.no_starting_cash"))
    try:
        title = None if args.title is None else positions.title_field(args.title, "title", language)
    except UserError as error:
        raise ArgumentError("title", error.message) from None
    lines = [
        f"# {words(language, 'game.header', e=edition.name)}",
        f"# {words(language, 'game.fill_' + kind.kind)}",
        *([] if title is None else [f"title: {json.dumps(title, ensure_ascii=False)}"]),
        f"edition: {json.dumps(args.edition, ensure_ascii=False)}",
        "players:",
    ]
    for name in names:
        written = kind.written(cash, language)
        lines += [
            f"  - name: {json.dumps(name, ensure_ascii=False)}",
            f"    cash: {written}",
            f"    {kind.holdings_key}: []",
        ]
    print("\n".join(lines))
    return 0


# --- the parsers ----------------------------------------------------------------------------


def common_options(parser: argparse.ArgumentParser, json_output: bool = True) -> None:
    """The options every calculator and bank command has: ``--config``, ``--lang`` and, unless told, ``--json``."""
    parser.add_argument("--config", metavar="FILE", help="cli.help.common.config")
    parser.add_argument("--lang", choices=i18n.languages(), help="cli.help.common.lang")
    if json_output:
        parser.add_argument("--json", action="store_true", help="cli.help.common.json")


#: The values the commands take, as their usage and their errors name them (argparse's metavars, and the places
#: of the rules' errors: ``SQUARE: unknown district``), and each one's key under ``calculator.args.place.``: a
#: French table reads « CASE », « JOUEUR », « PARTIE.yaml », as docs/calculator.md writes them.
PLACES = {
    "GAME.yaml": "game",
    "SQUARE": "square",
    "PLAYER": "player",
    "PAYER": "payer",
    "PAYEE": "payee",
    "AMOUNT": "amount",
    "SELLER": "seller",
    "BUYER": "buyer",
    "CREDITOR": "creditor",
    "EDITION": "edition",
    "KIND": "kind",
    "FILE": "file",
    "TEXT": "text",
    "TITLE": "title",
}


def place(name: str, language: str) -> str:
    """``name`` (a metavar, a place an error names) in ``language``: ``SQUARE`` -> ``CASE``; others as they are."""
    key = PLACES.get(name)
    return name if key is None else i18n.words(language)(f"calculator.args.place.{key}")


def in_words(handler: Handler) -> Handler:
    """``handler``, whose errors name the value at fault as the usage does in the table's language (« CASE :
    quartier inconnu 'Dok' », not ``SQUARE:``): the rules name it by its metavar, in no language."""

    def call(args: argparse.Namespace, language: str) -> int:
        try:
            return handler(args, language)
        except UserError as error:
            if not isinstance(error, ArgumentError) and error.where in PLACES:
                error.where = place(error.where, language)
            raise

    return call


def whole_number(language: str) -> Callable[[str], int]:
    """argparse's ``type=int`` with its error in ``language`` (argparse would say « valeur invalide (int) »)."""

    def parse(text: str) -> int:
        if text.strip().lstrip("+-").isdigit() and text.strip().isascii() and len(text.strip()) <= 30:
            return int(text)
        raise argparse.ArgumentTypeError(words(language, "args.whole_number", got=yamlfile.shown(text, 60)))

    return parse


def in_language(parser: argparse.ArgumentParser, language: str) -> None:
    """A command's usage in ``language``: its values' metavars (``JOUEUR``) and whole numbers' errors, in its
    subcommands too (``game new``)."""
    for action in parser._actions:
        if isinstance(action.metavar, str):
            action.metavar = place(action.metavar, language)
        if action.type is int:
            action.type = whole_number(language)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                in_language(sub, language)


def add_commands(
    commands: argparse._SubParsersAction[Any],  # the CLI's subcommands (its parser class: a subclass)
    wrap: Callable[[Handler], Callable[[argparse.Namespace], int]],
) -> None:
    """Add the calculator's subcommands to the ``monopoly-city`` parser; ``wrap`` wraps each handler.

    Their usage is said in the language the command line asked for (``--lang``, read before parsing: the
    parser's ``language``, French by default), their errors in the table's."""

    def run(handler: Handler) -> Callable[[argparse.Namespace], int]:
        return wrap(in_words(handler))

    before = set(commands.choices)
    common = common_options
    rent = commands.add_parser(
        "rent",
        help="cli.help.rent.summary",
        description="cli.help.rent.description",
    )
    rent.add_argument("game", metavar="GAME.yaml", nargs="?", help="cli.help.rent.game")
    rent.add_argument("square", metavar="SQUARE", nargs="?", help="cli.help.rent.square")
    rent.add_argument("--dice", type=int, metavar="N", help="cli.help.rent.dice")
    rent.add_argument("--card", metavar='"V0 V1 ... V8"', help="cli.help.rent.card")
    rent.add_argument("--edition", metavar="EDITION", help="cli.help.rent.edition")
    rent.add_argument("--residential", type=int, default=0, metavar="N", help="cli.help.rent.residential")
    rent.add_argument("--industrial", type=int, default=0, metavar="N", help="cli.help.rent.industrial")
    rent.add_argument("--hazard", action="store_true", help="cli.help.rent.hazard")
    rent.add_argument("--skyscraper", action="store_true", help="cli.help.rent.skyscraper")
    rent.add_argument("--tower", action="store_true", help="cli.help.rent.tower")
    rent.add_argument("--mortgaged", action="store_true", help="cli.help.rent.mortgaged")
    rent.add_argument("--houses", type=int, default=0, metavar="N", help="cli.help.rent.houses")
    rent.add_argument("--hotel", action="store_true", help="cli.help.rent.hotel")
    rent.add_argument(
        "--group",
        action="store_true",
        help="cli.help.rent.group",
    )
    common(rent)
    rent.set_defaults(func=run(cmd_rent))

    fortune = commands.add_parser(
        "fortune", help="cli.help.fortune.summary", description="cli.help.fortune.description"
    )
    fortune.add_argument("game", metavar="GAME.yaml")
    fortune.add_argument("--variant", choices=["timed", "quick"], help="cli.help.fortune.variant")
    common(fortune)
    fortune.set_defaults(func=run(cmd_fortune))

    check = commands.add_parser(
        "check",
        help="cli.help.check.summary",
        description="cli.help.check.description",
    )
    check.add_argument("game", metavar="GAME.yaml")
    check.add_argument("--variant", choices=["timed", "quick"], help="cli.help.check.variant")
    common(check)
    check.set_defaults(func=run(cmd_check))

    salary = commands.add_parser("salary", help="cli.help.salary.summary")
    salary.add_argument("game", metavar="GAME.yaml")
    salary.add_argument("player", metavar="PLAYER", help="cli.help.common.player")
    common(salary)
    salary.set_defaults(func=run(cmd_salary))

    tax = commands.add_parser("tax", help="cli.help.tax.summary")
    tax.add_argument("game", metavar="GAME.yaml")
    tax.add_argument("player", metavar="PLAYER", help="cli.help.common.player")
    common(tax)
    tax.set_defaults(func=run(cmd_tax))

    mortgage = commands.add_parser("mortgage", help="cli.help.mortgage.summary")
    mortgage.add_argument("game", metavar="GAME.yaml")
    mortgage.add_argument("square", metavar="SQUARE")
    common(mortgage)
    mortgage.set_defaults(func=run(cmd_mortgage))

    sell = commands.add_parser("sell", help="cli.help.sell.summary")
    sell.add_argument("game", metavar="GAME.yaml")
    sell.add_argument("square", metavar="SQUARE")
    sell.add_argument("--variant", choices=["timed", "quick"], help="cli.help.sell.variant")
    common(sell)
    sell.set_defaults(func=run(cmd_sell))

    board = commands.add_parser("board", help="cli.help.board.summary")
    board.add_argument("edition", metavar="EDITION", help="cli.help.common.edition")
    common(board, json_output=False)
    board.set_defaults(func=run(cmd_board))

    edition = commands.add_parser("edition", help="cli.help.edition.summary")
    actions = edition.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    template = actions.add_parser("template", help="cli.help.edition_template.summary")
    template.add_argument("kind", metavar="KIND", help="cli.help.edition_template.kind")
    common(template, json_output=False)
    template.set_defaults(func=run(cmd_edition))

    game = commands.add_parser("game", help="cli.help.game.summary")
    game_actions = game.add_subparsers(dest="action", metavar="ACTION")
    game_actions.required = True
    new = game_actions.add_parser("new", help="cli.help.game_new.summary")
    new.add_argument("edition", metavar="EDITION", help="cli.help.common.edition")
    new.add_argument("--players", metavar='"A,B,C"', help="cli.help.game_new.players")
    new.add_argument("--title", metavar="TITLE", help="cli.help.game_new.title")
    common(new, json_output=False)
    new.set_defaults(func=run(cmd_game_new))

    from unit.calculator import bank_commands  # the bank's verbs and --pay (issue 22): a module of its own

    bank_commands.add_commands(
        commands,
        run,
        {"salary": cmd_salary, "tax": cmd_tax, "mortgage": cmd_mortgage, "sell": cmd_sell},
        common_options,
    )
    for name in set(commands.choices) - before:
        parser = commands.choices[name]
        in_language(parser, getattr(parser, "language", i18n.REFERENCE))
