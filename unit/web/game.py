"""The calculator on the phone (issue 14): reading a game, the list of games and a new one.

Routes (docs/phone.en.md, « An evening: the calculator »)::

    GET  /games                    the games in the data folder; a form to start one
    POST /games                    start a game (an edition, the players)

The game's views are :mod:`unit.web.table` (the table, a player, a square, the history), its reports
:mod:`unit.web.reports` (a rent, the fortunes, the check, the file), its writes (the bank's taps and the corrections)
:mod:`unit.web.bank`; they all read the game through :func:`load` (:class:`Loaded`: the file's text,
version and game, kept by :class:`unit.web.caches.GameCache`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from unit import i18n
from unit.calculator import classic, gamefile, money, names, rules
from unit.calculator import edition as editions
from unit.calculator import position as positions
from unit.calculator.edition_file import empty, render
from unit.calculator.rulebook import Rules
from unit.errors import MonopolyCityError, Text, UserError, said
from unit.fields import name_key
from unit.web import editions as edition_pages
from unit.web.common import Form, Refused, RefusedPage, Web, language_of, page, see_other, slug_of, web_of, words_of
from unit.web.store import Changed, make_room

VARIANTS = classic.VARIANTS


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
        data = self.text.encode("utf-8")
        return gamefile.GameFile(path, data, self.game, self.edition_ref, self.written, self.file, self.rules)


def variant_of(kind: Rules, text: str | None) -> str | None:
    """The classic variant asked for (``timed`` by default) of a game whose rules are ``kind``; None for a City game,
    which has none."""
    return kind.variant_or_default(text)


def squares_of(game: positions.Game, kind_rules: Rules) -> list[dict[str, Any]]:
    """Every square a rent can be asked for, in board order, with its owner and a search key (``kind_rules``: the
    game's rules, looked up once for the request)."""
    owners = {name: players[0] for name, players in game.owners().items()}
    out = []
    for name, kind, group in kind_rules.places(game):
        owner = owners.get(name)
        out.append(
            {"name": name, "kind": kind, "group": group, "owner": owner, "key": name_key(f"{name} {owner or ''}")}
        )
    return out


# --- who may be added: one check for the page and the command line (unit.calculator.names) --------------

MAX_PLAYERS = names.MAX_PLAYERS
PLAYER_NAME_CHARS = names.PLAYER_NAME_CHARS


def players_refused(typed: list[str], w: i18n.Words) -> str | None:
    """What the page says of the players typed, in one line: too many, or the first name
    :func:`unit.calculator.names.player_name` refuses, with its sentence (a control character, too long, a name of
    the bank); None when every one is taken."""
    if len(typed) > MAX_PLAYERS:
        return w("web.calc.player_name", n=PLAYER_NAME_CHARS)
    for name in typed:
        try:
            names.player_name(name, "name")
        except UserError as error:
            return said(error.message, w)
    return None


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
    refusal = players_refused(typed, w)
    if refusal is not None:
        return games_list(request, refusal, 400, form)
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
