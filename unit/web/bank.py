"""The table's bank on the phone (issue 22): every money movement in one tap, undone from the history.

Routes (docs/phone.en.md, « The bank for an evening »)::

    POST /games/{name}/bank    one bank action (``action`` and its fields), from the version the page showed
    GET  /games/{name}/sale    the offer to record the auction the box just ended (a fragment of the game page;
                               204 when there is none, or for a phone not paired)

No rule lives here: the form becomes one of :mod:`unit.calculator.bank`'s actions, which the bank checks and
turns into a history entry (or refuses with the rule's sentence, and when the cash is short with what the
player can do); the game file is written with :func:`unit.calculator.position.dumps`, as ``monopoly-city
pay/buy/build/undo`` write it, so the page and the command line keep the same file.

Every form carries the version of the file the page showed: a tap from an older page (another phone paid
meanwhile, or the same tap sent twice) is refused with 409 and the page as it is now, so nothing is ever paid
twice. Taking several entries back, a bankruptcy and removing a player ask first (a second tap on the page
that says what will happen).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from unit import fields, i18n
from unit.calculator import bank, money
from unit.calculator import position as positions
from unit.errors import Text, UserError, said
from unit.web import bank_page, game
from unit.web.common import Form, language_of, page, see_other, web_of, whole, words_of
from unit.web.store import Changed

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
#: Forms that ask first: what the page says before the second tap.
ASK_FIRST = ("undo", "out", "drop")


class Refusal(Exception):
    """A tap refused: the sentence, the page's field it is about, and the status."""

    def __init__(self, message: str, field: str = "", status: int = 400):
        super().__init__(message)
        self.message = message
        self.field = field
        self.status = status


# --- the form, as one of the bank's actions -----------------------------------------------------------


def player_name(game_: positions.Game, text: str | None, language: str) -> str:
    """The name of the player a form names by their place at the table (never a typed name)."""
    place = whole(text, len(game_.players))
    if place is None:
        raise Refusal(i18n.words(language)("web.calc.no_player"))
    return game_.players[place].name


def party(game_: positions.Game, text: str, language: str) -> str | None:
    """A player by place, or None for the bank (``bank``)."""
    return None if text == "bank" else player_name(game_, text, language)


def amount_of(game_: positions.Game, text: str, field: str, language: str) -> int:
    """An amount as the table writes it (``600k``, ``1,5M``, ``200``)."""
    try:
        return money.parse(text.strip(), field, language)
    except UserError as error:
        raise Refusal(said(error.message, i18n.words(language)), field) from None


def action_of(game_: positions.Game, form: Form, language: str) -> tuple[bank.Action, str]:
    """The bank's action the form asks for, and the page's field a refusal is about."""
    what = form.get("action", "")
    variant = game.variant_of(game_, form.get("variant"))
    if what == "square":
        square, op = form.get("square", ""), form.get("op", "")
        if op not in CARD_OPS:
            raise Refusal(i18n.words(language)("web.calc.unknown_action"))
        return CARD_OPS[op](square, variant), f"h-{square}"
    if what == "rent":
        exempt = form.get("exempt", "")
        payer = player_name(game_, exempt or form.get("payer"), language)
        dice_text = form.get("dice", "")
        dice = int(dice_text) if dice_text.isascii() and dice_text.isdigit() and len(dice_text) < 3 else None
        return bank.PayRent(payer, form.get("square", ""), dice, exemption=bool(exempt)), "rent"
    if what == "auction":
        price = amount_of(game_, form.get("price", ""), "sale-price", language)
        return bank.Buy(player_name(game_, form.get("player"), language), form.get("square", ""), price), "sale"
    index = form.get("player", "")
    player = player_name(game_, index, language)
    if what == "buy":
        return bank.Buy(player, form.get("square", "")), f"buy-{index}"
    if what == "player":
        op = form.get("op", "")
        if op == "salary":
            return bank.Salary(player), f"player-{index}"
        if op == "tax":
            return bank.PayTax(player), f"player-{index}"
        if op.startswith("tax:"):
            return bank.PayRent(player, op.removeprefix("tax:")), f"player-{index}"
        if op == "fine":
            return bank.JailFine(player), f"player-{index}"
    if what == "transfer":
        direction, _, other = form.get("to", "").partition(":")
        if direction not in ("to", "from"):
            raise Refusal(i18n.words(language)("web.calc.unknown_action"), f"transfer-{index}")
        them = party(game_, other, language)
        amount = amount_of(game_, form.get("amount", ""), f"transfer-{index}", language)
        note = form.get("note", "").strip()[:80] or None
        if note is not None and not note.isprintable():  # a newline, an escape code: refused, never kept escaped
            line = said(Text("errors.expected_one_line", got=fields.got(note)), i18n.words(language))
            raise Refusal(line, f"transfer-{index}")
        if direction == "to":
            return bank.Pay(player, them, amount, note), f"transfer-{index}"
        return bank.Pay(them, player, amount, note), f"transfer-{index}"
    if what == "out":
        creditor = form.get("creditor", "bank")
        return bank.Out(player, party(game_, creditor, language)), f"player-{index}"
    raise Refusal(i18n.words(language)("web.calc.unknown_action"))


# --- the endpoints ------------------------------------------------------------------------------------


