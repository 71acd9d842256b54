"""What the game's views show of the table's bank (issue 22): the taps with their prices, the history, the sale.

The views (:mod:`unit.web.table`) and the rent page (:mod:`unit.web.reports`) ask this module for the bank's part
of their values; the taps post to :mod:`unit.web.bank`, which applies them with :mod:`unit.calculator.bank`.
Nothing here decides what is allowed: a price on a button is read from the edition and the rule modules
(the same figures the bank will take), and a tap the rules refuse comes back with the rule's sentence.

It also keeps the auctions the box ended (:class:`Sales`): the hub's records, watched by one task for
as long as the service runs, turn a countdown that ends in anything but « ANNULÉ » into a sale a paired
phone is offered to record (which square, who, at what price); nothing is recorded without a tap.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from unit import i18n
from unit.calculator import bank, city, classic
from unit.calculator import history as histories
from unit.calculator import position as positions
from unit.calculator.edition import CityEdition, ClassicEdition, Street
from unit.calculator.rulebook import RentReport, Rules
from unit.errors import Say, Text, UserError
from unit.web.common import language_of, paired, session, web_of, whole
from unit.web.hub import UnitHub

#: The taps on a card (``op``) and the bank's action each makes for the card's square.
CARD_OPS: dict[str, Callable[[str, str | None], bank.Action]] = {
    "residential": lambda s, v: bank.Build(s, residential=1),
    "industrial": lambda s, v: bank.Build(s, industrial=1),
    "skyscraper": lambda s, v: bank.Build(s, skyscraper=True),
    "stadium": lambda s, v: bank.Build(s, stadium=True),
    "tower": lambda s, v: bank.Build(s, tower=True),
    "house": lambda s, v: bank.Build(s, houses=1, variant=v),
    "hotel": lambda s, v: bank.Build(s, hotel=True, variant=v),
    "sell_one": lambda s, v: bank.SellBack(s, 1, v),
    "sell_all": lambda s, v: bank.SellBack(s, None, v),
    "hazard": lambda s, v: bank.RemoveHazard(s),
    "mortgage": lambda s, v: bank.Mortgage(s),
    "lift": lambda s, v: bank.Lift(s),
}


def page_words(words: i18n.Words) -> Say:
    """``words``, except the bank's sentences that name a command line's option or verb (``--exemption``,
    ``monopoly-city out``): the page says its own (``web.bank.said.*``: what to tap). The rules return the same
    :class:`Text` to both; the words are chosen where they are said."""

    def say(key: str, /, **values: object) -> str:
        own = "web.bank.said." + key.removeprefix("bank.")
        return words(own if key.startswith("bank.") and own in words else key, **values)

    return say


#: The history shown on its view (newest first); ``?history=all`` shows every entry.
HISTORY_SHOWN = 30
#: The most entries ``?undone=K`` may say were taken back (an undo takes at most 9,999: unit/web/bank.py).
MAX_UNDONE = 10_000
#: The states of a running countdown (docs/simulate.md, the ``state`` records).
COUNTING = ("countdown", "warning")
#: A countdown that ends in one of these ended an auction (``time_up``: the game's end came during it).
ENDED = ("ready", "time_up")


@dataclass(frozen=True)
class Tap:
    """One bank action offered on the page: the value its button posts (``op``) and its words with the price."""

    op: str
    label: str
    money: str = ""  # the amount, signed for the player: « + M 1,2M » received, « M 250k » paid


@dataclass(frozen=True)
class Line:
    """One entry of the history as the page shows it: its number (1 the oldest) and its words (said by the
    template, in the reader's language)."""

    n: int
    text: Text


# --- the prices on the buttons ------------------------------------------------------------------------


def card_taps(
    game: positions.Game, kind_rules: Rules, player: positions.Player, holding: Any, variant: str | None, lang: str
) -> list[Tap]:
    """The bank's taps on one holding's card: build, sell back, mortgage or lift, remove a hazard (``kind_rules``:
    the game's rules, as the request looked them up)."""
    w = i18n.words(lang)

    def fmt(amount: int | None) -> str:
        return "" if amount is None else kind_rules.write(amount, w)

    taps: list[Tap] = []
    edition = game.edition
    if isinstance(edition, CityEdition):
        district = edition.districts[holding.district]
        if holding.mortgaged:
            lift = _quiet(lambda: bank.lift_cost(game, district.name, kind_rules))
            return [Tap("lift", w("web.bank.lift"), fmt(lift))]
        taps.append(Tap("residential", w("web.bank.residential"), fmt(district.residential_cost)))
        taps.append(Tap("industrial", w("web.bank.industrial"), fmt(district.industrial_cost)))
        if not holding.skyscraper:
            cost = edition.groups[district.group].skyscraper_cost
            taps.append(Tap("skyscraper", w("web.bank.skyscraper"), fmt(cost)))
        if not holding.stadium:
            taps.append(Tap("stadium", w("web.bank.stadium"), fmt(city.STADIUM_COST)))
        if not any(p.tower for p in game.players):
            taps.append(Tap("tower", w("web.bank.tower"), fmt(city.TOWER_COST)))
        if holding.hazard is not None:
            cost = _quiet(lambda: kind_rules.remove_hazard(game, holding)[0])
            taps.append(Tap("hazard", w("web.bank.remove_hazard", h=w(f"web.calc.hazard_{holding.hazard}")), fmt(cost)))
        value = _quiet(lambda: kind_rules.mortgage(game, district.name).value)
        taps.append(Tap("mortgage", w("web.bank.mortgage"), "+ " + fmt(value) if value is not None else ""))
        return taps
    assert isinstance(edition, ClassicEdition)
    square = holding.square
    if holding.mortgaged:
        return [Tap("lift", w("web.bank.lift"), fmt(_quiet(lambda: bank.lift_cost(game, square, kind_rules))))]
    deed = edition.squares[square]
    if isinstance(deed, Street):
        if not holding.hotel and holding.houses < 4:
            taps.append(Tap("house", w("web.bank.house"), fmt(deed.house_cost)))
        if not holding.hotel and holding.houses == classic.houses_per_hotel(edition, variant):
            taps.append(Tap("hotel", w("web.bank.hotel"), fmt(deed.house_cost)))
        if holding.houses or holding.hotel:
            one = _quiet(lambda: kind_rules.sell_back(game, holding, 1, variant)[0])
            taps.append(Tap("sell_one", w("web.bank.sell_one"), "+ " + fmt(one)))
            worth = _quiet(lambda: kind_rules.sell(game, square, variant).amount)
            taps.append(Tap("sell_all", w("web.bank.sell_all"), "+ " + fmt(worth) if worth is not None else ""))
    value = _quiet(lambda: kind_rules.mortgage(game, square).value)
    taps.append(Tap("mortgage", w("web.bank.mortgage"), "+ " + fmt(value) if value is not None else ""))
    return taps


def player_taps(game: positions.Game, kind_rules: Rules, player: positions.Player, lang: str) -> list[Tap]:
    """The bank's taps for one player: the GO salary, a tax, the jail fine."""
    w = i18n.words(lang)

    def fmt(amount: int | None) -> str:
        return "" if amount is None else kind_rules.write(amount, w)

    salary = _quiet(lambda: kind_rules.salary(game, player).amount)
    taps = [Tap("salary", w("web.bank.salary"), "+ " + fmt(salary) if salary is not None else "")]
    tax = _quiet(lambda: kind_rules.industry_tax(game, player).amount)  # City's: classic has none (it refuses)
    if tax or (tax is None and game.kind == "city"):  # None in City: its amount not copied yet (the tap asks it)
        taps.append(Tap("tax", w("web.bank.industry_tax"), fmt(tax)))
    for place in kind_rules.places(game):  # classic's tax squares
        if place.kind == "tax":
            taps.append(Tap(f"tax:{place.name}", place.name, fmt(kind_rules.tax_square(game, place.name))))
    taps.append(Tap("fine", w("web.bank.fine"), fmt(kind_rules.jail_fine(game))))
    return taps


def for_sale(game: positions.Game, kind_rules: Rules, lang: str) -> list[tuple[str, str]]:
    """The squares nobody holds, in board order, each with its printed price: (name, « Docks · M 1,2M »)."""
    owners = game.owners()
    w = i18n.words(lang)
    out = []
    for place in kind_rules.places(game):
        if place.kind != "tax" and place.name not in owners:
            price = _quiet(functools.partial(kind_rules.price, game, place.name))
            out.append((place.name, place.name + ("" if price is None else f" · {kind_rules.write(price, w)}")))
    return out


def _quiet(compute: Callable[[], int | None]) -> int | None:
    """A price the page shows, or None when the edition lacks it (the tap then says which field is missing)."""
    try:
        return compute()
    except UserError:
        return None


# --- the history ------------------------------------------------------------------------------------


class Said(Text):
    """A history line said once in ``language`` (kept, :class:`~unit.web.caches.PartCache`): the page says it again
    as it was said; another language says the words afresh."""

    __slots__ = ("text", "language", "said")

    def __init__(self, text: Text, language: str, said: str):
        super().__init__(text.key, **text.values)
        self.text = text
        self.language = language
        self.said = said

    def say(self, words: Say) -> str:
        return self.said if getattr(words, "language", None) == self.language else self.text.say(words)


#: Where history lines are kept: ``keep(key, make)`` gives the value kept under ``key``, or ``make()`` kept
#: (``web.parts.lines.get``, :class:`unit.web.caches.Lru`).
Keep = Callable[[Hashable, Callable[[], "tuple[histories.Entry, Said]"]], "tuple[histories.Entry, Said]"]


def line(game: positions.Game, kind: Rules, n: int, lang: str, lines: Keep | None = None) -> Line:
    """Entry ``n`` of the history (1 the oldest) in words, said in ``lang``: kept in ``lines`` by the entry itself
    (its words follow from it, the game's kind and the language alone), so a page of a long evening says only the
    entries it has not said yet."""
    entry = game.history[n - 1]

    def say() -> tuple[histories.Entry, Said]:
        text = bank.describe(game, entry, kind)
        return entry, Said(text, lang, text.say(i18n.words(lang)))

    if lines is None:
        return Line(n, say()[1])
    # The key holds the entry's identity, and the value the entry: no other entry can take its id while it is kept.
    kept, said = lines(("line", game.kind, lang, id(entry)), say)
    return Line(n, said if kept is entry else say()[1])


def history(
    game: positions.Game, kind: Rules, everything: bool = False, lang: str = "fr", lines: Keep | None = None
) -> list[Line]:
    """The history newest first, in words (« Bruno → Alice · M 600k · loyer de Docks »)."""
    entries = game.history
    first = 0 if everything else max(0, len(entries) - HISTORY_SHOWN)
    return [line(game, kind, n, lang, lines) for n in range(len(entries), first, -1)]


def history_values(
    game: positions.Game, kind: Rules, query: dict[str, str], lang: str, lines: Keep | None = None
) -> dict[str, Any]:
    """The bank's part of every view that follows from the history: its newest entries, and the entry just
    recorded (``?done=N``, N the history's length then) or the count just undone (``?undone=K``)."""
    last = None
    if game.history and whole(query.get("done"), len(game.history) + 1) == len(game.history):
        last = line(game, kind, len(game.history), lang, lines)
    return {
        "bank_history": history(game, kind, query.get("history") == "all", lang, lines),
        "bank_entries": len(game.history),
        "bank_last": last,
        "bank_undone": whole(query.get("undone"), MAX_UNDONE) or 0,
    }


def undone_said(request: Request, name: str, version: str) -> list[str]:
    """What the last undo on game ``name`` took back and what moved, as ``monopoly-city undo`` says it
    (:func:`unit.calculator.bank.undone_lines`), while the file is still the version it wrote; nothing otherwise
    (written since, or the service restarted): the page then says only how many entries were taken back."""
    kept = web_of(request).undone.get(name)
    if kept is None or kept[0] != version:
        return []
    say = page_words(i18n.words(language_of(request)))
    return [line.say(say) for line in kept[1]]


def rent_refusal(game: positions.Game, kind: Rules, report: RentReport | None, dice: int | None = None) -> Text | None:
    """Why the bank takes no rent on the report's square now, from anyone, the cash aside (« … est hypothéqué : pas
    de loyer »); None when it takes one: the bank's own refusal (:func:`unit.calculator.bank.allows`, thrown ``dice``
    for a utility), so that no payment is offered that the bank then refuses."""
    if report is None or report.square is None or report.needs_dice:
        return None
    payer = next((p.name for p in game.players if p.name != report.owner), None)
    if payer is None:
        return None
    refusal = bank.allows(game, bank.PayRent(payer, report.square, dice), kind)
    return None if refusal is None else refusal.text


def payers(
    game: positions.Game, kind: Rules, report: RentReport | None, lang: str, dice: int | None = None
) -> list[dict[str, Any]]:
    """The rent page's one-tap payments: for each player but the owner, « Bruno paie M 600k à Alice » (and the
    rent-exemption card for its holder, City); none when the bank takes no rent there (:func:`rent_refusal`)."""
    if (
        report is None
        or report.square is None
        or report.needs_dice
        or rent_refusal(game, kind, report, dice) is not None
    ):
        return []
    w = i18n.words(lang)
    amount = kind.write(report.rent, w)
    to = report.owner or w("web.bank.the_bank")
    out = []
    for i, player in enumerate(game.players):
        if player.name == report.owner:
            continue
        out.append({"index": i, "label": w("web.bank.pays_rent", p=player.name, a=amount, o=to), "exempt": False})
        if report.exemption_card and player.exemption_card:
            out.append({"index": i, "label": w("web.bank.exempt_rent", p=player.name), "exempt": True})
    return out


# --- the auctions the box ended ----------------------------------------------------------------------


@dataclass(frozen=True)
class Sale:
    """An auction the box ended: its number since the service started, when (the service's monotonic clock and
    the unit's own ``t``)."""

    number: int
    at: float
    t: float | None


class Sales:
    """The last auction the box ended and nobody has recorded or dismissed yet, from the hub's records.

    A countdown (``state`` ``countdown`` or ``warning``) that changes to ``ready`` or ``time_up`` ended an
    auction; the ``cancelled`` sound at the same instant means a long press called it off (at the game's end
    a cancellation cannot be told from a sale: the offer is made, and a person dismisses it). Read by the pages
    on worker threads, fed on the event loop: one lock.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self._lock = threading.Lock()
        self._state: str | None = None
        self._count = 0
        self._pending: Sale | None = None
        self._expected: tuple[str, str] | None = None  # (game, square) the bank put up for auction

    def see(self, record: dict[str, Any]) -> None:
        """One record from the unit, in order."""
        kind = record.get("kind")
        with self._lock:
            if kind == "snapshot":
                self._state = record.get("state")
            elif kind == "unit" and not record.get("connected"):
                self._state = None
            elif kind == "state":
                state = record.get("state")
                if self._state in COUNTING and state in ENDED:
                    self._count += 1
                    t = record.get("t")
                    self._pending = Sale(self._count, self.clock(), t if isinstance(t, int | float) else None)
                self._state = state if isinstance(state, str) else None
            elif kind == "sound" and record.get("name") == "cancelled":
                if self._pending is not None and self._pending.t == record.get("t"):
                    self._pending = None

    def pending(self) -> Sale | None:
        with self._lock:
            return self._pending

    def expect(self, game: str, square: str) -> None:
        """The square the banker put up for auction on ``game`` (declined at its printed price)."""
        with self._lock:
            self._expected = (game, square)

    def expected(self, game: str) -> str | None:
        with self._lock:
            return self._expected[1] if self._expected is not None and self._expected[0] == game else None

    def settle(self, number: int) -> None:
        """Sale ``number`` was recorded or dismissed: no phone offers it again."""
        with self._lock:
            if self._pending is not None and self._pending.number == number:
                self._pending = None
                self._expected = None


async def watch(hub: UnitHub, sales: Sales) -> None:
    """Feed ``sales`` every record the hub receives, for as long as the service runs (a stream the hub drops for
    falling behind is taken again: it starts with a snapshot)."""
    while True:
        subscriber = hub.subscribe()
        try:
            while (record := await subscriber.queue.get()) is not None:
                sales.see(record)
        finally:
            hub.unsubscribe(subscriber)
        await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def watching(hub: UnitHub, sales: Sales) -> Any:
    """:func:`watch` as a task for the application's lifespan."""
    task = asyncio.create_task(watch(hub, sales))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def offer(sales: Sales, name: str, game: positions.Game, kind: Rules, lang: str) -> dict[str, Any] | None:
    """The sale a paired phone is offered to record: its number, how long ago, the squares for sale (the one put up
    for auction chosen)."""
    sale = sales.pending()
    if sale is None:
        return None
    w = i18n.words(lang)
    seconds = max(0, int(sales.clock() - sale.at))
    ago = w("web.bank.ago_s", n=seconds) if seconds < 120 else w("web.bank.ago_min", n=seconds // 60)
    return {"number": sale.number, "ago": ago, "squares": for_sale(game, kind, lang), "square": sales.expected(name)}


def sale_offer(request: Request, name: str, game: positions.Game, kind: Rules) -> dict[str, Any] | None:
    """The auction sale this phone is offered to record: a paired phone only, while one is pending."""
    sales: Sales | None = getattr(request.app.state, "sales", None)
    if sales is None or not paired(request, session(request)):
        return None
    return offer(sales, name, game, kind, language_of(request))
