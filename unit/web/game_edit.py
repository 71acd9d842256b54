"""The corrections of a game made on the phone without paying (a slip mended): the game file's data changed, then
read again by the loader and checked by the rules.

Route: ``POST /games/{name}``: one change (``action`` and its fields), from the version the page showed.

No rule lives here: a change edits the game file's data and goes through the loader (``position.parse``: shapes,
names, amounts) and the position check (``city.check`` / ``classic.check``); a change that breaks a rule the position
did not already break is refused with the rule's sentence beside the control, and nothing is written. A change from
an older version is refused with « the game changed, reload » (:class:`unit.web.store.Changed`). The answer is the
view the form came from (:mod:`unit.web.table`).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from unit import i18n
from unit.calculator import classic, rules
from unit.calculator import position as positions
from unit.calculator.rulebook import words as rule_words
from unit.errors import UserError, said
from unit.web import table
from unit.web.common import Form, Web, language_of, see_other, web_of, words_of
from unit.web.game import MAX_PLAYERS, PLAYER_NAME_CHARS, Loaded, load, player_name_fits, variant_of
from unit.web.store import Changed

COUNTS = ("residential", "industrial", "houses")  # a holding's fields that are whole numbers
#: The element a refusal of each correction is said beside, on its view (unit/web/table.py).
FIELDS = {
    "cash": "cash",
    "buy": "add",
    "drop": "leave",
    "tower": "fix",
    "exemption": "exemption",
    "set": "fix",
    "give": "fix",
    "player": "new-player",
}


class FieldError(Exception):
    """A change refused: the sentence to show, and the field (an element id on the page) it is about."""

    def __init__(self, message: str, field: str = ""):
        super().__init__(message)
        self.message = message
        self.field = field


# --- changing a game: the file's data, then the loader and the check ------------------------------


def change(loaded: Loaded, form: dict[str, str], web: Web, language: str) -> positions.Game:
    """The game after the change ``form`` asks for; :class:`FieldError` with the rule's sentence if refused."""
    game = loaded.game
    data = positions.dump(game, loaded.edition_ref)
    players = data["players"]
    kind_rules = rules.of(game)
    owned = kind_rules.holdings_key
    action = form.get("action", "")
    field = ""
    try:
        if action == "player":
            field = "new-player"
            name = form.get("value", "").strip()
            if not player_name_fits(name) or len(players) >= MAX_PLAYERS:
                raise FieldError(i18n.words(language)("web.calc.player_name", n=PLAYER_NAME_CHARS), field)
            players.append({"name": name, "cash": kind_rules.starting_cash(game.edition) or 0, owned: []})
        else:
            if action in ("cash", "buy", "tower", "exemption", "drop"):
                index = player_index(form, players, language)
                player = players[index]
            if action == "cash":
                field = f"cash-{index}"
                player["cash"] = form.get("value", "").strip()
            elif action == "buy":
                field = f"buy-{index}"
                player[owned].append({"name": form.get("square", "")})
            elif action == "drop":
                field = f"player-{index}"
                if player[owned]:
                    raise FieldError(i18n.words(language)("web.calc.drop_holdings"), field)
                del players[index]
            elif action == "tower":
                field = f"tower-{index}"
                player["tower"] = form.get("value") or None
                if player["tower"] is None:
                    del player["tower"]
            elif action == "exemption":
                field = f"exemption-{index}"
                player["exemption_card"] = form.get("value") == "1"
            elif action in ("set", "give"):
                square = form.get("square", "")
                holder, holding = held(data, game, square, language)
                field = f"h-{holding['name']}"
                if action == "give":
                    holder[owned].remove(holding)
                    if form.get("player", "") != "":
                        players[player_index(form, players, language)][owned].append(holding)
                else:
                    key, value = form.get("key", ""), form.get("value", "")
                    if "kv" in form:  # a tap on a card: « residential=4 »
                        key, _, value = form["kv"].partition("=")
                    set_value(holding, key, value, kind_rules.holding_fields, language)
                    if key == "hotel":  # a classic hotel is bought for its houses, and back
                        traded = classic.houses_per_hotel(game.classic, variant_of(game, form.get("variant")))
                        holding.pop("houses", None)
                        if not holding.get("hotel"):
                            holding["houses"] = traded
            else:
                raise FieldError(i18n.words(language)("web.calc.unknown_action"))
        after = positions.parse(data, loaded.file, web.store.root, language, web.editions.load)
    except UserError as error:
        raise FieldError(said(error.message, i18n.words(language)), field) from None
    new = kind_rules.new_problems(game, after, variant_of(game, form.get("variant")))
    if new:
        raise FieldError(" ".join(p.message.say(i18n.words(language)) for p in new), field)
    return after


def player_index(form: dict[str, str], players: list[dict[str, Any]], language: str) -> int:
    text = form.get("player", "")
    if not (text.isascii() and text.isdigit()) or int(text) >= len(players):  # not '²': isdigit, not int
        raise FieldError(i18n.words(language)("web.calc.no_player"))
    return int(text)


def held(
    data: dict[str, Any], game: positions.Game, typed: str, language: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The player's entry and the holding's entry in ``data`` for the square ``typed``; who holds nobody's is
    refused with the calculator's « nobody owns » sentence."""
    kind_rules = rules.of(game)
    name = kind_rules.find(game, typed, "square")
    owned = kind_rules.holdings_key
    for player in data["players"]:
        for holding in player[owned]:
            if holding["name"] == name:
                return player, holding
    raise UserError("square", rule_words(language, "args.nobody_owns", s=name))


def set_value(holding: dict[str, Any], key: str, text: str, allowed: tuple[str, ...], language: str) -> None:
    """One field of a holding (one of ``allowed``, the game's), as the file writes it; the loader checks it (a
    negative count, a bad name)."""
    if key not in allowed:
        raise FieldError(i18n.words(language)("web.calc.unknown_action"))
    value: Any
    if key in COUNTS:
        text = text.strip()
        value = int(text) if text.isascii() and text.lstrip("-").isdigit() and len(text) < 6 else text
    elif key in ("hazard", "bonus"):
        value = text or None
    else:
        value = text == "1"
    if value in (None, False, 0):
        holding.pop(key, None)
    else:
        holding[key] = value


def edit(request: Request, form: Form) -> Response:
    """One change to the position, made from the version the page showed; refused with the rule's sentence."""
    store = web_of(request).store
    name = request.path_params["name"]
    loaded = load(request, name)
    lang, w = language_of(request), words_of(request)
    field = FIELDS.get(form.get("action", ""), "")
    if form.get("version") != loaded.version:
        return table.refusal_view(request, loaded, form, table.ViewRefusal(w("web.calc.changed")), 409)
    try:
        after = change(loaded, form, web_of(request), lang)
    except FieldError as error:
        return table.refusal_view(request, loaded, form, table.ViewRefusal(error.message, field), 400)
    try:
        store.write("game", name, positions.dumps(after, loaded.edition_ref), loaded.version)
    except Changed:
        return table.refusal_view(request, loaded, form, table.ViewRefusal(w("web.calc.changed")), 409)
    except UserError as error:  # too large for the command line, or the disk refused it: nothing written
        return table.refusal_view(request, loaded, form, table.ViewRefusal(error.say(w), field), 507)
    return see_other(table.after_tap(name, form, {}))
