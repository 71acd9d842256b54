"""The table's bank: every money movement of the game, checked against the rules, kept and undone.

An action (a frozen dataclass below: :class:`Pay`, :class:`PayRent`, :class:`Buy`, :class:`Build`...) is
checked against the rules of the game's kind and turned into one history entry
(:class:`unit.calculator.history.Entry`): who pays whom, how much, what for, and the position change
that goes with it. :func:`apply` returns the new game with that entry at the end of its history;
:func:`undo` takes the last entries back and restores cash and position exactly. An action the rules
refuse raises :class:`ActionRefused`, carrying the rule's sentence as a :class:`unit.errors.Text` (its ``key``
names it), said in the reader's language where it is shown; when the cash is short the sentence says what
the player can do (mortgage, sell back, the rent-exemption card). The history's lines (:func:`describe`,
:func:`describe_changes`) are words too, said by the command line and the pages.

Pure: no file, no clock, no language. The pages and ``monopoly-city pay/buy/build/...`` both call
:func:`apply` on the game file's contents and write the result with :func:`unit.calculator.position.dumps`,
so a game kept by the page and one kept by the command line are the same file. The rents, salaries, prices
and values are the game kind's rules object's (:func:`unit.calculator.rules.of`), the ones ``monopoly-city
rent``, ``salary``, ``tax``, ``mortgage``, ``sell`` and ``check`` print.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any

from unit.calculator import rules
from unit.calculator.history import Change, Entry, Payment
from unit.calculator.position import Game, Holding, Player
from unit.calculator.rulebook import ActionRefused, Joined, Phrase, Rules, refused
from unit.errors import Text
from unit.fields import name_key

__all__ = ["ActionRefused"]  # raised here, defined beside the rules that raise it too

#: What the command line and the pages may type for the bank, in any language.
BANK_NAMES = ("banque", "bank", "la banque", "the bank")


# --- the actions ------------------------------------------------------------------------------------
# Names are as typed (a unique beginning is enough); a party None is the bank.


@dataclass(frozen=True)
class Pay:
    """A free transfer: a trade's money, a Chance card, a loan the table agreed. Either side may be the bank."""

    payer: str | None
    payee: str | None
    amount: int
    note: str | None = None


@dataclass(frozen=True)
class PayRent:
    """The rent of ``square`` paid by ``payer`` to its owner (a classic tax square: to the bank).
    ``exemption``: the payer plays the rent-exemption card instead (City)."""

    payer: str
    square: str
    dice: int | None = None
    exemption: bool = False


@dataclass(frozen=True)
class Buy:
    """A square nobody holds, at its printed price, or at ``price`` when an auction sold it."""

    player: str
    square: str
    price: int | None = None


@dataclass(frozen=True)
class Build:
    """Buildings bought from the bank by the square's owner: City blocks, skyscraper, stadium, tower;
    classic houses or a hotel (``variant`` ``quick``: a hotel after 3 houses)."""

    square: str
    residential: int = 0
    industrial: int = 0
    skyscraper: bool = False
    stadium: bool = False
    tower: bool = False
    houses: int = 0
    hotel: bool = False
    variant: str | None = None

    def city(self) -> bool:
        """Whether a City building is ordered (blocks, skyscraper, stadium, tower)."""
        return bool(self.residential or self.industrial or self.skyscraper or self.stadium or self.tower)


@dataclass(frozen=True)
class SellBack:
    """Classic: a street's buildings sold back to the bank at half price. ``houses`` None: all of them (a hotel
    with the houses it stands for); N: N levels, a hotel being one (it goes back to 4 houses, 3 in the quick
    game, for half its price), each house the next."""

    square: str
    houses: int | None = None
    variant: str | None = None


@dataclass(frozen=True)
class RemoveHazard:
    """City: the owner pays M 500k per block the hazard is worth and it goes back to the bank."""

    square: str


@dataclass(frozen=True)
class Salary:
    """Passing GO: the salary from the bank (City: + M 1M per stadium)."""

    player: str


@dataclass(frozen=True)
class PayTax:
    """City: the industry tax; classic: the tax square ``square``."""

    player: str
    square: str | None = None


@dataclass(frozen=True)
class JailFine:
    """Leaving jail by paying the fine (City M 500k; classic: the edition's)."""

    player: str


@dataclass(frozen=True)
class Mortgage:
    square: str


@dataclass(frozen=True)
class Lift:
    square: str


