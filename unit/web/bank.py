"""Every write of a game on the phone (issues 22, 27, 28): the bank's taps and the corrections, each one entry of the
history, all through the one write path the command line uses (:func:`unit.calculator.gamefile.record`).

Routes (docs/phone.en.md, « The bank for an evening »)::

    POST /games/{name}         one correction (``action``: cash, buy, give, set, tower, exemption, player, drop),
                               from the version the page showed
    POST /games/{name}/bank    one bank action (``action`` and its fields), from the version the page showed
    GET  /games/{name}/sale    the offer to record the auction the box just ended (a fragment of the game page;
                               204 when there is none, or for a phone not paired)

No rule lives here: the form becomes one of :mod:`unit.calculator.actions`' actions, which the bank checks and turns
into a history entry (or refuses with the rule's sentence, and when the cash is short with what the player can do);
the game file is written by :mod:`unit.calculator.gamefile` (the game's folder locked against every other writer,
the page's version checked, the text verified to read back), as ``monopoly-city pay/buy/build/undo`` write it, so the
page and the command line keep the same file. A correction (« Corriger sans payer ») is an entry too: a cash
corrected, a holding's field, its owner, the station draw, a hazard or a bonus placed, the rent-exemption card, a
player joining or leaving with nothing; each has its line and its undo.

Every form carries the version of the file the page showed: a tap from an older page (another phone paid meanwhile,
the same tap sent twice, a form from before an undo: the file's revision rose) is refused with 409 and the page as it
is now, so nothing is ever paid twice. A refusal is one exception, :class:`TapRefused`, rendered by one handler
(:func:`refusal_page`, registered by :mod:`unit.web.app`). Taking several entries back, a bankruptcy and removing a
player ask first (a second tap on the page that says what will happen).
"""

from __future__ import annotations

from typing import TypeVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from unit import fields, i18n
from unit.calculator import actions, bank, gamefile, money
from unit.calculator import position as positions
from unit.calculator.actions import Action
from unit.calculator.history import COUNTS, Entry
from unit.calculator.rulebook import Rules
from unit.errors import Text, UserError, said
from unit.web import amounts, bank_page, cards, game, reports, table
from unit.web.common import Form, language_of, page, see_other, web_of, whole, words_of
from unit.web.store import make_room

T = TypeVar("T")

#: Forms that ask first: what the page says before the second tap.
ASK_FIRST = ("undo", "out", "drop")


class TapRefused(HTTPException):
    """A tap or a correction refused: the sentence, the view's control it is about (an element id: ``amount``,
    ``square``, ``fix``...), the status, and what the view is rendered from again (the game as it is now, the form as
    it was sent: what was typed stays). ``choices``: a question instead (« M 500 ou M 500k ? »), each answer's words
    and the value it sends as the form's field ``field_name``."""

    def __init__(
        self,
        message: str,
        field: str = "",
        status: int = 400,
        choices: tuple[tuple[str, str], ...] = (),
        field_name: str = "",
    ):
        super().__init__(status, message)
        self.message = message
        self.field = field
        self.status = status
        self.choices = choices
        self.field_name = field_name
        self.loaded: game.Loaded | None = None
        self.form: Form = {}
        self.error: UserError | None = None  # the calculator's refusal it says, when it says one


def refusal_page(request: Request, exc: Exception) -> Response:
    """The one handler of :class:`TapRefused`: the view the tap came from, as the file is now, saying why nothing was
    paid beside the control, what was typed kept (:func:`unit.web.table.refusal_view`); the rent page for a rent
    tapped there."""
    assert isinstance(exc, TapRefused)
    loaded = exc.loaded if exc.loaded is not None else game.load(request, request.path_params["name"])
    form = exc.form
    if form.get("back") == "rent":
        return reports.show_rent(request, loaded, form.get("square", ""), form.get("dice", ""), exc.message, exc.status)
    said_ = table.ViewRefusal(exc.message, exc.field)
    if exc.choices:  # a question instead: the same form, each answer in place of what was typed, posted back to
        fields = tuple((k, v) for k, v in form.items() if k not in ("csrf", exc.field_name))  # where the tap went
        said_ = table.ViewRefusal(exc.message, exc.field, exc.choices, fields, exc.field_name, request.url.path)
    return table.refusal_view(request, loaded, form, said_, exc.status)


# --- the form, as one of the bank's actions -----------------------------------------------------------


def player_name(game_: positions.Game, text: str | None, language: str) -> str:
    """The name of the player a form names by their place at the table (never a typed name)."""
    place = whole(text, len(game_.players))
    if place is None:
        raise TapRefused(i18n.words(language)("web.calc.no_player"))
    return game_.players[place].name


def party(game_: positions.Game, text: str, language: str) -> str | None:
    """A player by place, or None for the bank (``bank``)."""
    return None if text == "bank" else player_name(game_, text, language)


