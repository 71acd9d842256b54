"""A Monopoly City card asked the first time the bank needs it (issue 27 item 4).

Monopoly City's district values are printed only on the box's 22 cards. A City game may start on an edition
that has none of them yet: when the bank is about to buy a district at its printed price, take its rent, build a
block or a skyscraper on it, pay the GO salary or the industry tax, and the edition lacks the value, the page
asks for exactly that (:func:`unit.calculator.needs.missing`) on one compact form, the rest of the card offered
as optional; then one tap does what the bank was asked. A card not yet in the edition (the card in the banker's
hand) is added there with its name and its colour group, chosen among the groups entered or new; values a group
shares are entered once (the skyscraper price) or offered from the group's other cards (the block costs).

The form is the Editions card form's (:mod:`unit.web.editions`): the same loader checks each field as it is
typed and says what is wrong under it, in the page's language; the same writer puts the card in the edition
file (the draft IS the edition file); the same script (static/edition.js) checks, saves as typed, and gives
the k and M keys. Nothing typed is lost: a refusal gives the form back as typed.

Routes (docs/phone.en.md, « The first City evening »; the contract for the other pages:
the note cards-api.md of the lead)::

    GET  /games/{name}/card?for=NEED[&district=D][&player=I][&payer=I][&price=P][&sale=N][&back=PATH]
    POST /games/{name}/card?<the same>      check (check=1), save as typed (auto=1), or save then go on
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from unit import i18n
from unit.calculator import bank, money, needs
from unit.calculator import position as positions
from unit.calculator.edition import HAZARDS, CityEdition
from unit.calculator.edition_file import render
from unit.calculator.needs import Gap
from unit.errors import Text, UserError, said
from unit.fields import name_key
from unit.web import bank_page, editions, game
from unit.web.card_links import ACTION_KEYS, Ask, card_url, digits, safe_back
from unit.web.common import Form, Refused, language_of, page, see_other, web_of, words_of
from unit.web.store import NAME_RE, Changed

#: The bank's taps on a card (``op``) that a card's need stands for (:data:`unit.web.bank_page.CARD_OPS`).
SQUARE_OPS = ("residential", "industrial", "skyscraper", "mortgage", "lift", "hazard")
#: Which form fields each gap's field is (the Editions form's names; a hazard's is its name).
FORM_FIELDS: dict[str, tuple[str, ...]] = {
    "card": ("name", "group"),
    "price": ("price",),
    "residential_cost": ("residential_cost",),
    "industrial_cost": ("industrial_cost",),
    "rents": editions.RENT_FIELDS,
    "skyscraper_cost": ("skyscraper_cost",),
    "go_salary": ("go_salary",),
    "industry_tax": ("industry_tax",),
} | {f"hazards.{h}": (h,) for h in HAZARDS}
#: The card's values, in the form's order (its name and group come first, for a new card only).
CARD_VALUES = ("price", "residential_cost", "industrial_cost", *editions.RENT_FIELDS, "skyscraper_cost")
MAX_NAME = 80


# --- what is asked, and for what -----------------------------------------------------------------------


def ask_of(request: Request, game_name: str) -> Ask:
    params = request.query_params
    need = params.get("for", "")
    if need not in needs.NEEDS:
        raise Refused(400, Text("web.cards.bad_need", needs=", ".join(needs.NEEDS)))
    district = " ".join(params.get("district", "").split())[:MAX_NAME] or None
    sale = params.get("sale", "")
    return Ask(
        need,
        district,
        player=digits(params.get("player")),
        payer=digits(params.get("payer")),
        price=params.get("price", "").strip()[:20],
        sale=sale if sale.isascii() and sale.isdigit() and len(sale) < 10 else "",
        back=safe_back(params.get("back"), game_name),
    )


@dataclass(frozen=True)
class Table:
    """The game the page is about and its edition, the file the card goes into."""

    loaded: game.Loaded
    edition_name: str  # NAME of NAME.edition.yaml in the data folder
    edition: CityEdition
    version: str  # the edition file's

    @property
    def source(self) -> str:
        return editions.source_of(self.edition_name)


def table_of(request: Request) -> Table:
    """The game of the path and its City edition in the data folder; refused for any other."""
    loaded = game.load(request, request.path_params["name"])
    if loaded.game.kind != "city":
        raise Refused(404, Text("web.cards.not_city"))
    ref = loaded.edition_ref
    name = ref.removesuffix(".edition.yaml")
    if ref != f"{name}.edition.yaml" or not NAME_RE.match(name):
        raise Refused(404, Text("web.cards.not_ours", e=ref))
    try:
        found, _text, version = editions.stored(web_of(request).store, name, language_of(request))
    except FileNotFoundError:
        raise Refused(404, Text("web.cards.not_ours", e=ref)) from None
    if isinstance(found, UserError):
        raise Refused(422, found.say(words_of(request)))
    if not isinstance(found, CityEdition) or version is None:
        raise Refused(404, Text("web.cards.not_city"))
    return Table(loaded, name, found, version)


def district_of(ed: CityEdition, typed: str | None) -> str | None:
    """The edition's name for ``typed`` (as names compare everywhere: case, accents), or None."""
    if typed is None:
        return None
    key = name_key(typed)
    return next((name for name in ed.districts if name_key(name) == key), None)