@dataclass(frozen=True)
class Trade:
    """``squares`` go from ``seller`` to ``buyer``, who pays ``price`` (0 for a swap or a gift)."""

    seller: str
    buyer: str
    squares: tuple[str, ...]
    price: int = 0


@dataclass(frozen=True)
class Out:
    """``player`` is bankrupt and leaves the game; ``creditor`` None: the debt is the bank's."""

    player: str
    creditor: str | None = None


Action = (
    Pay | PayRent | Buy | Build | SellBack | RemoveHazard | Salary | PayTax | JailFine | Mortgage | Lift | Trade | Out
)


# --- applying and undoing ---------------------------------------------------------------------------


def apply(game: Game, action: Action) -> tuple[Game, Entry]:
    """The game after ``action``, and the history entry it added; :class:`ActionRefused` when the rules say no."""
    entry, variant = _entry(game, action)
    after = commit(game, entry)
    # A bankruptcy is not a choice: it happens whatever the position. An entry that only moves money (a payment, a
    # rent, a salary) changes nothing the rules check (they never read the cash): no need to check twice.
    if entry.changes and not isinstance(action, Out):
        kind = rules.of(game)
        new = kind.new_problems(game, after, variant if variant in kind.variants else None)
        if new:
            raise ActionRefused(new[0].message)
    return after, entry


def undo(game: Game, count: int = 1) -> tuple[Game, tuple[Entry, ...]]:
    """The game with its last ``count`` entries taken back (last first), and those entries."""
    if count < 1:
        raise refused("undo_count", n=count)
    if count > len(game.history):
        raise refused("undo_too_many", n=count, h=len(game.history))
    undone = []
    for _ in range(count):
        entry = game.history[-1]
        game = revert(game, entry)
        undone.append(entry)
    return game, tuple(undone)


def commit(game: Game, entry: Entry) -> Game:
    """The position after ``entry``'s payments and changes, with ``entry`` added to the history."""
    table = _Table(game)
    table.pay(entry.payments)
    for change in entry.changes:
        table.change(change, forward=True)
    table.solvent()
    return replace(game, players=table.players(), history=(*game.history, entry))


def revert(game: Game, entry: Entry) -> Game:
    """The position before ``entry`` (the last of the history); refused when the file no longer matches it."""
    if not game.history or game.history[-1] != entry:
        raise refused("undo_not_last")
    table = _Table(game)
    for change in reversed(entry.changes):
        table.change(change, forward=False)
    table.pay(Payment(p.payee, p.payer, p.amount) for p in reversed(entry.payments))
    table.solvent()
    return replace(game, players=table.players(), history=game.history[:-1])


class _Table:
    """The players while an entry is applied or taken back, checking that the file still matches it."""

    def __init__(self, game: Game):
        self.rules = rules.of(game)
        self.seats: list[Player] = list(game.players)

    def players(self) -> tuple[Player, ...]:
        return tuple(self.seats)

    def index(self, name: str) -> int:
        for i, player in enumerate(self.seats):
            if player.name == name:
                return i
        raise refused("mismatch_player", p=name)

    def pay(self, payments: Iterable[Payment]) -> None:
        for p in payments:
            if p.payer is not None:
                i = self.index(p.payer)
                self.seats[i] = replace(self.seats[i], cash=self.seats[i].cash - p.amount)
            if p.payee is not None:
                i = self.index(p.payee)
                self.seats[i] = replace(self.seats[i], cash=self.seats[i].cash + p.amount)

    def solvent(self) -> None:
        for player in self.seats:
            if player.cash < 0:
                raise refused("negative", p=player.name)

    def change(self, change: Change, forward: bool) -> None:
        if change.left is not None:
            self._seat(change, leaving=forward)
            return
        before, after = (change.before, change.after) if forward else (change.after, change.before)
        i = self.index(change.player)
        player = self.seats[i]
        if change.field is not None:
            if getattr(player, change.field) != before:
                raise refused("mismatch", p=player.name, s=change.field)
            self.seats[i] = replace(player, **{change.field: after})
            return
        square = change.square or ""
        mismatch = refused("mismatch", p=player.name, s=square)
        holdings = list(player.holdings)
        found = [j for j, h in enumerate(holdings) if h.name == square]
        if before is None:
            if found:
                raise mismatch
            place = len(holdings) if forward or change.at is None else change.at
            holdings.insert(place, self.rules.holding(square, after or {}))
        else:
            if not found:
                raise mismatch
            now = all_fields(holdings[found[0]])
            if after is None:
                if holding_data(holdings[found[0]]) != before:
                    raise mismatch
                if forward and change.at is not None and change.at != found[0]:
                    raise mismatch
                if not forward and found[0] != len(holdings) - 1:
                    raise mismatch
                del holdings[found[0]]
            else:
                if any(now.get(k) != v for k, v in before.items()):
                    raise mismatch
                holdings[found[0]] = self.rules.holding(square, {**now, **after})
        self.seats[i] = replace(player, holdings=tuple(holdings))

    def _seat(self, change: Change, leaving: bool) -> None:
        place = change.left or 0
        if leaving:
            i = self.index(change.player)
            player = self.seats[i]
            if i != place or player != Player(player.name, 0, ()):
                raise refused("mismatch_player", p=change.player)
            del self.seats[i]
        else:
            if any(p.name == change.player for p in self.seats) or place > len(self.seats):
                raise refused("mismatch_player", p=change.player)
            self.seats.insert(place, Player(change.player, 0, ()))


