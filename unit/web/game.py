"""The calculator on the phone (issue 14): the game, a rent in two taps, the fortunes, the check.

Routes (docs/phone.en.md, « An evening: the calculator »)::

    GET  /games                    the games in the data folder; a form to start one
    POST /games                    start a game (an edition, the players)
    GET  /games/{name}             the position: players, cash, holdings, buildings... edited with taps
    POST /games/{name}             one change (``action`` and its fields), from the version the page showed
    GET  /games/{name}/rent        pick a square (search any part of its name), see who pays what and why
    GET  /games/{name}/fortunes    the fortunes, each player's detail, the winner (``?big=1``: the table's view)
    GET  /games/{name}/check       the position's problems, each with its rule's sentence
    GET  /games/{name}/file        the game file itself (what ``monopoly-city rent/fortune/check`` read)

No rule lives here: a change edits the game file's data and goes through the
loader (``position.parse``: shapes, names, amounts) and the position check
(``city.check`` / ``classic.check``); a change that breaks a rule the position
did not already break is refused with the rule's sentence, and nothing is
written. Rents, fortunes and problems are the command line's own reports
(``commands.rent_report``, ``fortune_report``, ``check_report``), so the page and
``monopoly-city rent/fortune/check GAME`` always agree. Every page carries
the file's version; a change made from an older version is refused with
« the game changed, reload » (:class:`unit.web.store.Changed`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import Response

from unit import i18n
from unit.calculator import classic, commands, gamefile, money, names, needs, rules
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.edition import BONUSES, HAZARDS
from unit.calculator.edition_file import empty, render
from unit.calculator.rulebook import RentReport
from unit.errors import MonopolyCityError, Text, UserError, said
from unit.fields import name_key
from unit.web import bank_page, card_links
from unit.web import editions as edition_pages
from unit.web.common import (
    SECURITY_HEADERS,
    Form,
    Refused,
    RefusedPage,
    Web,
    language_of,
    page,
    see_other,
    slug_of,
    web_of,
    words_of,
)
from unit.web.store import Changed, make_room

VARIANTS = classic.VARIANTS
COUNTS = ("residential", "industrial", "houses")  # a holding's fields that are whole numbers


class FieldError(Exception):
    """A change refused: the sentence to show, and the field (an element id on the page) it is about."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.message = message
        self.field = field


# --- reading a game -------------------------------------------------------------------------------


class Loaded:
    """A game file as read: its text, version, data, the game, its rules (looked up once for the request), and the
    edition as the file names it."""

    def __init__(self, web: Web, name: str, language: str):
        store = web.store
        self.name = name
        self.file = f"{name}.game.yaml"
        self.text, self.version = store.read("game", name)
        self.written = False  # whether the text is known to be position.dumps(game), as the bank writes it
        kept = web.games.get(store, name, self.version, language)
        if kept is not None:
            self.game, self.edition_ref, self.written = kept.game, kept.ref, kept.written
        else:
            path = store.path("game", name)
            read = gamefile.parse(path, self.text.encode("utf-8"), language, web.editions.load, self.file)
            self.game, self.edition_ref = read.game, read.edition_ref
            web.games.keep(name, self.version, language, self.game, self.edition_ref)
        self.rules = rules.of(self.game)

    def as_file(self, path: Path) -> gamefile.GameFile:
        """The game file as :mod:`unit.calculator.gamefile` takes it (the write path uses it as it is when the file
        on disk is still these bytes)."""
        return gamefile.GameFile(path, self.text.encode("utf-8"), self.game, self.edition_ref, self.written, self.file)


def variant_of(game: positions.Game, text: str | None) -> str | None:
    """The classic variant asked for (``timed`` by default); None for a City game, which has none."""
    return rules.of(game).variant_or_default(text)


def squares_of(game: positions.Game) -> list[dict[str, Any]]:
    """Every square a rent can be asked for, in board order, with its owner and a search key."""
    owners = {name: players[0] for name, players in game.owners().items()}
    out = []
    for name, kind, group in rules.of(game).places(game):
        owner = owners.get(name)
        out.append(
            {"name": name, "kind": kind, "group": group, "owner": owner, "key": name_key(f"{name} {owner or ''}")}
        )
    return out


