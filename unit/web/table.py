"""The game at the table (issue 27 item 2): one screen per action, player-first and square-first.

Routes (docs/phone.en.md, « The bank: an evening »)::

    GET /games/{name}                      the table: the players and their cash, a square by 3 letters, the recent ones
    GET /games/{name}/player/{i}           a player: cash, their taps (GO, tax, fine), money to anyone, their squares
    GET /games/{name}/player/{i}/buy       the squares nobody holds, each bought at its printed price in one tap
    GET /games/{name}/square/{square}      a square: who holds it, its rent (who pays, one tap), build, mortgage
    GET /games/{name}/trade/{square}       the square sold to another player for a price (or given)
    GET /games/{name}/history              the history, newest first, each entry undone with the ones after it

Every view has the players on top (a tap: their view) and the square finder, and fits a 360x640 screen; the
history is one tap away. A view is a page of its own (every form works without a script); the page's script
(static/table.js) asks for the view's ``<main>`` alone (``X-Fragment: 1``) and swaps it in, so a tap updates the
view without loading the page again. The taps post to :mod:`unit.web.bank` (the bank's taps and the corrections,
each an entry of the history) with ``view``, the path of the view they came from: the answer is that view
again, with the entry just recorded and its undo, or, when refused, with the sentence beside the control and what
was typed kept (:func:`refusal_view`).

Only what the rules allow is offered: each tap is tried on the position as it is (:func:`allowed`); a tap refused
only for the cash stays (the refusal says what the player can do), and so does one the edition lacks a value for
(the tap says which).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, unquote, urlencode

from starlette.requests import Request
from starlette.responses import Response

from unit import i18n
from unit.calculator import bank, classic, commands, needs
from unit.calculator import position as positions
from unit.calculator.edition import BONUSES, HAZARDS, CityEdition, Street
from unit.calculator.rulebook import ActionRefused, Rules
from unit.errors import Text, UserError, said
from unit.fields import name_key
from unit.web import bank_page, card_links
from unit.web.common import Form, Refused, language_of, page, web_of, whole
from unit.web.game import LAST_GAME_COOKIE, Loaded, load, variant_of

#: How many squares the table offers as « recent » (the history's last squares, newest first).
RECENT = 6
#: The refusals of a tap that do not hide it: the cash (the player can sell or mortgage first), and the values
#: an edition still lacks (the tap says which to copy).
KEPT_REFUSALS = ("bank.short",)


# --- what every view shows ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chip:
    """A player at the top of every view: their place, name and cash (in words)."""

    index: int
    name: str
    cash: str


@dataclass(frozen=True)
class Square:
    """A square the finder offers: its name, its owner (or none) and the key a search matches."""

    name: str
    owner: str | None
    key: str
    kind: str
    group: str


def view_path(name: str, *parts: str) -> str:
    """The path of a view of game ``name`` (``view_path("soiree", "square", "Les Halles")``)."""
    return "/".join([f"/games/{quote(name)}", *(quote(p, safe="") for p in parts)])


def safe_view(name: str, text: str) -> str:
    """The view a form came from (its ``view`` field), if it is one of this game's; else the table."""
    base = view_path(name)
    path = text.split("?", 1)[0].split("#", 1)[0]
    if path == base or (path.startswith(base + "/") and "//" not in path and ".." not in unquote(path)):
        return path
    return base


def squares_of(game: positions.Game, kind: Rules) -> list[Square]:
    """Every square in board order, with its owner: what the finder searches (any part of the name or owner)."""
    owners = {name: players[0] for name, players in game.owners().items()}
    out = []
    for place in kind.places(game):
        owner = owners.get(place.name)
        key = name_key(f"{place.name} {owner or ''}")
        out.append(Square(place.name, owner, key, place.kind, place.group))
    return out


def found_squares(game: positions.Game, kind: Rules, typed: str) -> list[Square]:
    """The squares whose name or owner holds ``typed`` (accents, case, hyphens aside): the finder without a script."""
    wanted = name_key(typed)
    return [s for s in squares_of(game, kind) if wanted and wanted in s.key]


def recent_squares(game: positions.Game) -> list[str]:
    """The squares of the history's last entries, newest first, each once."""
    seen: list[str] = []
    for entry in reversed(game.history[-40:]):
        if entry.square and entry.square not in seen:
            seen.append(entry.square)
            if len(seen) == RECENT:
                break
    return seen