def all_fields(holding: Holding) -> dict[str, Any]:
    """Every field of a holding but its name (the first), defaults included, in the game file's order."""
    return {field.name: getattr(holding, field.name) for field in fields(holding)[1:]}


def holding_data(holding: Holding) -> dict[str, Any]:
    """A holding as the game file writes it, without its name (only what differs from the defaults)."""
    return {key: value for key, value in all_fields(holding).items() if value}


def _set(player: Player, holding: Holding, after: Holding) -> Change:
    """The change of ``holding`` into ``after``: only the fields that change, before and after (defaults written)."""
    old, new = all_fields(holding), all_fields(after)
    keys = [k for k in old if old[k] != new[k]]
    return Change(player.name, square=holding.name, before={k: old[k] for k in keys}, after={k: new[k] for k in keys})


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


def _entry(game: Game, action: Action) -> tuple[Entry, str | None]:
    """The entry ``action`` makes (not yet applied), and the classic variant its check follows."""
    variant = getattr(action, "variant", None)
    kind = rules.of(game)
    if isinstance(action, Pay):
        return _pay(game, action), variant
    if isinstance(action, PayRent):
        return _rent(game, kind, action), variant
    if isinstance(action, Buy):
        return _buy(game, kind, action), variant
    if isinstance(action, (Build, SellBack, RemoveHazard)):
        return _works(game, kind, action), variant
    if isinstance(action, Salary):
        player = game.player(action.player, "PLAYER")
        return Entry("salary", Payment(None, player.name, kind.salary(game, player).amount)), variant
    if isinstance(action, PayTax):
        return _tax(game, kind, action), variant
    if isinstance(action, JailFine):
        return _to_bank(game, "fine", game.player(action.player, "PLAYER"), kind.jail_fine(game)), variant
    if isinstance(action, (Mortgage, Lift)):
        return _mortgage(game, kind, action), variant
    if isinstance(action, Trade):
        return _trade(game, kind, action), variant
    return _out(game, kind, action), variant


def _to_bank(
    game: Game, what: str, player: Player, amount: int, square: str | None = None, rent: bool = False
) -> Entry:
    """``player`` pays the bank ``amount`` (a tax, the fine), refused when the cash is short."""
    _afford(game, player, amount, rent)
    return Entry(what, Payment(player.name, None, amount), square=square)


def _pay(game: Game, action: Pay) -> Entry:
    payer = party(game, action.payer, where="PAYER")
    payee = party(game, action.payee, where="PAYEE")
    if payer is None and payee is None:
        raise refused("bank_to_bank")
    if payer == payee:
        raise refused("same_player", p=payer)
    if action.amount <= 0:
        raise refused("nothing_to_pay")
    if payer is not None:
        _afford(game, game.player(payer, "PAYER"), action.amount)
    note = action.note.strip() if action.note and action.note.strip() else None
    return Entry("pay", Payment(payer, payee, action.amount), note=note)


def _rent(game: Game, kind: Rules, action: PayRent) -> Entry:
    payer = game.player(action.payer, "PLAYER")
    square = kind.find(game, action.square, "SQUARE")
    tax = kind.tax_square(game, square)
    if tax is not None:
        return _to_bank(game, "tax", payer, tax, square)
    owner, holding = _owned(game, square)
    if owner.name == payer.name:
        raise refused("own_square", s=square, p=payer.name)
    if holding.mortgaged:
        raise refused("rent_mortgaged", s=square)
    if action.exemption:
        if not payer.exemption_card:
            raise refused("no_exemption_card", p=payer.name)
        change = Change(payer.name, field="exemption_card", before=True, after=False)
        return Entry("rent", Payment(payer.name, owner.name, 0), square=square, changes=(change,))
    report = kind.rent(game, square, action.dice)
    if report.needs_dice:  # a utility's owner charges by the throw
        raise ActionRefused(report.explanation[0])
    if report.rent <= 0:
        raise refused("nothing_to_pay")
    _afford(game, payer, report.rent, rent=True)
    return Entry("rent", Payment(payer.name, owner.name, report.rent), square=square)