def amount_of(game_: positions.Game | None, text: str, field: str, language: str, name: str = "amount") -> int:
    """An amount as the table writes it (``600k``, ``1,5M``, ``200``); in a City game a slip asked back
    (:mod:`unit.web.amounts`: « M 500 ou M 500k ? », both answers a tap); a negative amount refused with the command
    line's sentence (:func:`unit.calculator.money.parse`)."""
    try:
        amount = money.parse(text.strip(), field, language)
    except UserError as error:
        raise TapRefused(said(error.message, i18n.words(language)), field) from None
    slip = None if game_ is None else amounts.slip(game_, text, amount, language)
    if slip is not None:
        question, choices = slip
        raise TapRefused(question, field, 400, choices, name)
    return amount


def action_of(game_: positions.Game, kind: Rules, form: Form, language: str) -> tuple[Action, str]:
    """The bank's action the form asks for, and the page's field a refusal is about (``kind``: the game's rules)."""
    what = form.get("action", "")
    variant = game.variant_of(kind, form.get("variant"))
    if what == "square":
        square, op = form.get("square", ""), form.get("op", "")
        if op not in bank_page.CARD_OPS:
            raise TapRefused(i18n.words(language)("web.calc.unknown_action"))
        return bank_page.CARD_OPS[op](square, variant), "square"
    if what == "rent":
        exempt = form.get("exempt", "")
        payer = player_name(game_, exempt or form.get("payer"), language)
        dice_text = form.get("dice", "")
        dice = int(dice_text) if dice_text.isascii() and dice_text.isdigit() and len(dice_text) < 3 else None
        return actions.PayRent(payer, form.get("square", ""), dice, exemption=bool(exempt)), "rent"
    if what == "auction":
        price = amount_of(game_, form.get("price", ""), "sale-price", language, "price")
        return actions.Buy(player_name(game_, form.get("player"), language), form.get("square", ""), price), "sale"
    if what == "hand":
        return actions.RecordHandChange(), ""
    if what == "trade":
        seller = player_name(game_, form.get("seller"), language)
        buyer = player_name(game_, form.get("buyer"), language)
        squares = tuple(s for s in form.get("squares", "").split("\n") if s.strip())  # the command line's way
        squares += tuple(form[k] for k in ("square", *sorted(k for k in form if k.startswith("also-"))) if form.get(k))
        text = form.get("price", "").strip()
        price = amount_of(game_, text, "price", language, "price") if text else 0
        return actions.Trade(seller, buyer, squares, price), "trade"
    index = form.get("player", "")
    player = player_name(game_, index, language)
    if what == "buy":
        return actions.Buy(player, form.get("square", "")), "buy"
    if what == "player":
        op = form.get("op", "")
        if op == "salary":
            return actions.Salary(player), "player"
        if op == "tax":
            return actions.PayTax(player), "player"
        if op.startswith("tax:"):
            return actions.PayRent(player, op.removeprefix("tax:")), "player"
        if op == "fine":
            return actions.JailFine(player), "player"
    if what == "transfer":
        direction, _, other = form.get("to", "").partition(":")
        if direction not in ("to", "from"):
            raise TapRefused(i18n.words(language)("web.calc.unknown_action"), "amount")
        them = party(game_, other, language)
        amount = amount_of(game_, form.get("amount", ""), "amount", language)
        note = form.get("note", "").strip()[:80] or None
        if note is not None and not note.isprintable():  # a newline, an escape code: refused, never kept escaped
            line = said(Text("errors.expected_one_line", got=fields.got(note)), i18n.words(language))
            raise TapRefused(line, f"transfer-{index}")
        if direction == "to":
            return actions.Pay(player, them, amount, note), "amount"
        return actions.Pay(them, player, amount, note), "amount"
    if what == "out":
        creditor = form.get("creditor", "bank")
        return actions.Out(player, party(game_, creditor, language)), "leave"
    if what == "drop":
        return actions.RemovePlayer(player), "leave"
    raise TapRefused(i18n.words(language)("web.calc.unknown_action"))