# --- who may be added: one check for the page and the command line (unit.calculator.names) --------------

MAX_PLAYERS = names.MAX_PLAYERS
PLAYER_NAME_CHARS = names.PLAYER_NAME_CHARS


def player_name_fits(name: str) -> bool:
    """A player's name as the page takes it: :func:`unit.calculator.names.player_name`'s, one line of at most
    PLAYER_NAME_CHARS characters."""
    try:
        names.player_name(name, "name")
    except UserError:
        return False
    return True


# --- the pages ------------------------------------------------------------------------------------


def broken(request: Request, name: str, error: MonopolyCityError, status: int = 422) -> RefusedPage:
    """A file that cannot be read as a game (edited by hand, an edition gone): its one line."""
    text = error.say(words_of(request)) if isinstance(error, UserError) else str(error)
    return RefusedPage(status, "game_broken", game_name=name, error=text)


def load(request: Request, name: str) -> Loaded:
    """The game the path names; 404 when there is none, its line when it does not read."""
    try:
        return Loaded(web_of(request), name, language_of(request))
    except FileNotFoundError:
        raise Refused(404, Text("web.refused.no_such_game")) from None
    except UserError as error:
        if error.where in ("game", "edition"):  # the name itself
            raise Refused(404, Text("web.refused.no_such_game")) from None
        raise broken(request, name, error) from None


def games_page(request: Request) -> Response:
    return games_list(request)


def games_list(request: Request, error: str = "", status: int = 200, form: Form | None = None) -> Response:
    web = web_of(request)
    store = web.store
    games = store.names("game")
    lang = language_of(request)
    choices = board_choices(web, lang)
    chosen = (form or {}).get("edition") or choices[0]["value"]
    return page(
        request,
        "games",
        status,
        games=games,
        game_titles={name: web.titles.title(store, name) for name in games},
        choices=choices,
        chosen=chosen,
        error=error,
        form=form or {},
    )


#: « Nouvelle partie »'s choice of a new, empty Monopoly City edition, made with the game (never a file's name).
NEW_CITY = "new:city"


def board_choices(web: Web, language: str) -> list[dict[str, str]]:
    """« Nouvelle partie »'s boards, each with a line saying what it is: the table's City editions (the most
    complete first; the first is chosen), a new empty one, the built-in boards, the table's classic ones. The
    box is Monopoly City's: a City board comes first."""
    w = i18n.words(language)
    cities: list[tuple[int, dict[str, str]]] = []
    classics: list[dict[str, str]] = []
    for ref in [*editions.SHIPPED, *(f"{n}.edition.yaml" for n in web.store.names("edition"))]:
        try:
            found = web.editions.load(ref, web.store.root, "edition", language)
        except UserError:
            continue  # a file that does not read: the Editions page says why
        if isinstance(found, editions.CityEdition):
            done = edition_pages.progress(found)
            total = edition_pages.CITY_DISTRICTS
            hint = (
                w("web.cards.choice_city_complete", total=total)
                if done >= total
                else w("web.cards.choice_city_hint", progress=edition_pages.progress_text(done, language))
            )
            cities.append((done, {"value": ref, "title": found.name, "hint": hint}))
        else:
            ready = found.complete
            hint = w("web.cards.choice_classic" if ready else "web.cards.choice_rules_only")
            classics.append({"value": ref, "title": found.name, "hint": hint})
    town = new_city_title(web, language, None)
    new_hint = "web.cards.choice_new_city_hint" if town else "web.cards.choice_new_city_hint_named"
    cash = money.city(editions.CityEdition.starting_cash, language).replace(" ", "\u00a0")  # « M 37,7M » whole
    new = {"value": NEW_CITY, "title": w("web.cards.choice_new_city"), "hint": w(new_hint, e=town, cash=cash)}
    return [*(choice for _done, choice in sorted(cities, key=lambda c: -c[0])), new, *classics]