def gaps_of(table: Table, ask: Ask, ed: CityEdition | None = None) -> tuple[Gap, ...]:
    """What ``ed`` (the table's edition by default) lacks for the ask."""
    ed = ed or table.edition
    the_game = dataclasses.replace(table.loaded.game, edition=ed)
    name = district_of(ed, ask.district) or ask.district
    if ask.need in ("salary", "tax"):
        return needs.missing(the_game, ask.need)
    return needs.missing(the_game, ask.need, name)


# --- the form ------------------------------------------------------------------------------------------------


def group_defaults(ed: CityEdition, language: str) -> dict[str, dict[str, str]]:
    """For each colour group (by its name's key), the values its cards share: the block costs its entered cards
    agree on, and its skyscraper price."""
    out: dict[str, dict[str, str]] = {}
    for group in ed.groups.values():
        shared: dict[str, str] = {}
        for key in ("residential_cost", "industrial_cost"):
            seen = {getattr(ed.districts[d], key) for d in group.districts} - {None}
            if len(seen) == 1:
                shared[key] = editions.shown_amount(seen.pop(), language)
        if group.skyscraper_cost is not None:
            shared["skyscraper_cost"] = editions.shown_amount(group.skyscraper_cost, language)
        out[name_key(group.name)] = shared
    return out


def card_place(ed: CityEdition, name: str | None) -> int | None:
    """The card's place among the edition's (the Editions form's ``n``), None for a card it does not have."""
    return next((n for n, (_g, d) in enumerate(editions.cards(ed)) if d.name == name), None)


def form_page(
    request: Request,
    table: Table,
    ask: Ask,
    gaps: tuple[Gap, ...],
    status: int = 200,
    typed: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    version: str | None = None,
) -> Response:
    """The compact form: what ``gaps`` name, then the rest of the card (folded, optional)."""
    lang = language_of(request)
    w = i18n.words(lang)
    ed = table.edition
    name = district_of(ed, ask.district)
    card = ed.districts.get(name) if name is not None else None
    wanted = [f for gap in gaps for f in FORM_FIELDS[gap.field]]
    prefilled: dict[str, str] = {}
    if ask.board:
        form = editions.values_form(ed, lang)
        optional: list[str] = []
    else:
        form = editions.card_form(ed, card_place(ed, name), lang)
        if card is None:
            form |= {"name": ask.district or "", "group": ""}
        else:  # the group's shared values where this card has none
            for key, value in group_defaults(ed, lang).get(name_key(card.group), {}).items():
                if not form[key]:
                    form[key], prefilled[key] = value, card.group
        optional = [f for f in CARD_VALUES if f not in wanted]
    form |= typed or {}
    group = ed.groups[card.group] if card is not None else None
    names = tuple(p.name for p in table.loaded.game.players)
    return page(
        request,
        "card_ask",
        status,
        game_name=table.loaded.name,
        game=table.loaded.game,
        ask=ask,
        action_query=ask.query(),
        card=card,
        new_card=card is None and not ask.board,
        wanted=wanted,
        optional=optional,
        rents=editions.RENT_FIELDS,
        form=form,
        errors=errors or {},
        prefilled=prefilled,
        version=version or table.version,
        groups=list(ed.groups),
        group_defaults=group_defaults(ed, lang),
        purpose=purpose(ask, card.name if card else ask.district, group.name if group else "", names, w),
    )


