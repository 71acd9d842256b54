"""Editions: boards and their numbers as data, loaded and checked once.

Two kinds: a classic board (``game: classic``: streets, stations, utilities,
taxes and the rule constants) and a Monopoly City board (``game: city``:
colour groups of districts with their card values). Shipped editions live in
``unit/calculator/editions/``; an owner's own file is named by its path.

Monopoly City's card values are not public, so a City edition may leave any of
them ``null``; the calculator only complains, naming the card and the field,
when a computation needs one.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from unit import fields, yamlfile
from unit.calculator import money
from unit.calculator.names import Names
from unit.calculator.words import shown, words
from unit.errors import Text, UserError

SHIPPED = ("classic-fr", "europe-1991")
#: The commented templates ``monopoly-city edition template KIND`` prints (an edition to fill from one's cards).
TEMPLATES = {"city": "city-template.yaml", "europe-1991": "europe-1991-template.yaml"}
HAZARDS = ("prison", "dump", "sewage_plant", "power_station")
BONUSES = ("park", "school", "water_tower", "wind_farm")
RENT_LEVELS = 6  # bare, 1-4 houses, hotel
CITY_RENT_LEVELS = 9  # 0..8 blocks
#: A board has 40 squares (classic and Monopoly City alike; Monopoly City has 22 districts among them): an
#: edition with more is not a board, and the loader refuses it before reading its squares one by one.
MAX_SQUARES = 40
MAX_DISTRICTS = MAX_SQUARES
#: Editions read and checked, kept by their content (the store's version is its hash): see :func:`load`.
KEPT = 64
T = TypeVar("T")


# --- classic ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Street:
    pos: int
    name: str
    group: str
    price: int
    house_cost: int
    rent: tuple[int, ...]  # bare, 1, 2, 3, 4 houses, hotel
    mortgage: int
    kind: str = "street"


@dataclass(frozen=True)
class Company:
    """A station or a utility: one price for all, the rent set by how many the owner holds."""

    pos: int
    name: str
    price: int
    mortgage: int
    kind: str  # station | utility


@dataclass(frozen=True)
class Tax:
    pos: int
    name: str
    amount: int
    kind: str = "tax"


@dataclass(frozen=True)
class ClassicRules:
    """A classic edition's rule constants (the keys of the same name in its file)."""

    go_salary: int
    jail_fine: int
    mortgage_ratio: float
    unmortgage_interest: float
    bank_houses: int
    bank_hotels: int
    hotel_requires_houses: int
    double_rent_on_full_group_unbuilt: bool
    mortgaged_street_cancels_group_double_rent: bool
    starting_cash: int | None = None
    trades_only_when_all_bought: bool = False
    creditor_pays_mortgage_interest_at_once: bool = False

    def flag(self, name: str) -> bool:
        return bool(getattr(self, name))


@dataclass(frozen=True)
class ClassicEdition:
    source: str
    name: str
    rules: ClassicRules
    groups: dict[str, dict[str, Any]]  # colour -> {fr, house_cost, size}
    squares: dict[str, Street | Company | Tax]  # by name, in board order
    station_rents: dict[int, int]
    utility_multipliers: dict[int, int]
    complete: bool = True
    game: str = "classic"
    names: Names[Street | Company | Tax] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", Names(self.squares, "square"))

    def square(self, name: str, where: str, language: str | None = None) -> Street | Company | Tax:
        """The square ``name`` (a unique beginning is enough); :class:`UserError` naming ``where`` otherwise. (No
        language is needed: the error's sentence is a :class:`Text`, said by whoever shows it.)"""
        self.require_board(where)
        return self.names.find(name, where)

    def require_board(self, where: str, language: str | None = None) -> None:
        if not self.complete:
            raise UserError(where, Text("calculator.edition.no_deeds", e=repr(self.name)))

    def deed(self, name: str) -> Street | Company:
        """The property ``name`` (a street, station or utility: what can be owned)."""
        square = self.squares[name]
        if isinstance(square, Tax):
            raise TypeError(f"{name} is a tax square")
        return square

    def group_streets(self, group: str) -> list[Street]:
        return [s for s in self.squares.values() if isinstance(s, Street) and s.group == group]


# --- Monopoly City ----------------------------------------------------------------------------


@dataclass(frozen=True)
class District:
    name: str
    group: str
    price: int | None
    residential_cost: int | None
    industrial_cost: int | None
    rents: tuple[int, ...] | None  # 0..8 blocks
    where: str  # its place in the edition file, for "copy this field" messages


