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
from importlib import resources
from typing import Any

from unit import i18n
from unit.calculator import city, classic, money
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.names import Names
from unit.calculator.rulebook import words
from unit.errors import ArgumentError, UserError
from unit.fields import name_key


def emit(args: argparse.Namespace, obj: dict, lines: list[str]) -> None:
    if args.json:
        print(json.dumps(obj, ensure_ascii=False))
    else:
        print("\n".join(lines))


# --- rent -------------------------------------------------------------------------------------


def parse_card(text: str, language: str) -> list[int]:
    values = text.split()
    if len(values) != 9:
        raise ArgumentError("card", words(language, "args.card_count", n=len(values)))
    return [money.parse(v, f"--card value {i}", language) for i, v in enumerate(values)]


BLOCK_FLAGS = ("residential", "industrial")
CLASSIC_FLAGS = ("houses", "hotel", "group")


def _blocks(args: argparse.Namespace, language: str) -> None:
    for flag in BLOCK_FLAGS:
        if not 0 <= getattr(args, flag) <= 99:
            raise ArgumentError(flag, words(language, "args.blocks_range", n=getattr(args, flag)))


def cmd_rent(args: argparse.Namespace, language: str) -> int:
    if args.card is not None:
        if args.game or args.square or args.edition:
            raise UserError("rent", words(language, "args.card_or_game"))
        for flag in CLASSIC_FLAGS:
            if getattr(args, flag):
                raise ArgumentError(flag, words(language, "args.classic_only"))
        _blocks(args, language)
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
    if args.edition is not None:
        return _rent_from_edition(args, language)
    if not args.game or not args.square:
        raise UserError("rent", words(language, "args.rent_usage"))
    for flag in BLOCK_FLAGS:
        if getattr(args, flag):
            raise ArgumentError(flag, words(language, "args.only_with_card"))
    for flag in CLASSIC_FLAGS:
        if getattr(args, flag):
            raise ArgumentError(flag, words(language, "args.only_with_edition"))
    game = positions.load(args.game, language)
    obj, lines = rent_report(game, args.square, args.dice, language)
    emit(args, obj, lines)
    return 0


def rent_report(game: positions.Game, typed: str, dice: int | None, language: str) -> tuple[dict, list[str]]:
    """``rent GAME SQUARE [--dice N]``: the JSON object and the text lines (the phone's page shows the same)."""
    if game.kind == "city":
        square, owner, amount, explanation = _city_rent(game, typed, dice, language)
    else:
        square, owner, amount, explanation = _classic_rent(game, typed, dice, language)
    obj = {"square": square, "owner": owner, "rent": amount, "explanation": explanation}
    if game.kind == "city":
        holder = next((p.name for p in game.players if p.exemption_card and p.name != owner), None)
        obj["exemption"] = holder if owner else None
        if owner and holder:
            explanation.append(words(language, "rent.exemption", p=holder))
    title = f"{square} ({owner})" if owner else square
    return obj, [title] + [f"  • {line}" for line in explanation] + [_rent_line(game.kind, amount, language)]


def _rent_line(kind: str, amount: int, language: str) -> str:
    return words(language, "rent.total", a=money.text(kind, amount, language))


