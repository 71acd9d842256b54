"""Names typed at the table: squares, districts and players, found with as few keystrokes as possible.

Accents, case, hyphens and apostrophes do not matter (``opera`` = ``Opéra``); a unique beginning
(``champs``) or a unique word (``paix`` = Rue de la Paix, ``eaux`` = Compagnie de distribution des eaux)
is enough. An exact name always wins over a longer one it begins (``Gare`` is the district Gare even if
``Gare Sud`` exists), and the beginning of names over a word inside them (``r`` lists the names that begin
with R, not Avenue de la République). Several matches are refused with the list of candidates; no match with the
closest name, if one is close.
"""

from __future__ import annotations

import difflib
from typing import Generic, TypeVar

from unit.calculator.actions import BANK_NAMES
from unit.calculator.words import said
from unit.errors import Text, UserError
from unit.fields import name_key

#: How many candidates an ambiguous name lists before "…".
SHOWN = 6

T = TypeVar("T")

#: The GO square as the table names it (« case Départ », the box's GO): not a property, but people type it
#: where a square is asked, and are told where its salary is.
GO = {name_key(word) for word in ("départ", "case départ", "go", "case go", "start")}


class Names(Generic[T]):
    """Things looked up by name; ``what`` (square, district, player) words the errors."""

    def __init__(self, items: dict[str, T], what: str):
        self.what = what
        self.names = list(items)
        self._items = items
        self._keys = {name: name_key(name) for name in items}
        self._by_key = {key: items[name] for name, key in self._keys.items()}

    def matches(self, typed: str) -> list[str]:
        """The canonical names ``typed`` designates: the exact one, else every one it begins or whose word it begins."""
        key = name_key(typed)
        if not key:
            return []
        exact = [name for name, k in self._keys.items() if k == key]
        if exact:
            return exact
        starts = [name for name, k in self._keys.items() if k.startswith(key)]
        if starts:
            return starts
        return [name for name, k in self._keys.items() if f" {key}" in f" {k}"]

    def find(self, typed: str, where: str) -> T:
        """The thing ``typed`` names; :class:`UserError` (its sentence a :class:`Text`) when none or several do."""
        found = self.matches(typed)
        if len(found) == 1:
            return self._items[found[0]]
        if found:
            shown = ", ".join(repr(name) for name in found[:SHOWN]) + (", …" if len(found) > SHOWN else "")
            raise UserError(where, said(f"names.ambiguous_{self.what}", name=repr(typed), names=shown))
        if self.what in ("square", "district") and name_key(typed) in GO:
            raise UserError(where, said("names.go", name=repr(typed)))
        raise UserError(where, said(f"names.unknown_{self.what}", name=repr(typed), hint=self.hint(typed)))

    def hint(self, typed: str) -> Text | str:
        """`` (did you mean 'X'?)`` for the closest name, or an empty string."""
        keys = {k: name for name, k in self._keys.items()}
        close = difflib.get_close_matches(name_key(typed), list(keys), n=1, cutoff=0.6)
        return said("names.hint", name=repr(keys[close[0]])) if close else ""


#: A table: the game file stays small whatever a phone sends.
MAX_PLAYERS = 12
#: A player's name fits a button on a phone, and a line of the command line's output.
PLAYER_NAME_CHARS = 40


def player_name(typed: str, where: str) -> str:
    """A player's name as a person typed it (the page, ``game new --players``, ``join``) or a game file holds it (the
    loader), checked once for all: one line of at most :data:`PLAYER_NAME_CHARS` characters, no control character (a
    newline would fake a line of the history, an escape code colour the terminal), refused in one line rather than
    stored escaped; and not one of the bank's names (``banque``, ``bank``: ``pay G banque Bob 10`` would take that
    player's money, not the bank's)."""
    name = typed.strip()
    if not name:
        raise UserError(where, said("names.player_empty"))
    if not name.isprintable():
        bad = next(c for c in name if not c.isprintable())
        raise UserError(where, said("names.player_control", got=repr(name)[:60], c=repr(bad)))
    if len(name) > PLAYER_NAME_CHARS:
        raise UserError(where, said("names.player_long", n=PLAYER_NAME_CHARS, got=len(name)))
    if name_key(name) in {name_key(bank) for bank in BANK_NAMES}:
        raise UserError(where, said("names.player_bank", got=repr(name), names=", ".join(BANK_NAMES)))
    return name
