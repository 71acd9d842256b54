"""Game files: a position at the table (who holds what, with how much cash).

Read and checked once against the edition they name. Shape problems (a wrong
type, an unknown square, a negative count) stop with exit 2 and one line; rule
problems (a skyscraper without the whole group) are for ``check`` to report.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

import yaml

from unit import fields, i18n, yamlfile
from unit.calculator import edition as editions
from unit.calculator import history as histories
from unit.calculator import money
from unit.calculator.edition import BONUSES, HAZARDS, CityEdition, ClassicEdition, Company, Street
from unit.calculator.names import Names
from unit.calculator.names import player_name as checked_name
from unit.calculator.words import shown, words
from unit.errors import Text, UserError


@dataclass(frozen=True)
class ClassicHolding:
    square: str  # canonical name on the board
    houses: int
    hotel: bool
    mortgaged: bool

    @property
    def name(self) -> str:
        return self.square


@dataclass(frozen=True)
class CityHolding:
    district: str  # canonical name in the edition
    residential: int
    industrial: int
    hazard: str | None
    bonus: str | None
    skyscraper: bool
    stadium: bool
    station: bool
    mortgaged: bool

    @property
    def blocks(self) -> int:
        return self.residential + self.industrial

    @property
    def name(self) -> str:
        return self.district


#: What a player holds: a classic deed, or a City district.
Holding = ClassicHolding | CityHolding


def holding_of(kind: str, name: str, data: histories.Fields) -> Holding:
    """The holding of ``name`` in a game of ``kind`` from its fields as the game file writes them (missing ones: the
    defaults): what an entry of the history gives a player."""
    if kind == "city":
        hazard, bonus = data.get("hazard"), data.get("bonus")
        return CityHolding(
            name,
            residential=int(data.get("residential") or 0),
            industrial=int(data.get("industrial") or 0),
            hazard=None if hazard is None else str(hazard),
            bonus=None if bonus is None else str(bonus),
            skyscraper=bool(data.get("skyscraper")),
            stadium=bool(data.get("stadium")),
            station=bool(data.get("station")),
            mortgaged=bool(data.get("mortgaged")),
        )
    return ClassicHolding(name, int(data.get("houses") or 0), bool(data.get("hotel")), bool(data.get("mortgaged")))


def all_fields(holding: Holding) -> dict[str, histories.FieldValue]:
    """Every field of a holding but its name, defaults included, in the game file's order."""
    if isinstance(holding, CityHolding):
        return {key: getattr(holding, key) for key in histories.CITY_KEYS}
    return {key: getattr(holding, key) for key in histories.CLASSIC_KEYS}


def holding_data(holding: Holding) -> dict[str, histories.FieldValue]:
    """A holding as the game file writes it, without its name (only what differs from the defaults)."""
    return {key: value for key, value in all_fields(holding).items() if value}


@dataclass(frozen=True)
class Player:
    name: str
    cash: int
    holdings: tuple[Any, ...]  # ClassicHolding in a classic game, CityHolding in a City game
    tower: str | None = None  # City: the district where this player's Monopoly Tower stands
    exemption_card: bool = False  # City: holds the rent-exemption card (« la carte exonération de loyer »)