def _buy(game: Game, kind: Rules, action: Buy) -> Entry:
    player = game.player(action.player, "PLAYER")
    square = kind.find(game, action.square, "SQUARE")
    held = game.holding(square)
    if held is not None:
        raise refused("already_owned", s=square, o=held[0].name)
    if action.price is None:
        price, what = kind.price(game, square), "buy"
    else:
        if kind.tax_square(game, square) is not None:
            raise refused("tax_square", s=square)
        if action.price < kind.auction_minimum:
            raise refused("auction_minimum", a=kind.amount(kind.auction_minimum))
        price, what = action.price, "auction"
    _afford(game, player, price)
    change = Change(player.name, square=square, before=None, after={})
    return Entry(what, Payment(player.name, None, price), square=square, changes=(change,))


def _works(game: Game, kind: Rules, action: Build | SellBack | RemoveHazard) -> Entry:
    """Buildings bought from the bank, sold back to it, or a hazard removed: the owner and the bank settle."""
    square = kind.find(game, action.square, "SQUARE")
    owner, holding = _owned(game, square)
    if isinstance(action, SellBack):
        proceeds, after = kind.sell_back(game, holding, action.houses, action.variant)
        return Entry("sell", Payment(None, owner.name, proceeds), square=square, changes=(_set(owner, holding, after),))
    if isinstance(action, RemoveHazard):
        (cost, after), what = kind.remove_hazard(game, holding), "hazard"
    else:
        (cost, after), what = kind.build(game, owner, holding, action), "build"
    _afford(game, owner, cost)
    changes = [_set(owner, holding, after)]
    if isinstance(action, Build) and action.tower:
        changes.append(Change(owner.name, field="tower", before=None, after=square))
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
    return _to_bank(game, "tax", player, amount)


def _mortgage(game: Game, kind: Rules, action: Mortgage | Lift) -> Entry:
    """A mortgage from the bank at the rules' value, or its lift (:func:`lift_cost`)."""
    square = kind.find(game, action.square, "SQUARE")
    owner, holding = _owned(game, square)
    lifting = isinstance(action, Lift)
    if holding.mortgaged != lifting:
        raise refused("not_mortgaged" if lifting else "already_mortgaged", s=square)
    change = _set(owner, holding, replace(holding, mortgaged=not lifting))
    if lifting:
        cost = lift_cost(game, square)
        _afford(game, owner, cost)
        return Entry("lift", Payment(owner.name, None, cost), square=square, changes=(change,))
    built = kind.built_in_group(game, owner, square)
    if built:
        raise refused("mortgage_sell_first", s=", ".join(built))
    value = kind.mortgage(game, square).value
    return Entry("mortgage", Payment(None, owner.name, value), square=square, changes=(change,))


def lift_cost(game: Game, square: str) -> int:
    """What lifting the mortgage of ``square`` costs, from what the bank paid for it (the history's last mortgage
    of it; the rules' value when the history does not have it): City, « le montant que la banque vous a versé
    auparavant » (the rent value may have changed since); classic, + 10 %."""
    kind = rules.of(game)
    paid = next((e.payment.amount for e in reversed(game.history) if e.what == "mortgage" and e.square == square), None)
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
    _afford(game, buyer, action.price + interest)
    also = (Payment(buyer.name, None, interest),) if interest else ()
    main = Payment(buyer.name, seller.name, action.price)
    return Entry("trade", main, square=", ".join(squares) or None, also=also, changes=tuple(changes))


