"""The game's reports on the phone: a rent (who pays what and why), the fortunes, the check, the file itself.

Routes (docs/phone.en.md, « An evening: the calculator »)::

    GET  /games/{name}/rent        pick a square (search any part of its name), see who pays what and why
    GET  /games/{name}/fortunes    the fortunes, each player's detail, the winner (``?big=1``: the table's view)
    GET  /games/{name}/check       the position's problems, each with its rule's sentence
    GET  /games/{name}/file        the game file itself (what ``monopoly-city rent/fortune/check`` read)

Rents, fortunes and problems are the command line's own reports (``commands.rent_report``, ``fortune_report``,
``check_report``), so the page and ``monopoly-city rent/fortune/check GAME`` always agree.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from unit import i18n
from unit.calculator import commands, needs
from unit.calculator import position as positions
from unit.calculator.rulebook import RentReport, Rules
from unit.errors import Text, UserError, said
from unit.fields import name_key
from unit.web import bank_page, card_links
from unit.web.common import SECURITY_HEADERS, Refused, language_of, page, see_other, web_of
from unit.web.game import Loaded, broken, load, squares_of, variant_of


def rent_page(request: Request) -> Response:
    """Pick a square (search any part of its name), see who pays what and why; a City district held whose rents
    the edition lacks: its card first (unit/web/cards.py), then back here."""
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
    game, kind = loaded.game, loaded.rules
    squares = squares_of(game, kind)
    shown = [s for s in squares if name_key(query) in s["key"]] if query.strip() else squares
    report, error, needs_dice = rent_of(game, kind, squares, chosen, dice_text, language_of(request))
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
        payers=bank_page.payers(game, kind, report, language_of(request), dice_of(dice_text)),
    )


def rent_of(
    game: positions.Game, kind_rules: Rules, squares: list[dict[str, Any]], chosen: str, dice_text: str, language: str
) -> tuple[RentReport | None, str, bool]:
    """The rent page's report of ``chosen`` (none when no square is chosen), its error line, and whether the
    dice buttons are shown: the calculator's own rent report, the one ``monopoly-city rent`` prints."""
    w = i18n.words(language)
    report: RentReport | None = None
    error, needs_dice = "", False
    if chosen:
        dice = dice_of(dice_text)
        refusal = kind_rules.dice_refusal(game, chosen, dice)
        if refusal is not None:  # dice the page never offers (13, on a street): its buttons, and why not those
            return None, refusal.say(w), True
        kind = next((s["kind"] for s in squares if s["name"] == chosen), None)
        needs_dice = kind == "utility" and bool(dice_text)  # the buttons stay to change the throw
        try:
            report = commands.rent_report(game, chosen, dice, language, kind_rules)
        except UserError as e:  # a name not found, or an edition still to be copied
            error = said(e.message, w)
        if report is not None and report.needs_dice:  # an owned utility: its rent is a multiple of the throw
            report, error, needs_dice = None, w("web.calc.dice_needed"), True
    return report, error, needs_dice


def dice_of(text: str) -> int | None:
    """The throw a rent page's address gives (``?dice=7``), or None (none, or not a small number)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) < 3 else None


def fortunes_page(request: Request) -> Response:
    """The fortunes, each player's detail, the winner (``?big=1``: the table's view)."""
    loaded = load(request, request.path_params["name"])
    lang = language_of(request)
    game, kind = loaded.game, loaded.rules
    variant = variant_of(kind, request.query_params.get("variant"))
    lacking = needs.missing(game, "fortune")
    if lacking:  # a district held whose rents were never needed: asked now, one card at a time
        back = f"/games/{loaded.name}/fortunes"
        return see_other(card_links.card_url(loaded.name, "fortune", lacking[0].district, back=back))
    try:
        report = commands.fortune_report(game, variant, kind)
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
        fmt=lambda amount: kind.write(amount, i18n.words(lang)),
        big=request.query_params.get("big") == "1",
        small_query=urlencode({"variant": variant} if variant else {}),
        big_query=urlencode(({"variant": variant} if variant else {}) | {"big": "1"}),
    )


def check_page(request: Request) -> Response:
    """The position's problems, each with its rule's sentence: the calculator's own check report, the ledger's
    included (a change made by hand since the file was written: ``monopoly-city check`` says it too)."""
    loaded = load(request, request.path_params["name"])
    game, kind = loaded.game, loaded.rules
    variant = variant_of(kind, request.query_params.get("variant"))
    report = commands.check_report(game, variant, kind, ledger=True)
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
