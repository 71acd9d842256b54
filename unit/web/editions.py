"""The Editions pages: the built-in boards, and a Monopoly City edition entered card by card on the phone.

Monopoly City's district values are printed only on its 22 cards, so the table
types them in once, one card at a time: name, colour group, price, the two
building costs, the nine rents and the group's skyscraper price; then the
edition's own values (its name, the starting cash, GO's salary, the industry
tax, what each hazard is worth). These are exactly the fields of a City
edition file (``monopoly-city edition template city``).

Every field is checked as it is typed by the loader itself: the page sends the
card, the server puts it into the edition file and reads that with
:func:`unit.calculator.edition.parse`, and each wrong field gets the loader's
own message in the page's language. No rule is written in JavaScript.

The draft is the edition file itself with fewer districts: the loader reads a
City edition with any number of districts and values left ``null``, so a card
is written the moment it is valid and ``monopoly-city board NAME.edition.yaml``
reads the file at every step. The file is rewritten from the loaded edition
(amounts as the cards print them, French style): comments of an uploaded file
do not survive the first change made on the phone.

Who may edit: anyone who loaded a page (the calculator works without a running
unit, so it cannot need the unit's pairing). Every state-changing request is a
same-origin POST with the session's CSRF token and a bounded body
(:func:`unit.web.common.checked_form`); the upload, whose body is the file, makes the same
checks with the token in the ``X-CSRF-Token`` header and is bounded at
:data:`MAX_UPLOAD`. Reading and downloading are open.

Routes (``/editions``):

- ``GET /editions``: the built-in editions (read only) and the table's own, a new one, an upload;
- ``POST /editions/new``: an empty City edition ``name``;
- ``GET /editions/{name}``: a City edition's cards, progress and values (a classic one: its summary);
- ``GET /editions/{name}/card``: a card's form (``?n=K``: the K-th card; without it, a new card);
- ``POST /editions/{name}/card`` and ``POST /editions/{name}/values``: check (``check=1``) or save;
  JSON for the page's script (``Accept: application/json``), a page or a redirect for a plain form; a card
  with ``auto=1`` (the page's script, after each pause in typing) is saved if it is right, else checked;
- ``POST /editions/{name}/card/delete``: take the card ``n`` out;
- ``GET /editions/{name}/download``: the file, built-in ones too;
- ``GET /editions/{kind}/template``: ``monopoly-city edition template KIND`` (city, europe-1991);
- ``POST /editions/upload?name=NAME``: the body is the file (at most :data:`MAX_UPLOAD` bytes).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from importlib import resources
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Scope

from unit import i18n, yamlfile
from unit.calculator import edition, money
from unit.calculator import position as positions
from unit.calculator.commands import TEMPLATES
from unit.calculator.edition import HAZARDS, SHIPPED, CityEdition, ClassicEdition
from unit.calculator.edition_file import document, empty, render
from unit.errors import Text, UserError
from unit.fields import name_key
from unit.web.common import (
    SECURITY_HEADERS,
    Form,
    Refused,
    check_token,
    language_of,
    page,
    poster,
    see_other,
    slug_of,
    web_of,
    words_of,
)
from unit.web.store import NAME_RE, Changed, Store

KIND = "edition"
#: Monopoly City has 22 districts (reference/rules.md): the progress counts complete cards out of these.
CITY_DISTRICTS = 22
UPLOAD_PATH = "/editions/upload"
#: The largest upload: 22 cards with 40-letter names and 7-digit amounts make 6.0 KB, classic-fr.yaml 7.8 KB, the
#: commented City template 6.7 KB (``python benchmarks/web_edition_sizes.py`` prints them): 256 KiB is 30 times more.
MAX_UPLOAD = 256 * 1024
RENT_FIELDS = tuple(f"rent{j}" for j in range(edition.CITY_RENT_LEVELS))
CARD_AMOUNTS = ("price", "residential_cost", "industrial_cost")
CARD_FIELDS = ("name", "group", *CARD_AMOUNTS, *RENT_FIELDS, "skyscraper_cost")
VALUE_FIELDS = ("name", "starting_cash", "go_salary", "industry_tax", *HAZARDS)
#: What stands for a wrong field while the others are checked (never written): a name nobody types, and a
#: rent of 0 (a null inside the nine rents is itself wrong); any other field is left null.
SET_ASIDE: dict[str, object] = {"name": "\x00name", "group": "\x00group"} | dict.fromkeys(RENT_FIELDS, 0)
#: The fields that are amounts of the game's money: every one at least M 10k on a City card or board
#: (reference/rules.md), so a bare ``500`` there is a forgotten k, asked back (issue 27 item 3).
AMOUNT_FIELDS = (*CARD_AMOUNTS, *RENT_FIELDS, "skyscraper_cost", "starting_cash", "go_salary", "industry_tax")


def source_of(name: str) -> str:
    """How the loader names the file in its lines: the file's name, never its folder."""
    return f"{name}.edition.yaml"


