"""The ledger: what each history entry does to the position, and how it is taken back.

A game file holds a position (``players:``), the position before its first entry (``start:``) and the entries
(``history:``). The invariant, kept by every write and checked by ``monopoly-city check`` and the tests::

    fold(start, history) == players

:func:`commit` applies one entry (its payments and changes) and :func:`revert` takes the last one back, each checking
that the position is what the entry says was there (a file changed by hand since is refused, naming the player and
the square). :func:`differences` compares the position with its start and history, and :func:`correction` makes the
entry that records a change made by hand (a text editor's), so that it is undone like any other. Which action makes
which entry, and whether the rules allow it, is :mod:`unit.calculator.bank`'s; what an entry is, and how the file
writes it, :mod:`unit.calculator.history`'s.

Pure: no file, no clock, no rules object (a holding is made from its fields as the file writes them,
:func:`unit.calculator.position.holding_of`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from unit.calculator import money
from unit.calculator.history import (
    Altered,
    Arrived,
    Change,
    Entry,
    Gained,
    Left,
    Lost,
    Payment,
    PlayerField,
    What,
)
from unit.calculator.position import Game, Holding, Player, all_fields, holding_data, holding_of
from unit.calculator.words import ActionRefused, refused
from unit.errors import Text

#: A value a :class:`Difference` names: an amount, a count, a flag, a name, or nothing.
Value = int | bool | str | None


# --- applying and taking back ---------------------------------------------------------------------------------


def commit(game: Game, entry: Entry) -> Game:
    """The position after ``entry``'s payments and changes, with ``entry`` added to the history (and, when it is the
    first, the position before it kept as the start); :class:`ActionRefused` when the position is not what the entry
    says was there."""
    table = Table(game.kind, game.players)
    table.apply(entry, forward=True)
    start = game.start if game.history else game.players
    return replace(game, players=table.players(), history=(*game.history, entry), start=start)


def record(game: Game, entry: Entry) -> Game:
    """``game`` with ``entry`` added to its history and its players as they are: a change made by hand, which the
    players already show (:func:`correction`); start + history = players again."""
    start = game.start if game.history else game.players
    return replace(game, history=(*game.history, entry), start=start)


def revert(game: Game, entry: Entry) -> Game:
    """The position before ``entry``, the last of the history; refused when the file no longer matches it."""
    if not game.history or game.history[-1] != entry:
        raise refused("undo_not_last")
    table = Table(game.kind, game.players)
    table.apply(entry, forward=False)
    history = game.history[:-1]
    return replace(game, players=table.players(), history=history, start=game.start if history else None)


def fold(kind: str, start: tuple[Player, ...], entries: Iterable[Entry]) -> tuple[Player, ...]:
    """The players after ``entries`` applied to ``start`` in order (:class:`ActionRefused` when one does not apply)."""
    table = Table(kind, start)
    for entry in entries:
        table.apply(entry, forward=True)
    return table.players()


def start_of(game: Game) -> tuple[Player, ...] | None:
    """The players before the history's first entry: the file's ``start:``, or for a file written before it was kept,
    the history taken back from the players (None when it does not take back: the file was changed by hand)."""
    if game.start is not None or not game.history:
        return game.start if game.history else game.players
    table = Table(game.kind, game.players)
    try:
        for entry in reversed(game.history):
            table.apply(entry, forward=False)
    except ActionRefused:
        return None
    return table.players()


def with_start(game: Game) -> Game:
    """``game`` with its start written down (taken from its history when the file did not say it), if it can be."""
    if game.start is not None or not game.history:
        return game
    return replace(game, start=start_of(game))


class Table:
    """The players while entries are applied or taken back, checking at each step that the position is what the
    entry says was there. Each seat is kept as plain values (a long evening folds 2,000 entries at each read of a
    file the bank did not write itself)."""

    def __init__(self, kind: str, players: Iterable[Player]):
        self.kind = kind
        self.seats: list[Seat] = [Seat(p.name, p.cash, list(p.holdings), p.tower, p.exemption_card) for p in players]

    def players(self) -> tuple[Player, ...]:
        return tuple(Player(s.name, s.cash, tuple(s.holdings), s.tower, s.card) for s in self.seats)

    def seat(self, name: str) -> Seat:
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise refused("mismatch_player", p=name)

    def apply(self, entry: Entry, forward: bool) -> None:
        """``entry`` applied (``forward``) or taken back. A player arriving is seated before any money moves, and one
        leaving leaves after: forward, arrivals, payments, the other changes in order; back, the reverse."""
        arrivals = [c for c in entry.changes if isinstance(c, Arrived)]
        others = [c for c in entry.changes if not isinstance(c, Arrived)]
        if forward:
            for arrival in arrivals:
                self.change(arrival, True)
            self.pay(entry.payments)
            for change in others:
                self.change(change, True)
        else:
            for change in reversed(others):
                self.change(change, False)
            self.pay(Payment(p.payee, p.payer, p.amount) for p in reversed(entry.payments))
            for arrival in reversed(arrivals):
                self.change(arrival, False)
        for seat in self.seats:
            if seat.cash < 0:
                raise refused("negative", p=seat.name)

    def pay(self, payments: Iterable[Payment]) -> None:
        for p in payments:
            if p.payer is not None:
                self.seat(p.payer).cash -= p.amount
            if p.payee is not None:
                self.seat(p.payee).cash += p.amount

    def change(self, change: Change, forward: bool) -> None:
        if isinstance(change, (Left, Arrived)):
            self._seats(change.player, change.at, leaving=forward == isinstance(change, Left))
            return
        seat = self.seat(change.player)
        if isinstance(change, PlayerField):
            was, will = (change.before, change.after) if forward else (change.after, change.before)
            if seat.field(change.field) != was:
                raise refused("mismatch", p=seat.name, s=change.field)
            seat.set_field(change.field, will)
            return
        mismatch = refused("mismatch", p=seat.name, s=change.square)
        found = next((i for i, h in enumerate(seat.holdings) if h.name == change.square), None)
        if isinstance(change, Altered):
            before, after = (change.before, change.after) if forward else (change.after, change.before)
            if found is None:
                raise mismatch
            now = all_fields(seat.holdings[found])
            if any(now.get(k) != v for k, v in before.items()):
                raise mismatch
            seat.holdings[found] = holding_of(self.kind, change.square, {**now, **after})
            return
        gaining = isinstance(change, Gained) == forward
        data = change.holding
        if gaining:
            if found is not None:
                raise mismatch
            at = change.at if isinstance(change, Lost) and change.at is not None else len(seat.holdings)
            if at > len(seat.holdings):
                raise mismatch
            seat.holdings.insert(at, holding_of(self.kind, change.square, data))
            return
        if found is None or holding_data(seat.holdings[found]) != dict(data):
            raise mismatch
        if isinstance(change, Lost) and change.at is not None and change.at != found:
            raise mismatch
        if isinstance(change, Gained) and found != len(seat.holdings) - 1:  # taken back: the last one gained
            raise mismatch
        del seat.holdings[found]

    def _seats(self, name: str, at: int, leaving: bool) -> None:
        if leaving:
            if at >= len(self.seats) or self.seats[at].name != name or not self.seats[at].empty:
                raise refused("mismatch_player", p=name)
            del self.seats[at]
        else:
            if any(s.name == name for s in self.seats) or at > len(self.seats):
                raise refused("mismatch_player", p=name)
            self.seats.insert(at, Seat(name, 0, [], None, False))


@dataclass
class Seat:
    """One player while entries are applied: changed in place, made a :class:`Player` again at the end."""

    name: str
    cash: int
    holdings: list[Holding]
    tower: str | None
    card: bool

    @property
    def empty(self) -> bool:
        """Nothing left: no cash, no holding, no tower, no card (a player leaves so, and arrives so)."""
        return not (self.cash or self.holdings or self.tower is not None or self.card)

    def field(self, field: str) -> str | bool | None:
        return self.tower if field == "tower" else self.card

    def set_field(self, field: str, value: str | bool | None) -> None:
        if field == "tower":
            self.tower = None if value is None else str(value)
        else:
            self.card = bool(value)


# --- the invariant: start + history = position ---------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    """Where the position in the file is not its start and history: ``player``, ``square`` (None: the player's own
    field, or the player themself), ``field`` (``cash``, ``holding``, a holding's field, ``tower``,
    ``exemption_card``, ``player``; ``history`` when the history does not apply to the start at all), and the value
    the history gives (``expected``) against the one in the file (``found``); ``kind``, the game's (city, classic),
    writes a cash as the game does (« M 19M », « 1500 »)."""

    player: str
    square: str | None
    field: str
    expected: Value
    found: Value
    kind: str = "classic"

    @property
    def text(self) -> Text:
        """The difference in words: « Alice, Docks, résidentiels : 3 selon l'historique, 4 dans le fichier »."""
        where = self.player if self.square is None else f"{self.player}, {self.square}"
        return Text(
            "bank.hand.difference",
            w=where,
            f=Text(f"bank.hand.field.{self.field}"),
            e=_said(self.expected, self.kind if self.field == "cash" else None),
            g=_said(self.found, self.kind if self.field == "cash" else None),
        )