def frame(request: Request, loaded: Loaded, name: str, view: str, status: int = 200, **values: Any) -> Response:
    """Render view ``name`` (template ``table_NAME.html``) with what every view shows: the players, the finder,
    the entry just recorded (``?done=N``) or undone (``?undone=K``), the box's sale, the version the taps name.
    Every view reads the game's rules from ``loaded`` (looked up once for the request) and hands them down."""
    lang = language_of(request)
    game = loaded.game
    words = i18n.words(lang)
    kind = loaded.rules
    query = dict(request.query_params)
    history = bank_page.history_values(game, kind, query, lang, web_of(request).parts.lines.get)
    squares = squares_of(game, kind)
    finder = [{"n": s.name, "k": s.key, "o": s.owner or ""} for s in squares]
    refusal = values.pop("refusal", None)
    sale = bank_page.sale_offer(request, loaded.name, game, kind)
    here = refusal is not None and (refusal.field in SAID_BESIDE[name] or (refusal.field == "sale-price" and sale))
    response = page(
        request,
        f"table_{name}",
        status,
        game_name=loaded.name,
        version=loaded.version,
        game=game,
        kind=game.kind,
        variant=variant_of(kind, query.get("variant")),
        chips=[Chip(i, p.name, kind.write(p.cash, words)) for i, p in enumerate(game.players)],
        view=view,
        base=view_path(loaded.name),
        path=lambda *parts: view_path(loaded.name, *parts),
        error=refusal,
        error_here=here,
        typed=values.pop("typed", {}),
        sale=sale,
        auction=query.get("auction", "") if query.get("auction", "") in {s.name for s in squares} else "",
        finder_list=finder,
        bank_undone_said=bank_page.undone_said(request, loaded.name, loaded.version) if history["bank_undone"] else [],
        fragment=request.headers.get("x-fragment") == "1",
        **history,
        **values,
    )
    response.set_cookie(LAST_GAME_COOKIE, loaded.name, max_age=30 * 86400, samesite="strict")
    return response


#: The controls each view says a refusal beside (its ``field``); any other refusal is said at the top of the view.
SAID_BESIDE: dict[str, frozenset[str]] = {
    "home": frozenset({"new-player"}),
    "player": frozenset({"player", "amount", "cash", "exemption", "add", "leave"}),
    "buy": frozenset({"buy"}),
    "square": frozenset({"buy", "rent", "square", "fix"}),
    "trade": frozenset({"price", "trade"}),
    "history": frozenset({"history"}),
}


