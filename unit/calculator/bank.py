"""The table's bank: each action's rules, turned into one history entry.

An action (a value of :mod:`unit.calculator.actions`: :class:`Pay`, :class:`PayRent`, :class:`Buy`, a correction...)
is checked against the rules of the game's kind and turned into one entry (:class:`unit.calculator.history.Entry`):
who pays whom, how much, what for, and the position change that goes with it. :func:`apply` returns the new game with
that entry at the end of its history (:func:`unit.calculator.ledger.commit`); :func:`undo` takes the last entries back
and says what moved. An action the rules refuse raises :class:`ActionRefused`, carrying the rule's sentence as a
:class:`unit.errors.Text` (its ``key`` names it), said in the reader's language where it is shown; when the cash is
short the sentence says what the player can do (mortgage, sell back, the rent-exemption card). The history's lines
(:func:`describe`, :func:`describe_changes`) are words too, said by the command line and the pages; :func:`offers`
says which actions the rules allow on a square or for a player, so that a page offers only those.

Pure: no file, no clock, no language. The pages and ``monopoly-city pay/buy/build/...`` both go through
:mod:`unit.calculator.gamefile` (the one read-apply-write path), so a game kept by the page and one kept by the
command line are the same file. The rents, salaries, prices and values are the game kind's rules object's, looked up
once by the caller (:func:`unit.calculator.rules.of`) and handed in, the ones ``monopoly-city rent``, ``salary``,
``tax``, ``mortgage``, ``sell`` and ``check`` print.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from unit.calculator import ledger, money, rules
from unit.calculator.actions import (
    BANK_NAMES,
    Action,
    AddPlayer,
    Build,
    Buy,
    Correct,
    ExemptionCard,
    Give,
    JailFine,
    Lift,
    Mortgage,
    Out,
    Pay,
    PayRent,
    PayTax,
    PlaceBonus,
    PlaceHazard,
    PlaceStation,
    RecordHandChange,
    RemoveHazard,
    RemovePlayer,
    Salary,
    SellBack,
    SetCash,
    SetTower,
    Trade,
)
from unit.calculator.edition import BONUSES, HAZARDS
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
    change_data,
)
from unit.calculator.ledger import Difference
from unit.calculator.names import MAX_PLAYERS, player_name
from unit.calculator.position import CityHolding, Game, Holding, Player, all_fields, building_words, holding_data
from unit.calculator.rulebook import Rules
from unit.calculator.words import ActionRefused, Joined, Phrase, refused
from unit.errors import Text, UserError
from unit.fields import name_key

__all__ = [  # the actions, where the callers of the bank found them before they had a module of their own
    "BANK_NAMES",
    "Action",
    "ActionRefused",
    "AddPlayer",
    "Build",
    "Buy",
    "Correct",
    "ExemptionCard",
    "Give",
    "JailFine",
    "Lift",
    "Mortgage",
    "Out",
    "Pay",
    "PayRent",
    "PayTax",
    "Payment",
    "PlaceBonus",
    "PlaceHazard",
    "PlaceStation",
    "RecordHandChange",
    "RemoveHazard",
    "RemovePlayer",
    "Salary",
    "SellBack",
    "SetCash",
    "SetTower",
    "Trade",
]

#: No payment: an entry that moves no money (a correction of a holding, the station draw, the card).
NO_PAYMENT = Payment(None, None, 0)


# --- applying and undoing ---------------------------------------------------------------------------


def apply(game: Game, action: Action, kind: Rules | None = None) -> tuple[Game, Entry]:
    """The game after ``action``, and the history entry it added; :class:`ActionRefused` when the rules say no.
    ``kind``: the game's rules, as the caller looked them up once (:func:`unit.calculator.rules.of`)."""
    kind = kind or rules.of(game)
    entry, variant = _entry(game, kind, action)
    if isinstance(action, RecordHandChange):  # the players show the change already: the history writes it down
        return ledger.record(game, entry), entry
    after = ledger.commit(game, entry)
    too_much = next((p for p in after.players if p.cash > money.MAX_AMOUNT), None)
    if too_much is not None:  # the loader reads no more: never written (issue 28)
        raise refused("too_much", p=too_much.name, a=kind.amount(too_much.cash), m=kind.amount(money.MAX_AMOUNT))
    # A bankruptcy is not a choice: it happens whatever the position; a change made by hand is recorded as it is. An
    # entry that only moves money (a payment, a rent, a salary) changes nothing the rules check (they never read the
    # cash): no need to check twice.
    if entry.changes and not isinstance(action, (Out, RecordHandChange, RemovePlayer, AddPlayer)):
        new = kind.new_problems(game, after, variant if variant in kind.variants else None)
        if new:
            raise ActionRefused(new[0].message)
    return after, entry