def correction_of(game_: positions.Game, kind: Rules, form: Form, language: str) -> tuple[Action, str]:
    """The entry a correction (« Corriger sans payer ») makes: its action, and the page's field it is about."""
    what = form.get("action", "")
    if what == "player":
        return actions.AddPlayer(form.get("value", "")), "new-player"
    if what in ("cash", "buy", "tower", "exemption", "drop"):
        index = form.get("player", "")
        name = player_name(game_, index, language)
        if what == "cash":  # a cash set, not moved: ``500`` asked back in a City game, as ``join --cash 500`` is
            return actions.SetCash(name, amount_of(game_, form.get("value", ""), "cash", language, "value")), "cash"
        if what == "buy":
            return actions.Give(form.get("square", ""), name, unowned=True), "add"
        if what == "tower":
            return actions.SetTower(name, form.get("value") or None), "fix"
        if what == "exemption":  # « 1 »: the card to this player; else taken back from them (to Free Parking)
            if form.get("value") != "1" and not game_.players[int(index)].exemption_card:
                raise TapRefused(said(Text("bank.nothing_changes"), i18n.words(language)), "exemption")
            return actions.ExemptionCard(name if form.get("value") == "1" else None), "exemption"
        return actions.RemovePlayer(name), "leave"
    if what in ("set", "give"):
        square = form.get("square", "")
        field = "fix"  # the square view's folded corrections
        if what == "give":
            to = form.get("player", "")
            return actions.Give(square, None if to == "" else player_name(game_, to, language)), field
        key, value = form.get("key", ""), form.get("value", "")
        if "kv" in form:  # a tap on a card: « residential=4 »
            key, _, value = form["kv"].partition("=")
        return correction(square, key, value, kind, game.variant_of(kind, form.get("variant")), language), field
    raise TapRefused(i18n.words(language)("web.calc.unknown_action"))


def correction(square: str, key: str, text: str, kind: Rules, variant: str | None, language: str) -> Action:
    """One field of a holding as the page sends it: the station, a hazard, a bonus (placed or taken off), or another
    field corrected (a count, a flag)."""
    if key not in kind.holding_fields:
        raise TapRefused(i18n.words(language)("web.calc.unknown_action"))
    if key == "station":
        return actions.PlaceStation(square, text == "1")
    if key == "hazard":
        return actions.PlaceHazard(square, text or None)
    if key == "bonus":
        return actions.PlaceBonus(square, text or None)
    if key in COUNTS:
        text = text.strip()
        if not (text.isascii() and text.lstrip("-").isdigit() and len(text) < 6):
            raise TapRefused(said(Text("bank.count_range", f=Text(f"bank.key.{key}"), got=text), i18n.words(language)))
        return actions.Correct(square, key, int(text), variant)
    return actions.Correct(square, key, text == "1", variant)


# --- the one write path, as the pages take it -------------------------------------------------------------


def write(
    request: Request, loaded: game.Loaded, change: gamefile.Change[T], field: str, record_hand: bool = True
) -> gamefile.Recorded[T]:
    """``change`` written through :func:`unit.calculator.gamefile.record` from the version the page showed, the game
    the page read used as it is (kept), the phones' quota checked; kept again as written. A refusal is
    :class:`TapRefused` with its sentence and status (409: the game changed; 507: the disk or the quota).
    ``record_hand``: a change made by hand is recorded first (an undo says it instead, and the hand's own tap
    records it)."""
    web = web_of(request)
    store = web.store
    path = store.path("game", loaded.name)
    lang, w = language_of(request), words_of(request)
    try:
        done = gamefile.record(
            path,
            change,
            expected=loaded.version,
            kept=loaded.as_file(path),
            language=lang,
            load_edition=web.editions.load,
            reader=store.game_bytes,
            source=loaded.file,
            room=lambda size: make_room(store.root, path, size, store.quota),
            record_hand=record_hand,
        )
    except (gamefile.Changed, gamefile.Busy):
        raise TapRefused(w("web.bank.changed"), "", 409) from None
    except bank.HandChanged as error:  # the file edited by hand since: said, and its recording offered first
        choices = ((w("web.table.record_hand"), "hand"),)
        raise TapRefused(said(error.message, bank_page.page_words(w)), "history", 409, choices, "action") from None
    except UserError as error:  # the rule's sentence, a name the edition lacks, the disk, the quota
        refusal = TapRefused(said(error.message, bank_page.page_words(w)), field, gamefile.status(error))
        refusal.error = error
        raise refusal from None
    web.games.keep(loaded.name, done.file.version, lang, done.file.game, done.file.edition_ref, written=True)
    return done


def applying(action: Action) -> gamefile.Change[Entry]:
    """The write of one bank action, for :func:`write`."""

    def change(game_: positions.Game, kind: Rules) -> tuple[positions.Game, Entry]:
        return bank.apply(game_, action, kind)

    return change


def undoing(count: int) -> gamefile.Change[bank.Undone]:
    """The write of an undo of ``count`` entries, for :func:`write`."""

    def change(game_: positions.Game, kind: Rules) -> tuple[positions.Game, bank.Undone]:
        undone = bank.undo(game_, count, kind)
        return undone.game, undone

    return change


# --- the endpoints ------------------------------------------------------------------------------------


def act(request: Request, form: Form) -> Response:
    """One bank action from the version the page showed: applied and written, or refused with the rule's sentence."""
    name = request.path_params["name"]
    loaded = game.load(request, name)
    try:
        return _act(request, loaded, form)
    except TapRefused as refusal:
        refusal.loaded, refusal.form = loaded, form
        raise