@dataclass(frozen=True)
class ViewRefusal:
    """A tap refused, as its view shows it: the sentence and the control (an element id) it is about; or a question
    (``choices``: each answer's words and value, sent as field ``field_name`` with the tap's other ``fields`` to
    ``action``, the path the tap was posted to: the bank's, or a correction's)."""

    message: str
    field: str = ""
    choices: tuple[tuple[str, str], ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    field_name: str = ""
    action: str = ""


# --- only what the rules allow --------------------------------------------------------------------------


def allowed(game: positions.Game, kind: Rules, action: bank.Action) -> bool:
    """Whether the rules allow ``action`` now, cash aside (a player short of it is told what to sell or mortgage
    by the tap's refusal) and a value the edition lacks aside (the tap says which)."""
    try:
        bank.apply(game, action, kind)
    except ActionRefused as error:
        return error.key in KEPT_REFUSALS or ".missing" in error.key
    except UserError:
        return True
    return True


@dataclass(frozen=True)
class Tap:
    """A tap a view offers: the form's fields it posts, its words, its amount in words, its element id."""

    fields: tuple[tuple[str, str], ...]
    label: str
    money: str
    id: str
    quiet: bool = False


def player_taps(game: positions.Game, kind: Rules, index: int, lang: str) -> list[Tap]:
    """A player's own taps (GO salary, industry tax, tax squares, fine), those the rules allow now."""
    player = game.players[index]
    out = []
    for tap in bank_page.player_taps(game, kind, player, lang):
        action = bank_action_of_player_op(player.name, tap.op)
        if action is not None and allowed(game, kind, action):
            fields = (("action", "player"), ("player", str(index)), ("op", tap.op))
            out.append(Tap(fields, tap.label, tap.money, f"op-{tap.op.replace(':', '-').replace(' ', '-')}"))
    return out


def bank_action_of_player_op(player: str, op: str) -> bank.Action | None:
    if op == "salary":
        return bank.Salary(player)
    if op == "tax":
        return bank.PayTax(player)
    if op.startswith("tax:"):
        return bank.PayRent(player, op.removeprefix("tax:"))
    if op == "fine":
        return bank.JailFine(player)
    return None


def square_taps(game: positions.Game, kind: Rules, square: str, lang: str, variant: str | None) -> list[Tap]:
    """A held square's taps (build, sell back, remove a hazard, mortgage or lift), those the rules allow now."""
    owner = next(p for p in game.players for h in p.holdings if h.name == square)
    holding = next(h for h in owner.holdings if h.name == square)
    out = []
    for tap in bank_page.card_taps(game, kind, owner, holding, variant, lang):
        if allowed(game, kind, bank_page.CARD_OPS[tap.op](square, variant)):
            fields = (("action", "square"), ("square", square), ("op", tap.op))
            quiet = tap.op in ("mortgage", "lift", "sell_one", "sell_all")
            out.append(Tap(fields, tap.label, tap.money, f"op-{tap.op}", quiet))
    return out


# --- the views ------------------------------------------------------------------------------------------------


def table_page(request: Request) -> Response:
    """The table: every player with their cash (a tap: their view), the square finder, the recent squares."""
    loaded = load(request, request.path_params["name"])
    return show_table(request, loaded)


def show_table(request: Request, loaded: Loaded, status: int = 200, **refusal: Any) -> Response:
    game, kind = loaded.game, loaded.rules
    return frame(
        request,
        loaded,
        "home",
        view_path(loaded.name),
        status,
        recent=recent_squares(game),
        problems=len(commands.problems_of(game, variant_of(kind, None), language_of(request), kind, ledger=True)),
        found=found_squares(game, kind, request.query_params.get("q", "")),
        q=request.query_params.get("q", ""),
        **refusal,
    )


def player_index(request: Request, game: positions.Game) -> int:
    place = whole(request.path_params["i"], len(game.players))
    if place is None:
        raise Refused(404, Text("web.refused.not_found"))
    return place


def player_page(request: Request) -> Response:
    loaded = load(request, request.path_params["name"])
    return show_player(request, loaded, player_index(request, loaded.game))


def show_player(request: Request, loaded: Loaded, index: int, status: int = 200, **refusal: Any) -> Response:
    """A player: their cash, their taps, money to or from anyone, their squares (a tap: the square's view)."""
    game = loaded.game
    lang = language_of(request)
    words = i18n.words(lang)
    kind = loaded.rules
    player = game.players[index]
    holdings = [
        {"name": h.name, "state": holding_state(game, player, h, words), "mortgaged": h.mortgaged}
        for h in player.holdings
    ]
    others = [(i, p.name) for i, p in enumerate(game.players) if i != index]
    free = [s for s, _label in bank_page.for_sale(game, kind, lang)]
    return frame(
        request,
        loaded,
        "player",
        view_path(loaded.name, "player", str(index)),
        status,
        index=index,
        player=player,
        cash=kind.write(player.cash, words),
        taps=player_taps(game, kind, index, lang),
        others=others,
        holdings=holdings,
        can_buy=bool(free),
        free=free,
        # Leaving with nothing only: with cash or squares, a bankruptcy (``out``) is what the rules take.
        can_drop=allowed(game, kind, bank.RemovePlayer(player.name)),
        **refusal,
    )


def buy_page(request: Request) -> Response:
    loaded = load(request, request.path_params["name"])
    return show_buy(request, loaded, player_index(request, loaded.game))


def show_buy(request: Request, loaded: Loaded, index: int, status: int = 200, **refusal: Any) -> Response:
    """The squares nobody holds, by colour group, each bought by the player at its printed price in one tap."""
    game = loaded.game
    lang = language_of(request)
    words = i18n.words(lang)
    kind = loaded.rules
    owners = game.owners()
    groups: list[tuple[str, list[dict[str, str]]]] = []
    for place in kind.places(game):
        if place.kind == "tax" or place.name in owners:
            continue
        try:
            price = kind.write(kind.price(game, place.name), words)
        except UserError:
            price = ""
        label = group_label(game, kind, place.group or place.kind, lang)
        if not groups or groups[-1][0] != label:
            groups.append((label, []))
        groups[-1][1].append({"name": place.name, "price": price, "group": place.group or place.kind})
    return frame(
        request,
        loaded,
        "buy",
        view_path(loaded.name, "player", str(index), "buy"),
        status,
        index=index,
        player=game.players[index],
        cash=kind.write(game.players[index].cash, words),
        groups=groups,
        **refusal,
    )


def square_name(request: Request, loaded: Loaded) -> str:
    """The square the path names, as the board spells it (any case, accents, a unique beginning)."""
    typed = request.path_params["square"]
    try:
        return loaded.rules.find(loaded.game, typed, "square")
    except UserError:
        raise Refused(404, Text("web.refused.not_found")) from None


def square_page(request: Request) -> Response:
    loaded = load(request, request.path_params["name"])
    return show_square(request, loaded, square_name(request, loaded))


def show_square(request: Request, loaded: Loaded, square: str, status: int = 200, **refusal: Any) -> Response:
    """A square: who holds it and what stands on it; its rent with who pays in one tap; build, mortgage, trade.
    Nobody's: bought by a player at its printed price in one tap, or put up for auction on the box."""
    from unit.web import reports  # the rent's report and its payers: the rent page's own

    game = loaded.game
    lang = language_of(request)
    words = i18n.words(lang)
    kind = loaded.rules
    variant = variant_of(kind, request.query_params.get("variant"))
    place = next(p for p in kind.places(game) if p.name == square)
    owner_index = next((i for i, p in enumerate(game.players) for h in p.holdings if h.name == square), None)
    values: dict[str, Any] = {
        "square": square,
        "place": place,
        "group": group_label(game, kind, place.group or place.kind, lang),
    }
    dice = request.query_params.get("dice", "")
    if owner_index is None and place.kind != "tax":
        try:
            values["price"] = kind.write(kind.price(game, square), words)
        except UserError:
            values["price"] = ""
        values["buyers"] = [(i, p.name) for i, p in enumerate(game.players)]
    elif game.holding(square) is not None and needs.missing(game, "rent", square):
        # A City district whose rents were never copied: the card asks for them (unit/web/cards.py), then back here.
        back = view_path(loaded.name, "square", square)
        values["rent_card"] = card_links.card_url(loaded.name, "rent", square, back=back)
    else:
        squares = [{"name": s.name, "kind": s.kind} for s in squares_of(game, kind)]
        report, error, needs_dice = reports.rent_of(game, kind, squares, square, dice, lang)
        values |= {"report": report, "rent_error": error, "needs_dice": needs_dice, "dice": dice}
        no_rent = bank_page.rent_refusal(game, kind, report, reports.dice_of(dice))  # a mortgaged square: said
        values["payers"] = bank_page.payers(game, kind, report, lang, reports.dice_of(dice))
        values["no_rent"] = "" if no_rent is None else said(no_rent, bank_page.page_words(words))
    if owner_index is not None:
        owner = game.players[owner_index]
        holding = next(h for h in owner.holdings if h.name == square)
        tower_after = None if owner.tower == square else square  # what the tower's correction would make it
        values |= {
            "owner_index": owner_index,
            "owner": owner,
            "holding": holding,
            "state": holding_state(game, owner, holding, words),
            "taps": square_taps(game, kind, square, lang, variant),
            "tower": owner.tower == square,
            # The tower's correction where the rules take it (two full groups, one tower in the game), or taken off.
            "can_tower": game.kind == "city" and allowed(game, kind, bank.SetTower(owner.name, tower_after)),
            "others": [(i, p.name) for i, p in enumerate(game.players) if i != owner_index],
            "hazards": HAZARDS,
            "bonuses": BONUSES,
            "counts": ("residential", "industrial") if game.kind == "city" else ("houses",),
        }
        if game.kind == "classic":
            deed = game.edition.squares.get(square) if hasattr(game.edition, "squares") else None
            values["street"] = isinstance(deed, Street)
    return frame(request, loaded, "square", view_path(loaded.name, "square", square), status, **values, **refusal)


def trade_page(request: Request) -> Response:
    loaded = load(request, request.path_params["name"])
    return show_trade(request, loaded, square_name(request, loaded))


def show_trade(request: Request, loaded: Loaded, square: str, status: int = 200, **refusal: Any) -> Response:
    """A held square sold to another player for a price (empty: given), with the seller's other squares to add."""
    game = loaded.game
    owner_index = next((i for i, p in enumerate(game.players) for h in p.holdings if h.name == square), None)
    if owner_index is None:
        raise Refused(404, Text("web.refused.not_found"))
    owner = game.players[owner_index]
    return frame(
        request,
        loaded,
        "trade",
        view_path(loaded.name, "trade", square),
        status,
        square=square,
        owner_index=owner_index,
        owner=owner,
        also=[h.name for h in owner.holdings if h.name != square],
        buyers=[(i, p.name) for i, p in enumerate(game.players) if i != owner_index],
        **refusal,
    )


def history_page(request: Request) -> Response:
    loaded = load(request, request.path_params["name"])
    return show_history(request, loaded)


def show_history(
    request: Request, loaded: Loaded, status: int = 200, confirm: dict[str, Any] | None = None, **refusal: Any
) -> Response:
    """The history, newest first; an entry undone with every one after it (several: asked first)."""
    return frame(request, loaded, "history", view_path(loaded.name, "history"), status, confirm=confirm, **refusal)


# --- a tap refused: its view again, what was typed kept ------------------------------------------------------


def refusal_view(request: Request, loaded: Loaded, form: Form, refusal: ViewRefusal, status: int) -> Response:
    """The view the refused tap came from (its ``view`` field), as the file is now, saying why beside the control
    (``refusal.field``, an element id) and with what was typed in it (amounts, prices) kept."""
    typed = {k: v for k, v in form.items() if k in TYPED}
    return show_path(request, loaded, form.get("view", ""), status, refusal=refusal, typed=typed)


#: The fields a person types (kept on a refusal); the rest are the tap's own.
TYPED = ("amount", "price", "value", "note")


def show_path(request: Request, loaded: Loaded, view: str, status: int, **refusal: Any) -> Response:
    """The view at ``view`` (a path of this game's), rendered with ``refusal``."""
    parts = [unquote(p) for p in safe_view(loaded.name, view).removeprefix(view_path(loaded.name)).split("/") if p]
    game = loaded.game
    try:
        place = whole(parts[1], len(game.players)) if parts[:1] == ["player"] and len(parts) in (2, 3) else None
        if place is not None:
            if len(parts) == 3 and parts[2] == "buy":
                return show_buy(request, loaded, place, status, **refusal)
            return show_player(request, loaded, place, status, **refusal)
        if parts[:1] == ["square"] and len(parts) == 2:
            return show_square(request, loaded, loaded.rules.find(game, parts[1], "square"), status, **refusal)
        if parts[:1] == ["trade"] and len(parts) == 2:
            return show_trade(request, loaded, loaded.rules.find(game, parts[1], "square"), status, **refusal)
        if parts == ["history"]:
            return show_history(request, loaded, status, **refusal)
    except (UserError, StopIteration):
        pass  # a square gone meanwhile: the table says it
    return show_table(request, loaded, status, **refusal)


def after_tap(name: str, form: Form, query: dict[str, str]) -> str:
    """Where a tap that was taken leads: the view it came from, with the entry just recorded (``done``); a trade, its
    square's view (its new owner), not the trade's form again: its buttons reversed would invite a trade back."""
    view = safe_view(name, form.get("view", ""))
    if form.get("action") == "trade" and "done" in query and form.get("square"):
        view = view_path(name, "square", form["square"])
    if form.get("variant") in classic.VARIANTS:
        query = {"variant": form["variant"]} | query
    return view + (f"?{urlencode(query)}" if query else "")


# --- words ---------------------------------------------------------------------------------------------------


def group_label(game: positions.Game, kind: Rules, group: str, lang: str) -> str:
    """A group as the page names it: the edition's French name of a classic colour (``bleu foncé``)."""
    return said(kind.group_name(game, group), i18n.words(lang))


def holding_state(game: positions.Game, player: positions.Player, holding: Any, words: i18n.Words) -> str:
    """What stands on a holding, in words: « 3 résidentiels · 1 industriel · gratte-ciel », « 2 maisons »."""
    parts: list[str] = []
    if isinstance(game.edition, CityEdition):
        if holding.residential:
            parts.append(f"{words('web.calc.residential')} {holding.residential}")
        if holding.industrial:
            parts.append(f"{words('web.calc.industrial')} {holding.industrial}")
        for key in ("skyscraper", "stadium", "station"):
            if getattr(holding, key):
                parts.append(words(f"web.calc.{key}"))
        if player.tower == holding.name:
            parts.append(words("web.calc.tower"))
        if holding.hazard:
            parts.append(words(f"web.calc.hazard_{holding.hazard}"))
        if holding.bonus:
            parts.append(words(f"web.calc.bonus_{holding.bonus}"))
    else:
        if holding.hotel:
            parts.append(words("web.calc.hotel"))
        elif holding.houses:
            parts.append(f"{words('web.calc.houses')} {holding.houses}")
    if holding.mortgaged:
        parts.append(words("web.calc.mortgaged"))
    return " · ".join(parts)