def _rent_from_edition(args: argparse.Namespace, language: str) -> int:
    """``rent --edition E SQUARE [--houses N | --hotel] [--group] [--mortgaged]`` (City: the block flags)."""
    if args.game and args.square:
        raise UserError("rent", words(language, "args.edition_or_game"))
    typed = args.square or args.game
    if not typed:
        raise UserError("rent", words(language, "args.rent_usage"))
    edition = editions.load(args.edition, language=language)
    if isinstance(edition, editions.CityEdition):
        for flag in CLASSIC_FLAGS:
            if getattr(args, flag):
                raise ArgumentError(flag, words(language, "args.classic_only"))
        _blocks(args, language)
        if args.dice is not None:
            raise ArgumentError("dice", words(language, "args.city_no_dice"))
        district = edition.district(typed, "SQUARE", language)
        rent = city.card_rent(
            edition.rents(district, language),
            args.residential,
            args.industrial,
            hazard=args.hazard,
            skyscraper=args.skyscraper,
            tower=args.tower,
            mortgaged=args.mortgaged,
            language=language,
        )
        obj = {"square": district.name, "owner": None, "rent": rent.amount, "explanation": rent.explanation}
        obj["blocks_counted"] = rent.blocks_counted
        emit(
            args,
            obj,
            [district.name] + [f"  • {x}" for x in rent.explanation] + [_rent_line("city", rent.amount, language)],
        )
        return 0
    for flag in BLOCK_FLAGS + ("hazard", "skyscraper", "tower"):
        if getattr(args, flag):
            raise ArgumentError(flag, words(language, "args.city_only"))
    square = edition.square(typed, "SQUARE", language)
    if not 0 <= args.houses <= 4:
        raise ArgumentError("houses", words(language, "args.houses_range", n=args.houses))
    if (args.houses or args.hotel) and not isinstance(square, editions.Street):
        raise ArgumentError("houses" if args.houses else "hotel", words(language, "args.no_buildings", s=square.name))
    if args.houses and args.hotel:
        raise ArgumentError("hotel", words(language, "args.hotel_or_houses"))
    if isinstance(square, editions.Tax):
        amount, explanation = square.amount, [words(language, "rent.tax", a=square.amount)]
    else:
        game = positions.hypothetical(edition, square, args.houses, args.hotel, args.mortgaged, args.group)
        _, _, amount, explanation = _classic_rent(game, square.name, args.dice, language, exact=True)
    obj = {"square": square.name, "owner": None, "rent": amount, "explanation": explanation}
    emit(args, obj, [square.name] + [f"  • {x}" for x in explanation] + [_rent_line("classic", amount, language)])
    return 0


def _city_rent(game, typed: str, dice: int | None, language: str):
    if dice is not None:
        raise ArgumentError("dice", words(language, "args.city_no_dice"))
    district = game.edition.district(typed, "SQUARE", language)
    held = game.holding(district.name)
    if held is None:
        return district.name, None, 0, [words(language, "rent.nobody_district")]
    player, holding = held
    rent = city.district_rent(game, player, holding, language)
    return district.name, player.name, rent.amount, rent.explanation


def _classic_rent(game, typed: str, dice: int | None, language: str, exact: bool = False):
    square = game.edition.squares[typed] if exact else game.edition.square(typed, "SQUARE", language)
    if square.kind == "tax":
        return square.name, None, square.amount, [words(language, "rent.tax", a=square.amount)]
    if square.kind != "utility" and dice is not None:
        raise ArgumentError("dice", words(language, "args.dice_not_utility", s=square.name))
    if dice is not None and not 2 <= dice <= 12:
        raise ArgumentError("dice", words(language, "args.dice_range", n=dice))
    held = game.holding(square.name)
    if held is None:
        return square.name, None, 0, [words(language, "rent.nobody_square")]
    player, _ = held
    rent = classic.rent(game, square.name, dice, language)
    return square.name, player.name, rent.amount, rent.explanation


# --- fortune ----------------------------------------------------------------------------------