def _act(request: Request, loaded: game.Loaded, form: Form) -> Response:
    lang, w = language_of(request), words_of(request)
    name = loaded.name
    what = form.get("action", "")
    if form.get("version") != loaded.version:  # another phone paid meanwhile, or this tap was sent twice
        raise TapRefused(w("web.bank.changed"), "", 409)
    if what == "dismiss":
        settle(request, form)
        return back_to_game(name, form, {})
    if what == "buy" and form.get("op") == "auction":  # declined at the printed price: the box's auction next
        square = form.get("square", "")
        expect(request, name, square)
        return back_to_game(name, form, {"auction": square})
    count = undo_count(form)
    if what in ASK_FIRST and form.get("confirm") != "1" and not (what == "undo" and count == 1):
        return ask_first(request, loaded, form)
    if what == "undo":  # what it took back and what moved, said by the page it goes back to
        undone = write(request, loaded, undoing(count), "", record_hand=False)
        web_of(request).undone[name] = (undone.file.version, bank.undone_lines(undone.result, undone.file.rules))
        query = {"undone": str(len(undone.result.entries))}
    else:
        action, field = action_of(loaded.game, loaded.rules, form, lang)
        try:
            done = write(request, loaded, applying(action), field, not isinstance(action, actions.RecordHandChange))
        except TapRefused as refusal:  # a City card's value the edition lacks: the card form asks for it
            asked = None if refusal.error is None else cards.ask(request, name, loaded.game, form, refusal.error)
            if asked is not None:
                return asked
            raise
        query = {"done": str(len(done.file.game.history))}
    if what == "auction":
        settle(request, form)
    return back_to_game(name, form, query)


def edit(request: Request, form: Form) -> Response:
    """One correction (« Corriger sans payer ») from the version the page showed: an entry of the history, with its
    line and its undo, or refused with the rule's sentence beside the field."""
    name = request.path_params["name"]
    loaded = game.load(request, name)
    lang, w = language_of(request), words_of(request)
    try:
        if form.get("version") != loaded.version:
            raise TapRefused(w("web.calc.changed"), "", 409)
        action, field = correction_of(loaded.game, loaded.rules, form, lang)
        done = write(request, loaded, applying(action), field)
    except TapRefused as refusal:
        refusal.loaded, refusal.form = loaded, form
        if refusal.status == 409:
            refusal.message = w("web.calc.changed")
        raise
    return back_to_game(name, form, {"done": str(len(done.file.game.history))})


def sale_fragment(request: Request) -> Response:
    """The offer to record the auction the box just ended, for the game page to show without a reload."""
    loaded = game.load(request, request.path_params["name"])
    offer = bank_page.sale_offer(request, loaded.name, loaded.game, loaded.rules)
    if offer is None:
        return Response(status_code=204, headers={"Cache-Control": "no-store"})
    view = table.safe_view(loaded.name, request.query_params.get("view", ""))
    return page(
        request, "table_sale", game_name=loaded.name, version=loaded.version, game=loaded.game, sale=offer, view=view
    )


# --- answers --------------------------------------------------------------------------------------------


def back_to_game(name: str, form: Form, query: dict[str, str]) -> Response:
    """The view the tap came from, with the entry just recorded shown with its undo."""
    return see_other(table.after_tap(name, form, query))


def ask_first(request: Request, loaded: game.Loaded, form: Form) -> Response:
    """The game page with what the tap will do, and the second tap that does it (the same form, confirmed)."""
    lang, w = language_of(request), words_of(request)
    what = form["action"]
    game_ = loaded.game
    lines: list[Text] = []
    if what == "undo":
        count = undo_count(form)
        if not 0 < count <= len(game_.history):
            try:
                bank.undo(game_, count, loaded.rules)  # the bank's own refusal: how many there are
            except UserError as error:
                raise TapRefused(said(error.message, w)) from None
        entries = game_.history[-count:]
        title = w("web.bank.ask_undo", n=count)
        lines = [bank.describe(game_, e, loaded.rules) for e in reversed(entries)]  # said by the page
    elif what == "out":
        player = player_name(game_, form.get("player"), lang)
        creditor = party(game_, form.get("creditor", "bank"), lang)
        title = w("web.bank.ask_out", p=player, c=creditor or w("web.bank.the_bank"))
    else:
        title = w("web.bank.ask_drop", p=player_name(game_, form.get("player"), lang))
    fields = {k: v for k, v in form.items() if k not in ("csrf", "confirm")}
    confirm = {"title": title, "lines": lines, "fields": fields}
    return table.show_path(request, loaded, form.get("view", ""), 200, confirm=confirm)


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
