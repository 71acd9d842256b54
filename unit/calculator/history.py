"""The game's history: every money movement at the table, kept in the game file and undone exactly.

An entry says what happened (``what``: a rent, a purchase...), who paid whom (a player's name, or
``None`` for the bank), how much, what for, and the position change that went with it. The change is
written as plain values (a holding as the game file writes it, before and after), so undoing an entry
restores the position exactly, and a person reading the file sees what moved::

    history:
    - {what: rent, square: Docks, from: Bruno, to: Alice, amount: 600k}
    - what: build
      square: Docks
      from: Alice
      amount: 250k
      changes:
      - {player: Alice, square: Docks, before: {residential: 3}, after: {residential: 4}}

A missing ``from`` or ``to`` is the bank. This module says what an entry is (its types: :class:`What`, one class
per kind of change, :class:`Entry`) and reads and writes it; what an entry does to a position, and how it is taken
back, is :mod:`unit.calculator.ledger`'s; which action makes which entry, and whether the rules allow it,
:mod:`unit.calculator.bank`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import yaml

from unit import fields
from unit.calculator import money
from unit.errors import Text, UserError


class What(StrEnum):
    """What an entry records: the word the game file writes (``what: rent``), compared with text as the text itself.
    The bank's actions (:mod:`unit.calculator.actions`) make the first fourteen; what the table does outside the money
    (issue 27: a correction, the station draw, a hazard or a bonus placed, the rent-exemption card, a player joining
    or leaving with nothing, a change made by hand recorded) the others."""

    PAY = "pay"
    RENT = "rent"
    BUY = "buy"
    AUCTION = "auction"
    BUILD = "build"
    SELL = "sell"
    HAZARD = "hazard"
    SALARY = "salary"
    TAX = "tax"
    FINE = "fine"
    MORTGAGE = "mortgage"
    LIFT = "lift"
    TRADE = "trade"
    OUT = "out"
    CORRECT = "correct"
    STATION = "station"
    PLACE = "place"
    CARD = "card"
    JOIN = "join"
    LEAVE = "leave"
    HAND = "hand"


#: Every ``what`` a game file may write, in the catalog's order.
WHATS = tuple(w.value for w in What)
#: A player's own fields an entry may change.
PLAYER_FIELDS = ("tower", "exemption_card")
CITY_KEYS = ("residential", "industrial", "hazard", "bonus", "skyscraper", "stadium", "station", "mortgaged")
CLASSIC_KEYS = ("houses", "hotel", "mortgaged")
COUNTS = ("residential", "industrial", "houses")
NAMES = ("hazard", "bonus")

#: A holding's field as the game file writes it: a count, a flag, a hazard's or a bonus's identifier (None: none).
FieldValue = int | bool | str | None
#: A holding as the game file writes it without its name (only some of its fields, or all of them).
Fields = Mapping[str, FieldValue]
#: A player's own field: the district of their tower (None: none), or whether they hold the exemption card.
OwnValue = str | bool | None


@dataclass(frozen=True)
class Payment:
    """Money from ``payer`` to ``payee`` (a player's name; None is the bank)."""

    payer: str | None
    payee: str | None
    amount: int


# --- the changes of the position, one class per kind (each undone exactly: it says what was there before) -------


@dataclass(frozen=True)
class Gained:
    """``player`` receives ``square``'s holding as ``holding`` (``{}``: a bare one), at the end of their list."""

    player: str
    square: str
    holding: Fields


@dataclass(frozen=True)
class Lost:
    """``player`` gives up ``square``'s holding, which was ``holding`` (all of it) at place ``at`` of their list
    (None in files written before the place was kept: taken back at the end)."""

    player: str
    square: str
    holding: Fields
    at: int | None = None


@dataclass(frozen=True)
class Altered:
    """Some fields of ``player``'s holding of ``square``: ``before`` and ``after`` name the same fields (defaults
    written: ``{residential: 3}`` -> ``{residential: 4}``)."""

    player: str
    square: str
    before: Fields
    after: Fields


@dataclass(frozen=True)
class PlayerField:
    """One of the player's own fields (:data:`PLAYER_FIELDS`): ``tower`` (a district or None), ``exemption_card``
    (a flag)."""

    player: str
    field: str
    before: OwnValue
    after: OwnValue


@dataclass(frozen=True)
class Left:
    """``player`` leaves the game from place ``at`` of the players; they leave with nothing (no cash, no holding,
    no tower, no card): the entry's payments and changes took it all first."""

    player: str
    at: int


@dataclass(frozen=True)
class Arrived:
    """``player`` joins the game at place ``at`` of the players, with nothing: the entry's payments and changes give
    them what they start with."""

    player: str
    at: int


#: One change of the position.
Change = Gained | Lost | Altered | PlayerField | Left | Arrived


@dataclass(frozen=True)
class Entry:
    """One line of the history: what happened, who paid whom (``payment``, and ``also``), what for, and the position's
    changes that went with it."""

    what: What
    payment: Payment
    square: str | None = None
    note: str | None = None
    also: tuple[Payment, ...] = ()
    changes: tuple[Change, ...] = ()

    @property
    def payments(self) -> tuple[Payment, ...]:
        return (self.payment, *self.also)


# --- writing ----------------------------------------------------------------------------------------


def dump(entries: tuple[Entry, ...], amount: Callable[[int], int | str]) -> list[dict[str, Any]]:
    """The entries as the game file writes them; ``amount`` writes an amount the game's way (``600k``)."""
    return [_entry(e, amount) for e in entries]


def _entry(entry: Entry, amount: Callable[[int], int | str]) -> dict[str, Any]:
    out: dict[str, Any] = {"what": entry.what.value}
    if entry.square is not None:
        out["square"] = entry.square
    out.update(_payment(entry.payment, amount))
    if entry.note is not None:
        out["for"] = entry.note
    if entry.also:
        out["also"] = [_payment(p, amount) for p in entry.also]
    if entry.changes:
        out["changes"] = [change_data(c) for c in entry.changes]
    return out


def _payment(payment: Payment, amount: Callable[[int], int | str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if payment.payer is not None:
        out["from"] = payment.payer
    if payment.payee is not None:
        out["to"] = payment.payee
    out["amount"] = amount(payment.amount)
    return out


class Flow(dict[str, Any]):
    """A mapping the game file writes on one line (``{player: Alice, square: Docks, before: ..., after: ...}``)."""


def _flow(dumper: yaml.SafeDumper, data: Flow) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data, flow_style=True)


#: The YAML writer of game files: libyaml's where installed (3x faster on a long evening's history, the same
#: text), else PyYAML's own.
Dumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
yaml.SafeDumper.add_representer(Flow, _flow)
Dumper.add_representer(Flow, _flow)


def change_data(change: Change) -> dict[str, Any]:
    """A change as the game file writes it (and ``--json`` gives it): one mapping, written on one line."""
    out: dict[str, Any] = Flow(player=change.player)
    if isinstance(change, Left):
        out["left"] = change.at
    elif isinstance(change, Arrived):
        out["joined"] = change.at
    elif isinstance(change, PlayerField):
        out |= {"field": change.field, "before": change.before, "after": change.after}
    elif isinstance(change, Gained):
        out |= {"square": change.square, "before": None, "after": dict(change.holding)}
    elif isinstance(change, Lost):
        out |= {"square": change.square, "before": dict(change.holding), "after": None}
        if change.at is not None:
            out["at"] = change.at
    else:
        out |= {"square": change.square, "before": dict(change.before), "after": dict(change.after)}
    return out


# --- reading ----------------------------------------------------------------------------------------


def parse(raw: object, where: str, kind: str, language: str) -> tuple[Entry, ...]:
    """The history read from a game file (``raw``: its ``history:`` value, None when there is none)."""
    if raw is None:
        return ()
    return tuple(
        _read_entry(item, f"{where}[{i}]", kind, language) for i, item in enumerate(fields.sequence(raw, where))
    )


def _read_entry(raw: object, where: str, kind: str, language: str) -> Entry:
    spec = fields.mapping(
        raw, where, required=("what", "amount"), optional=("square", "from", "to", "for", "also", "changes")
    )
    what = spec["what"]
    if what not in WHATS:
        raise UserError(f"{where}.what", Text("errors.expected_one_of", options=", ".join(WHATS), got=fields.got(what)))
    also = tuple(
        _read_payment(
            fields.mapping(p, f"{where}.also[{j}]", required=("amount",), optional=("from", "to")),
            f"{where}.also[{j}]",
            language,
        )
        for j, p in enumerate(fields.sequence(spec.get("also") or [], f"{where}.also"))
    )
    changes = tuple(
        _read_change(c, f"{where}.changes[{j}]", kind)
        for j, c in enumerate(fields.sequence(spec.get("changes") or [], f"{where}.changes"))
    )
    return Entry(
        what=What(what),
        payment=_read_payment(spec, where, language),
        square=None if spec.get("square") is None else fields.text(spec["square"], f"{where}.square"),
        note=None if spec.get("for") is None else fields.text(spec["for"], f"{where}.for", what="text"),
        also=also,
        changes=changes,
    )


def _read_payment(spec: dict[str, Any], where: str, language: str) -> Payment:
    def party(key: str) -> str | None:
        return None if spec.get(key) is None else fields.text(spec[key], f"{where}.{key}")

    return Payment(party("from"), party("to"), money.field(spec["amount"], f"{where}.amount", language))


def _read_change(raw: object, where: str, kind: str) -> Change:
    spec = fields.mapping(
        raw, where, required=("player",), optional=("square", "field", "before", "after", "at", "left", "joined")
    )
    player = fields.text(spec["player"], f"{where}.player")
    for seat in ("left", "joined"):
        if seat in spec:
            fields.mapping(spec, where, required=("player", seat))
            at = fields.integer(spec[seat], f"{where}.{seat}", 0, 99)
            return Left(player, at) if seat == "left" else Arrived(player, at)
    if "square" in spec:
        fields.mapping(spec, where, required=("player", "square", "before", "after"), optional=("at",))
        keys = CITY_KEYS if kind == "city" else CLASSIC_KEYS
        square = fields.text(spec["square"], f"{where}.square")
        before = _read_holding(spec["before"], f"{where}.before", keys)
        after = _read_holding(spec["after"], f"{where}.after", keys)
        place = None if spec.get("at") is None else fields.integer(spec["at"], f"{where}.at", 0, 999)
        if before is None:
            return Gained(player, square, {} if after is None else after)
        if after is None:
            return Lost(player, square, before, place)
        return Altered(player, square, before, after)
    fields.mapping(spec, where, required=("player", "field", "before", "after"))
    field = spec["field"]
    if field not in PLAYER_FIELDS:
        raise UserError(
            f"{where}.field", Text("errors.expected_one_of", options=", ".join(PLAYER_FIELDS), got=fields.got(field))
        )
    value: OwnValue
    values: list[OwnValue] = []
    for key in ("before", "after"):
        if field == "tower":
            value = None if spec[key] is None else fields.text(spec[key], f"{where}.{key}")
        else:
            value = fields.boolean(spec[key], f"{where}.{key}")
        values.append(value)
    return PlayerField(player, str(field), values[0], values[1])


def _read_holding(raw: object, where: str, keys: tuple[str, ...]) -> dict[str, FieldValue] | None:
    """A holding as the game file writes it, without its name; the game's loader checks names and counts."""
    if raw is None:
        return None
    spec = fields.mapping(raw, where, optional=keys)
    out: dict[str, FieldValue] = {}
    for key in keys:  # the file's own order, so a holding reads back to the same dict
        if key not in spec:
            continue
        if key in COUNTS:
            out[key] = fields.integer(spec[key], f"{where}.{key}", 0, 99)
        elif key in NAMES:
            out[key] = None if spec[key] is None else fields.text(spec[key], f"{where}.{key}")
        else:
            out[key] = fields.boolean(spec[key], f"{where}.{key}")
    return out