def allows(game: Game, action: Action, kind: Rules | None = None) -> ActionRefused | None:
    """Why the rules refuse ``action`` now, its cash aside (None: they allow it): what a page asks before it offers a
    tap (a player short of cash is told by the tap itself, with what they can do)."""
    try:
        apply(_rich(game), action, kind)
    except ActionRefused as refusal:
        return refusal
    except UserError as error:  # a name the edition lacks, a card not copied yet
        return ActionRefused(Phrase(error.message))
    return None


@dataclass(frozen=True)
class Undone:
    """What :func:`undo` did: the game after it, the entries taken back (the last first), what moved (one line each:
    a player's cash, a square's owner or buildings), and whether the result was compared with the start and the
    history left and found equal (``checked``; only then may a page say that everything is as it was)."""

    game: Game
    entries: tuple[Entry, ...]
    moves: tuple[Text, ...]
    checked: bool

    def __iter__(self) -> Iterator[Game | tuple[Entry, ...]]:
        """``game, entries = undo(...)``, as the bank's callers wrote it before it said what moved."""
        return iter((self.game, self.entries))


class HandChanged(ActionRefused):
    """The file was changed by hand since it was last written (a text editor's change): its position is not its
    start and its history. Nothing is undone; the differences say where (player, square, field, the history's value
    and the file's), and :class:`RecordHandChange` records them as an entry first."""

    def __init__(self, differences: tuple[Difference, ...]):
        super().__init__(Text("bank.hand.changed", d=Joined([d.text for d in differences], "bank.hand.separator")))
        self.differences = differences


def undo(game: Game, count: int = 1, kind: Rules | None = None) -> Undone:
    """The game with its last ``count`` entries taken back (last first): :class:`Undone`. A file changed by hand since
    its last write is refused with :class:`HandChanged` (what changed, where), before anything is taken back."""
    kind = kind or rules.of(game)
    if count < 1:
        raise refused("undo_count", n=count)
    if count > len(game.history):
        raise refused("undo_too_many", n=count, h=len(game.history))
    differences = ledger.differences(game)
    if differences:
        raise HandChanged(differences)
    after = game
    for entry in reversed(game.history[-count:]):
        after = ledger.revert(after, entry)
    start = ledger.start_of(game)
    checked = start is not None and ledger.fold(game.kind, start, after.history) == after.players
    undone = tuple(reversed(game.history[-count:]))
    return Undone(after, undone, moves(kind, game.players, after.players), checked)


def undone_lines(undone: Undone, kind: Rules) -> tuple[Text, ...]:
    """What an undo says, one line each, on the command line and the page alike (issue 27 item 1): each entry taken
    back with its number, the last first (« Annulé : 19. Bruno → Alice · M 600k · virement »), then what moved
    (« • Alice : M 12,5M → M 13,1M »), and that everything is as it was only when :func:`undo` checked it."""
    total = len(undone.game.history) + len(undone.entries)
    lines = [
        Text("bank.undone", e=Text("bank.undone_entry", n=total - i, e=describe(undone.game, entry, kind)))
        for i, entry in enumerate(undone.entries)
    ]
    lines += [Text("bank.undone_move", m=line) for line in undone.moves]
    if undone.checked:
        lines.append(Text("bank.undone_checked"))
    return tuple(lines)


def moves(kind: Rules, before: tuple[Player, ...], after: tuple[Player, ...]) -> tuple[Text, ...]:
    """What moved from ``before`` to ``after``, one line each: « Alice : M 12,5M → M 13,1M », « Docks : Bruno →
    Alice », « Docks : résidentiels 4 → 3 », « Zoé revient dans la partie »."""
    lines: list[Text] = []
    was = {p.name: p for p in before}
    now = {p.name: p for p in after}
    for p in after:
        if p.name not in was:
            lines.append(Text("bank.moved.back", p=p.name))
        elif was[p.name].cash != p.cash:
            lines.append(Text("bank.moved.cash", p=p.name, b=kind.amount(was[p.name].cash), a=kind.amount(p.cash)))
    lines += [Text("bank.moved.gone", p=p.name) for p in before if p.name not in now]
    owner_before = {h.name: (p.name, h) for p in before for h in p.holdings}
    owner_after = {h.name: (p.name, h) for p in after for h in p.holdings}
    bank = Text("bank.the_bank")
    for square in dict.fromkeys([*owner_before, *owner_after]):
        b, a = owner_before.get(square), owner_after.get(square)
        if b is None or a is None or b[0] != a[0]:
            lines.append(
                Text("bank.moved.owner", s=square, b=bank if b is None else b[0], a=bank if a is None else a[0])
            )
        elif b[1] != a[1]:
            old, new = all_fields(b[1]), all_fields(a[1])
            parts = [_field_line(k, old[k], new[k]) for k in old if old[k] != new[k]]
            lines.append(Text("bank.change.fields", s=square, f=Joined(parts)))
    for p in after:
        if p.name in was and was[p.name].tower != p.tower:
            lines.append(Text("bank.change.tower", p=p.name, b=_value(was[p.name].tower), a=_value(p.tower)))
        if p.name in was and was[p.name].exemption_card != p.exemption_card:
            lines.append(
                Text(
                    "bank.change.exemption_card",
                    p=p.name,
                    b=_value(was[p.name].exemption_card),
                    a=_value(p.exemption_card),
                )
            )
    return tuple(lines)