def purpose(ask: Ask, district: str | None, group: str, players: tuple[str, ...], w: i18n.Words) -> str:
    """What the bank is about to do, and what it needs for it, in one line."""
    who = players[int(ask.player)] if ask.player and int(ask.player) < len(players) else None
    by = w("web.cards.by", p=who) if who else ""
    of = w("web.cards.of", d=district) if district else ""
    return w(f"web.cards.purpose_{ask.need}", d=district or w("web.cards.this_district"), g=group, by=by, of=of)


def card_page(request: Request) -> Response:
    """``GET /games/{name}/card``: the form, or, once nothing is missing, the bank's action in one tap."""
    table = table_of(request)
    ask = ask_of(request, table.loaded.name)
    gaps = gaps_of(table, ask)
    if gaps:
        return form_page(request, table, ask, gaps)
    if ask.back is not None:
        return see_other(ask.back)
    return ready_page(request, table, ask, saved=request.query_params.get("saved") == "1")


# --- saving ------------------------------------------------------------------------------------------------------


def typed_values(form: Form, ask: Ask) -> dict[str, str]:
    """The form's fields as typed (only the fields a card or the board has). A new card's group is the group
    chosen (a radio) or, for « a new group », the name typed beside it."""
    if ask.board:
        return {key: form[key] for key in ("go_salary", "industry_tax", *HAZARDS) if key in form}
    typed = {key: form[key] for key in ("name", *CARD_VALUES) if key in form}
    if "group" in form or "new_group" in form:
        typed["group"] = form.get("group") or form.get("new_group", "")
    return typed


def checked(table: Table, ask: Ask, form: Form, lang: str) -> tuple[dict[str, str], CityEdition | None, str | None]:
    """The loader's word on the form: each wrong field's line, the edition with the values in (None when a field
    is wrong), and the district's name in it."""
    ed = table.edition
    typed = typed_values(form, ask)
    if ask.board:
        values = editions.values_form(ed, lang) | typed
        errors, result = editions.checked(
            editions.values_builder(ed), editions.edition_values(values), table.source, lang
        )
        return errors, result, district_of(ed, ask.district)
    original = form.get("card", "").strip() or None
    n = card_place(ed, original)
    values = editions.card_form(ed, n, lang) | typed
    if n is not None and "name" not in form:  # a card of the edition: its name and group stay (the Editions
        values |= {key: editions.card_form(ed, n, lang)[key] for key in ("name", "group")}  # page renames)
    errors, result = editions.checked(editions.card_builder(ed, n), editions.card_values(values), table.source, lang)
    return errors, result, editions.blank(values.get("name"))


def needed(gaps: tuple[Gap, ...], ask: Ask, w: i18n.Words) -> dict[str, str]:
    """A line under each field still empty that the bank needs now (rents: under the first of the nine)."""
    line = w("web.cards.needed", what=w(f"web.cards.for_{ask.need}"))
    out: dict[str, str] = {}
    for gap in gaps:
        fields = FORM_FIELDS[gap.field]
        if gap.field == "rents":
            fields = fields[:1]
        if gap.field == "card":
            fields = ("name",)
        out |= dict.fromkeys(fields, line)
    return out