def cards(ed: CityEdition) -> list[tuple[str, edition.District]]:
    """Every card in the file's order: (its group, the district)."""
    return [(group.name, ed.districts[n]) for group in ed.groups.values() for n in group.districts]


def complete(ed: CityEdition, group: str, district: edition.District) -> bool:
    """Every value of the card copied (a null is a value still to copy)."""
    values = (district.price, district.residential_cost, district.industrial_cost, district.rents)
    return all(v is not None for v in values) and ed.groups[group].skyscraper_cost is not None


def progress(ed: CityEdition) -> int:
    """How many of the 22 cards are complete."""
    return sum(complete(ed, group, d) for group, d in cards(ed))


def progress_text(done: int, language: str) -> str:
    """« 14 quartiers sur 22 », « 1 quartier sur 22 »."""
    key = "web.edition.progress_one" if done <= 1 else "web.edition.progress"
    return i18n.words(language)(key, n=done, total=CITY_DISTRICTS)


# --- checking a form with the loader --------------------------------------------------------------


def blank(text: str | None) -> str | None:
    """A form field as a file value: empty is ``null`` (still to copy)."""
    text = (text or "").strip()
    return text or None


def whole(text: str | None) -> object:
    """A count typed in a form, as YAML would read it: digits are a number, anything else stays text."""
    value = blank(text)
    return int(value) if value is not None and value.isascii() and value.isdigit() and len(value) <= 9 else value


Values = dict[str, object]  # a form's fields as the file's values (None: still to copy)
Build = Callable[[Values], tuple[dict[str, Any], dict[str, str]]]


def checked(build: Build, values: Values, source: str, language: str) -> tuple[dict[str, str], CityEdition | None]:
    """Each wrong field's message from the loader, and the edition when every field is right.

    ``build(values)`` gives the edition file's data and the place of each field in it. The loader reads it
    once, noting every wrong value and reading on (:class:`unit.calculator.edition.Problems`), so every field
    gets exactly the loader's message (an empty rent beside typed ones too: the page shows a field's message
    once it was typed in); a line about no field of the form (the file's shape) is the whole line ``_``.
    """
    words = i18n.words(language)
    errors: dict[str, str] = {}
    data, places = build(dict(values))
    problems = edition.Problems()
    try:
        loaded: object = edition.parse(data, source, language, problems)
    except UserError as shape:  # the shape, not a field: the reading stopped there
        problems.found.append(shape)
        loaded = None
    for wrong in problems.found:
        field = places.get(wrong.where.removeprefix(f"{source}: "))
        if field is None or field in errors:
            errors["_"] = wrong.say(words)  # not one of the form's fields: the whole line
            return errors, None
        errors[field] = wrong.message.say(words) if isinstance(wrong.message, Text) else wrong.message
    errors |= {k: v for k, v in slips(values, language).items() if k not in errors}
    return errors, None if errors else loaded  # type: ignore[return-value]  # game: city


def slips(values: Values, language: str) -> dict[str, str]:
    """The amounts typed bare under M 10k (``500``), each asked back under its field as the command line asks it
    (« 500 ? M 500 ou M 500k ? … »): nothing on a City card costs less, so it is a forgotten k, never saved silently.
    Written in full (``M 500``), an amount is what it says; one the loader refuses is said by the loader."""
    words = i18n.words(language)
    out: dict[str, str] = {}
    for key in AMOUNT_FIELDS:
        typed = values.get(key)
        if not isinstance(typed, str):
            continue
        try:
            question = money.slip(typed, money.parse(typed, key, language))
        except UserError:
            continue
        if question is not None:
            out[key] = question.say(words)
    return out