def new_city_title(web: Web, language: str, game_title: str | None) -> str:
    """The name of a City edition made with a game: « Ma ville », or the game's own name when an edition of the
    table is already called so (empty when there is none to give yet)."""
    town = i18n.words(language)("web.cards.my_town")
    titles = {name_key(edition_title(web, f"{n}.edition.yaml", language)) for n in web.store.names("edition")}
    return town if name_key(town) not in titles else game_title or ""


def create(request: Request, form: Form) -> Response:
    """A new game: an edition, the players, each with the edition's starting cash. ``edition`` :data:`NEW_CITY`:
    a new, empty Monopoly City edition too (« Ma ville »), whose cards the bank asks for as the game goes."""
    web = web_of(request)
    store = web.store
    lang, w = language_of(request), words_of(request)
    name = form.get("name", "").strip()
    title = form.get("title", "").strip() or None  # the name the person typed: the game's title
    if title is not None:  # the file's name is made from it, and stays in the addresses
        name = slug_of(title, store.names("game")) or title
    edition = form.get("edition", "")
    typed = [n.strip() for n in form.get("players", "").split(",") if n.strip()]
    shipped = list(editions.SHIPPED)
    new_city = edition == NEW_CITY
    if not new_city and edition not in shipped and edition.removesuffix(".edition.yaml") not in store.names("edition"):
        return games_list(request, w("web.calc.no_edition"), 400, form)
    if len(typed) > MAX_PLAYERS or not all(player_name_fits(n) for n in typed):
        return games_list(request, w("web.calc.player_name", n=PLAYER_NAME_CHARS), 400, form)
    try:
        store.path("game", name)
        if new_city and store.version("game", name) is not None:
            raise Changed(name)  # said before an edition is made for it
        town = new_city_title(web, lang, title or name) if new_city else ""
        found = (
            empty(town) if new_city else editions.load(edition, relative_to=store.root, where="edition", language=lang)
        )
        kind_rules = rules.of(found)
        cash = kind_rules.starting_cash(found)
        owned = kind_rules.holdings_key
        data = {"edition": edition, "players": [{"name": n, "cash": cash or 0, owned: []} for n in typed]}
        game = positions.parse(
            data | ({} if title is None else {"title": title}),
            f"{name}.game.yaml",
            store.root,
            lang,
            load_edition=(lambda *_a, **_k: found) if new_city else editions.load,
        )
        if isinstance(found, editions.CityEdition) and new_city:  # the game reads: its edition, then the game
            edition_name = slug_of(town, {*store.names("edition"), *shipped}) or "city"
            store.write("edition", edition_name, render(found), None)
            edition = f"{edition_name}.edition.yaml"
        path = store.path("game", name)

        def room(size: int) -> None:
            make_room(store.root, path, size, store.quota)

        gamefile.create(path, game, edition, language=lang, reader=store.game_bytes, source=path.name, room=room)
    except (gamefile.Changed, Changed):
        return games_list(request, w("web.calc.exists", name=title or name), 409, form)
    except UserError as error:
        return games_list(request, said(error.message, w), 400, form)
    return see_other(f"/games/{name}")


def edition_title(web: Web, ref: str, language: str) -> str:
    """An edition as the list names it: its own name (« Ma Ville »), not its file's."""
    try:
        return web.editions.load(ref, web.store.root, "edition", language).name
    except UserError:
        return ref.removesuffix(".edition.yaml")


#: The last game this phone opened: the live view's link to the box's auction sale (unit/web/bank_page.py).
LAST_GAME_COOKIE = "mc_game"


def game_page(request: Request) -> Response:
    loaded = load(request, request.path_params["name"])
    response = show_game(request, loaded, request.query_params.get("variant"))
    response.set_cookie(LAST_GAME_COOKIE, loaded.name, max_age=30 * 86400, samesite="strict")
    return response