def _rich(game: Game) -> Game:
    """``game`` with every player's cash at the most the file holds: the rules' answers without the cash."""
    return replace(game, players=tuple(replace(p, cash=money.MAX_AMOUNT // 2) for p in game.players))


# --- what the rules allow, for the pages to offer ---------------------------------------------------


@dataclass(frozen=True)
class Offer:
    """An action the rules allow now (the cash aside), and the money its entry would move."""

    action: Action
    amount: int
    payer: str | None
    payee: str | None


def offers(
    game: Game, kind: Rules, *, square: str | None = None, player: str | None = None, variant: str | None = None
) -> tuple[Offer, ...]:
    """The actions the rules allow now on ``square`` (its canonical name: buy it, rent by each other player, build
    each kind, sell back, remove a hazard, mortgage, lift) or for ``player`` (GO, a tax, the fine), the cash aside:
    each tried on the game as it is (:func:`allows`), so that a page offers only the taps the rules then take."""
    candidates: list[Action] = []
    if square is not None:
        held = game.holding(square)
        if held is None:
            candidates += [Buy(p.name, square) for p in game.players]
        else:
            owner = held[0].name
            candidates += [PayRent(p.name, square) for p in game.players if p.name != owner]
            if game.kind == "city":
                candidates += [
                    Build(square, residential=1),
                    Build(square, industrial=1),
                    Build(square, skyscraper=True),
                    Build(square, stadium=True),
                    Build(square, tower=True),
                    RemoveHazard(square),
                ]
            else:
                candidates += [
                    Build(square, houses=1, variant=variant),
                    Build(square, hotel=True, variant=variant),
                    SellBack(square, 1, variant),
                    SellBack(square, None, variant),
                ]
            candidates += [Mortgage(square), Lift(square)]
    if player is not None:
        candidates += [Salary(player), PayTax(player), JailFine(player)]
        candidates += [PayTax(player, place.name) for place in kind.places(game) if place.kind == "tax"]
    rich = _rich(game)
    found = []
    for action in candidates:
        try:
            _after, entry = apply(rich, action, kind)
        except UserError:
            continue
        found.append(Offer(action, entry.payment.amount, entry.payment.payer, entry.payment.payee))
    return tuple(found)


# --- finding players and squares --------------------------------------------------------------------


def party(game: Game, typed: str | None, where: str) -> str | None:
    """A player's name, or None for the bank (``banque``, ``bank``), unless a player is called exactly that."""
    if typed is None:
        return None
    if name_key(typed) in {name_key(b) for b in BANK_NAMES} and not any(
        name_key(p.name) == name_key(typed) for p in game.players
    ):
        return None
    return game.player(typed, where).name


def _owned(game: Game, square: str) -> tuple[Player, Holding]:
    held = game.holding(square)
    if held is None:
        raise refused("nobody_owns", s=square)
    return held


# --- what each action means -------------------------------------------------------------------------


def _entry(game: Game, kind: Rules, action: Action) -> tuple[Entry, str | None]:
    """The entry ``action`` makes (not yet applied), and the classic variant its check follows."""
    variant = getattr(action, "variant", None)
    maker = _MAKERS.get(type(action))
    if maker is None:  # a bug: every action has its maker
        raise TypeError(f"no entry for {action!r}")
    return maker(game, kind, action), variant


def _salary(game: Game, kind: Rules, action: Salary) -> Entry:
    player = game.player(action.player, "PLAYER")
    return Entry(What.SALARY, Payment(None, player.name, kind.salary(game, player).amount))


def _fine(game: Game, kind: Rules, action: JailFine) -> Entry:
    return _to_bank(game, kind, What.FINE, game.player(action.player, "PLAYER"), kind.jail_fine(game))


def _to_bank(
    game: Game, kind: Rules, what: What, player: Player, amount: int, square: str | None = None, rent: bool = False
) -> Entry:
    """``player`` pays the bank ``amount`` (a tax, the fine), refused when the cash is short."""
    _afford(game, kind, player, amount, rent)
    return Entry(what, Payment(player.name, None, amount), square=square)


def _pay(game: Game, kind: Rules, action: Pay) -> Entry:
    payer = party(game, action.payer, where="PAYER")
    payee = party(game, action.payee, where="PAYEE")
    if payer is None and payee is None:
        raise refused("bank_to_bank")
    if payer == payee:
        raise refused("same_player", p=payer)
    if action.amount <= 0:
        raise refused("nothing_to_pay")
    if payer is not None:
        _afford(game, kind, game.player(payer, "PAYER"), action.amount)
    note = action.note.strip() if action.note and action.note.strip() else None
    return Entry(What.PAY, Payment(payer, payee, action.amount), note=note)


def _rent(game: Game, kind: Rules, action: PayRent) -> Entry:
    payer = game.player(action.payer, "PLAYER")
    square = kind.find(game, action.square, "SQUARE")
    tax = kind.tax_square(game, square)
    if tax is not None:
        return _to_bank(game, kind, What.TAX, payer, tax, square)
    owner, holding = _owned(game, square)
    if owner.name == payer.name:
        raise refused("own_square", s=square, p=payer.name)
    if holding.mortgaged:
        raise refused("rent_mortgaged", s=square)
    if action.exemption:
        if not payer.exemption_card:
            raise refused("no_exemption_card", p=payer.name)
        change = PlayerField(payer.name, "exemption_card", True, False)
        return Entry(What.RENT, Payment(payer.name, owner.name, 0), square=square, changes=(change,))
    report = kind.rent(game, square, action.dice)
    if report.needs_dice:  # a utility's owner charges by the throw
        raise ActionRefused(report.explanation[0])
    if report.rent <= 0:
        raise refused("nothing_to_pay")
    _afford(game, kind, payer, report.rent, rent=True)
    return Entry(What.RENT, Payment(payer.name, owner.name, report.rent), square=square)


def _buy(game: Game, kind: Rules, action: Buy) -> Entry:
    player = game.player(action.player, "PLAYER")
    square = kind.find(game, action.square, "SQUARE")
    held = game.holding(square)
    if held is not None:
        raise refused("already_owned", s=square, o=held[0].name)
    if action.price is None:
        price, what = kind.price(game, square), What.BUY
    else:
        if kind.tax_square(game, square) is not None:
            raise refused("tax_square", s=square)
        if action.price < kind.auction_minimum:
            raise refused("auction_minimum", a=kind.amount(kind.auction_minimum))
        price, what = action.price, What.AUCTION
    _afford(game, kind, player, price)
    return Entry(what, Payment(player.name, None, price), square=square, changes=(Gained(player.name, square, {}),))


def _works(game: Game, kind: Rules, action: Build | SellBack | RemoveHazard) -> Entry:
    """Buildings bought from the bank, sold back to it, or a hazard removed: the owner and the bank settle."""
    square = kind.find(game, action.square, "SQUARE")
    owner, holding = _owned(game, square)
    if isinstance(action, SellBack):
        proceeds, after = kind.sell_back(game, holding, action.houses, action.variant)
        return Entry(
            What.SELL, Payment(None, owner.name, proceeds), square=square, changes=(_set(owner, holding, after),)
        )
    what: What
    if isinstance(action, RemoveHazard):
        (cost, after), what = kind.remove_hazard(game, holding), What.HAZARD
    else:
        (cost, after), what = kind.build(game, owner, holding, action), What.BUILD
    _afford(game, kind, owner, cost)
    changes: list[Change] = [_set(owner, holding, after)]
    if isinstance(action, Build) and action.tower:
        changes.append(PlayerField(owner.name, "tower", None, square))
    return Entry(what, Payment(owner.name, None, cost), square=square, changes=tuple(changes))


def _tax(game: Game, kind: Rules, action: PayTax) -> Entry:
    player = game.player(action.player, "PLAYER")
    if "tax" in kind.lacks:  # classic: its taxes are squares
        if action.square is None:
            raise refused("classic_tax_square")
        return _rent(game, kind, PayRent(player.name, action.square))
    amount = kind.industry_tax(game, player).amount
    if amount == 0:
        raise refused("no_industry", p=player.name)
    return _to_bank(game, kind, What.TAX, player, amount)


def _mortgage(game: Game, kind: Rules, action: Mortgage | Lift) -> Entry:
    """A mortgage from the bank at the rules' value, or its lift (:func:`lift_cost`)."""
    square = kind.find(game, action.square, "SQUARE")
    owner, holding = _owned(game, square)
    lifting = isinstance(action, Lift)
    if holding.mortgaged != lifting:
        raise refused("not_mortgaged" if lifting else "already_mortgaged", s=square)
    change = _set(owner, holding, replace(holding, mortgaged=not lifting))
    if lifting:
        cost = lift_cost(game, square, kind)
        _afford(game, kind, owner, cost)
        return Entry(What.LIFT, Payment(owner.name, None, cost), square=square, changes=(change,))
    built = kind.built_in_group(game, owner, square)
    if built:
        raise refused("mortgage_sell_first", s=", ".join(built))
    value = kind.mortgage(game, square).value
    return Entry(What.MORTGAGE, Payment(None, owner.name, value), square=square, changes=(change,))


def lift_cost(game: Game, square: str, kind: Rules | None = None) -> int:
    """What lifting the mortgage of ``square`` costs, from what the bank paid for it (the history's last mortgage
    of it; the rules' value when the history does not have it): City, « le montant que la banque vous a versé
    auparavant » (the rent value may have changed since); classic, + 10 %."""
    kind = kind or rules.of(game)
    paid = next(
        (e.payment.amount for e in reversed(game.history) if e.what == What.MORTGAGE and e.square == square), None
    )
    return kind.mortgage(game, square).lift if paid is None else kind.lift(game, paid)


def _trade(game: Game, kind: Rules, action: Trade) -> Entry:
    seller = game.player(action.seller, "SELLER")
    buyer = game.player(action.buyer, "BUYER")
    if seller.name == buyer.name:
        raise refused("same_player", p=seller.name)
    if action.price < 0:
        raise refused("nothing_to_pay")
    if not action.squares and action.price == 0:
        raise refused("nothing_to_trade")
    squares = [kind.find(game, typed, "SQUARE") for typed in action.squares]
    if len(set(squares)) != len(squares):
        raise refused("nothing_to_trade")
    free = kind.unbought(game) if squares else 0
    if free:
        raise refused("trades_after_all_bought", n=free)
    interest = 0
    changes: list[Change] = []
    for square in squares:
        owner, holding = _owned(game, square)
        if owner.name != seller.name:
            raise refused("not_theirs", s=square, p=seller.name, o=owner.name)
        if kind.built_in_group(game, seller, square):
            raise refused("trade_with_buildings", s=square)
        interest += kind.transfer_interest(game, holding)
        changes += _handed(game, seller, buyer.name, holding, holding, changes)
    _afford(game, kind, buyer, action.price + interest)
    also = (Payment(buyer.name, None, interest),) if interest else ()
    main = Payment(buyer.name, seller.name, action.price)
    return Entry(What.TRADE, main, square=", ".join(squares) or None, also=also, changes=tuple(changes))


def _handed(
    game: Game, giver: Player, taker: str | None, holding: Holding, received: Holding, earlier: list[Change]
) -> list[Change]:
    """``holding`` leaving ``giver`` (at its place once the ``earlier`` changes took theirs) and, unless the
    bank takes it back (``taker`` None), coming to ``taker`` as ``received``; the Monopoly Tower goes with its
    district (« vous échangez/vendez également les bâtiments qui s'y trouvent »)."""
    gone = {c.square for c in earlier if isinstance(c, Lost) and c.player == giver.name}
    at = [h.name for h in giver.holdings if h.name not in gone].index(holding.name)
    changes: list[Change] = [Lost(giver.name, holding.name, holding_data(holding), at)]
    if taker is not None:
        changes.append(Gained(taker, holding.name, holding_data(received)))
    if giver.tower == holding.name:
        changes.append(PlayerField(giver.name, "tower", holding.name, None))
        if taker is not None:
            tower = next(p for p in game.players if p.name == taker).tower
            changes.append(PlayerField(taker, "tower", tower, holding.name))
    return changes


def _out(game: Game, kind: Rules, action: Out) -> Entry:
    """« Dette envers la banque » / « Dette envers un autre joueur »: cash and squares go to the creditor (to the
    bank, the cards go back and « Les hypothèques sont annulées »)."""
    player = game.player(action.player, "PLAYER")
    creditor = None if action.creditor is None else party(game, action.creditor, where="CREDITOR")
    if creditor == player.name:
        raise refused("same_player", p=player.name)
    if len(game.players) == 1:  # « Le dernier joueur restant en jeu est le vainqueur. »: nobody left to play
        raise refused("last_player", p=player.name)
    changes: list[Change] = []
    proceeds = interest = 0
    for holding in player.holdings:
        received = holding
        if creditor is not None:
            sold, received = kind.seized(game, holding)
            proceeds += sold
            interest += kind.transfer_interest(game, holding)
        changes += _handed(game, player, creditor, holding, received, changes)
    if player.exemption_card:  # « la carte exonération sur la case parc gratuit »
        changes.append(PlayerField(player.name, "exemption_card", True, False))
    changes.append(Left(player.name, game.players.index(player)))
    also = [Payment(None, player.name, proceeds)] if proceeds else []
    if interest:
        also.append(Payment(creditor, None, interest))
    main = Payment(player.name, creditor, player.cash + proceeds)
    return Entry(What.OUT, main, also=tuple(also), changes=tuple(changes))


# --- what the table does outside the money (issue 27): each an entry, with its line and its undo -------------


def _set_cash(game: Game, kind: Rules, action: SetCash) -> Entry:
    player = game.player(action.player, "PLAYER")
    if not 0 <= action.cash <= money.MAX_AMOUNT:
        raise refused("cash_range", a=action.cash, m=kind.amount(money.MAX_AMOUNT))
    if action.cash == player.cash:
        raise refused("nothing_changes")
    more = action.cash > player.cash
    payment = (
        Payment(None, player.name, action.cash - player.cash)
        if more
        else Payment(player.name, None, player.cash - action.cash)
    )
    return Entry(What.CORRECT, payment)


def _correct(game: Game, kind: Rules, action: Correct) -> Entry:
    square = kind.find(game, action.square, "SQUARE")
    owner, holding = _owned(game, square)
    after = kind.corrected(game, holding, action.field, action.value, action.variant)
    if after == holding:
        raise refused("nothing_changes")
    return Entry(What.CORRECT, NO_PAYMENT, square=square, changes=(_set(owner, holding, after),))


def _give(game: Game, kind: Rules, action: Give) -> Entry:
    square = kind.find(game, action.square, "SQUARE")
    if kind.tax_square(game, square) is not None:
        raise refused("tax_square", s=square)
    to = party(game, action.to, where="PLAYER")
    held = game.holding(square)
    if held is None:
        if to is None:
            raise refused("nobody_owns", s=square)
        return Entry(What.CORRECT, NO_PAYMENT, square=square, changes=(Gained(to, square, {}),))
    owner, holding = held
    if action.unowned:
        raise refused("already_owned", s=square, o=owner.name)
    if owner.name == to:
        raise refused("nothing_changes")
    return Entry(What.CORRECT, NO_PAYMENT, square=square, changes=tuple(_handed(game, owner, to, holding, holding, [])))


def _set_tower(game: Game, kind: Rules, action: SetTower) -> Entry:
    if game.kind != "city":
        raise refused("city_only")
    player = game.player(action.player, "PLAYER")
    square = None if action.square is None else kind.find(game, action.square, "SQUARE")
    if square is not None and all(h.name != square for h in player.holdings):
        held = game.holding(square)
        raise refused("not_theirs", s=square, p=player.name, o=held[0].name if held else Text("bank.the_bank"))
    if square == player.tower:
        raise refused("nothing_changes")
    change = PlayerField(player.name, "tower", player.tower, square)
    return Entry(What.CORRECT, NO_PAYMENT, square=square or player.tower, changes=(change,))


def _place(game: Game, kind: Rules, action: PlaceStation | PlaceHazard | PlaceBonus) -> Entry:
    """A station, a hazard or a bonus placed on a held district, free, or taken off (a slip)."""
    if game.kind != "city":
        raise refused("city_only")
    square = kind.find(game, action.square, "SQUARE")
    owner, holding = _owned(game, square)
    assert isinstance(holding, CityHolding)  # a City game holds districts
    if isinstance(action, PlaceStation):
        what, after = What.STATION, replace(holding, station=action.placed)
    elif isinstance(action, PlaceHazard):
        what, after = What.PLACE, replace(holding, hazard=_building(action.hazard, HAZARDS))
    else:
        what, after = What.PLACE, replace(holding, bonus=_building(action.bonus, BONUSES))
    if after == holding:
        raise refused("nothing_changes")
    return Entry(what, NO_PAYMENT, square=square, changes=(_set(owner, holding, after),))


def _building(typed: str | None, identifiers: tuple[str, ...]) -> str | None:
    """A hazard's or a bonus's identifier from its identifier or one of its names; None: none."""
    if typed is None:
        return None
    found = building_words(identifiers).get(name_key(typed))
    if found is None:
        names = Joined([Text(f"calculator.names.buildings.{i}") for i in identifiers])
        raise refused("unknown_building", x=names, got=typed)
    return found


def _card(game: Game, kind: Rules, action: ExemptionCard) -> Entry:
    if game.kind != "city":
        raise refused("city_only")
    to = party(game, action.player, "PLAYER")
    holders = [p.name for p in game.players if p.exemption_card]
    if (to is None and not holders) or holders == [to]:
        raise refused("nothing_changes")
    changes: list[Change] = [PlayerField(name, "exemption_card", True, False) for name in holders if name != to]
    if to is not None and to not in holders:
        changes.append(PlayerField(to, "exemption_card", False, True))
    return Entry(What.CARD, NO_PAYMENT, changes=tuple(changes))


def _add_player(game: Game, kind: Rules, action: AddPlayer) -> Entry:
    name = player_name(action.name, "PLAYER")
    if any(name_key(p.name) == name_key(name) for p in game.players):
        raise refused("player_exists", p=name)
    if len(game.players) >= MAX_PLAYERS:
        raise refused("too_many_players", n=MAX_PLAYERS)
    cash = action.cash if action.cash is not None else kind.starting_cash(game.edition) or 0
    if not 0 <= cash <= money.MAX_AMOUNT:
        raise refused("cash_range", a=cash, m=kind.amount(money.MAX_AMOUNT))
    return Entry(What.JOIN, Payment(None, name, cash), changes=(Arrived(name, len(game.players)),))


def _remove_player(game: Game, kind: Rules, action: RemovePlayer) -> Entry:
    """A player leaves with nothing; with cash or holdings, only a bankruptcy (:class:`Out`) takes them out, so that
    no money vanishes (issue 28)."""
    player = game.player(action.player, "PLAYER")
    if player.cash or player.holdings:
        raise refused("leave_with_something", p=player.name, c=kind.amount(player.cash), n=len(player.holdings))
    if len(game.players) == 1:
        raise refused("last_player", p=player.name)
    changes: list[Change] = []
    if player.exemption_card:
        changes.append(PlayerField(player.name, "exemption_card", True, False))
    changes.append(Left(player.name, game.players.index(player)))
    return Entry(What.LEAVE, Payment(player.name, None, 0), changes=tuple(changes))


def _hand(game: Game, kind: Rules, action: RecordHandChange) -> Entry:
    entry = ledger.correction(game)
    if entry is None:
        raise refused("no_hand_change")
    return entry


def _set(player: Player, holding: Holding, after: Holding) -> Altered:
    """The change of ``holding`` into ``after``: only the fields that change, before and after (defaults written)."""
    old, new = all_fields(holding), all_fields(after)
    keys = [k for k in old if old[k] != new[k]]
    return Altered(player.name, holding.name, {k: old[k] for k in keys}, {k: new[k] for k in keys})


_MAKERS: dict[type, Callable[[Game, Rules, Any], Entry]] = {
    Pay: _pay,
    PayRent: _rent,
    Buy: _buy,
    Build: _works,
    SellBack: _works,
    RemoveHazard: _works,
    Salary: _salary,
    PayTax: _tax,
    JailFine: _fine,
    Mortgage: _mortgage,
    Lift: _mortgage,
    Trade: _trade,
    Out: _out,
    SetCash: _set_cash,
    Correct: _correct,
    Give: _give,
    SetTower: _set_tower,
    PlaceStation: _place,
    PlaceHazard: _place,
    PlaceBonus: _place,
    ExemptionCard: _card,
    AddPlayer: _add_player,
    RemovePlayer: _remove_player,
    RecordHandChange: _hand,
}


# --- short of cash: what the player can do ----------------------------------------------------------


def _afford(game: Game, kind: Rules, player: Player, amount: int, rent: bool = False) -> None:
    """Refuse a payment ``player`` cannot make, saying what they can do: sell back, mortgage, the card."""
    if player.cash >= amount:
        return

    def priced(name: str, value: int) -> Text:
        return Text("bank.priced", s=name, a=kind.amount(value))

    def worth(value: Callable[[str], int], square: str) -> int | None:
        """What a holding would bring; None when its card is not copied yet (a City edition entered as the game goes:
        the short player is told what can be done with the cards the table has, never asked for another's)."""
        try:
            return value(square)
        except UserError:
            return None

    options: list[Text] = []
    if "sell" not in kind.lacks:
        built = [(h.name, worth(lambda s: kind.sell(game, s, None).amount, h.name)) for h in player.holdings]
        sell = [priced(name, value) for name, value in built if value]
        if sell:
            options.append(Text("bank.can_sell", s=Joined(sell)))
    values = [
        (h.name, worth(lambda s: kind.mortgage(game, s).value, h.name)) for h in player.holdings if not h.mortgaged
    ]
    can = [priced(name, value) for name, value in values if value is not None]
    if can:
        options.append(Text("bank.can_mortgage", s=Joined(can)))
    if rent and player.exemption_card:
        options.append(Text("bank.can_exempt"))
    if not options:
        options.append(Text("bank.bankrupt", p=player.name))
    raise refused(
        "short",
        p=player.name,
        c=kind.amount(player.cash),
        a=kind.amount(amount),
        m=kind.amount(amount - player.cash),
        o=Joined(options, "bank.options_separator"),
        r=Text(f"bank.rule_short_{kind.kind}"),
    )


# --- in words ---------------------------------------------------------------------------------------


def describe(game: Game, entry: Entry, kind: Rules | None = None) -> Text:
    """One line for the table: « Bruno → Alice · M 600k · loyer de Docks »; an entry that moves no money says only
    what it did, with its changes where they are all it did: « correction · Docks : résidentiels 3 → 4 »."""
    kind = kind or rules.of(game)
    key = entry.what.value
    if key == "rent" and any(isinstance(c, PlayerField) and c.field == "exemption_card" for c in entry.changes):
        key = "rent_exempt"
    elif key == "tax" and entry.square:
        key = "tax_square"
    elif key == "trade" and not entry.square:
        key = "trade_money"
    elif key == "station" and any(isinstance(c, Altered) and c.after.get("station") is False for c in entry.changes):
        key = "station_off"
    payment = entry.payment
    what: Text | str = Text(f"bank.what.{key}", s=entry.square or "", p=payment.payer or payment.payee or "")
    if entry.note:
        what = entry.note if entry.what == What.PAY else Phrase(what, f" ({entry.note})")
    details: list[object] = []
    if entry.what in DETAILED and entry.changes:
        details = [" · ", Joined(describe_changes(entry), "bank.hand.separator")]
    if payment.amount == 0 and not entry.also and entry.what not in (What.RENT, What.TRADE):
        return Phrase(what, *details)
    parts: list[object] = [_party_name(payment.payer), " → ", _party_name(payment.payee), " · "]
    parts += [kind.amount(payment.amount), " · ", what]
    for p in entry.also:
        parts += [" · ", _party_name(p.payer), " → ", _party_name(p.payee), " ", kind.amount(p.amount)]
    return Phrase(*parts, *details)


#: The entries whose line says their changes: the table's own, outside the money (issue 27); a printed history
#: need not list their changes again.
DETAILED = (What.CORRECT, What.PLACE, What.CARD, What.HAND)


def describe_changes(entry: Entry) -> list[Text]:
    """The position changes of ``entry``, one line each: « Docks : résidentiels 3 → 4 »."""
    lines: list[Text] = []
    for c in entry.changes:
        if isinstance(c, Left):
            lines.append(Text("bank.change.left", p=c.player))
        elif isinstance(c, Arrived):
            lines.append(Text("bank.change.joined", p=c.player))
        elif isinstance(c, PlayerField):
            lines.append(Text(f"bank.change.{c.field}", p=c.player, b=_value(c.before), a=_value(c.after)))
        elif isinstance(c, Gained) and c.holding:  # with its buildings (a district moved by hand as it stood)
            parts = [Phrase(Text(f"bank.key.{k}"), " ", _value(v, k)) for k, v in c.holding.items()]
            lines.append(Text("bank.change.gained_with", p=c.player, s=c.square, f=Joined(parts)))
        elif isinstance(c, Gained):
            lines.append(Text("bank.change.gained", p=c.player, s=c.square))
        elif isinstance(c, Lost):
            lines.append(Text("bank.change.lost", p=c.player, s=c.square))
        else:
            keys = [k for k in {**c.before, **c.after} if c.before.get(k) != c.after.get(k)]
            parts = [_field_line(k, c.before.get(k), c.after.get(k)) for k in dict.fromkeys(keys)]
            lines.append(Text("bank.change.fields", s=c.square, f=Joined(parts)))
    return lines


def _field_line(key: str, before: object, after: object) -> Phrase:
    return Phrase(Text(f"bank.key.{key}"), " ", _value(before, key), " → ", _value(after, key))


def _value(value: object, key: str = "") -> Text | str:
    """A field's value in a change line: yes or no, a count, or a hazard's or bonus's one name (« décharge »)."""
    if key in ("hazard", "bonus"):
        return Text("bank.value.no_building") if value is None else Text(f"calculator.names.buildings.{value}")
    if value is None or value is False:
        return Text("bank.value.none")
    if value is True:
        return Text("bank.value.yes")
    return str(value)


def _party_name(name: str | None) -> Text | str:
    return Text("bank.the_bank") if name is None else name


def entry_json(entry: Entry) -> dict[str, Any]:
    """An entry as JSON: plain names (null for the bank), integer amounts; its changes as the game file writes them."""
    out: dict[str, Any] = {
        "what": entry.what.value,
        "square": entry.square,
        "from": entry.payment.payer,
        "to": entry.payment.payee,
        "amount": entry.payment.amount,
        "for": entry.note,
        "also": [{"from": p.payer, "to": p.payee, "amount": p.amount} for p in entry.also],
        "changes": [dict(change_data(c)) for c in entry.changes],
    }
    return out
