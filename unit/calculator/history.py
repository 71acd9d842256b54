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

A missing ``from`` or ``to`` is the bank. This module only reads and writes entries; what they mean
and whether they are allowed is :mod:`unit.calculator.bank`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from unit import fields
from unit.calculator import money
from unit.errors import Text, UserError

#: What an entry can record (the bank's actions, unit.calculator.bank).
WHATS = (
    "pay",
    "rent",
    "buy",
    "auction",
    "build",
    "sell",
    "hazard",
    "salary",
    "tax",
    "fine",
    "mortgage",
    "lift",
    "trade",
    "out",
)
#: A player's own fields an entry may change.
PLAYER_FIELDS = ("tower", "exemption_card")
CITY_KEYS = ("residential", "industrial", "hazard", "bonus", "skyscraper", "stadium", "station", "mortgaged")
CLASSIC_KEYS = ("houses", "hotel", "mortgaged")
COUNTS = ("residential", "industrial", "houses")
NAMES = ("hazard", "bonus")


@dataclass(frozen=True)
class Payment:
    """Money from ``payer`` to ``payee`` (a player's name; None is the bank)."""

    payer: str | None
    payee: str | None
    amount: int


@dataclass(frozen=True)
class Change:
    """One change of the position, with what was there before (for an exact undo).

    - a holding: ``square`` set; a holding gained has ``before`` None and ``after`` the whole holding as the
      file writes it without its name (``{}`` for a bare one); one lost has ``before`` the whole holding,
      ``after`` None and ``at`` its place in the player's list; one changed has, in ``before`` and ``after``,
      only the fields that changed (``{residential: 3}`` → ``{residential: 4}``, defaults written);
    - a player's own field: ``field`` set (``tower``, ``exemption_card``), ``before``/``after`` its values;
    - a player leaving the game: ``left`` is their place in the list of players (they leave with nothing).
    """

    player: str
    square: str | None = None
    field: str | None = None
    before: Any = None
    after: Any = None
    at: int | None = None
    left: int | None = None


@dataclass(frozen=True)
class Entry:
    what: str
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
    out: dict[str, Any] = {"what": entry.what}
    if entry.square is not None:
        out["square"] = entry.square
    out.update(_payment(entry.payment, amount))
    if entry.note is not None:
        out["for"] = entry.note
    if entry.also:
        out["also"] = [_payment(p, amount) for p in entry.also]
    if entry.changes:
        out["changes"] = [_change(c) for c in entry.changes]
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


def _change(change: Change) -> dict[str, Any]:
    out: dict[str, Any] = Flow(player=change.player)
    if change.left is not None:
        out["left"] = change.left
        return out
    if change.square is not None:
        out["square"] = change.square
    else:
        out["field"] = change.field
    out["before"] = dict(change.before) if isinstance(change.before, Mapping) else change.before
    out["after"] = dict(change.after) if isinstance(change.after, Mapping) else change.after
    if change.at is not None:
        out["at"] = change.at
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
        what=str(what),
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
        raw, where, required=("player",), optional=("square", "field", "before", "after", "at", "left")
    )
    player = fields.text(spec["player"], f"{where}.player")
    if "left" in spec:
        fields.mapping(spec, where, required=("player", "left"))
        return Change(player, left=fields.integer(spec["left"], f"{where}.left", 0, 99))
    at = None if spec.get("at") is None else fields.integer(spec["at"], f"{where}.at", 0, 999)
    if "square" in spec:
        fields.mapping(spec, where, required=("player", "square", "before", "after"), optional=("at",))
        keys = CITY_KEYS if kind == "city" else CLASSIC_KEYS
        return Change(
            player,
            square=fields.text(spec["square"], f"{where}.square"),
            before=_read_holding(spec["before"], f"{where}.before", keys),
            after=_read_holding(spec["after"], f"{where}.after", keys),
            at=at,
        )
    fields.mapping(spec, where, required=("player", "field", "before", "after"))
    field = spec["field"]
    if field not in PLAYER_FIELDS:
        raise UserError(
            f"{where}.field", Text("errors.expected_one_of", options=", ".join(PLAYER_FIELDS), got=fields.got(field))
        )
    if field == "tower":
        before: Any = None if spec["before"] is None else fields.text(spec["before"], f"{where}.before")
        after: Any = None if spec["after"] is None else fields.text(spec["after"], f"{where}.after")
    else:
        before = fields.boolean(spec["before"], f"{where}.before")
        after = fields.boolean(spec["after"], f"{where}.after")
    return Change(player, field=str(field), before=before, after=after)


def _read_holding(raw: object, where: str, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """A holding as the game file writes it, without its name; the game's loader checks names and counts."""
    if raw is None:
        return None
    spec = fields.mapping(raw, where, optional=keys)
    out: dict[str, Any] = {}
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