def show_game(
    request: Request,
    loaded: Loaded,
    variant_text: str | None,
    error: FieldError | None = None,
    status: int = 200,
    confirm: dict[str, Any] | None = None,
) -> Response:
    """The position: every player, their cash and holdings, each holding's value, the problems.

    Each player's part and each card is rendered from a view of what it shows (:class:`PlayerView`,
    :class:`CardView`) and kept: a payment renders again only the two players it changes."""
    lang = language_of(request)
    game = loaded.game
    variant = variant_of(game, variant_text)
    web = web_of(request)
    board = board_of(web, loaded.name, game, variant, lang)
    bank = board.bank | bank_page.history_values(game, dict(request.query_params), lang, web.parts.lines.get)
    words, write = i18n.words(lang), rules.of(game).write  # amounts as the game writes them
    said = None if error is None else FieldRefusal(error.field, error.message)
    cards = board.cards
    if said is not None:  # a refusal about a card is said on it: the cards with it, as they are then
        cards = tuple(Marked(cards_markup(web, views, said)) for views in board.card_views)

    def player(i: int, csrf: str, version: str) -> Kept:
        """Player ``i``'s part of the page, their cards in it, as kept, with this page's token and version (as the
        template escaped them)."""
        p = game.players[i]
        view = PlayerView(
            lang=lang,
            game_name=loaded.name,
            kind=game.kind,
            variant=variant,
            player=i,
            players=board.names,
            name=p.name,
            cash=write(p.cash, words),
            tower=p.tower,
            exemption=p.exemption_card,
            holdings=tuple(city_or_classic_name(h) for h in p.holdings),
            taps=board.player_taps[i],
            for_sale=board.for_sale,
            free=board.free,
            error=said,
        )
        csrf, version = str(csrf), str(version)  # plain text: Markup's own join would escape the markup put in
        filled = cards[i].fill(csrf, version)
        return Kept(filled.join([piece.fill(csrf, version) for piece in player_part(web, view)]))

    return page(
        request,
        "game",
        status,
        game_name=loaded.name,
        version=loaded.version,
        game=game,
        kind=game.kind,
        variant=variant,
        player=player,
        problems=board.problems,
        error=error,
        confirm=confirm,
        sale=bank_page.sale_offer(request, loaded.name, game),
        **bank,
    )


@dataclass(frozen=True)
class Board:
    """What the game page shows that follows from the position alone, not from the cash nor the history (but what
    the bank paid for each mortgage, :func:`unit.web.bank_page.mortgages_paid`): each player's cards and taps, the
    squares for sale, the problems. A payment changes none of it: the page after one is put together from the board
    kept (:func:`board_of`), and only the two players whose cash moved are rendered again."""

    edition: editions.Edition  # what it was made with (its identity is in the key: kept, no other takes it)
    names: tuple[str, ...]  # every player's name, in order
    bank: dict[str, Any]  # the bank's values: bank_page.position_values
    player_taps: tuple[tuple[bank_page.Tap, ...], ...]  # each player's taps
    for_sale: tuple[tuple[str, str], ...]  # the squares nobody holds, with their printed price, in board order
    free: tuple[str, ...]  # the same, for the corrections' « add »
    problems: list[commands.SaidProblem]
    card_views: tuple[tuple[CardView, ...], ...]  # each player's cards, as they show with no refusal
    cards: tuple[Marked, ...]  # each player's cards, as kept markup (cut at the marks for the token and the version)


def board_of(web: Web, name: str, game: positions.Game, variant: str | None, lang: str) -> Board:
    """The :class:`Board` of ``game``, kept by all it is made from: the game's name and file, its edition, its
    players without their cash, and what the bank paid for what is mortgaged."""
    position = tuple((p.name, p.holdings, p.tower, p.exemption_card) for p in game.players)
    key = ("board", name, game.source, id(game.edition), lang, variant, position, bank_page.mortgages_paid(game))
    return web.parts.positions.get(key, functools.partial(make_board, web, name, game, variant, lang))