@dataclass(frozen=True)
class Game:
    source: str
    edition: ClassicEdition | CityEdition
    players: tuple[Player, ...]
    history: tuple[histories.Entry, ...] = ()  # the bank's entries, oldest first (unit.calculator.bank)
    title: str | None = None  # the name its creator gave (« Soirée du vendredi »); None: named by its file
    #: The players before the history's first entry (``start:``): the position the history is applied to
    #: (unit.calculator.ledger). None: the file does not say (no history, or written before it was kept).
    start: tuple[Player, ...] | None = None
    #: How many times the game file was written (``revision:``; 0 when it does not say): every write adds one, so a
    #: file's bytes never repeat, and a page's version (their digest) never comes back after an undo.
    revision: int = 0

    def named(self, file_name: str) -> str:
        """How the pages and the command line name the game: its title, else ``file_name`` (as today)."""
        return self.title or file_name

    @property
    def kind(self) -> str:
        return self.edition.game

    @property
    def classic(self) -> ClassicEdition:
        """The edition of a classic game (a TypeError for a City game: a bug, not a user's mistake)."""
        if not isinstance(self.edition, ClassicEdition):
            raise TypeError(f"{self.source} is a {self.kind} game")
        return self.edition

    @property
    def city(self) -> CityEdition:
        """The edition of a Monopoly City game."""
        if not isinstance(self.edition, CityEdition):
            raise TypeError(f"{self.source} is a {self.kind} game")
        return self.edition

    def held(self, name: str) -> tuple[Player, Any]:
        """Who holds ``name`` and how, when the caller knows somebody does."""
        found = self.holding(name)
        if found is None:
            raise LookupError(name)
        return found

    def holding(self, name: str) -> tuple[Player, Any] | None:
        """Who holds the square or district ``name`` (its canonical name), and how; None if nobody."""
        for player in self.players:
            for holding in player.holdings:
                if holding.name == name:
                    return player, holding
        return None

    def player(self, name: str, where: str, language: str | None = None) -> Player:
        """A player by name (a unique beginning is enough); an unknown name is refused with the list of players.
        (``language`` is not needed: the error's sentence is said by whoever shows it.)"""
        names = Names({p.name: p for p in self.players}, "player")
        if not names.matches(name):
            players = ", ".join(p.name for p in self.players)
            raise UserError(where, Text("bank.unknown_player", name=repr(name), hint=names.hint(name), players=players))
        return names.find(name, where)

    def owners(self) -> dict[str, list[str]]:
        """Each square or district held, and the players holding it (one, in a legal position)."""
        out: dict[str, list[str]] = {}
        for player in self.players:
            for holding in player.holdings:
                out.setdefault(holding.name, []).append(player.name)
        return out


def titled(game: Game, line: str, w: i18n.Words) -> str:
    """A report's first line naming the game by the title its creator gave (« Soirée du vendredi · Fortunes »);
    a game without one is named by its file, which the person just typed: the line stays as it was."""
    return line if game.title is None else w("calculator.game.titled", g=game.title, t=line)


def hypothetical(
    edition: ClassicEdition, square: Street | Company, houses: int, hotel: bool, mortgaged: bool, group: bool
) -> Game:
    """A position for ``rent --edition``: one owner holding ``square`` as described, and with ``group`` the rest
    of its colour group unbuilt (or every station, every utility)."""
    kind = square.kind
    if group:
        if isinstance(square, Street):
            others = [s.name for s in edition.group_streets(square.group)]
        else:
            others = [s.name for s in edition.squares.values() if s.kind == kind]
    else:
        others = [square.name]
    holdings = tuple(
        ClassicHolding(name, houses, hotel, mortgaged) if name == square.name else ClassicHolding(name, 0, False, False)
        for name in others
    )
    return Game(edition.source, edition, (Player("", 0, holdings),))


#: How a game reads its edition: :func:`unit.calculator.edition.load`'s signature (a caller may cache it).
EditionLoader = Callable[..., editions.Edition]


def load(path: str, language: str = "fr") -> Game:
    return parse(yamlfile.load(path, what="game file", aliases=False), str(path), Path(path).parent, language)


def parse(
    data: object, source: str, folder: Path, language: str = "fr", load_edition: EditionLoader = editions.load
) -> Game:
    """A game from its YAML data (``source`` names it in errors); its edition is found relative to ``folder``
    (by ``load_edition``, :func:`unit.calculator.edition.load`'s signature: a caller may cache it).

    An error inside a player names the player as the table does (``partie.yaml: Bruno, cash: ...``,
    ``Bruno, Docks, hazard: ...``); only a player without a readable name is named by place (``players[1]``)."""
    top = fields.mapping(
        data, source, required=("edition", "players"), optional=("title", "revision", "start", "history")
    )
    title = None if "title" not in top else title_field(top["title"], f"{source}: title", language)
    name = fields.text(top["edition"], f"{source}: edition")
    edition = load_edition(name, relative_to=folder, where=f"{source}: edition", language=language)
    revision = 0 if top.get("revision") is None else fields.integer(top["revision"], f"{source}: revision", 0, 10**12)
    players = _players(top["players"], f"{source}: players", source, edition, language)
    if not players:
        raise UserError(f"{source}: players", words(language, "game.no_player"))
    start = None
    if top.get("start") is not None:
        start = _players(top["start"], f"{source}: start", f"{source}: start", edition, language)
    history = histories.parse(top.get("history"), f"{source}: history", edition.game, language)
    return Game(source, edition, players, history, title, start, revision)


