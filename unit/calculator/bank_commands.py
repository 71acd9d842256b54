"""The bank's commands: ``pay``, ``buy``, ``build``, ``lift``, ``trade``, ``out``, ``undo``, ``history``, ``record``,
``place``, ``card``, ``join``, ``leave``, and
``--pay`` on ``salary``, ``tax``, ``mortgage`` and ``sell`` (docs/calculator.md, « La banque de la table »).

Each goes through the one write path (:func:`unit.calculator.gamefile.record`): the game's folder locked against
every other writer (the phone's page keeps the same game), the file read, the bank's action applied
(:mod:`unit.calculator.bank`), the text verified to read back as the game, written atomically. The text
output is the history's line for the table, said here in the table's language (the bank returns words, not
a language's text); ``--json`` gives the entry and the players' cash.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from unit import fields, i18n
from unit.calculator import actions, bank, gamefile, money
from unit.calculator import position as positions
from unit.calculator.actions import Action, RecordHandChange
from unit.calculator.history import Entry
from unit.calculator.names import Names
from unit.calculator.rulebook import Rules
from unit.errors import ArgumentError, Text, UserError
from unit.yamlfile import printed_lines

Handler = Callable[[argparse.Namespace, str], int]


def record(
    args: argparse.Namespace, language: str, action: Action, slips: tuple[tuple[str, Text | None], ...] = ()
) -> int:
    """Apply ``action`` to the game file ``args.game`` through the one write path (:func:`unit.calculator.gamefile.
    record`: locked, checked, verified, written), print the entry. ``slips``: an amount typed bare under M 10k, for
    each argument (``AMOUNT``, ``price``), refused in a City game with the question it asks (issue 27)."""

    def change(game: positions.Game, kind: Rules) -> tuple[positions.Game, Entry]:
        if kind.kind == "city":
            for argument, question in slips:
                if question is not None:
                    raise ArgumentError(argument, question) if not argument.isupper() else UserError(argument, question)
        return bank.apply(game, action, kind)

    done = gamefile.record(args.game, change, language=language, record_hand=not isinstance(action, RecordHandChange))
    show(args, done.file, done.result, language, done.hand)
    return 0


def show(
    args: argparse.Namespace, file: gamefile.GameFile, entry: Entry, language: str, hand: Entry | None = None
) -> None:
    game, kind, w = file.game, file.rules, i18n.words(language)
    names = [p.payer for p in entry.payments] + [p.payee for p in entry.payments]
    players = [p for p in game.players if p.name in names]
    if args.json:
        obj = {
            "entry": bank.entry_json(entry),
            "text": bank.describe(game, entry, kind).say(w),
            "players": [{"name": p.name, "cash": p.cash} for p in game.players],
        }
        if hand is not None:
            obj["hand"] = bank.entry_json(hand)
        print(json.dumps(obj, ensure_ascii=False))
        return
    lines = []
    if hand is not None:  # a change made by hand, recorded first: said, never silent
        lines.append(w("bank.hand_recorded", e=bank.describe(game, hand, kind).say(w)))
    lines.append(bank.describe(game, entry, kind).say(w))
    if entry.what not in bank.DETAILED:  # their line says their changes already
        lines += [f"  • {line.say(w)}" for line in bank.describe_changes(entry)]
    if players:
        cash = " · ".join(f"{p.name} {money.text(game.kind, p.cash, language)}" for p in players)
        lines.append(w("bank.cash", c=cash))
    print(printed_lines(lines))


def amount(text: str, argument: str, language: str) -> int:
    """An amount typed as at the table; an error names ``argument``: ``AMOUNT`` (said as the usage says it,
    « MONTANT ») or an option (``price``: ``--price``)."""
    if argument.isupper():
        return money.parse(text, argument, language)
    try:
        return money.parse(text, argument, language)
    except UserError as error:
        raise ArgumentError(argument, error.message) from None


# --- the verbs --------------------------------------------------------------------------------------


def cmd_pay(args: argparse.Namespace, language: str) -> int:
    modes = [m for m in ("rent", "fine") if getattr(args, m)]
    if modes:
        if args.payee is not None or args.amount is not None:
            raise ArgumentError(modes[0], Text("bank.cli.pay_mode"))
        if args.rent is not None:
            return record(args, language, bank.PayRent(args.payer, args.rent, args.dice, args.exemption))
        return record(args, language, bank.JailFine(args.payer))
    if args.dice is not None or args.exemption:
        raise ArgumentError("dice" if args.dice is not None else "exemption", Text("bank.cli.rent_only"))
    if args.payee is None or args.amount is None:
        raise UserError("pay", Text("bank.cli.pay_usage"))
    if args.note is not None and not args.note.isprintable():  # a newline, an escape code: as the page refuses it
        raise ArgumentError("for", Text("errors.expected_one_line", got=fields.got(args.note)))
    written = money.unsigned(args.amount)
    if written is not None:  # « −500k » (U+2212), not an option to argparse: said as its « -500k » is, with the order
        w = i18n.words(language)
        line = w("cli.argparse.negative_amount", typed=args.amount.strip(), amount=written)
        raise UserError("", line + w("cli.argparse.negative_payment", amount=written))
    value = amount(args.amount, "AMOUNT", language)
    slips = (("AMOUNT", money.slip(args.amount, value)),)
    return record(args, language, bank.Pay(args.payer, args.payee, value, args.note), slips)


def cmd_buy(args: argparse.Namespace, language: str) -> int:
    price = None if args.price is None else amount(args.price, "price", language)
    return record(args, language, bank.Buy(args.player, args.square, price), (("price", _slip(args.price, price)),))


def cmd_build(args: argparse.Namespace, language: str) -> int:
    if args.remove_hazard:
        return record(args, language, bank.RemoveHazard(args.square))
    action = bank.Build(
        args.square,
        residential=args.residential,
        industrial=args.industrial,
        skyscraper=args.skyscraper,
        stadium=args.stadium,
        tower=args.tower,
        houses=args.houses,
        hotel=args.hotel,
        variant=args.variant,
    )
    return record(args, language, action)


def cmd_lift(args: argparse.Namespace, language: str) -> int:
    return record(args, language, bank.Lift(args.square))


def cmd_trade(args: argparse.Namespace, language: str) -> int:
    price = 0 if args.price is None else amount(args.price, "price", language)
    slips = (("price", _slip(args.price, price)),)
    return record(args, language, bank.Trade(args.seller, args.buyer, tuple(args.squares), price), slips)


def cmd_out(args: argparse.Namespace, language: str) -> int:
    return record(args, language, bank.Out(args.player, args.creditor))


def cmd_undo(args: argparse.Namespace, language: str) -> int:
    done = gamefile.undo(args.game, args.count, language=language)
    undone, w = done.result, i18n.words(language)
    after, kind = done.file.game, done.file.rules
    if args.json:
        obj = {
            "undone": [bank.entry_json(e) for e in undone.entries],
            "players": [{"name": p.name, "cash": p.cash} for p in after.players],
            "moved": [line.say(w) for line in undone.moves],
            "checked": undone.checked,
        }
        print(json.dumps(obj, ensure_ascii=False))
        return 0
    print(printed_lines([line.say(w) for line in bank.undone_lines(undone, kind)]))
    return 0


def cmd_history(args: argparse.Namespace, language: str) -> int:
    file = gamefile.read(args.game, language)
    game, kind, w = file.game, file.rules, i18n.words(language)
    if args.json:
        entries = [
            {"n": i, **bank.entry_json(e), "text": bank.describe(game, e, kind).say(w)}
            for i, e in enumerate(game.history, 1)
        ]
        print(json.dumps({"history": entries}, ensure_ascii=False))
        return 0
    if not game.history:
        print(w("bank.history_empty"))
        return 0
    lines = [positions.titled(game, w("bank.history_title", n=len(game.history)), w)]
    for i, entry in enumerate(game.history, 1):
        lines.append(f"  {i}. {bank.describe(game, entry, kind).say(w)}")
        if entry.what not in bank.DETAILED:
            lines += [f"       {line.say(w)}" for line in bank.describe_changes(entry)]
    print(printed_lines(lines))
    return 0


# --- what the table does outside the money: each an entry (issue 27) -------------------------------


def cmd_record(args: argparse.Namespace, language: str) -> int:
    """``record GAME``: a change made by hand in the file (a text editor's), recorded as an entry."""
    return record(args, language, RecordHandChange())


def cmd_place(args: argparse.Namespace, language: str) -> int:
    """``place GAME SQUARE --station | --hazard NAME | --bonus NAME | --remove station|hazard|bonus``: the station
    draw, a planning permission's building, free; ``--remove``: taken off without paying (a slip)."""
    given = [(flag, getattr(args, flag)) for flag in ("station", "hazard", "bonus", "remove") if getattr(args, flag)]
    if len(given) != 1:
        raise UserError("place", Text("bank.cli.place_one"))
    flag, value = given[0]
    square = args.square
    action: Action
    if flag == "station" or value == "station":
        action = actions.PlaceStation(square, flag == "station")
    elif flag == "hazard" or value == "hazard":
        action = actions.PlaceHazard(square, None if flag == "remove" else str(value))
    else:
        action = actions.PlaceBonus(square, None if flag == "remove" else str(value))
    return record(args, language, action)


def cmd_card(args: argparse.Namespace, language: str) -> int:
    """``card GAME PLAYER``: the rent-exemption card to ``PLAYER`` (``banque``: back beside Free Parking)."""
    return record(args, language, actions.ExemptionCard(args.player))


def cmd_join(args: argparse.Namespace, language: str) -> int:
    cash = None if args.cash is None else amount(args.cash, "cash", language)
    return record(args, language, actions.AddPlayer(args.name, cash), (("cash", _slip(args.cash, cash)),))


def cmd_leave(args: argparse.Namespace, language: str) -> int:
    return record(args, language, actions.RemovePlayer(args.player))


def _slip(text: str | None, value: int | None) -> Text | None:
    return None if text is None or value is None else money.slip(text, value)


# --- ``--pay`` on the commands that say what an action brings or costs ----------------------------


def paying(original: Handler, action: Callable[[argparse.Namespace, str], bank.Action]) -> Handler:
    """``original`` (which only says the amount) unless ``--pay`` asks the bank to record it."""

    def handler(args: argparse.Namespace, language: str) -> int:
        if getattr(args, "pay", False):
            return record(args, language, action(args, language))
        if getattr(args, "houses", None) is not None:
            raise ArgumentError("houses", Text("bank.cli.only_with_pay"))
        return original(args, language)

    return handler


def _sell_action(args: argparse.Namespace, language: str) -> bank.Action:
    return bank.SellBack(args.square, args.houses, args.variant)


def _mortgage_action(args: argparse.Namespace, language: str) -> bank.Action:
    return bank.Mortgage(args.square)


# --- the variant, in the words the output uses ------------------------------------------------------

VARIANT_WORDS = {
    "timed": "timed",
    "limitée dans le temps": "timed",
    "partie limitée dans le temps": "timed",
    "time-limited": "timed",
    "time-limited game": "timed",
    "quick": "quick",
    "rapide": "quick",
    "partie rapide": "quick",
    "quick game": "quick",
}


def variant(text: str) -> str:
    """``--variant``: timed or quick, or the words the output says (« partie rapide », « limitée dans le temps »);
    anything else is left for argparse's « invalid choice » with the choices."""
    found = Names(VARIANT_WORDS, "variant").matches(text)
    values = {VARIANT_WORDS[name] for name in found}
    return values.pop() if len(values) == 1 else text


# --- the parsers ------------------------------------------------------------------------------------


def add_commands(
    commands: Any,
    run: Callable[[Handler], Any],
    original: dict[str, Handler],
    common: Callable[[argparse.ArgumentParser], None],
) -> None:
    """The bank's verbs on the ``monopoly-city`` parser; ``original``: the handlers of salary, tax, mortgage, sell;
    ``common``: the options every command has (the calculator's ``--config``, ``--lang``, ``--json``)."""

    def game(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("game", metavar="GAME.yaml", help="cli.help.common.game")

    pay = commands.add_parser(
        "pay",
        help="cli.help.pay.summary",
        description="cli.help.pay.description",
    )
    game(pay)
    pay.add_argument("payer", metavar="PAYER", help="cli.help.pay.payer")
    pay.add_argument("payee", metavar="PAYEE", nargs="?", help="cli.help.pay.payee")
    pay.add_argument("amount", metavar="AMOUNT", nargs="?", help="cli.help.pay.amount")
    pay.add_argument("--for", dest="note", metavar="TEXT", help="cli.help.pay.note")
    pay.add_argument("--rent", metavar="SQUARE", help="cli.help.pay.rent")
    pay.add_argument("--dice", type=int, metavar="N", help="cli.help.pay.dice")
    pay.add_argument("--exemption", action="store_true", help="cli.help.pay.exemption")
    pay.add_argument("--fine", action="store_true", help="cli.help.pay.fine")
    common(pay)
    pay.set_defaults(func=run(cmd_pay))

    buy = commands.add_parser("buy", help="cli.help.buy.summary")
    game(buy)
    buy.add_argument("player", metavar="PLAYER")
    buy.add_argument("square", metavar="SQUARE")
    buy.add_argument("--price", metavar="AMOUNT", help="cli.help.buy.price")
    common(buy)
    buy.set_defaults(func=run(cmd_buy))

    build = commands.add_parser("build", help="cli.help.build.summary")
    game(build)
    build.add_argument("square", metavar="SQUARE")
    build.add_argument("--residential", type=int, default=0, metavar="N", help="cli.help.build.residential")
    build.add_argument("--industrial", type=int, default=0, metavar="N", help="cli.help.build.industrial")
    build.add_argument("--skyscraper", action="store_true", help="cli.help.build.skyscraper")
    build.add_argument("--stadium", action="store_true", help="cli.help.build.stadium")
    build.add_argument("--tower", action="store_true", help="cli.help.build.tower")
    build.add_argument("--remove-hazard", action="store_true", help="cli.help.build.remove_hazard")
    build.add_argument("--houses", type=int, default=0, metavar="N", help="cli.help.build.houses")
    build.add_argument("--hotel", action="store_true", help="cli.help.build.hotel")
    build.add_argument("--variant", type=variant, choices=["timed", "quick"], help="cli.help.build.variant")
    common(build)
    build.set_defaults(func=run(cmd_build))

    lift = commands.add_parser("lift", help="cli.help.lift.summary")
    game(lift)
    lift.add_argument("square", metavar="SQUARE")
    common(lift)
    lift.set_defaults(func=run(cmd_lift))

    trade = commands.add_parser("trade", help="cli.help.trade.summary")
    game(trade)
    trade.add_argument("seller", metavar="SELLER")
    trade.add_argument("buyer", metavar="BUYER")
    trade.add_argument("squares", metavar="SQUARE", nargs="*")
    trade.add_argument("--price", metavar="AMOUNT", help="cli.help.trade.price")
    common(trade)
    trade.set_defaults(func=run(cmd_trade))

    out = commands.add_parser("out", help="cli.help.out.summary")
    game(out)
    out.add_argument("player", metavar="PLAYER")
    out.add_argument("--to", dest="creditor", metavar="CREDITOR", help="cli.help.out.creditor")
    common(out)
    out.set_defaults(func=run(cmd_out))

    undo = commands.add_parser("undo", help="cli.help.undo.summary")
    game(undo)
    undo.add_argument("count", metavar="N", type=int, nargs="?", default=1, help="cli.help.undo.count")
    common(undo)
    undo.set_defaults(func=run(cmd_undo))

    history = commands.add_parser("history", help="cli.help.history.summary")
    game(history)
    common(history)
    history.set_defaults(func=run(cmd_history))

    recorded = commands.add_parser("record", help="cli.help.record.summary", description="cli.help.record.description")
    game(recorded)
    common(recorded)
    recorded.set_defaults(func=run(cmd_record))

    place = commands.add_parser("place", help="cli.help.place.summary")
    game(place)
    place.add_argument("square", metavar="SQUARE")
    place.add_argument("--station", action="store_true", help="cli.help.place.station")
    place.add_argument("--hazard", metavar="NAME", help="cli.help.place.hazard")
    place.add_argument("--bonus", metavar="NAME", help="cli.help.place.bonus")
    place.add_argument("--remove", choices=["station", "hazard", "bonus"], help="cli.help.place.remove")
    common(place)
    place.set_defaults(func=run(cmd_place))

    card = commands.add_parser("card", help="cli.help.card.summary")
    game(card)
    card.add_argument("player", metavar="PLAYER", help="cli.help.card.player")
    common(card)
    card.set_defaults(func=run(cmd_card))

    join = commands.add_parser("join", help="cli.help.join.summary")
    game(join)
    join.add_argument("name", metavar="NAME", help="cli.help.join.name")
    join.add_argument("--cash", metavar="AMOUNT", help="cli.help.join.cash")
    common(join)
    join.set_defaults(func=run(cmd_join))

    leave = commands.add_parser("leave", help="cli.help.leave.summary")
    game(leave)
    leave.add_argument("player", metavar="PLAYER")
    common(leave)
    leave.set_defaults(func=run(cmd_leave))

    # --pay on the commands that already say the amount
    makers: dict[str, Callable[[argparse.Namespace, str], bank.Action]] = {
        "salary": lambda args, language: bank.Salary(args.player),
        "tax": lambda args, language: bank.PayTax(args.player),
        "mortgage": _mortgage_action,
        "sell": _sell_action,
    }
    for name, maker in makers.items():
        parser = commands.choices[name]
        parser.add_argument("--pay", action="store_true", help="cli.help.common.pay")
        if name == "sell":
            parser.add_argument("--houses", type=int, metavar="N", help="cli.help.sell.houses")
        parser.set_defaults(func=run(paying(original[name], maker)))
    for name in ("fortune", "check", "sell"):  # the variant as the output words it
        for act in commands.choices[name]._actions:
            if act.dest == "variant":
                act.type = variant  # then argparse checks the choices: timed, quick