def make_board(web: Web, name: str, game: positions.Game, variant: str | None, lang: str) -> Board:
    """:func:`board_of`'s board, made now."""
    words, write = i18n.words(lang), rules.of(game).write
    bank = bank_page.position_values(game, variant, lang)
    groups = group_of(game)
    names = tuple(p.name for p in game.players)
    for_sale = tuple(bank["bank_for_sale"])

    def card(i: int, index: int, holding: Any) -> CardView:
        player = game.players[i]
        square = city_or_classic_name(holding)
        group = groups.get(square, "")
        return CardView(
            lang=lang,
            game_name=name,
            kind=game.kind,
            variant=variant,
            player=i,
            index=index,
            players=names,
            holding=holding,
            tower=player.tower == square,
            group=group,
            group_label=group_label(game, group, lang),
            value=write(holding_value(game, player, holding, variant, lang), words),
            taps=tuple(bank["bank_cards"].get(square, ())),
            error=None,
        )

    views = tuple(tuple(card(i, k, h) for k, h in enumerate(p.holdings)) for i, p in enumerate(game.players))
    return Board(
        edition=game.edition,
        names=names,
        bank=bank,
        player_taps=tuple(tuple(bank["bank_players"][p.name]) for p in game.players),
        for_sale=for_sale,
        free=tuple(square for square, _label in for_sale),  # taxes are not held
        problems=commands.problems_of(game, variant, lang),
        card_views=views,
        cards=tuple(Marked(cards_markup(web, cards)) for cards in views),
    )


def cards_markup(web: Web, views: tuple[CardView, ...], said: FieldRefusal | None = None) -> str:
    """One player's cards, as kept markup; ``said``: a refusal, shown on the card it is about."""
    if said is not None:
        views = tuple(
            replace(view, error=said if said.field == f"h-{city_or_classic_name(view.holding)}" else None)
            for view in views
        )
    return "".join(f"\n    {kept(web, 'game_card.html', view)}\n  " for view in views)


@dataclass(frozen=True)
class FieldRefusal:
    """A refusal as the page shows it: its sentence, and the field (an element id) it is about."""

    field: str
    message: str


@dataclass(frozen=True)
class PlayerView:
    """Everything one player's part of the game page shows (templates/game_player.html) but their cards, and nothing
    else: the key of its markup. A payment changes two players' cash: the others' parts are the ones kept."""

    lang: str
    game_name: str
    kind: str
    variant: str | None
    player: int  # the player's place at the table
    players: tuple[str, ...]  # every player's name, in order: whom to pay, whom to give to
    name: str
    cash: str  # in words: « M 12,5M »
    tower: str | None
    exemption: bool
    holdings: tuple[str, ...]  # the names of their holdings (where the tower may stand; none: they may leave)
    taps: tuple[bank_page.Tap, ...]  # the bank's taps for them, with their prices
    for_sale: tuple[tuple[str, str], ...]  # the squares nobody holds, with their printed price
    free: tuple[str, ...]  # the same, for the corrections' « add »
    error: FieldRefusal | None  # the page's refusal, if any


@dataclass(frozen=True)
class CardView:
    """Everything one holding's card shows (templates/game_card.html), and nothing else: the key of its markup.

    A game page has a card for every holding (22 in a City game, 5 KB each with the folded corrections) and a
    payment changes none of them: the markup is rendered once for what it shows and kept (:func:`kept`)."""

    lang: str
    game_name: str
    kind: str
    variant: str | None
    player: int  # the holder's place at the table
    index: int  # the card's place among the holder's
    players: tuple[str, ...]  # every player's name, in order: the « give » list
    holding: positions.CityHolding | positions.ClassicHolding
    tower: bool  # the holder's Monopoly Tower stands here
    group: str
    group_label: str
    value: str  # what the holding counts for, in words: « M 40k »
    taps: tuple[bank_page.Tap, ...]  # the bank's taps on the card, with their prices
    error: FieldRefusal | None  # the page's refusal when it is about this card


class Kept(str):
    """Markup the templates put in as it is (Jinja's ``__html__`` protocol): a kept part, or a mark in it."""

    def __html__(self) -> str:
        return str(self)


#: Where the session's token, the file's version and a player's cards go in kept markup: no text from a file or a
#: form can look like them, since every value's « < » is escaped.
CSRF_MARK, VERSION_MARK, CARDS_MARK = "<csrf>", "<version>", "<cards>"