def _players(raw: object, where: str, source: str, edition: editions.Edition, language: str) -> tuple[Player, ...]:
    """A list of players (``players:``, ``start:``), each named the table's way in errors (``partie.yaml: Bruno``)."""
    players = []
    seen: set[str] = set()
    for i, item in enumerate(fields.sequence(raw, where)):
        at = f"{source}: {_label(item, f'players[{i}]')}"
        spec = _keys(item, at, ("name",), ("cash",) + PLAYER_KEYS[edition.game])
        player_name = checked_name(fields.text(spec["name"], f"{at}, name"), f"{at}, name")  # as typed ones
        if fields.name_key(player_name) in seen:
            raise UserError(at, words(language, "game.same_player", p=repr(player_name)))
        seen.add(fields.name_key(player_name))
        cash = money.field(spec.get("cash", 0), f"{at}, cash", language)
        player = (
            _city_player(spec, player_name, cash, at, edition, language)
            if isinstance(edition, CityEdition)
            else _classic_player(spec, player_name, cash, at, edition, language)
        )
        players.append(player)
    return tuple(players)


#: A game's title fits a heading on a phone: as long as the page's field lets one type.
TITLE_CHARS = 60


def title_field(value: object, where: str, language: str = "fr") -> str:
    """A game's ``title:``: a name on one line (no control character) of at most :data:`TITLE_CHARS`."""
    title = fields.text(value, where, one_line=True)
    if len(title) > TITLE_CHARS:
        raise UserError(where, words(language, "game.title_too_long", n=TITLE_CHARS, got=len(title)))
    return title


#: A player's keys besides ``name`` and ``cash``, by kind of game.
PLAYER_KEYS = {"classic": ("properties",), "city": ("tower", "exemption_card", "districts")}


def _keys(raw: object, where: str, required: tuple[str, ...], optional: tuple[str, ...]) -> dict[str, Any]:
    """:func:`unit.fields.mapping` for a place named the table's way: an unknown key is ``Bruno, money`` (the
    fields module writes a path, ``Bruno.money``)."""
    try:
        return fields.mapping(raw, where, required, optional)
    except UserError as error:
        if error.where.startswith(f"{where}."):
            raise UserError(f"{where}, {error.where[len(where) + 1 :]}", error.message) from None
        raise


def _holdings(
    spec: dict[str, Any], key: str, where: str, optional: tuple[str, ...]
) -> list[tuple[str, dict[str, Any]]]:
    """A player's list ``key`` (``districts``, ``properties``): each item's place (``Bruno, Docks``; by position
    when its name is not a text) and its fields."""
    out = []
    for j, item in enumerate(fields.sequence(spec.get(key) or [], f"{where}, {key}")):
        at = f"{where}, {_label(item, f'{key}[{j}]')}"
        out.append((at, _keys(item, at, ("name",), optional)))
    return out