@dataclass(frozen=True)
class CityGroup:
    name: str
    skyscraper_cost: int | None
    districts: tuple[str, ...]


@dataclass(frozen=True)
class CityEdition:
    source: str
    name: str
    hazards: dict[str, int | None]  # blocks each hazard is worth
    groups: dict[str, CityGroup]
    districts: dict[str, District]
    starting_cash: int = 37_700_000  # « M 37.700.000 »: the rules' notes for each player
    go_salary: int | None = None  # what passing GO pays (printed on the board)
    industry_tax: int | None = None  # the Taxe industrielle square's amount (printed on the board)
    game: str = "city"
    names: Names[District] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", Names(self.districts, "district"))

    def district(self, name: str, where: str, language: str | None = None) -> District:
        """The district ``name``, as :meth:`ClassicEdition.square` finds a square."""
        return self.names.find(name, where)

    def board_amount(self, key: str) -> int:
        """``go_salary`` or ``industry_tax`` (printed on the board); a missing one names the field to fill."""
        value = getattr(self, key)
        if value is None:
            raise UserError(self.source, Text(f"calculator.edition.missing_{key}", field=key))
        assert isinstance(value, int)
        return value

    def rents(self, district: District) -> tuple[int, ...]:
        """The district card's nine rents; missing ones name the field to copy from the card."""
        if district.rents is None:
            raise UserError(self.source, Text("calculator.edition.missing_rents", d=district.name, w=district.where))
        return district.rents


Edition = ClassicEdition | CityEdition


# --- loading ----------------------------------------------------------------------------------


def load(name_or_path: str, relative_to: Path | None = None, where: str | None = None, language: str = "fr") -> Edition:
    """A shipped edition by name (``classic-fr``), or an edition file by path.

    ``where`` names the place that asked for it (a game file's ``edition:``) in a not-found error. The file is
    read every time, but parsed and checked only when its content is new (:func:`parse_text`).
    """
    if name_or_path in SHIPPED:
        text = resources.files("unit.calculator").joinpath(f"editions/{name_or_path}.yaml").read_bytes()
        return parse_text(text, name_or_path, language)
    path = Path(name_or_path)
    if relative_to is not None and not path.is_absolute():
        path = relative_to / path
    if not path.exists():
        shipped = ", ".join(SHIPPED)
        if name_or_path in TEMPLATES:  # ``game new city``: City's cards are the player's, copied from the template
            raise UserError(
                where or name_or_path,
                Text("calculator.edition.from_template", e=repr(name_or_path), t=name_or_path, shipped=shipped),
            )
        hint = Names({n: n for n in SHIPPED}, "edition").hint(name_or_path) if path.suffix == "" else ""
        if where is not None:
            raise UserError(
                where, Text("calculator.edition.no_such_named", e=repr(name_or_path), hint=hint, shipped=shipped)
            )
        raise UserError(name_or_path, Text("calculator.edition.no_such", hint=hint, shipped=shipped))
    try:
        return parse_text(yamlfile.read_bounded(path, what="edition"), str(path), language)
    except UserError as error:
        if where is None:
            raise
        raise UserError(f"{where}: {error.where}", error.message) from None  # the game file that points at it


_kept: OrderedDict[tuple[str, str, str], Edition | UserError] = OrderedDict()
_kept_lock = threading.Lock()