def _said(value: Value, kind: str | None = None) -> Text | str:
    """A value in a difference's words: an amount (``kind`` given: a cash) as the game writes it, else as it is."""
    if kind == "city" and isinstance(value, int) and not isinstance(value, bool):
        return money.CityAmount(value)  # « M 19,5M » in French, « M 19.5M » in English: said where it is read
    if value is None or value is False:
        return Text("bank.value.none")
    if value is True:
        return Text("bank.value.yes")
    return str(value)


def expected(game: Game) -> tuple[Player, ...] | ActionRefused | None:
    """The players ``game``'s start and history give (None: the file does not say its start and the history does not
    take back; an :class:`ActionRefused`: the history does not apply to the start, saying where)."""
    start = start_of(game)
    if start is None:
        return None
    try:
        return fold(game.kind, start, game.history)
    except ActionRefused as error:
        return error


def differences(game: Game) -> tuple[Difference, ...]:
    """Every place where the file's position is not its start and its history (none: the invariant holds, or the
    file does not say its start and its history takes back to one, which is then its start)."""
    found = expected(game)
    if found is None:
        return ()
    if isinstance(found, ActionRefused):
        values = found.text.values
        square = values.get("s")
        return (Difference(str(values.get("p", "")), None if square is None else str(square), "history", None, None),)
    return compare(found, game.players, game.kind)