def kept(web: Web, name: str, view: PlayerView | CardView) -> str:
    """The markup of template ``name`` for ``view``, rendered from the view alone (its only input but the words of
    its language), with marks where the token, the version and the cards go (:data:`CSRF_MARK`...); kept in the
    application's :class:`~unit.web.caches.PartCache`."""
    return web.parts.get(name, view, functools.partial(render_part, web.templates, name, view))


class Marked:
    """Kept markup cut once at its marks for the token and the version (:data:`CSRF_MARK`, :data:`VERSION_MARK`): a
    page puts in its own by joining the pieces, without looking through the markup again (a City game's cards are
    some 100 KB, with a token and a version in every form)."""

    __slots__ = ("pieces",)

    def __init__(self, markup: str):
        self.pieces = tuple(tuple(part.split(VERSION_MARK)) for part in markup.split(CSRF_MARK))

    def fill(self, csrf: str, version: str) -> str:
        """The markup with ``csrf`` and ``version`` (as the template escaped them) where the marks were."""
        return csrf.join([version.join(part) for part in self.pieces])


def player_part(web: Web, view: PlayerView) -> tuple[Marked, ...]:
    """A player's part (templates/game_player.html) as kept, cut at its marks, in pieces around where the cards go
    (:data:`CARDS_MARK`)."""

    def cut() -> tuple[Marked, ...]:
        return tuple(Marked(piece) for piece in render_part(web.templates, "game_player.html", view).split(CARDS_MARK))

    return web.parts.markup.get(("game_player.html: cut", view), cut)


def render_part(templates: Environment, name: str, view: PlayerView | CardView) -> str:
    """:func:`kept`'s markup, rendered now."""
    return templates.get_template(name).render(
        c=view,
        w=i18n.words(view.lang),
        kind=view.kind,
        variant=view.variant,
        game_name=view.game_name,
        error=view.error,
        hazards=HAZARDS,
        bonuses=BONUSES,
        csrf=Kept(CSRF_MARK),
        version=Kept(VERSION_MARK),
        cards=Kept(CARDS_MARK),
    )


def rent_page(request: Request) -> Response:
    """Pick a square (search any part of its name), see who pays what and why."""
    loaded = load(request, request.path_params["name"])
    params = request.query_params
    chosen = params.get("square", "")
    held = loaded.game.holding(chosen) is not None
    if held and needs.missing(loaded.game, "rent", chosen):
        back = f"/games/{loaded.name}/rent?{urlencode({'square': chosen})}"  # its rents first: asked once
        return see_other(card_links.card_url(loaded.name, "rent", chosen, back=back))
    return show_rent(request, loaded, chosen, params.get("dice", ""), query=params.get("q", ""))


def show_rent(
    request: Request, loaded: Loaded, chosen: str, dice_text: str, refusal: str = "", status: int = 200, query: str = ""
) -> Response:
    """The rent page of ``chosen``, with the bank's one-tap payments (``refusal``: why the last one was not made)."""
    game = loaded.game
    squares = squares_of(game)
    shown = [s for s in squares if name_key(query) in s["key"]] if query.strip() else squares
    report, error, needs_dice = rent_of(game, squares, chosen, dice_text, language_of(request))
    return page(
        request,
        "rent",
        status,
        game_name=loaded.name,
        version=loaded.version,
        game=game,
        squares=shown,
        query=query,
        chosen=chosen,
        dice=dice_text,
        needs_dice=needs_dice,
        report=report,
        error=refusal or error,
        payers=bank_page.payers(game, report, language_of(request)),
    )