def parse_text(text: bytes | str, source: str, language: str = "fr") -> Edition:
    """An edition file's text, parsed and checked, or its one line (UserError).

    The outcome is kept by the text's hash (the web store's version), ``source`` and ``language``, the
    :data:`KEPT` most recent: a page that reads the same file again (every request of a game, the list of
    editions) pays a hash, not the YAML parser and the checks.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    key = (source, hashlib.sha256(data).hexdigest(), language)
    with _kept_lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
    if found is None:
        try:
            found = parse(yamlfile.parse(data, source, what="edition"), source, language)
        except UserError as error:
            found = error
        with _kept_lock:
            _kept[key] = found
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    if isinstance(found, UserError):
        raise found
    return found


def parse(data: object, source: str, language: str = "fr", problems: Problems | None = None) -> Edition:
    """The edition in ``data`` (a file's parsed YAML), checked; ``source`` names the file in the error lines.

    Without ``problems`` the first wrong value raises its UserError. With it, a City edition's wrong values
    (a name, an amount, a rent, a hazard) are noted there and read as placeholders, and the reading goes on:
    the phone's card check gets every field's line from one reading. A wrong shape (not a mapping, an unknown
    key, too many districts) still raises.
    """
    top = fields.mapping(data, source, optional=("game",) + CLASSIC_KEYS + CITY_KEYS)
    game = top.get("game")
    if game == "classic":
        return _classic(top, source, language)
    if game == "city":
        return _city(top, source, language, problems if problems is not None else Problems(collect=False))
    raise UserError(f"{source}: game", words(language, "edition.game", got=shown(game, language)))


class Problems:
    """Where a reading notes a wrong value and goes on with a placeholder (``collect``), or stops at it."""

    def __init__(self, collect: bool = True):
        self.collect = collect
        self.found: list[UserError] = []

    def value(self, instead: T, read: Callable[..., T], *args: object) -> T:
        """``read(*args)`` (a field's check); if it raises a UserError: noted, and ``instead`` (or raised, when
        not collecting)."""
        try:
            return read(*args)
        except UserError as error:
            self.wrong(error)
            return instead

    def wrong(self, error: UserError) -> None:
        if not self.collect:
            raise error
        self.found.append(error)


CLASSIC_RULES = {
    "go_salary": "amount",
    "starting_cash": "amount",
    "jail_fine": "amount",
    "mortgage_ratio": "ratio",
    "unmortgage_interest": "ratio",
    "bank_houses": "count",
    "bank_hotels": "count",
    "hotel_requires_houses": "count",
    "double_rent_on_full_group_unbuilt": "flag",
    "mortgaged_street_cancels_group_double_rent": "flag",
    "trades_only_when_all_bought": "flag",
    "creditor_pays_mortgage_interest_at_once": "flag",
}
#: The yes/no rules, shown by ``board`` (and read by the commands they change).
RULE_FLAGS = tuple(key for key, kind in CLASSIC_RULES.items() if kind == "flag")
#: Rules an edition may leave out (their defaults are ClassicRules').
OPTIONAL_RULES = ("starting_cash", "trades_only_when_all_bought", "creditor_pays_mortgage_interest_at_once")
CLASSIC_KEYS = (
    "name",
    "currency_symbol",
    "franc_scale",
    *CLASSIC_RULES,
    "groups",
    "streets",
    "stations",
    "utilities",
    "taxes",
    "other_spaces",
)
CITY_KEYS = ("name", "starting_cash", "go_salary", "industry_tax", "hazards", "groups")


def _classic(top: dict[str, Any], source: str, language: str) -> ClassicEdition:
    def where(key: str) -> str:
        return f"{source}: {key}"

    required = [key for key in CLASSIC_RULES if key not in OPTIONAL_RULES]
    fields.mapping(top, source, required=("game", "name", *required, "groups", "streets"), optional=CLASSIC_KEYS)
    values: dict[str, object] = {}
    for key, kind in CLASSIC_RULES.items():
        if key not in top:
            continue
        value = top[key]
        if kind == "amount":
            values[key] = money.field(value, where(key), language)
        elif kind == "ratio":
            values[key] = fields.ratio(value, where(key))
        elif kind == "count":
            values[key] = fields.integer(value, where(key), 0, 1000)
        else:
            values[key] = fields.boolean(value, where(key))
    rules = ClassicRules(**values)  # type: ignore[arg-type]  # each value checked against its kind above
    name = fields.text(top["name"], where("name"))
    if top["streets"] is None:  # a rules-only edition: deeds to be copied by the owner
        return ClassicEdition(source, name, rules, {}, {}, {}, {}, complete=False)
    groups = {}
    colours = tuple(top["groups"]) if isinstance(top["groups"], dict) else ()  # `groups: 5`: said by mapping()
    for colour, raw in fields.mapping(top["groups"], where("groups"), optional=colours).items():
        spec = fields.mapping(raw, where(f"groups.{colour}"), required=("house_cost", "size"), optional=("fr",))
        groups[str(colour)] = {
            "fr": str(spec.get("fr", colour)),
            "house_cost": money.field(spec["house_cost"], where(f"groups.{colour}.house_cost"), language),
            "size": fields.integer(spec["size"], where(f"groups.{colour}.size"), 1, 4),
        }
    squares: dict[str, Street | Company | Tax] = {}
    keys: set[str] = set()  # the names as they compare: one look-up per square, never a scan

    def add(square: Street | Company | Tax, at: str) -> None:
        if len(squares) >= MAX_SQUARES:
            raise UserError(at, words(language, "edition.too_many_squares", most=MAX_SQUARES))
        key = fields.name_key(square.name)
        if key in keys:
            raise UserError(at, words(language, "edition.twice", s=repr(square.name)))
        keys.add(key)
        squares[square.name] = square

    streets = fields.sequence(top["streets"], where("streets"))
    if len(streets) > MAX_SQUARES:
        raise UserError(where("streets"), words(language, "edition.too_many_squares", most=MAX_SQUARES))
    for i, raw in enumerate(streets):
        at = where(f"streets[{i}]")
        spec = fields.mapping(
            raw, at, required=("pos", "name", "group", "price", "house_cost", "rent"), optional=("mortgage",)
        )
        group = str(spec["group"])
        if group not in groups:
            hint = Names({g: g for g in groups}, "group").hint(group)
            raise UserError(f"{at}.group", Text("calculator.edition.unknown_group", g=repr(group), hint=hint))
        rent = fields.sequence(spec["rent"], f"{at}.rent")
        if len(rent) != RENT_LEVELS:
            raise UserError(f"{at}.rent", words(language, "edition.rent_count", n=len(rent)))
        add(
            Street(
                pos=fields.integer(spec["pos"], f"{at}.pos", 0, 39),
                name=fields.text(spec["name"], f"{at}.name"),
                group=group,
                price=money.field(spec["price"], f"{at}.price", language),
                house_cost=money.field(spec["house_cost"], f"{at}.house_cost", language),
                rent=tuple(money.field(v, f"{at}.rent[{j}]", language) for j, v in enumerate(rent)),
                mortgage=_mortgage(spec, at, rules, language),
            ),
            at,
        )
    station_rents: dict[int, int] = {}
    utility_multipliers: dict[int, int] = {}
    for section, kind, table_key in (
        ("stations", "station", "rent_by_count_owned"),
        ("utilities", "utility", "dice_multiplier_by_count_owned"),
    ):
        if top.get(section) is None:
            continue
        at = where(section)
        spec = fields.mapping(top[section], at, required=("price", table_key, "list"), optional=("mortgage",))
        table = fields.mapping(spec[table_key], f"{at}.{table_key}", optional=(1, 2, 3, 4))  # type: ignore[arg-type]
        counts = {int(k): fields.integer(v, f"{at}.{table_key}.{k}", 0, 10**6) for k, v in table.items()}
        (station_rents if kind == "station" else utility_multipliers).update(counts)
        listed = fields.sequence(spec["list"], f"{at}.list")
        if len(listed) > MAX_SQUARES:
            raise UserError(f"{at}.list", words(language, "edition.too_many_squares", most=MAX_SQUARES))
        for i, raw in enumerate(listed):
            item = fields.mapping(raw, f"{at}.list[{i}]", required=("pos", "name"))
            add(
                Company(
                    pos=fields.integer(item["pos"], f"{at}.list[{i}].pos", 0, 39),
                    name=fields.text(item["name"], f"{at}.list[{i}].name"),
                    price=money.field(spec["price"], f"{at}.price", language),
                    mortgage=_mortgage(spec, at, rules, language),
                    kind=kind,
                ),
                f"{at}.list[{i}]",
            )
    taxes = fields.sequence(top.get("taxes") or [], where("taxes"))
    if len(taxes) > MAX_SQUARES:
        raise UserError(where("taxes"), words(language, "edition.too_many_squares", most=MAX_SQUARES))
    for i, raw in enumerate(taxes):
        at = where(f"taxes[{i}]")
        item = fields.mapping(raw, at, required=("pos", "name", "amount"))
        add(
            Tax(
                fields.integer(item["pos"], f"{at}.pos", 0, 39),
                fields.text(item["name"], f"{at}.name"),
                money.field(item["amount"], f"{at}.amount", language),
            ),
            at,
        )
    streets_in: dict[str, int] = {}
    for square in squares.values():
        if isinstance(square, Street):
            streets_in[square.group] = streets_in.get(square.group, 0) + 1
    for colour, spec in groups.items():
        count = streets_in.get(colour, 0)
        if count != spec["size"]:
            raise UserError(
                where(f"groups.{colour}.size"), words(language, "edition.group_size", n=spec["size"], c=count)
            )
    ordered = dict(sorted(squares.items(), key=lambda item: item[1].pos))
    return ClassicEdition(source, name, rules, groups, ordered, station_rents, utility_multipliers)


def _mortgage(spec: dict[str, Any], at: str, rules: ClassicRules, language: str) -> int:
    """The deed's mortgage value; when the file leaves it out, the price times the edition's ``mortgage_ratio``."""
    if "mortgage" in spec:
        return money.field(spec["mortgage"], f"{at}.mortgage", language)
    price = money.field(spec["price"], f"{at}.price", language)
    return int(Fraction(str(rules.mortgage_ratio)) * price)


def _city(top: dict[str, Any], source: str, language: str, problems: Problems) -> CityEdition:
    def where(key: str) -> str:
        return f"{source}: {key}"

    value = problems.value
    fields.mapping(top, source, required=("game", "name", "hazards", "groups"), optional=CITY_KEYS)
    name = value("\x00name", fields.text, top["name"], where("name"))
    hazards_raw = fields.mapping(top["hazards"], where("hazards"), optional=HAZARDS)
    hazards: dict[str, int | None] = {
        h: None
        if hazards_raw.get(h) is None
        else value(None, fields.integer, hazards_raw[h], where(f"hazards.{h}"), 1, 8)
        for h in HAZARDS
    }
    listed = fields.sequence(top["groups"], where("groups"))
    count = len(listed) + sum(  # each group has at least one district: only the lists' lengths are read
        max(0, len(raw["districts"]) - 1)
        for raw in listed
        if isinstance(raw, dict) and isinstance(raw.get("districts"), list)
    )
    if count > MAX_DISTRICTS:
        raise UserError(where("groups"), words(language, "edition.too_many_districts", n=count, most=MAX_DISTRICTS))
    groups: dict[str, CityGroup] = {}
    districts: dict[str, District] = {}
    keys: set[str] = set()  # the districts' names as they compare: one look-up each, never a scan
    for g, raw in enumerate(listed):
        at = where(f"groups[{g}]")
        spec = fields.mapping(raw, at, required=("name", "districts"), optional=("skyscraper_cost",))
        group_name = value(f"\x00{at}", fields.text, spec["name"], f"{at}.name")
        if group_name in groups:
            problems.wrong(UserError(f"{at}.name", words(language, "edition.group_twice", g=repr(group_name))))
            group_name = f"\x00{at}"
        members = []
        for d, item in enumerate(fields.sequence(spec["districts"], f"{at}.districts")):
            place = f"groups[{g}].districts[{d}]"
            dat = where(place)
            item = fields.mapping(
                item, dat, required=("name",), optional=("price", "residential_cost", "industrial_cost", "rents")
            )
            district_name = value(f"\x00{dat}", fields.text, item["name"], f"{dat}.name")
            key = fields.name_key(district_name)
            if key in keys:
                twice = words(language, "edition.district_twice", d=repr(district_name))
                problems.wrong(UserError(f"{dat}.name", twice))
                district_name = key = f"\x00{dat}"
            keys.add(key)
            amounts = {
                k: value(None, money.optional, item.get(k), f"{dat}.{k}", language)
                for k in ("price", "residential_cost", "industrial_cost")
            }
            districts[district_name] = District(
                name=district_name,
                group=group_name,
                **amounts,
                rents=_city_rents(item.get("rents"), dat, language, problems),
                where=place,
            )
            members.append(district_name)
        if not members:
            problems.wrong(UserError(f"{at}.districts", words(language, "edition.no_district")))
            continue
        skyscraper_cost = value(None, money.optional, spec.get("skyscraper_cost"), f"{at}.skyscraper_cost", language)
        groups[group_name] = CityGroup(group_name, skyscraper_cost, tuple(members))
    cash = top.get("starting_cash", CityEdition.starting_cash)
    return CityEdition(
        source,
        name,
        hazards,
        groups,
        districts,
        starting_cash=value(CityEdition.starting_cash, money.field, cash, where("starting_cash"), language),
        go_salary=value(None, money.optional, top.get("go_salary"), where("go_salary"), language),
        industry_tax=value(None, money.optional, top.get("industry_tax"), where("industry_tax"), language),
    )


def _city_rents(raw: object, dat: str, language: str, problems: Problems) -> tuple[int, ...] | None:
    """A district's nine rents (0 to 8 blocks), or None when not copied yet; a wrong one noted, read as 0."""
    if raw is None:
        return None
    rents = problems.value(None, fields.sequence, raw, f"{dat}.rents")
    if rents is None:
        return None
    if len(rents) != CITY_RENT_LEVELS:
        problems.wrong(UserError(f"{dat}.rents", words(language, "edition.city_rent_count", n=len(rents))))
        return None
    return tuple(problems.value(0, money.field, v, f"{dat}.rents[{j}]", language) for j, v in enumerate(rents))