def cmd_fortune(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    obj, lines = fortune_report(game, args.variant, language)
    emit(args, obj, lines)
    return 0


def fortune_report(game: positions.Game, variant: str | None, language: str) -> tuple[dict, list[str]]:
    """``fortune GAME [--variant V]``: the JSON object and the text lines."""
    if game.kind == "city":
        if variant is not None:
            raise ArgumentError("variant", words(language, "args.city_no_variant"))
        results = city.fortunes(game, language)
    else:
        variant = variant or "timed"
        results = classic.fortunes(game, variant)
    rows: list[dict[str, Any]] = sorted(
        ({"name": p.name, "cash": p.cash, "assets": assets, "fortune": p.cash + assets} for p, assets in results),
        key=lambda row: -row["fortune"],
    )
    best = rows[0]["fortune"]
    winners = [row["name"] for row in rows if row["fortune"] == best]
    titles = {
        None: words(
            language,
            "fortune.title",
        ),
        "timed": words(
            language,
            "fortune.title_timed",
        ),
        "quick": words(
            language,
            "fortune.title_quick",
        ),
    }
    fmt = lambda a: money.text(game.kind, a, language)  # noqa: E731
    width = max(len(row["name"]) for row in rows)
    lines = [titles[variant]]
    for rank, row in enumerate(rows, 1):
        detail = words(language, "fortune.detail", c=fmt(row["cash"]), a=fmt(row["assets"]))
        lines.append(f"  {rank}. {row['name']:<{width}}  {fmt(row['fortune'])}  ({detail})")
    if len(winners) == 1:
        lines.append(words(language, "fortune.winner", w=winners[0]))
    else:
        lines.append(words(language, "fortune.winners", w=", ".join(winners)))
    return {"variant": variant, "players": rows, "winners": winners}, lines


# --- check ------------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    obj, lines = check_report(game, args.variant, language)
    emit(args, obj, lines)
    return 0 if obj["ok"] else 1


def problems_of(game: positions.Game, variant: str | None, language: str) -> list:
    """The position's broken rules (``variant``: classic only, ``timed`` or ``quick``)."""
    if game.kind == "city":
        if variant is not None:
            raise ArgumentError("variant", words(language, "args.city_no_variant"))
        return city.check(game, language)
    return classic.check(game, language, variant)


def check_report(game: positions.Game, variant: str | None, language: str) -> tuple[dict, list[str]]:
    """``check GAME [--variant V]``: the JSON object and the text lines."""
    problems = problems_of(game, variant, language)
    obj = {
        "ok": not problems,
        "problems": [{"player": p.player, "square": p.square, "rule": p.rule, "message": p.message} for p in problems],
    }
    lines = (
        ["OK"]
        if not problems
        else [" · ".join(part for part in (p.player, p.square) if part) + f": {p.message} [{p.rule}]" for p in problems]
    )
    return obj, lines


# --- the bank: salary, tax, mortgage, sell ------------------------------------------------------


def _deal(args, game, obj: dict, title: str, deal, total_key: str, language: str) -> int:
    obj = {**obj, "amount": deal.amount, "explanation": deal.explanation}
    total = words(language, total_key, a=money.text(game.kind, deal.amount, language))
    emit(args, obj, [title] + [f"  • {line}" for line in deal.explanation] + [total])
    return 0


def cmd_salary(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    player = game.player(args.player, "PLAYER", language)
    deal = (city if game.kind == "city" else classic).salary(game, player, language)
    return _deal(args, game, {"player": player.name}, player.name, deal, "salary.total", language)


def cmd_tax(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    if game.kind != "city":
        raise UserError("tax", words(language, "tax.classic"))
    player = game.player(args.player, "PLAYER", language)
    deal = city.industry_tax(game, player, language)
    return _deal(args, game, {"player": player.name}, player.name, deal, "tax.total", language)


def _owned(game, typed: str, language: str):
    """The square or district ``typed`` names and who holds it; a clear error when nobody does."""
    if game.kind == "city":
        name = game.edition.district(typed, "SQUARE", language).name
    else:
        square = game.edition.square(typed, "SQUARE", language)
        if square.kind == "tax":
            raise UserError("SQUARE", words(language, "args.tax_square", s=square.name))
        name = square.name
    held = game.holding(name)
    if held is None:
        raise UserError("SQUARE", words(language, "args.nobody_owns", s=name))
    return name, held[0], held[1]


def cmd_mortgage(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    name, player, holding = _owned(game, args.square, language)
    if game.kind == "city":
        value, deal = city.mortgage(game, player, holding, language)
        lift = value
    else:
        value, lift, deal = classic.mortgage(game, name, language)
    obj = {"square": name, "owner": player.name, "mortgaged": holding.mortgaged, "mortgage": value, "lift": lift}
    key = "mortgage.total_lift" if holding.mortgaged else "mortgage.total_take"
    return _deal(args, game, obj, f"{name} ({player.name})", deal, key, language)


def cmd_sell(args: argparse.Namespace, language: str) -> int:
    game = positions.load(args.game, language)
    if game.kind == "city":
        raise UserError("sell", words(language, "sell.city"))
    name, player, holding = _owned(game, args.square, language)
    deal = classic.sell_buildings(game, name, args.variant, language)
    obj = {"square": name, "owner": player.name, "houses": holding.houses, "hotel": holding.hotel}
    return _deal(args, game, obj, f"{name} ({player.name})", deal, "sell.total", language)


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
        hazards = ", ".join(f"{k} {v if v is not None else '—'}" for k, v in edition.hazards.items())
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
        elif square.kind == "station":
            rents = "/".join(str(edition.station_rents[n]) for n in sorted(edition.station_rents))
            lines.append(f"{square.pos:>2}  {square.name:<42} {square.price:>5}  {rents} · — · {square.mortgage}")
        elif square.kind == "utility":
            factors = " / ".join(f"{edition.utility_multipliers[n]}×" for n in sorted(edition.utility_multipliers))
            lines.append(
                f"{square.pos:>2}  {square.name:<42} {square.price:>5}  "
                + words(language, "board.dice", f=factors)
                + f" · — · {square.mortgage}"
            )
        else:
            lines.append(
                f"{square.pos:>2}  {square.name:<42} {'':>5}  " + words(language, "board.tax", a=square.amount)
            )
    return lines


TEMPLATES = {"city": "city-template.yaml", "europe-1991": "europe-1991-template.yaml"}


def cmd_edition(args: argparse.Namespace, language: str) -> int:
    if args.kind not in TEMPLATES:
        hint = Names({k: k for k in TEMPLATES}, "template").hint(args.kind, language)
        raise UserError(
            "edition template",
            words(language, "args.unknown_template", name=repr(args.kind), hint=hint, expected=", ".join(TEMPLATES)),
        )
    folder = resources.files("unit.calculator").joinpath("editions")
    translated = folder.joinpath(TEMPLATES[args.kind].replace(".yaml", f".{language}.yaml"))
    template = translated if translated.is_file() else folder.joinpath(TEMPLATES[args.kind])
    sys.stdout.write(template.read_text(encoding="utf-8"))
    return 0


def cmd_game_new(args: argparse.Namespace, language: str) -> int:
    """A starting position to fill in: every player with the edition's starting cash, nothing owned."""
    edition = editions.load(args.edition, language=language)
    names = [name.strip() for name in args.players.split(",")]
    if len(names) < 1 or not all(names):
        raise ArgumentError("players", words(language, "args.players_list", got=repr(args.players)))
    seen: set[str] = set()
    for name in names:
        if name_key(name) in seen:
            raise ArgumentError("players", words(language, "args.players_twice", name=repr(name)))
        seen.add(name_key(name))
    cash = edition.starting_cash if isinstance(edition, editions.CityEdition) else edition.rules.starting_cash
    if cash is None:
        raise UserError(edition.source, words(language, "game.no_starting_cash"))
    owned = "districts" if edition.game == "city" else "properties"
    lines = [
        f"# {words(language, 'game.header', e=edition.name)}",
        f"# {words(language, 'game.fill_' + edition.game)}",
        f"edition: {json.dumps(args.edition, ensure_ascii=False)}",
        "players:",
    ]
    for name in names:
        written = (
            json.dumps(money.text(edition.game, cash, language), ensure_ascii=False) if edition.game == "city" else cash
        )
        lines += [f"  - name: {json.dumps(name, ensure_ascii=False)}", f"    cash: {written}", f"    {owned}: []"]
    print("\n".join(lines))
    return 0


# --- the parsers ----------------------------------------------------------------------------


def add_commands(commands, run) -> None:
    """Add the calculator's subcommands to the ``monopoly-city`` parser; ``run`` wraps each handler."""

    def common(parser, json_output: bool = True):
        parser.add_argument("--config", metavar="FILE", help="the table's configuration (its language)")
        parser.add_argument("--lang", choices=i18n.languages(), help="language of the text and errors (default: fr)")
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
    rent.add_argument(
        "--edition", metavar="EDITION", help="no game file: the square's rent from this edition and the flags below"
    )
    rent.add_argument("--residential", type=int, default=0, metavar="N", help="City card: residential blocks")
    rent.add_argument("--industrial", type=int, default=0, metavar="N", help="City card: industrial blocks")
    rent.add_argument("--hazard", action="store_true", help="City card: a hazard stands on the district")
    rent.add_argument("--skyscraper", action="store_true", help="City card: a skyscraper in the owner's group")
    rent.add_argument("--tower", action="store_true", help="City card: the owner has the Monopoly Tower")
    rent.add_argument("--mortgaged", action="store_true", help="with --card or --edition: mortgaged")
    rent.add_argument("--houses", type=int, default=0, metavar="N", help="classic, with --edition: houses (0-4)")
    rent.add_argument("--hotel", action="store_true", help="classic, with --edition: a hotel")
    rent.add_argument(
        "--group",
        action="store_true",
        help="classic, with --edition: the owner holds the whole group (or every station)",
    )
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
    check.add_argument(
        "--variant", choices=["timed", "quick"], help="classic: the quick game builds a hotel after 3 houses"
    )
    common(check)
    check.set_defaults(func=run(cmd_check))

    salary = commands.add_parser("salary", help="what a player receives passing GO (City: + M 1M per stadium)")
    salary.add_argument("game", metavar="GAME.yaml")
    salary.add_argument("player", metavar="PLAYER", help="the player's name (a unique beginning is enough)")
    common(salary)
    salary.set_defaults(func=run(cmd_salary))

    tax = commands.add_parser("tax", help="City: the industry tax a player owes")
    tax.add_argument("game", metavar="GAME.yaml")
    tax.add_argument("player", metavar="PLAYER", help="the player's name (a unique beginning is enough)")
    common(tax)
    tax.set_defaults(func=run(cmd_tax))

    mortgage = commands.add_parser("mortgage", help="what mortgaging a square brings, and what lifting it costs")
    mortgage.add_argument("game", metavar="GAME.yaml")
    mortgage.add_argument("square", metavar="SQUARE")
    common(mortgage)
    mortgage.set_defaults(func=run(cmd_mortgage))

    sell = commands.add_parser("sell", help="classic: what the bank pays for a street's buildings (half price)")
    sell.add_argument("game", metavar="GAME.yaml")
    sell.add_argument("square", metavar="SQUARE")
    sell.add_argument("--variant", choices=["timed", "quick"], help="the quick game's hotel is half of 1 + 3 houses")
    common(sell)
    sell.set_defaults(func=run(cmd_sell))

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

    game = commands.add_parser("game", help="game files: write a starting position to fill in")
    game_actions = game.add_subparsers(dest="action", metavar="ACTION")
    game_actions.required = True
    new = game_actions.add_parser("new", help="print a starting position: every player with the starting cash")
    new.add_argument("edition", metavar="EDITION", help=f"{', '.join(editions.SHIPPED)}, or an edition file")
    new.add_argument("--players", required=True, metavar='"A,B,C"', help="the players' names, comma-separated")
    common(new, json_output=False)
    new.set_defaults(func=run(cmd_game_new))

    from unit.calculator import bank_commands  # the bank's verbs and --pay (issue 22): a module of its own

    bank_commands.add_commands(
        commands, run, {"salary": cmd_salary, "tax": cmd_tax, "mortgage": cmd_mortgage, "sell": cmd_sell}
    )