def compare(expected: tuple[Player, ...], found: tuple[Player, ...], kind: str = "classic") -> tuple[Difference, ...]:
    """The differences between the players ``expected`` and the players ``found``, player by player, square by
    square; a cash written as the game ``kind`` writes it."""
    out: list[Difference] = []
    mine = {p.name: p for p in found}
    theirs = {p.name: p for p in expected}
    for name in theirs.keys() - mine.keys():
        out.append(Difference(name, None, "player", True, False))
    for name in mine.keys() - theirs.keys():
        out.append(Difference(name, None, "player", False, True))
    if [p.name for p in expected if p.name in mine] != [p.name for p in found if p.name in theirs]:
        out.append(Difference(", ".join(p.name for p in found), None, "order", None, None))
    for e in expected:
        f = mine.get(e.name)
        if f is None:
            continue
        if e.cash != f.cash:
            out.append(Difference(e.name, None, "cash", e.cash, f.cash, kind))
        if e.tower != f.tower:
            out.append(Difference(e.name, None, "tower", e.tower, f.tower))
        if e.exemption_card != f.exemption_card:
            out.append(Difference(e.name, None, "exemption_card", e.exemption_card, f.exemption_card))
        held = {h.name: h for h in f.holdings}
        had = {h.name: h for h in e.holdings}
        for square in had.keys() - held.keys():
            out.append(Difference(e.name, square, "holding", True, False))
        for square in held.keys() - had.keys():
            out.append(Difference(e.name, square, "holding", False, True))
        for square in had.keys() & held.keys():
            before, after = all_fields(had[square]), all_fields(held[square])
            out += [Difference(e.name, square, k, before[k], after[k]) for k in before if before[k] != after[k]]
        if [h.name for h in e.holdings if h.name in held] != [h.name for h in f.holdings if h.name in had]:
            out.append(Difference(e.name, None, "holdings_order", None, None))
    return tuple(sorted(out, key=lambda d: (d.player, d.square or "", d.field)))