def save(request: Request, form: Form) -> Response:
    """``POST /games/{name}/card``: check (``check=1``), save as typed (``auto=1``: when the loader reads it, the
    needed fields may still be empty), or save (every needed field filled) and go on."""
    table = table_of(request)
    ask = ask_of(request, table.loaded.name)
    lang, w = language_of(request), words_of(request)
    json = editions.wants_json(request)
    mode = "check" if form.get("check") else "auto" if form.get("auto") else "save"
    errors, result, name = checked(table, ask, form, lang)
    still = gaps_of(table, dataclasses.replace(ask, district=name), result) if result is not None else ()
    if mode == "check" or result is None or (mode == "save" and still):
        shown = errors | {k: v for k, v in needed(still, ask, w).items() if k not in errors}
        status = 200 if mode in ("check", "auto") else 400
        if json:
            return editions.answer({"ok": result is not None and not still, "errors": shown}, status)
        return refused_form(request, table, ask, form, shown, status)
    held = editions.breaks_a_game(request, table.edition_name, result)
    try:
        if held is not None:
            raise UserError(table.source, held)
        new_version = web_of(request).store.write(
            editions.KIND, table.edition_name, render(result), form.get("version", "")
        )
    except Changed:
        line = said(Text("web.cards.changed"), w)
        current = web_of(request).store.version(editions.KIND, table.edition_name)
        if json:  # the form keeps what was typed; the next tap saves it over the other phone's change
            return editions.answer({"ok": False, "errors": {"_": line}, "version": current}, 409)
        return refused_form(request, table, ask, form, {"_": line}, 409, version=current)
    except UserError as error:
        line = error.message.say(w) if isinstance(error.message, Text) else str(error.message)
        if json:
            return editions.answer({"ok": False, "errors": {"_": line}}, 409)
        return refused_form(request, table, ask, form, {"_": line}, 409)
    done = dataclasses.replace(ask, district=name)
    location = ask.back or f"/games/{table.loaded.name}/card?{done.query(saved='1')}"
    if json:
        answer: dict[str, Any] = {"ok": True, "errors": needed(still, ask, w), "version": new_version, "card": name}
        answer["n"] = card_place(result, name)
        return editions.answer(answer if mode == "auto" else answer | {"location": location})
    return see_other(location)


def refused_form(
    request: Request,
    table: Table,
    ask: Ask,
    form: Form,
    errors: dict[str, str],
    status: int,
    version: str | None = None,
) -> Response:
    """The form again as typed, each refusal under its field (a page without script)."""
    keys = ("name", "group", "new_group", *CARD_VALUES, "go_salary", "industry_tax", *HAZARDS)
    typed = {key: value for key, value in form.items() if key in keys}
    gaps = gaps_of(table, ask)  # none: the wrong value was in the rest of the card, shown unfolded
    return form_page(request, table, ask, gaps, status, typed, errors, version or form.get("version"))


# --- once nothing is missing: the bank's action, one tap ----------------------------------------------------------


def pending(the_game: positions.Game, ask: Ask, district: str | None) -> tuple[dict[str, str], bank.Action] | None:
    """The bank's form fields and action the ask was for, when it says enough (who buys, who pays)."""
    names = [p.name for p in the_game.players]

    def player(place: str) -> str | None:
        return names[int(place)] if place and int(place) < len(names) else None

    buyer, payer = player(ask.player), player(ask.payer)
    if ask.need in ("salary", "tax") and buyer is not None:
        action: bank.Action = bank.Salary(buyer) if ask.need == "salary" else bank.PayTax(buyer)
        return {"action": "player", "op": ask.need, "player": ask.player, "anchor": f"p{ask.player}"}, action
    if district is None:
        return None
    if ask.need == "buy" and buyer is not None:
        return {"action": "buy", "player": ask.player, "square": district, "anchor": f"p{ask.player}"}, bank.Buy(
            buyer, district
        )
    if ask.need == "auction" and buyer is not None and ask.price:
        try:
            price = money.parse(ask.price, "price")
        except UserError:
            return None
        fields = {"action": "auction", "player": ask.player, "square": district, "price": ask.price}
        return fields | ({"sale": ask.sale} if ask.sale else {}), bank.Buy(buyer, district, price)
    if ask.need == "rent" and payer is not None:
        return {"action": "rent", "payer": ask.payer, "square": district}, bank.PayRent(payer, district)
    if ask.need in SQUARE_OPS:
        ops: dict[str, bank.Action] = {
            "residential": bank.Build(district, residential=1),
            "industrial": bank.Build(district, industrial=1),
            "skyscraper": bank.Build(district, skyscraper=True),
            "mortgage": bank.Mortgage(district),
            "lift": bank.Lift(district),
            "hazard": bank.RemoveHazard(district),
        }
        return {"action": "square", "square": district, "op": ask.need, "anchor": anchor(the_game, district)}, ops[
            ask.need
        ]
    return None