def card_builder(ed: CityEdition, old: int | None) -> Build:
    """The edition file with the card put in (``old``: the place of the card it replaces)."""
    base = document(ed)

    def build(values: Values) -> tuple[dict[str, Any], dict[str, str]]:
        data = copy.deepcopy(base)
        groups = data["groups"]
        previous: tuple[dict[str, Any], int] | None = None
        if old is not None:
            flat = [(group, d) for group in groups for d in range(len(group["districts"]))]
            group, d = flat[old]
            del group["districts"][d]
            previous = (group, d)
        rents = [values[f] for f in RENT_FIELDS]
        card = {
            "name": values["name"],
            **{key: values[key] for key in CARD_AMOUNTS},
            "rents": None if all(r is None for r in rents) else rents,
        }
        typed = values["group"]  # "Rouge" is the group "rouge" already entered, as names compare everywhere

        def same(name: str) -> bool:
            return isinstance(typed, str) and name_key(name) == name_key(typed)

        target = next((group for group in groups if same(group["name"])), None)
        if target is None:
            target = {"name": values["group"], "skyscraper_cost": None, "districts": []}
            groups.append(target)
        if previous is not None and previous[0] is target:
            target["districts"].insert(previous[1], card)
        else:
            target["districts"].append(card)
        if values["skyscraper_cost"] is not None or previous is not None:  # a new card left blank: the group keeps it
            target["skyscraper_cost"] = values["skyscraper_cost"]
        data["groups"] = [group for group in groups if group["districts"]]
        g = next(i for i, group in enumerate(data["groups"]) if group is target)
        d = next(i for i, item in enumerate(target["districts"]) if item is card)
        at = f"groups[{g}].districts[{d}]"
        places = {f"groups[{g}].name": "group", f"groups[{g}].skyscraper_cost": "skyscraper_cost"}
        places |= {f"{at}.{key}": key for key in ("name", *CARD_AMOUNTS)}
        places |= {f"{at}.rents[{j}]": f for j, f in enumerate(RENT_FIELDS)} | {f"{at}.rents": RENT_FIELDS[0]}
        return data, places

    return build


def values_builder(ed: CityEdition) -> Build:
    """The edition file with its own values (name, amounts, hazards) as typed."""
    base = document(ed)

    def build(values: Values) -> tuple[dict[str, Any], dict[str, str]]:
        data = copy.deepcopy(base)
        data["name"] = values["name"]
        for key in ("starting_cash", "go_salary", "industry_tax"):
            data[key] = values[key]
        if data["starting_cash"] is None:
            del data["starting_cash"]  # the rules' own amount
        data["hazards"] = {h: values[h] for h in HAZARDS}
        places = {key: key for key in VALUE_FIELDS if key not in HAZARDS} | {f"hazards.{h}": h for h in HAZARDS}
        return data, places

    return build


def card_values(fields: dict[str, str]) -> Values:
    return {key: blank(fields.get(key)) for key in CARD_FIELDS}


def uncarried(values: Values, fields: dict[str, str], ed: CityEdition, language: str) -> Values:
    """The card's values without a skyscraper price carried over from the previous card's group.

    After a card is saved the next card's form starts in the same group with its skyscraper price
    (``carried_from`` names that group; the page's script empties it when the price is typed or follows
    the group). A card put in another group with that price untouched gets its own group's price: none
    for a new group, so a new colour group starts with an empty skyscraper price."""
    source = fields.get("carried_from", "")
    group = values.get("group")
    if not source or source not in ed.groups or not isinstance(group, str) or name_key(group) == name_key(source):
        return values
    if values.get("skyscraper_cost") != (shown_amount(ed.groups[source].skyscraper_cost, language) or None):
        return values  # typed: the person's own price
    own = next((g for g in ed.groups if name_key(g) == name_key(group)), None)
    price = shown_amount(ed.groups[own].skyscraper_cost, language) if own is not None else ""
    return values | {"skyscraper_cost": price or None}


def edition_values(fields: dict[str, str]) -> Values:
    return {key: whole(fields.get(key)) if key in HAZARDS else blank(fields.get(key)) for key in VALUE_FIELDS}


# --- the shown values ------------------------------------------------------------------------------