# --- a change made by hand, recorded --------------------------------------------------------------------------


def correction(game: Game) -> Entry | None:
    """The entry that takes the position its start and history give to the one in the file (a change made by hand,
    recorded: then undone like any other); None when there is no difference. :class:`ActionRefused` when the history
    does not apply to the start (the file says where) or the players were put in another order by hand."""
    found = expected(game)
    if found is None:
        return None
    if isinstance(found, ActionRefused):
        raise found
    if not compare(found, game.players):
        return None
    entry = _correction(found, game.players)
    if fold(game.kind, found, (entry,)) != game.players:
        raise refused("hand_order")
    return entry


def _correction(before: tuple[Player, ...], after: tuple[Player, ...]) -> Entry:
    same = 0
    while same < min(len(before), len(after)) and before[same].name == after[same].name:
        same += 1
    leaving, arriving = before[same:], after[same:]
    if {p.name for p in leaving} & {p.name for p in arriving}:
        raise refused("hand_order")
    payments: list[Payment] = []
    changes: list[Change] = []
    for i, p in enumerate(arriving):  # seated first (Table.apply), then given their cash and holdings
        changes.append(Arrived(p.name, same + i))
        payments += [Payment(None, p.name, p.cash)] if p.cash else []
        changes += _player_changes(Player(p.name, 0, ()), p)
    for j in reversed(range(len(leaving))):  # from the last, so that the places before stay
        p = leaving[j]
        payments += [Payment(p.name, None, p.cash)] if p.cash else []
        changes += _player_changes(p, Player(p.name, 0, ()))
        changes.append(Left(p.name, len(after) + j))
    for b, a in zip(before[:same], after[:same], strict=True):
        if a.cash != b.cash:
            payments.append(
                Payment(None, a.name, a.cash - b.cash) if a.cash > b.cash else Payment(a.name, None, b.cash - a.cash)
            )
        changes += _player_changes(b, a)
    main = payments[0] if payments else Payment(None, None, 0)
    return Entry(What.HAND, main, also=tuple(payments[1:]), changes=tuple(changes))


def _player_changes(before: Player, after: Player) -> list[Change]:
    """One player's holdings and own fields from ``before`` to ``after`` (their cash aside)."""
    changes: list[Change] = []
    if before.tower != after.tower and before.tower is not None:
        changes.append(PlayerField(before.name, "tower", before.tower, None))
    same = 0
    while (
        same < min(len(before.holdings), len(after.holdings))
        and before.holdings[same].name == after.holdings[same].name
    ):
        old, new = all_fields(before.holdings[same]), all_fields(after.holdings[same])
        keys = [k for k in old if old[k] != new[k]]
        if keys:
            square = before.holdings[same].name
            changes.append(Altered(before.name, square, {k: old[k] for k in keys}, {k: new[k] for k in keys}))
        same += 1
    for at in reversed(range(same, len(before.holdings))):
        holding = before.holdings[at]
        changes.append(Lost(before.name, holding.name, holding_data(holding), at))
    for holding in after.holdings[same:]:
        changes.append(Gained(after.name, holding.name, holding_data(holding)))
    if before.tower != after.tower and after.tower is not None:
        changes.append(PlayerField(after.name, "tower", None, after.tower))
    if before.exemption_card != after.exemption_card:
        changes.append(PlayerField(after.name, "exemption_card", before.exemption_card, after.exemption_card))
    return changes