def anchor(the_game: positions.Game, district: str) -> str:
    """The element id of the district's card on the game page (``c1x0``: player 1's first card)."""
    for i, player in enumerate(the_game.players):
        for k, holding in enumerate(player.holdings):
            if holding.name == district:
                return f"c{i}x{k}"
    return ""


def ready_page(request: Request, table: Table, ask: Ask, saved: bool) -> Response:
    """Nothing is missing any more: the card saved, and the bank's action the ask was for, one tap (its line
    said as the history will say it, the amount from the card just typed), or where to go on."""
    w = words_of(request)
    the_game = table.loaded.game
    district = district_of(table.edition, ask.district)
    found = pending(the_game, ask, district)
    line = refusal = ""
    fields: dict[str, str] = {}
    if found is not None:
        fields, action = found
        try:
            _after, entry = bank.apply(the_game, action, table.loaded.rules)
            line = bank.describe(the_game, entry, table.loaded.rules).say(bank_page.page_words(w))
        except UserError as error:  # the bank says no (short of cash, already owned...): its sentence, no tap
            refusal = said(error.message, bank_page.page_words(w))
    name = table.loaded.name
    if ask.need == "fortune":
        onward = f"/games/{name}/fortunes"
    elif ask.need == "rent" and district is not None and found is None:
        onward = f"/games/{name}/rent?{urlencode({'square': district})}"
    else:
        onward = f"/games/{name}" + (f"#{fields['anchor']}" if fields.get("anchor") else "")
    return page(
        request,
        "card_ready",
        game_name=name,
        game=the_game,
        version=table.loaded.version,
        ask=ask,
        district=district,
        saved=saved,
        line=line,
        refusal=refusal,
        fields=fields,
        onward=onward,
    )


# --- the hooks: where the bank found a value missing -------------------------------------------------------------

#: The bank's forms (``action``, ``op``) and the need each is.
FORM_NEEDS = {
    ("buy", ""): "buy",
    ("auction", ""): "auction",
    ("rent", ""): "rent",
    ("player", "salary"): "salary",
    ("player", "tax"): "tax",
} | {("square", op): op for op in SQUARE_OPS}


def ask(request: Request, game_name: str, the_game: positions.Game, form: Form, error: UserError) -> Response | None:
    """Where a bank tap was refused for a value the edition lacks: a 303 to the card form for it, with the tap's
    action carried over (one tap once the card is saved); None for any other refusal (said as before).

    A value of another district (the rents behind « mortgage X » when the payer is short) is asked for that
    district's card, and the page then goes back to the game, where the tap is made again."""
    gap = needs.gap_of(error)
    if gap is None or the_game.kind != "city":
        return None
    what = (form.get("action", ""), form.get("op", "") if form.get("action") in ("player", "square") else "")
    need = FORM_NEEDS.get(what)
    square = form.get("square") or None
    target = gap.district
    if target is not None and target.startswith("group:"):  # the group's skyscraper price: asked on a card of it
        group = the_game.city.groups.get(target.removeprefix("group:"))
        members = group.districts if group is not None else ()
        target = square if square in members else (members[0] if members else None)
    if need is not None and (gap.district is None or target == square) and covers(need, gap):
        action = {k: form.get(k) or form.get("exempt" if k == "payer" else k) for k in ACTION_KEYS}
        return see_other(card_url(game_name, need, square, **action))
    anchor_ = form.get("anchor", "")
    back = f"/games/{game_name}" + (f"#{anchor_}" if anchor_.isalnum() else "")
    # Another district's rents: what the bank's « mortgage X (M ...) » needs, when the payer is short.
    other = "mortgage" if gap.field == "rents" else gap.need
    return see_other(card_url(game_name, other, target, back=back))


def covers(need: str, gap: Gap) -> bool:
    """Whether the card form for ``need`` asks the value ``gap`` names (then the tap can be made after it)."""
    return gap.field in needs.NEEDS[need] or gap.field == "card" or (need == "hazard" and gap.need == "hazard")
