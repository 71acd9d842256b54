"""What a phone that may not write is told (issue 28, item 4): the page its form came from, as the file is now,
with the line saying how to pair (:func:`unit.web.common.pair_first`) and what it typed; status 403, nothing
written.

The route table (:mod:`unit.web.app`) names one of these beside each form that writes the calculator's files
(:func:`unit.web.common.paired_form_endpoint`): the check is made there, once, before the form's own work.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from unit.web import cards, editions, game, reports, table
from unit.web.common import Form, language_of, whole

FORBIDDEN = 403


def game_form(request: Request, form: Form, line: str) -> Response:
    """A game's form (a payment, a correction, an undo, the box's sale, removing a player): the view it was tapped
    on (or the rent page), what was typed kept, saying why nothing was done."""
    loaded = game.load(request, request.path_params["name"])
    if form.get("back") == "rent":
        return reports.show_rent(request, loaded, form.get("square", ""), form.get("dice", ""), line, FORBIDDEN)
    return table.refusal_view(request, loaded, form, table.ViewRefusal(line), FORBIDDEN)


def game_card(request: Request, form: Form, line: str) -> Response:
    """A City card the bank asked for (unit/web/cards.py): the card as typed, the line above it (JSON for the
    page's script, which checks and saves as it is typed)."""
    if editions.wants_json(request):
        return editions.answer({"ok": False, "errors": {"_": line}}, FORBIDDEN)
    table = cards.table_of(request)
    ask = cards.ask_of(request, table.loaded.name)
    return cards.refused_form(request, table, ask, form, {"_": line}, FORBIDDEN)


def new_game(request: Request, form: Form, line: str) -> Response:
    """A new game: the list of games, the form as typed."""
    return game.games_list(request, line, FORBIDDEN, form)


def new_edition(request: Request, form: Form, line: str) -> Response:
    """A new edition: the list of editions, the name as typed."""
    typed = " ".join(form.get("title", "").split()) or form.get("name", "").strip()
    return editions.list_page(request, FORBIDDEN, new_error=line, new_name=typed)


def card(request: Request, form: Form, line: str) -> Response:
    """A card of an edition, saved or checked as typed: the card as typed (JSON for the page's script)."""
    return edition_form(request, form, line, "card")


def values(request: Request, form: Form, line: str) -> Response:
    """An edition's values: the edition's page, its values as typed."""
    return edition_form(request, form, line, "values")


def edition_form(request: Request, form: Form, line: str, what: str) -> Response:
    name, ed, version = editions.find(request)
    if editions.wants_json(request):
        return editions.answer({"ok": False, "errors": {"_": line}}, FORBIDDEN)
    n = whole(form.get("n"), len(ed.districts)) if what == "card" else None
    return editions.invalid(request, name, ed, version, what, n, form, {"_": line}, FORBIDDEN)


def delete_card(request: Request, form: Form, line: str) -> Response:
    """A card taken out: the edition's page, the card still there."""
    name, ed, version = editions.find(request)
    shown = editions.values_form(ed, language_of(request))
    return editions.invalid(request, name, ed, version, "values", None, shown, {"_": line}, FORBIDDEN)


def upload(request: Request, line: str) -> Response:
    """An edition file uploaded: the line, for the page's script, the file not read."""
    return editions.answer({"ok": False, "error": line}, FORBIDDEN)
