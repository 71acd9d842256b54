"""The rules and rent calculator's commands: ``rent``, ``fortune``, ``check``, ``board``, ``edition``.

Their options and JSON output are a public contract (docs/calculator.md).
Text output is for the table, in its language: amounts as ``M 1,5M`` for
Monopoly City and plain numbers for the classic game.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources

from unit import fields
from unit.calculator import city, classic, money
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.rulebook import say
from unit.errors import UserError


def amount_text(kind: str, amount: int, language: str) -> str:
    return money.city(amount, language) if kind == "city" else money.classic(amount)


def emit(args: argparse.Namespace, obj: dict, lines: list[str]) -> None:
    if args.json:
        print(json.dumps(obj, ensure_ascii=False))
    else:
        print("\n".join(lines))


# --- rent -------------------------------------------------------------------------------------


def parse_card(text: str, language: str) -> list[int]:
    values = text.split()
    if len(values) != 9:
        raise UserError("--card", f"expected the 9 values of the card (0 to 8 blocks), got {len(values)}")
    return [money.parse(v, f"--card value {i}", language) for i, v in enumerate(values)]


def cmd_rent(args: argparse.Namespace, language: str) -> int:
    if args.card is not None:
        if args.game or args.square:
            raise UserError("rent", "give either --card or a game file and a square, not both")
        for flag in ("residential", "industrial"):
            if not 0 <= getattr(args, flag) <= 99:
                raise UserError(f"--{flag}", f"expected a number of blocks from 0 to 99, got {getattr(args, flag)}")
        rent = city.card_rent(
            parse_card(args.card, language),
            args.residential,
            args.industrial,
            hazard=args.hazard,
            skyscraper=args.skyscraper,
            tower=args.tower,
            mortgaged=args.mortgaged,
            language=language,
        )
        obj = {"rent": rent.amount, "blocks_counted": rent.blocks_counted, "explanation": rent.explanation}
        emit(args, obj, [f"  • {line}" for line in rent.explanation] + [_rent_line("city", rent.amount, language)])
        return 0
    if not args.game or not args.square:
        raise UserError("rent", 'expected GAME.yaml and SQUARE (or --card "V0 ... V8")')
    for flag in ("residential", "industrial"):
        if getattr(args, flag):
            raise UserError(f"--{flag}", "only with --card (a game file says how many blocks stand)")
    game = positions.load(args.game, language)
    if game.kind == "city":
        square, owner, amount, explanation = _city_rent(game, args, language)
    else:
        square, owner, amount, explanation = _classic_rent(game, args, language)
    obj = {"square": square, "owner": owner, "rent": amount, "explanation": explanation}
    title = f"{square} ({owner})" if owner else square
    emit(args, obj, [title] + [f"  • {line}" for line in explanation] + [_rent_line(game.kind, amount, language)])
    return 0


def _rent_line(kind: str, amount: int, language: str) -> str:
    return say(language, "Loyer : {a}", "Rent: {a}", a=amount_text(kind, amount, language))


def _city_rent(game, args, language):
    if args.dice is not None:
        raise UserError("--dice", "Monopoly City rents do not depend on the dice")
    district = game.edition.district(args.square, "SQUARE")
    held = game.holding(district.name)
    if held is None:
        return (
            district.name,
            None,
            0,
            [say(language, "personne ne possède ce quartier : pas de loyer", "nobody owns this district: no rent")],
        )
    player, holding = held
    rent = city.district_rent(game, player, holding, language)
    return district.name, player.name, rent.amount, rent.explanation


def _classic_rent(game, args, language):
    square = game.edition.square(args.square, "SQUARE")
    if square.kind == "tax":
        return (
            square.name,
            None,
            square.amount,
            [say(language, "une taxe : payez {a} à la banque", "a tax: pay {a} to the bank", a=square.amount)],
        )
    if square.kind != "utility" and args.dice is not None:
        raise UserError("--dice", f"only a utility's rent depends on the dice, not {square.name}'s")
    if args.dice is not None and not 2 <= args.dice <= 12:
        raise UserError("--dice", f"expected the total of two dice (2 to 12), got {args.dice}")
    held = game.holding(square.name)
    if held is None:
        return (
            square.name,
            None,
            0,
            [say(language, "personne ne possède cette propriété : pas de loyer", "nobody owns this property: no rent")],
        )
    player, _ = held
    rent = classic.rent(game, square.name, args.dice, language)
    return square.name, player.name, rent.amount, rent.explanation


# --- fortune ----------------------------------------------------------------------------------


def cmd_fortune(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    if game.kind == "city":
        if args.variant is not None:
            raise UserError("--variant", "Monopoly City has one way to count fortunes: no variant")
        variant = None
        results = city.fortunes(game, language)
    else:
        variant = args.variant or "timed"
        results = classic.fortunes(game, variant)
    rows = sorted(
        ({"name": p.name, "cash": p.cash, "assets": assets, "fortune": p.cash + assets} for p, assets in results),
        key=lambda row: -row["fortune"],
    )
    best = rows[0]["fortune"]
    winners = [row["name"] for row in rows if row["fortune"] == best]
    titles = {
        None: say(language, "Fortunes", "Fortunes"),
        "timed": say(language, "Fortunes (partie limitée dans le temps)", "Fortunes (time-limited game)"),
        "quick": say(language, "Fortunes (partie rapide)", "Fortunes (quick game)"),
    }
    fmt = lambda a: amount_text(game.kind, a, language)  # noqa: E731
    width = max(len(row["name"]) for row in rows)
    lines = [titles[variant]]
    for rank, row in enumerate(rows, 1):
        detail = say(
            language, "billets {c} + biens {a}", "cash {c} + assets {a}", c=fmt(row["cash"]), a=fmt(row["assets"])
        )
        lines.append(f"  {rank}. {row['name']:<{width}}  {fmt(row['fortune'])}  ({detail})")
    if len(winners) == 1:
        lines.append(say(language, "Gagnant : {w}", "Winner: {w}", w=winners[0]))
    else:
        lines.append(say(language, "Gagnants (égalité) : {w}", "Winners (a tie): {w}", w=", ".join(winners)))
    emit(args, {"variant": variant, "players": rows, "winners": winners}, lines)
    return 0


# --- check ------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    problems = city.check(game, language) if game.kind == "city" else classic.check(game, language)
    obj = {
        "ok": not problems,
        "problems": [{"player": p.player, "square": p.square, "rule": p.rule, "message": p.message} for p in problems],
    }
    lines = (
        ["OK"]
        if not problems
        else [" · ".join(part for part in (p.player, p.square) if part) + f": {p.message} [{p.rule}]" for p in problems]
    )
    emit(args, obj, lines)
    return 0 if not problems else 1


# --- board and edition ------------------------------------------------------------------------


def cmd_board(args: argparse.Namespace, language: str) -> int:
    edition = editions.load(args.edition, language=language)
    print("\n".join(board_lines(edition, language)))
    return 0


def board_lines(edition, language: str) -> list[str]:
    lines = [edition.name, ""]
    if edition.game == "city":
        fmt = lambda a: "—" if a is None else money.city(a, language)  # noqa: E731
        for group in edition.groups.values():
            lines.append(
                say(
                    language,
                    "Groupe {g} — gratte-ciel {c}",
                    "Group {g} — skyscraper {c}",
                    g=group.name,
                    c=fmt(group.skyscraper_cost),
                )
            )
            for name in group.districts:
                d = edition.districts[name]
                rents = " / ".join(fmt(r) for r in d.rents) if d.rents else "—"
                lines.append(f"  {d.name:<24} {fmt(d.price):>9}  {fmt(d.residential_cost)} | {fmt(d.industrial_cost)}")
                lines.append(f"    {say(language, 'loyers 0-8', 'rents 0-8')}: {rents}")
        hazards = ", ".join(f"{k} {v if v is not None else '—'}" for k, v in edition.hazards.items())
        lines += ["", say(language, "Bâtiments nuisibles (en bâtiments) : {h}", "Hazards (in blocks): {h}", h=hazards)]
        return lines
    rules = edition.rules
    lines.append(
        say(
            language,
            "Salaire {s} · amende de prison {j} · {h} maisons et {t} hôtels",
            "Salary {s} · jail fine {j} · {h} houses and {t} hotels",
            s=rules["go_salary"],
            j=rules["jail_fine"],
            h=rules["bank_houses"],
            t=rules["bank_hotels"],
        )
    )
    if not edition.complete:
        lines.append(
            say(
                language,
                "Pas de valeurs de titres (non publiques) : monopoly-city edition template europe-1991",
                "No deed values (not public): monopoly-city edition template europe-1991",
            )
        )
        return lines
    header = say(language, "case", "square")
    lines.append(
        f"{'#':>2}  {header:<42} {'prix' if language == 'fr' else 'price':>5}  "
        + say(language, "loyers nu/1/2/3/4/H · maison · hypothèque", "rents bare/1/2/3/4/H · house · mortgage")
    )
    for square in edition.squares.values():
        if isinstance(square, editions.Street):
            detail = "/".join(map(str, square.rent)) + f" · {square.house_cost} · {square.mortgage}"
            colour = edition.groups[square.group]["fr"].split(" ")[0] if language == "fr" else square.group
            label = f"{square.name} ({colour})"
            lines.append(f"{square.pos:>2}  {label:<42} {square.price:>5}  {detail}")
        elif square.kind == "station":
            rents = "/".join(str(edition.station_rents[n]) for n in sorted(edition.station_rents))
            lines.append(f"{square.pos:>2}  {square.name:<42} {square.price:>5}  {rents} · — · {square.mortgage}")
        elif square.kind == "utility":
            factors = " / ".join(f"{edition.utility_multipliers[n]}×" for n in sorted(edition.utility_multipliers))
            lines.append(
                f"{square.pos:>2}  {square.name:<42} {square.price:>5}  "
                + say(language, "dés {f}", "dice {f}", f=factors)
                + f" · — · {square.mortgage}"
            )
        else:
            lines.append(
                f"{square.pos:>2}  {square.name:<42} {'':>5}  " + say(language, "taxe {a}", "tax {a}", a=square.amount)
            )
    return lines


TEMPLATES = {"city": "city-template.yaml", "europe-1991": "europe-1991-template.yaml"}


def cmd_edition(args: argparse.Namespace, language: str) -> int:
    if args.kind not in TEMPLATES:
        raise UserError(
            "edition template",
            f"unknown template {args.kind!r}{fields.suggestion(args.kind, list(TEMPLATES))}"
            f" (expected {', '.join(TEMPLATES)})",
        )
    sys.stdout.write(
        resources.files("unit.calculator").joinpath(f"editions/{TEMPLATES[args.kind]}").read_text(encoding="utf-8")
    )
    return 0


# --- the parsers ----------------------------------------------------------------------------


def add_commands(commands, run) -> None:
    """Add the calculator's subcommands to the ``monopoly-city`` parser; ``run`` wraps each handler."""

    def common(parser, json_output: bool = True):
        parser.add_argument("--config", metavar="FILE", help="the table's configuration (its language)")
        parser.add_argument("--lang", choices=["fr", "en"], help="language of the text and explanations")
        if json_output:
            parser.add_argument("--json", action="store_true", help="machine-readable output")

    rent = commands.add_parser(
        "rent",
        help="what a player landing on a square pays",
        description="What a player landing on SQUARE pays its owner, with the reasons; or, with --card, the rent "
        "of a Monopoly City district from its card (docs/calculator.md).",
    )
    rent.add_argument("game", metavar="GAME.yaml", nargs="?", help="the position at the table")
    rent.add_argument("square", metavar="SQUARE", nargs="?", help="the square's name (accents and case do not matter)")
    rent.add_argument("--dice", type=int, metavar="N", help="the dice total (needed for a classic utility)")
    rent.add_argument("--card", metavar='"V0 V1 ... V8"', help="City: the 9 rents printed on the card (0 to 8 blocks)")
    rent.add_argument("--residential", type=int, default=0, metavar="N", help="with --card: residential blocks")
    rent.add_argument("--industrial", type=int, default=0, metavar="N", help="with --card: industrial blocks")
    rent.add_argument("--hazard", action="store_true", help="with --card: a hazard stands on the district")
    rent.add_argument("--skyscraper", action="store_true", help="with --card: a skyscraper in the owner's group")
    rent.add_argument("--tower", action="store_true", help="with --card: the owner has the Monopoly Tower")
    rent.add_argument("--mortgaged", action="store_true", help="with --card: the district is mortgaged")
    common(rent)
    rent.set_defaults(func=run(cmd_rent))

    fortune = commands.add_parser(
        "fortune", help="every player's fortune, richest first", description="Every player's fortune, richest first."
    )
    fortune.add_argument("game", metavar="GAME.yaml")
    fortune.add_argument(
        "--variant", choices=["timed", "quick"], help="classic: time-limited game (default) or quick game"
    )
    common(fortune)
    fortune.set_defaults(func=run(cmd_fortune))

    check = commands.add_parser(
        "check",
        help="is this position legal?",
        description="Exit 0 and OK for a legal position; exit 1 and one line per problem otherwise.",
    )
    check.add_argument("game", metavar="GAME.yaml")
    common(check)
    check.set_defaults(func=run(cmd_check))

    board = commands.add_parser("board", help="an edition's board as a table")
    board.add_argument("edition", metavar="EDITION", help=f"{', '.join(editions.SHIPPED)}, or an edition file")
    common(board, json_output=False)
    board.set_defaults(func=run(cmd_board))

    edition = commands.add_parser("edition", help="edition files: print a template to fill from your cards")
    actions = edition.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    template = actions.add_parser("template", help="print a commented edition template (city, europe-1991)")
    template.add_argument("kind", metavar="KIND", help="city or europe-1991")
    common(template, json_output=False)
    template.set_defaults(func=run(cmd_edition))