def _label(item: object, place: str) -> str:
    """How an error names a player or a holding: its name as written (``Bruno``, ``Docks``), or, when it has no
    readable one (none, or one with a control character), its ``place`` in the file (``players[1]``)."""
    name = item.get("name") if isinstance(item, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() and name.isprintable() else place


def _classic_player(
    spec: dict[str, Any], name: str, cash: int, where: str, edition: ClassicEdition, language: str
) -> Player:
    holdings = []
    for at, item in _holdings(spec, "properties", where, ("houses", "hotel", "mortgaged")):
        square = edition.square(fields.text(item["name"], f"{at}, name"), f"{where}, properties")
        if square.kind == "tax":
            raise UserError(at, words(language, "game.tax_owned", s=repr(square.name)))
        houses = fields.integer(item.get("houses", 0), f"{at}, houses", 0, 99)
        hotel = fields.boolean(item.get("hotel", False), f"{at}, hotel")
        if (houses or hotel) and not isinstance(square, Street):
            raise UserError(at, words(language, f"game.no_buildings_{square.kind}", s=square.name))
        mortgaged = fields.boolean(item.get("mortgaged", False), f"{at}, mortgaged")
        holdings.append(ClassicHolding(square.name, houses, hotel, mortgaged))
    return Player(name, cash, tuple(holdings))


CITY_HOLDING_KEYS = histories.CITY_KEYS


def _city_player(spec: dict[str, Any], name: str, cash: int, where: str, edition: CityEdition, language: str) -> Player:
    holdings = []
    for at, item in _holdings(spec, "districts", where, CITY_HOLDING_KEYS):
        district = edition.district(fields.text(item["name"], f"{at}, name"), f"{where}, districts")
        hazard = _building(item.get("hazard"), HAZARDS, f"{at}, hazard", language)
        bonus = _building(item.get("bonus"), BONUSES, f"{at}, bonus", language)

        def flag(key: str, item: dict[str, Any] = item, at: str = at) -> bool:
            return fields.boolean(item.get(key, False), f"{at}, {key}")

        holdings.append(
            CityHolding(
                district=district.name,
                residential=fields.integer(item.get("residential", 0), f"{at}, residential", 0, 99),
                industrial=fields.integer(item.get("industrial", 0), f"{at}, industrial", 0, 99),
                hazard=hazard,
                bonus=bonus,
                skyscraper=flag("skyscraper"),
                stadium=flag("stadium"),
                station=flag("station"),
                mortgaged=flag("mortgaged"),
            )
        )
    tower = spec.get("tower")
    if tower is not None:
        tower = edition.district(fields.text(tower, f"{where}, tower"), f"{where}, tower").name
    return Player(
        name,
        cash,
        tuple(holdings),
        tower,
        fields.boolean(spec.get("exemption_card", False), f"{where}, exemption_card"),
    )


@cache
def building_words(identifiers: tuple[str, ...]) -> dict[str, str]:
    """A hazard's or a bonus's identifier (``sewage_plant``) by every way people write it: the identifier, its one
    name in every language (``calculator.names.buildings``: « usine de traitement des eaux usées », "sewage
    plant"), and the other spellings a game file accepts (``calculator.names.spellings``: « station d'épuration »),
    compared as names are (accents, case, apostrophes aside)."""
    found = {fields.name_key(i): i for i in identifiers} | {
        fields.name_key(i.replace("_", " ")): i for i in identifiers
    }
    for language in i18n.languages():
        catalog = i18n.words(language)
        for identifier in identifiers:
            names = [catalog(f"calculator.names.buildings.{identifier}")]
            names += catalog(f"calculator.names.spellings.{identifier}").split(",")
            for name in names:
                if name.strip():
                    found[fields.name_key(name)] = identifier
    return found


def building_name(identifier: str, language: str) -> str:
    """A hazard's or a bonus's one name in ``language``, as the rules write it (« usine de traitement des eaux
    usées », « décharge »; "sewage plant"): the name every page, report and error line uses."""
    return i18n.words(language)(f"calculator.names.buildings.{identifier}")


def _building(value: object, identifiers: tuple[str, ...], where: str, language: str) -> str | None:
    """A hazard or a bonus (its identifier), read from its identifier or a name, an article before it or not
    (« la décharge »); ``null``: none."""
    if value is None:
        return None
    if isinstance(value, str):
        typed = re.sub(r"^(?:la|le|les|the|a|an)\s+|^l['’]", "", value.strip(), flags=re.IGNORECASE)
        found = building_words(identifiers).get(fields.name_key(typed))
        if found is not None:
            return found
    names = ", ".join(building_name(i, language) for i in identifiers)
    raise UserError(where, words(language, "game.one_of", x=names, got=shown(value, language)))


# --- writing ----------------------------------------------------------------------------------


def dump(game: Game, edition: str) -> dict[str, Any]:
    """The game file's data for ``game`` (``edition`` as its file names it): ``parse(dump(g)) == g``.

    Only what differs from the defaults is written, City amounts the table's way (``12,5M``), so the
    file stays the one a person would write by hand: a game without a history has neither ``start:`` nor
    ``history:``, and one never written by the bank no ``revision:``.
    """
    out: dict[str, Any] = {} if game.title is None else {"title": game.title}  # a game without one: as before
    out["edition"] = edition
    if game.revision:
        out["revision"] = game.revision
    out["players"] = [_player(game.kind, p) for p in game.players]
    if game.history:  # a game without history is written as before
        if game.start is not None:
            out["start"] = [_player(game.kind, p) for p in game.start]
        out["history"] = _history(game.kind, game.history)
    return out


def as_yaml(data: dict[str, Any]) -> str:
    """``data`` as the game file writes it: YAML, one line per holding and per short entry."""
    return yaml.dump(
        data,
        Dumper=histories.Dumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None,
        width=120,
    )


def dumps(game: Game, edition: str) -> str:
    """The game file's text: :func:`dump` as YAML (:func:`as_yaml`), one line per holding.

    Written key by key, each player on their own (kept: a payment changes two players' cash, and a bank writes the
    file on every tap), which is the same text: the file's keys and the players are written each at the margin,
    whatever is around them, and nothing in a game file is written twice as a YAML alias (every mapping and list is
    a new one). A game without players is written whole.
    """
    if not game.players:
        return as_yaml(dump(game, edition))
    text = head_text(game, edition)
    if game.history:
        text += history_text(game.kind, game.history)
    return text


def head_text(game: Game, edition: str) -> str:
    """The file's text before its ``history:``: the title, the edition, the revision, the players, the start."""
    text = _head(game.title, edition) + (f"revision: {game.revision}\n" if game.revision else "")
    text += "players:\n" + "".join(_player_text(game.kind, p) for p in game.players)
    if game.history and game.start is not None:
        text += "start:\n" + "".join(_player_text(game.kind, p) for p in game.start)
    return text


@lru_cache(maxsize=64)
def _head(title: str | None, edition: str) -> str:
    """The file's lines before its players: the title, the edition (written with an empty list of players, so that
    YAML writes them one a line as in the whole file)."""
    head = as_yaml(({} if title is None else {"title": title}) | {"edition": edition, "players": []})
    assert head.endswith("players: []\n")
    return head.removesuffix("players: []\n")


@lru_cache(maxsize=256)
def _player_text(kind: str, player: Player) -> str:
    """One player's lines under ``players:`` (or ``start:``), as the whole file writes them."""
    return as_yaml({"players": [_player(kind, player)]}).removeprefix("players:\n")


def history_text(kind: str, entries: tuple[histories.Entry, ...]) -> str:
    """The file's ``history:`` key with ``entries`` (its last; each entry starts a line with ``- ``)."""
    return as_yaml({"history": _history(kind, entries)})


def _player(kind: str, player: Player) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": player.name, "cash": _amount(kind, player.cash)}
    if kind == "city":
        if player.tower is not None:
            entry["tower"] = player.tower
        if player.exemption_card:
            entry["exemption_card"] = True
        entry["districts"] = [_city_holding(h) for h in player.holdings]
    else:
        entry["properties"] = [_classic_holding(h) for h in player.holdings]
    return entry


def _history(kind: str, entries: tuple[histories.Entry, ...]) -> list[dict[str, Any]]:
    return histories.dump(entries, lambda amount: _amount(kind, amount))


#: Where a game file's history starts (:func:`dumps` writes it last, each entry a ``- `` line at the margin).
HISTORY_LINE = "\nhistory:\n"


@dataclass(frozen=True)
class Written:
    """The text :func:`write_after` made: ``kept`` entries of the history are the text read, as it was; ``fresh`` is
    the rest of the file, every line of it written from the game now (the whole text when nothing was kept). Reading
    ``fresh`` reads everything in ``text`` that was not read before."""

    text: str
    kept: int
    fresh: str

    @property
    def whole(self) -> bool:
        return self.kept == 0


def dumps_after(text: str, before: Game, after: Game, edition: str, written: bool = False) -> str:
    """The game file's text for ``after``: exactly :func:`dumps`, made from ``text``, the file of ``before`` as read
    (:func:`write_after`'s text)."""
    return write_after(text, before, after, edition, written).text


def write_after(text: str, before: Game, after: Game, edition: str, written: bool = False) -> Written:
    """:func:`dumps_after`, saying how much of the history was kept as read.

    A bank action adds one entry at the end of the history, an undo takes the last ones away, and the rest of
    a long evening's history (2,000 entries: PyYAML takes most of a second to write them) is the same text:
    it is kept from the file as read, the players are written again and each new entry on its own, with the
    same function. The history is the file's last key, each entry a ``- `` line at the margin and every other of
    its lines indented; when the text read is not cut so (a file written by hand: a key or a comment after
    ``history:``), the whole file is written the usual way. ``written``: ``text`` is known to be
    ``dumps(before, edition)`` (the caller wrote it so), and is not looked through to see.
    """
    common = min(len(before.history), len(after.history))
    _head_text, marker, tail = text.partition(HISTORY_LINE)
    if not common or not marker or before.history[:common] != after.history[:common]:
        whole = dumps(after, edition)
        return Written(whole, 0, whole)
    if not written and not _entries_only(tail, len(before.history)):
        whole = dumps(after, edition)
        return Written(whole, 0, whole)
    if common == len(before.history) and "\n\n" not in tail:
        kept = tail  # entries added at the end: the history as read, whole (a blank line between entries: cut below)
    else:
        parts = ("\n" + tail).split("\n- ")[1:]
        kept = "".join("- " + e if e.endswith("\n") else "- " + e + "\n" for e in parts[:common])
    head = head_text(after, edition)
    added = after.history[common:]
    new = history_text(after.kind, added).removeprefix(HISTORY_LINE[1:]) if added else ""
    if not _entries_only(new, len(added)) and added:  # each entry a « - » line at the margin: cut where it starts
        whole = dumps(after, edition)
        return Written(whole, 0, whole)
    fresh = head + (HISTORY_LINE[1:] + new if added else "")
    return Written(head + HISTORY_LINE[1:] + kept + new, common, fresh)


def _entries_only(tail: str, entries: int) -> bool:
    """Whether ``tail``, the file's text after ``history:``, is ``entries`` entries and nothing else: each starts a
    line with ``- ``, every other line is indented (or blank), and the text ends a line."""
    if not tail.endswith("\n") or not tail.startswith("- "):
        return False
    starts = 0
    for line in tail.split("\n")[:-1]:
        if line.startswith("- "):
            starts += 1
        elif line and not line.startswith(" "):
            return False
    return starts == entries


def _amount(kind: str, amount: int) -> int | str:
    """``12,5M`` or ``500k`` for a City amount in whole thousands (read back exactly), else the number."""
    if kind == "city" and amount >= 1_000 and amount % 1_000 == 0:
        return money.city(amount, "fr").removeprefix("M ")
    return amount


def _city_holding(h: CityHolding) -> dict[str, Any]:
    out: dict[str, Any] = {"name": h.district}
    for key in CITY_HOLDING_KEYS:
        value = getattr(h, key)
        if value:  # 0, False and None are the defaults
            out[key] = value
    return out


def _classic_holding(h: ClassicHolding) -> dict[str, Any]:
    out: dict[str, Any] = {"name": h.square}
    for key in ("houses", "hotel", "mortgaged"):
        if getattr(h, key):
            out[key] = getattr(h, key)
    return out