def rent_of(
    game: positions.Game, squares: list[dict[str, Any]], chosen: str, dice_text: str, language: str
) -> tuple[RentReport | None, str, bool]:
    """The rent page's report of ``chosen`` (none when no square is chosen), its error line, and whether the
    dice buttons are shown: the calculator's own rent report, the one ``monopoly-city rent`` prints."""
    w = i18n.words(language)
    report: RentReport | None = None
    error, needs_dice = "", False
    if chosen:
        dice = int(dice_text) if dice_text.isascii() and dice_text.isdigit() and len(dice_text) < 3 else None
        refusal = rules.of(game).dice_refusal(game, chosen, dice)
        if refusal is not None:  # dice the page never offers (13, on a street): its buttons, and why not those
            return None, refusal.say(w), True
        kind = next((s["kind"] for s in squares if s["name"] == chosen), None)
        needs_dice = kind == "utility" and bool(dice_text)  # the buttons stay to change the throw
        try:
            report = commands.rent_report(game, chosen, dice, language)
        except UserError as e:  # a name not found, or an edition still to be copied
            error = said(e.message, w)
        if report is not None and report.needs_dice:  # an owned utility: its rent is a multiple of the throw
            report, error, needs_dice = None, w("web.calc.dice_needed"), True
    return report, error, needs_dice


def fortunes_page(request: Request) -> Response:
    """The fortunes, each player's detail, the winner (``?big=1``: the table's view)."""
    loaded = load(request, request.path_params["name"])
    lang = language_of(request)
    game = loaded.game
    variant = variant_of(game, request.query_params.get("variant"))
    lacking = needs.missing(game, "fortune")
    if lacking:  # a district held whose rents were never needed: asked now, one card at a time
        back = f"/games/{loaded.name}/fortunes"
        return see_other(card_links.card_url(loaded.name, "fortune", lacking[0].district, back=back))
    try:
        report = commands.fortune_report(game, variant)
    except UserError as error:  # a City card not copied yet: the line says which
        raise broken(request, loaded.name, error) from None
    return page(
        request,
        "fortunes",
        game_name=loaded.name,
        game=game,
        kind=game.kind,
        variant=variant,
        report=report,
        fmt=lambda amount: rules.of(game).write(amount, i18n.words(lang)),
        big=request.query_params.get("big") == "1",
        small_query=urlencode({"variant": variant} if variant else {}),
        big_query=urlencode(({"variant": variant} if variant else {}) | {"big": "1"}),
    )


def check_page(request: Request) -> Response:
    """The position's problems, each with its rule's sentence: the calculator's own check report."""
    loaded = load(request, request.path_params["name"])
    game = loaded.game
    variant = variant_of(game, request.query_params.get("variant"))
    report = commands.check_report(game, variant)
    return page(request, "check", game_name=loaded.name, game=game, kind=game.kind, variant=variant, report=report)


def game_file(request: Request) -> Response:
    """The game file itself (what ``monopoly-city rent/fortune/check`` read)."""
    name = request.path_params["name"]
    try:
        text, _version = web_of(request).store.read("game", name)
    except (FileNotFoundError, UserError):
        raise Refused(404, Text("web.refused.no_such_game")) from None
    headers = SECURITY_HEADERS | {"Content-Disposition": f'attachment; filename="{name}.game.yaml"'}
    return Response(text, media_type="application/yaml; charset=utf-8", headers=headers)


# --- small helpers for the templates ---------------------------------------------------------------


def city_or_classic_name(holding: Any) -> str:
    return holding.district if isinstance(holding, positions.CityHolding) else holding.square


def holding_value(game: positions.Game, player: positions.Player, holding: Any, variant: str | None, lang: str) -> int:
    """What the holding counts for in the fortune: the rent another player would pay (City), or the board's
    values (classic, :func:`unit.calculator.classic.holding_value`)."""
    try:
        return rules.of(game).holding_value(game, player, holding, variant)
    except UserError:
        return 0  # a City card not copied yet: the fortunes page says which


def group_of(game: positions.Game) -> dict[str, str]:
    """Each square's colour group (edition data, shown on its card); ``station`` or ``utility`` for those."""
    return {place.name: place.group or place.kind for place in rules.of(game).places(game)}


def group_label(game: positions.Game, group: str, lang: str) -> str:
    """A group as the page names it: the edition's French name of a classic colour (``bleu foncé``)."""
    return said(rules.of(game).group_name(game, group), i18n.words(lang))