def shown_amount(value: int | None, language: str) -> str:
    """An amount in a form field, as the table writes it (``2,5M``); empty for none. One under M 10k keeps its
    currency (``M 500``): written in full, it is not asked back (:func:`slips`) each time the card is saved."""
    if value is None:
        return ""
    shown = money.city(value, language)
    return shown if 0 < value < money.CITY_SMALLEST else shown.removeprefix("M ")


def card_form(ed: CityEdition, n: int | None, language: str) -> dict[str, str]:
    """The form's fields for the card ``n`` (empty for a new card)."""
    if n is None:
        return {key: "" for key in CARD_FIELDS}
    group, d = cards(ed)[n]
    form = {"name": d.name, "group": group, "skyscraper_cost": shown_amount(ed.groups[group].skyscraper_cost, language)}
    form |= {key: shown_amount(getattr(d, key), language) for key in CARD_AMOUNTS}
    form |= {f: shown_amount(None if d.rents is None else d.rents[j], language) for j, f in enumerate(RENT_FIELDS)}
    return form


def values_form(ed: CityEdition, language: str) -> dict[str, str]:
    form = {"name": ed.name, **{h: "" if ed.hazards[h] is None else str(ed.hazards[h]) for h in HAZARDS}}
    amounts = ("starting_cash", "go_salary", "industry_tax")
    return form | {key: shown_amount(getattr(ed, key), language) for key in amounts}


def shipped_text(name: str) -> str:
    return resources.files("unit.calculator").joinpath(f"editions/{name}.yaml").read_text(encoding="utf-8")


# --- the endpoints ----------------------------------------------------------------------------------


def wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def answer(obj: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse(obj, status_code=status, headers=SECURITY_HEADERS)


def too_large(scope: Scope, limit: int) -> str:
    """A body over the limit (said by the body limit): the upload's, over :data:`MAX_UPLOAD`, is the loader's
    line; any other request's, one line in the page's language."""
    request = Request(scope)
    if scope["path"] != UPLOAD_PATH:
        return words_of(request)("web.refused.too_large")
    name = request.query_params.get("name", "")
    where = source_of(name) if NAME_RE.match(name) else uploaded_file(request) or KIND
    return UserError(where, Text("errors.too_large", limit=limit, what=Text("errors.a.edition"))).say(words_of(request))


def said(error: UserError, request: Request) -> str:
    return error.say(words_of(request))


def stored(store: Store, name: str, language: str = "fr") -> tuple[object, str, str | None]:
    """(the edition or the loader's error, the file's text, its version); FileNotFoundError when none."""
    source = source_of(name)
    try:
        text, version = store.read(KIND, name)
    except UserError as error:  # not UTF-8, too large, not a regular file: listed with its line, never edited
        return error, "", None
    try:  # kept by version: the list and every card's page read the same file again
        loaded: object = edition.parse_text(text, source, language)
    except UserError as error:
        loaded = error
    return loaded, text, version


def breaks_a_game(request: Request, name: str, changed: CityEdition) -> str | None:
    """The line saying which game of the folder would no longer read with ``changed`` (a district renamed
    or taken out that a game holds), or None: the table's games and their edition never disagree."""
    store = web_of(request).store
    ref, lang = source_of(name), language_of(request)
    for game in store.names("game"):
        try:
            text, _version = store.read("game", game)
            data = yamlfile.parse(text, f"{game}.game.yaml", what="game file")
            if not isinstance(data, dict) or data.get("edition") != ref:
                continue
        except UserError:
            continue  # a game that does not read already, or reads another edition: not this change's doing
        try:
            positions.parse(data, f"{game}.game.yaml", store.root, lang, load_edition=lambda *_a, **_k: changed)
        except UserError as error:
            why = error.say(i18n.words(lang))
            return said(UserError(ref, Text("web.edition.held", game=f"{game}.game.yaml", why=why)), request)
    return None


def find(request: Request) -> tuple[str, CityEdition, str]:
    """The City edition the path names, with its version; :class:`Refused` (404) when there is none."""
    name = request.path_params["name"]
    try:
        loaded, _text, version = stored(web_of(request).store, name)
    except (FileNotFoundError, UserError):
        raise Refused(404, Text("web.refused.not_found")) from None
    if not isinstance(loaded, CityEdition) or version is None:
        raise Refused(404, Text("web.refused.not_a_city_edition"))
    return name, loaded, version


def index(request: Request) -> Response:
    return list_page(request)


def list_page(request: Request, status: int = 200, **extra: Any) -> Response:
    """The built-in editions (read only) and the table's own, each with its progress or its error line."""
    store = web_of(request).store
    lang = language_of(request)
    shipped = []
    for name in SHIPPED:
        builtin = edition.load(name, language=lang)
        shipped.append({"name": name, "title": builtin.name, "game": builtin.game})
    own = []
    for name in store.names(KIND):
        try:
            loaded, _text, _version = stored(store, name, lang)
        except (FileNotFoundError, UserError):
            continue
        item: dict[str, Any] = {"name": name, "game": getattr(loaded, "game", None)}
        if isinstance(loaded, CityEdition):
            item |= {"title": loaded.name, "done": progress(loaded), "cards": len(loaded.districts)}
        elif isinstance(loaded, ClassicEdition):
            item |= {"title": loaded.name}
        else:
            item |= {"title": name, "error": said(loaded, request) if isinstance(loaded, UserError) else ""}
        own.append(item)
    return page(
        request, "edition_list", status, shipped=shipped, own=own, total=CITY_DISTRICTS, **({"new_error": ""} | extra)
    )


def new(request: Request, fields: Form) -> Response:
    """An empty City edition: ``title`` is its name as people say it (the page's form; its file name is made
    from it and never shown), or ``name`` the file name itself (as before)."""
    store = web_of(request).store
    title = " ".join(fields.get("title", "").split())
    name = fields.get("name", "").strip()
    try:
        if title:
            name = slug_of(title, {*store.names(KIND), *SHIPPED})
            if not name or len(title) > TITLE_CHARS or not title.isprintable():  # no escape code kept in a name
                raise UserError("edition", Text("web.edition.bad_title", n=TITLE_CHARS))
        if name in SHIPPED:
            raise UserError(source_of(name), Text("web.edition.reserved"))
        store.path(KIND, name)
        if store.version(KIND, name) is not None:
            raise UserError(source_of(name), Text("web.edition.exists"))
        store.write(KIND, name, render(empty(title or f"Monopoly City ({name})")), None)
    except UserError as error:
        return list_page(request, 400, new_error=said(error, request), new_name=title or name)
    return see_other(f"/editions/{name}")


TITLE_CHARS = 60


def show(request: Request) -> Response:
    """A City edition's cards, progress and values (a classic one: its summary)."""
    name = request.path_params["name"]
    lang = language_of(request)
    if name in SHIPPED:
        loaded: object = edition.load(name, language=lang)
        version = None
    else:
        try:
            loaded, _text, version = stored(web_of(request).store, name, lang)
        except (FileNotFoundError, UserError):
            raise Refused(404, Text("web.refused.not_found")) from None
    context: dict[str, Any] = {"slug": name, "shipped": name in SHIPPED, "total": CITY_DISTRICTS}
    if isinstance(loaded, UserError):
        return page(request, "edition", broken=said(loaded, request), **context)
    if isinstance(loaded, ClassicEdition):
        return page(request, "edition", classic=loaded, **context)
    assert isinstance(loaded, CityEdition)
    message = request.query_params.get("m", "")
    return page(
        request,
        "edition",
        city=loaded,
        cards=listed(loaded),
        done=progress(loaded),
        form=values_form(loaded, lang),
        errors={},
        version=version,
        message=message if message in ("saved", "deleted") else "",
        hazards=HAZARDS,
        **context,
    )


def listed(ed: CityEdition) -> list[dict[str, Any]]:
    """The edition's cards as its page lists them."""
    return [
        {"n": n, "group": group, "name": d.name, "complete": complete(ed, group, d)}
        for n, (group, d) in enumerate(cards(ed))
    ]


def card_page(
    request: Request, name: str, ed: CityEdition, version: str, n: int | None, status: int = 200, **values: Any
) -> Response:
    """A card's form: the card ``n``, or a new card (``n`` None)."""
    return page(
        request,
        "edition_card",
        status,
        slug=name,
        city=ed,
        n=n,
        city_card_name=None if n is None else cards(ed)[n][1].name,
        version=version,
        done=progress(ed),
        total=CITY_DISTRICTS,
        groups=list(ed.groups),
        group_prices={
            name_key(g): shown_amount(spec.skyscraper_cost, language_of(request)) for g, spec in ed.groups.items()
        },
        rents=RENT_FIELDS,
        amounts=CARD_AMOUNTS,
        **({"form": card_form(ed, n, language_of(request)), "errors": {}, "saved_name": None} | values),
    )


def card(request: Request) -> Response:
    """A card's form (``?n=K``: the K-th card; without it, a new card; ``?saved=K``: after saving the K-th)."""
    name, ed, version = find(request)
    n = _index(request.query_params.get("n"), len(ed.districts))
    saved = _index(request.query_params.get("saved"), len(ed.districts))
    if saved is None:
        return card_page(request, name, ed, version, n)
    group, district = cards(ed)[saved]
    lang = language_of(request)
    form = card_form(ed, n, lang)
    if n is None:  # the next card, most likely of the same group: its group and skyscraper already there
        form |= {
            "group": group,
            "skyscraper_cost": card_form(ed, saved, lang)["skyscraper_cost"],
            "carried_from": group,
        }
    return card_page(request, name, ed, version, n, saved_name=district.name, form=form)


def save(request: Request, fields: Form, what: str) -> Response:
    """Check (``check=1``) or save a card or the edition's values: JSON for the page's script, a page or a
    redirect for a plain form; a card with ``auto=1`` is saved if it is right, else only checked."""
    name, ed, version = find(request)
    lang = language_of(request)
    source = source_of(name)
    if what == "card":
        n = _index(fields.get("n"), len(ed.districts))
        if fields.get("n") and n is None:
            raise Refused(400, Text("web.refused.no_such_card"))
        errors, result = checked(card_builder(ed, n), uncarried(card_values(fields), fields, ed, lang), source, lang)
    else:
        n = None
        errors, result = checked(values_builder(ed), edition_values(fields), source, lang)
    auto = bool(fields.get("auto")) and what == "card"  # saved as typed when right, else only checked
    if fields.get("check") or result is None:
        status = 200 if fields.get("check") or auto else 400
        if wants_json(request):
            return answer({"ok": result is not None, "errors": errors}, status)
        return invalid(request, name, ed, version, what, n, fields, errors, status)
    held = breaks_a_game(request, name, result)
    if held is not None:
        if wants_json(request):
            return answer({"ok": False, "errors": {"_": held}}, 409)
        return invalid(request, name, ed, version, what, n, fields, {"_": held}, 409)
    try:
        new_version = web_of(request).store.write(KIND, name, render(result), fields.get("version", ""))
    except Changed:  # a stale page
        line = said(UserError(source, Text("web.edition.changed")), request)
        if wants_json(request):
            return answer({"ok": False, "errors": {"_": line}}, 409)
        return invalid(request, name, ed, version, what, n, fields, {"_": line}, 409)
    if what == "card":
        placed = next(i for i, (_g, d) in enumerate(cards(result)) if d.name == blank(fields.get("name")))
        location = f"/editions/{name}/card?saved={placed}"
    else:
        placed, location = None, f"/editions/{name}?m=saved"
    if wants_json(request):
        saved: dict[str, Any] = {"ok": True, "errors": {}, "version": new_version, "n": placed}
        saved |= {"done": progress(result), "progress": progress_text(progress(result), lang)}
        return answer(saved if auto else saved | {"location": location})
    return see_other(location)


def invalid(
    request: Request,
    name: str,
    ed: CityEdition,
    version: str,
    what: str,
    n: int | None,
    fields: Form,
    errors: dict[str, str],
    status: int = 400,
) -> Response:
    """The form again, as typed, each wrong field with the loader's message (a page without script)."""
    typed = {key: fields.get(key, "") for key in (CARD_FIELDS if what == "card" else VALUE_FIELDS)}
    if what == "card":
        return card_page(request, name, ed, version, n, status, form=typed, errors=errors)
    return page(
        request,
        "edition",
        status,
        slug=name,
        shipped=False,
        total=CITY_DISTRICTS,
        city=ed,
        cards=listed(ed),
        done=progress(ed),
        form=typed,
        errors=errors,
        version=version,
        message="",
        hazards=HAZARDS,
    )


def save_card(request: Request, fields: Form) -> Response:
    return save(request, fields, "card")


def save_values(request: Request, fields: Form) -> Response:
    return save(request, fields, "values")


def delete_card(request: Request, fields: Form) -> Response:
    """A card entered by mistake taken out (its group too when it was the last one)."""
    name, ed, _version = find(request)
    n = _index(fields.get("n"), len(ed.districts))
    if n is None:
        raise Refused(400, Text("web.refused.no_such_card"))
    data = document(ed)
    flat = [(group, d) for group in data["groups"] for d in range(len(group["districts"]))]
    group, d = flat[n]
    del group["districts"][d]
    data["groups"] = [group for group in data["groups"] if group["districts"]]
    left = edition.parse(data, source_of(name))
    assert isinstance(left, CityEdition)  # fewer districts
    held = breaks_a_game(request, name, left)
    if held is not None:
        raise Refused(409, held)
    try:
        web_of(request).store.write(KIND, name, render(left), fields.get("version", ""))
    except Changed:
        raise Refused(409, said(UserError(source_of(name), Text("web.edition.changed")), request)) from None
    return see_other(f"/editions/{name}?m=deleted")


def download(request: Request) -> Response:
    """The file, built-in ones too."""
    name = request.path_params["name"]
    if name in SHIPPED:
        text, filename = shipped_text(name), f"{name}.yaml"
    else:
        try:
            text, _version = web_of(request).store.read(KIND, name)
        except (FileNotFoundError, UserError):
            raise Refused(404, Text("web.refused.not_found")) from None
        filename = source_of(name)
    headers = SECURITY_HEADERS | {"Content-Disposition": f'attachment; filename="{filename}"'}
    return Response(text, media_type="application/yaml; charset=utf-8", headers=headers)


def template(request: Request) -> Response:
    """The commented template of ``monopoly-city edition template KIND``, in the page's language."""
    kind = request.path_params["kind"]
    if kind not in TEMPLATES:
        raise Refused(404, Text("web.refused.not_found"))
    folder = resources.files("unit.calculator").joinpath("editions")
    translated = folder.joinpath(TEMPLATES[kind].replace(".yaml", f".{language_of(request)}.yaml"))
    text = (translated if translated.is_file() else folder.joinpath(TEMPLATES[kind])).read_text(encoding="utf-8")
    headers = SECURITY_HEADERS | {"Content-Disposition": f'attachment; filename="{TEMPLATES[kind]}"'}
    return Response(text, media_type="application/yaml; charset=utf-8", headers=headers)


def keep_upload(store: Store, name: str, source: str, body: bytes, lang: str) -> str:
    """The uploaded file kept as it is, if the loader reads it and no edition has its name; without a
    ``name``, its file name is made from the edition's own name (the page's form). Returns the name."""
    read = edition.parse(yamlfile.parse(body, source, what=KIND), source, lang)
    if not name:
        name = slug_of(read.name, {*store.names(KIND), *SHIPPED})
        store.path(KIND, name)
    if store.version(KIND, name) is not None:
        raise UserError(source, Text("web.edition.exists"))
    store.write(KIND, name, body.decode("utf-8"), None)
    return name


async def upload(request: Request) -> Response:
    """``POST /editions/upload[?name=NAME]``: the body is the file, the CSRF token in ``X-CSRF-Token``;
    without a name, the file is kept under one made from the edition's own name."""
    check_token(request, poster(request), request.headers.get("x-csrf-token", ""))
    name = request.query_params.get("name", "").strip()
    store = web_of(request).store
    try:
        if name in SHIPPED:
            raise UserError(source_of(name), Text("web.edition.reserved"))
        if name:
            store.path(KIND, name)
        source = source_of(name) if name else uploaded_file(request) or KIND
        body = await request.body()  # bounded by BodyLimit at MAX_UPLOAD
        lang = language_of(request)
        # parsing and the disk: off the loop
        name = await run_in_threadpool(keep_upload, store, name, source, body, lang)
    except UserError as error:
        return answer({"ok": False, "error": said(error, request)}, 409 if isinstance(error, Changed) else 400)
    return answer({"ok": True, "location": f"/editions/{name}"})


def uploaded_file(request: Request) -> str:
    """The name of the file the person chose on their phone (``?file=``), to name it in the loader's lines."""
    text = request.query_params.get("file", "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    return text if 0 < len(text) <= 80 and text.isprintable() else ""


def _index(text: str | None, count: int) -> int | None:
    """A card's place from a query or a form (``0`` to ``count - 1``), None for anything else."""
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 3:
        return None
    n = int(text)
    return n if n < count else None