def act(request: Request, form: Form) -> Response:
    """One bank action from the version the page showed: applied and written, or refused with the rule's sentence."""
    web = web_of(request)
    store = web.store
    name = request.path_params["name"]
    loaded = game.load(request, name)
    lang, w = language_of(request), words_of(request)
    what = form.get("action", "")
    if form.get("version") != loaded.version:  # another phone paid meanwhile, or this tap was sent twice
        return refused(request, loaded, form, Refusal(w("web.bank.changed"), "", 409))
    try:
        if what == "dismiss":
            settle(request, form)
            return back_to_game(name, form, {})
        if what == "buy" and form.get("op") == "auction":  # declined at the printed price: the box's auction next
            expect(request, name, form.get("square", ""))
            return back_to_game(name, form, {})
        count = undo_count(form)
        if what in ASK_FIRST and form.get("confirm") != "1" and not (what == "undo" and count == 1):
            return ask_first(request, loaded, form)
        if what == "undo":
            after, undone = bank.undo(loaded.game, count)
            query = {"undone": str(len(undone))}
        elif what == "drop":
            after = game.change(loaded, {"action": "drop", "player": form.get("player", "")}, web, lang)
            query = {}
        else:
            action, field = action_of(loaded.game, form, lang)
            try:
                after, _entry = bank.apply(loaded.game, action)
            except UserError as error:  # the rule's sentence (bank.ActionRefused), or a name the edition lacks
                raise Refusal(said(error.message, bank_page.page_words(w)), field) from None
            query = {"done": str(len(after.history))}
    except Refusal as refusal:
        return refused(request, loaded, form, refusal)
    except game.FieldError as error:
        return refused(request, loaded, form, Refusal(error.message, error.field))
    except UserError as error:
        return refused(request, loaded, form, Refusal(said(error.message, bank_page.page_words(w))))
    try:
        text = positions.dumps_after(loaded.text, loaded.game, after, loaded.edition_ref, loaded.written)
        version = store.write("game", name, text, loaded.version)
    except Changed:
        return refused(request, loaded, form, Refusal(w("web.bank.changed"), "", 409))
    except UserError as error:  # too large for the command line, or the disk refused it: nothing written
        return refused(request, loaded, form, Refusal(error.say(w), "", 507))
    web.games.keep(name, version, lang, after, loaded.edition_ref, written=True)  # the page that follows reads it
    if what == "auction":
        settle(request, form)
    return back_to_game(name, form, query)


def sale_fragment(request: Request) -> Response:
    """The offer to record the auction the box just ended, for the game page to show without a reload."""
    loaded = game.load(request, request.path_params["name"])
    offer = bank_page.sale_offer(request, loaded.name, loaded.game)
    if offer is None:
        return Response(status_code=204, headers={"Cache-Control": "no-store"})
    return page(request, "bank_sale", game_name=loaded.name, version=loaded.version, game=loaded.game, sale=offer)


# --- answers --------------------------------------------------------------------------------------------


def back_to_game(name: str, form: Form, query: dict[str, str]) -> Response:
    """The game page after a tap: the entry just recorded shown with its undo, back at the card tapped."""
    if form.get("variant") in game.VARIANTS:
        query = {"variant": form["variant"]} | query
    anchor = form.get("anchor", "")
    return see_other(
        f"/games/{name}" + (f"?{urlencode(query)}" if query else "") + (f"#{anchor}" if anchor.isalnum() else "")
    )


def refused(request: Request, loaded: game.Loaded, form: Form, refusal: Refusal) -> Response:
    """The page the tap came from, as the file is now, saying why nothing was paid."""
    if form.get("back") == "rent":
        return game.show_rent(
            request, loaded, form.get("square", ""), form.get("dice", ""), refusal.message, refusal.status
        )
    error = game.FieldError(refusal.message, refusal.field)
    return game.show_game(request, loaded, form.get("variant"), error, refusal.status)


def ask_first(request: Request, loaded: game.Loaded, form: Form) -> Response:
    """The game page with what the tap will do, and the second tap that does it (the same form, confirmed)."""
    lang, w = language_of(request), words_of(request)
    what = form["action"]
    game_ = loaded.game
    lines: list[Text] = []
    if what == "undo":
        count = undo_count(form)
        if not 0 < count <= len(game_.history):
            bank.undo(game_, count)  # the bank's own refusal: how many there are
        entries = game_.history[-count:]
        title = w("web.bank.ask_undo", n=count)
        lines = [bank.describe(game_, e) for e in reversed(entries)]  # said by the page
    elif what == "out":
        player = player_name(game_, form.get("player"), lang)
        creditor = party(game_, form.get("creditor", "bank"), lang)
        title = w("web.bank.ask_out", p=player, c=creditor or w("web.bank.the_bank"))
    else:
        title = w("web.bank.ask_drop", p=player_name(game_, form.get("player"), lang))
    fields = {k: v for k, v in form.items() if k not in ("csrf", "confirm")}
    confirm = {"title": title, "lines": lines, "fields": fields}
    return game.show_game(request, loaded, form.get("variant"), None, 200, confirm=confirm)


def undo_count(form: Form) -> int:
    """How many entries an undo takes back (1 when the form does not say; 0 for what is not a count)."""
    text = form.get("count", "1")
    return int(text) if text.isascii() and text.isdigit() and len(text) < 5 else 0


def expect(request: Request, name: str, square: str) -> None:
    """The square the next auction sells on this game: the sale's offer comes with it chosen."""
    sales: bank_page.Sales | None = getattr(request.app.state, "sales", None)
    if sales is not None:
        sales.expect(name, square)


def settle(request: Request, form: Form) -> None:
    sales: bank_page.Sales | None = getattr(request.app.state, "sales", None)
    number = form.get("sale", "")
    if sales is not None and number.isascii() and number.isdigit() and len(number) < 10:
        sales.settle(int(number))