def _handed(
    game: Game, giver: Player, taker: str | None, holding: Holding, received: Holding, earlier: list[Change]
) -> list[Change]:
    """``holding`` leaving ``giver`` (at its place once the ``earlier`` changes took theirs) and, unless the
    bank takes it back (``taker`` None), coming to ``taker`` as ``received``; the Monopoly Tower goes with its
    district (« vous échangez/vendez également les bâtiments qui s'y trouvent »)."""
    gone = {c.square for c in earlier if c.player == giver.name and c.after is None and c.square}
    at = [h.name for h in giver.holdings if h.name not in gone].index(holding.name)
    changes = [Change(giver.name, square=holding.name, before=holding_data(holding), after=None, at=at)]
    if taker is not None:
        changes.append(Change(taker, square=holding.name, before=None, after=holding_data(received)))
    if giver.tower == holding.name:
        changes.append(Change(giver.name, field="tower", before=holding.name, after=None))
        if taker is not None:
            tower = next(p for p in game.players if p.name == taker).tower
            changes.append(Change(taker, field="tower", before=tower, after=holding.name))
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
        changes.append(Change(player.name, field="exemption_card", before=True, after=False))
    changes.append(Change(player.name, left=game.players.index(player)))
    also = [Payment(None, player.name, proceeds)] if proceeds else []
    if interest:
        also.append(Payment(creditor, None, interest))
    main = Payment(player.name, creditor, player.cash + proceeds)
    return Entry("out", main, also=tuple(also), changes=tuple(changes))


# --- short of cash: what the player can do ----------------------------------------------------------


def _afford(game: Game, player: Player, amount: int, rent: bool = False) -> None:
    """Refuse a payment ``player`` cannot make, saying what they can do: sell back, mortgage, the card."""
    if player.cash >= amount:
        return
    kind = rules.of(game)

    def priced(name: str, value: int) -> Text:
        return Text("bank.priced", s=name, a=kind.amount(value))

    options: list[Text] = []
    if "sell" not in kind.lacks:
        built = [(h.name, kind.sell(game, h.name, None).amount) for h in player.holdings]
        sell = [priced(name, value) for name, value in built if value]
        if sell:
            options.append(Text("bank.can_sell", s=Joined(sell)))
    can = [priced(h.name, kind.mortgage(game, h.name).value) for h in player.holdings if not h.mortgaged]
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


def describe(game: Game, entry: Entry) -> Text:
    """One line for the table: « Bruno → Alice · M 600k · loyer de Docks »."""
    kind = rules.of(game)
    key = entry.what
    if key == "rent" and any(c.field == "exemption_card" for c in entry.changes):
        key = "rent_exempt"
    elif key == "tax" and entry.square:
        key = "tax_square"
    elif key == "trade" and not entry.square:
        key = "trade_money"
    what: Text | str = Text(f"bank.what.{key}", s=entry.square or "", p=entry.payment.payer or "")
    if entry.note:
        what = entry.note if entry.what == "pay" else Phrase(what, f" ({entry.note})")
    payment = entry.payment
    parts = [_party_name(payment.payer), " → ", _party_name(payment.payee), " · ", kind.amount(payment.amount)]
    parts += [" · ", what]
    for p in entry.also:
        parts += [" · ", _party_name(p.payer), " → ", _party_name(p.payee), " ", kind.amount(p.amount)]
    return Phrase(*parts)


def describe_changes(entry: Entry) -> list[Text]:
    """The position changes of ``entry``, one line each: « Docks : résidentiels 3 → 4 »."""
    lines: list[Text] = []
    for c in entry.changes:
        if c.left is not None:
            lines.append(Text("bank.change.left", p=c.player))
        elif c.field is not None:
            lines.append(Text(f"bank.change.{c.field}", p=c.player, b=_value(c.before), a=_value(c.after)))
        elif c.before is None:
            lines.append(Text("bank.change.gained", p=c.player, s=c.square))
        elif c.after is None:
            lines.append(Text("bank.change.lost", p=c.player, s=c.square))
        else:
            keys = [k for k in {**c.before, **c.after} if c.before.get(k) != c.after.get(k)]
            parts = [
                Phrase(Text(f"bank.key.{k}"), " ", _value(c.before.get(k), k), " → ", _value(c.after.get(k), k))
                for k in dict.fromkeys(keys)
            ]
            lines.append(Text("bank.change.fields", s=c.square, f=Joined(parts)))
    return lines


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
    """An entry as JSON: plain names (null for the bank), integer amounts."""
    out: dict[str, Any] = {
        "what": entry.what,
        "square": entry.square,
        "from": entry.payment.payer,
        "to": entry.payment.payee,
        "amount": entry.payment.amount,
        "for": entry.note,
        "also": [{"from": p.payer, "to": p.payee, "amount": p.amount} for p in entry.also],
        "changes": [
            {k: v for k, v in vars(c).items() if v is not None or (k in ("before", "after") and c.left is None)}
            for c in entry.changes
        ],
    }
    return out
