"""Every word a user reads, in every language: one TOML file per language in ``unit/locales/``.

A word is named by a dotted key (``screen.sold``, ``errors.expected_number``) and
may hold ``{placeholders}``. French is the reference: every other language file
has exactly its keys, with the same placeholders, checked once when the
language is first loaded (and by a test for every file shipped). A third
language is one more file. One rule of grammar is code: French joins « de » and
« à » to a name put in (« achat d'Avenue Mozart », « loyer du Marais »): see
:data:`GRAMMAR`.

The core never reads these files: it names its words by key and whoever shows
them passes a :class:`Words` in (see :func:`unit.core.views.describe`).
"""

from __future__ import annotations

import os
import re
import string
from collections.abc import Callable
from functools import cache

from unit import errors
from unit.errors import MonopolyCityError

REFERENCE = "fr"
#: The language files, beside this module (a plain path: importlib.resources costs the start 2 ms of CPU).
LOCALES = os.path.join(os.path.dirname(__file__), "locales")


class CatalogError(MonopolyCityError):
    """A language file is missing, malformed or out of step with the French one (a packaging bug)."""


@cache
def languages() -> tuple[str, ...]:
    """The languages shipped, French first."""
    names = [name.removesuffix(".toml") for name in os.listdir(LOCALES) if name.endswith(".toml")]
    return tuple(sorted((n for n in names if not n.startswith("_")), key=lambda n: (n != REFERENCE, n)))


#: French: « de » and « à » before a name put in (a square, a player) as the grammar wants them: « achat d'Avenue
#: Mozart », « loyer du Marais » (a name stored with its article: « Le Marais »), « des Halles », « de la Défense »,
#: « à l'Étoile ». Only a name that starts with a capital letter is touched (not a number, an identifier, a word).
#: Patterns kept as text: ``re`` compiles each when first used and keeps it, not at every start (the unit's start
#: needs no words before READY=1; 0.6 ms of CPU).
FRENCH_SITE = r"(?:^|(?<=[\s(«]))([Dd]e|à) \{"
FRENCH_BEFORE = r"(?:^|(?<=[\s(«]))([Dd]e|à) $"
FRENCH_ARTICLE = r"(Les|Le|La) (?=\S)|L['’](?=\S)"
FRENCH_VOWEL = tuple("AEIOUYHÀÂÄÉÈÊËÎÏÔÖÙÛÜŸÆŒ")
FRENCH_CONTRACTED = {
    ("de", "Le"): "du ",
    ("de", "Les"): "des ",
    ("de", "La"): "de la ",
    ("de", "L'"): "de l'",
    ("à", "Le"): "au ",
    ("à", "Les"): "aux ",
    ("à", "La"): "à la ",
    ("à", "L'"): "à l'",
}


def french_joined(before: str, name: str) -> str:
    """``before`` (a text ending with « de » or « à » and a space) followed by ``name``, contracted as French
    writes it: « achat de » + « Avenue Mozart » -> « achat d'Avenue Mozart »; else the two as they are."""
    match = re.search(FRENCH_BEFORE, before)
    if match is None or not name:
        return before + name
    word = match.group(1)
    head, lower = before[: match.start()], word.lower()
    article = re.match(FRENCH_ARTICLE, name)
    if article is not None:
        said = article.group(1) or "L'"
        joined = FRENCH_CONTRACTED[(lower, said)]
        return head + (joined[0].upper() + joined[1:] if word[0].isupper() else joined) + name[article.end() :]
    if lower == "de" and name.startswith(FRENCH_VOWEL):
        return f"{head}{word[0]}'{name}"
    return before + name


def _french(template: str, values: dict[str, object]) -> str:
    """``template.format(**values)``, each name after « de » or « à » joined by :func:`french_joined`."""
    text = ""
    for literal, field, spec, conversion in string.Formatter().parse(template):
        text += literal
        if field is not None:
            placed = "{0" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            text = french_joined(text, placed.format(values[field]))
    return text


#: The languages whose words join a name to the word before it by a rule, and where it applies (a pattern of the
#: template); the others put the values in as they are.
GRAMMAR: dict[str, tuple[str, Callable[[str, dict[str, object]], str]]] = {"fr": (FRENCH_SITE, _french)}


class Words:
    """The words of one language: ``words("screen.sold")``, ``words("screen.hours", n=2)``."""

    def __init__(self, language: str, entries: dict[str, str]):
        self.language = language
        self.entries = entries
        site, join = GRAMMAR.get(language, (None, None))
        self._join: Callable[[str, dict[str, object]], str] | None = join
        #: The keys whose values the language's rule joins (found once: every other key is a plain format).
        self._joined = frozenset(k for k, t in entries.items() if re.search(site, t)) if site else frozenset()

    def __call__(self, key: str, /, **values: object) -> str:
        if key in self._joined:
            assert self._join is not None
            return self._join(self.entries[key], values)
        return self.entries[key].format(**values)

    def __contains__(self, key: str) -> bool:
        return key in self.entries

    def __repr__(self) -> str:
        return f"Words({self.language!r}, {len(self.entries)} entries)"


def _flatten(table: dict[str, object], prefix: str, into: dict[str, str], source: str) -> dict[str, str]:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            _flatten(value, name + ".", into, source)
        elif isinstance(value, str):
            into[name] = value
        else:
            raise CatalogError(f"{source}: {name}: expected a text, got {type(value).__name__}")
    return into


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


def _read(language: str) -> dict[str, str]:
    import tomllib  # only where words are needed: the unit's start does without them (docs/performance.md)

    source = f"unit/locales/{language}.toml"
    try:
        with open(os.path.join(LOCALES, f"{language}.toml"), encoding="utf-8") as file:
            raw = file.read()
    except FileNotFoundError:
        raise CatalogError(f"{source}: no such language file") from None
    try:
        return _flatten(tomllib.loads(raw), "", {}, source)
    except tomllib.TOMLDecodeError as error:
        raise CatalogError(f"{source}: {error}") from None


@cache
def words(language: str = REFERENCE) -> Words:
    """The checked words of ``language`` (loaded once)."""
    entries = _read(language)
    if language != REFERENCE:
        reference = words(REFERENCE).entries
        missing = sorted(set(reference) - set(entries))
        extra = sorted(set(entries) - set(reference))
        if missing or extra:
            raise CatalogError(f"unit/locales/{language}.toml: missing {missing}, unknown {extra}")
        for key, text in entries.items():
            if placeholders(text) != placeholders(reference[key]):
                raise CatalogError(
                    f"unit/locales/{language}.toml: {key}: placeholders {sorted(placeholders(text))}, "
                    f"French has {sorted(placeholders(reference[key]))}"
                )
    return Words(language, entries)


def _english(key: str, /, **values: object) -> str:
    return words("en")(key, **values)


errors.printed = _english  # a Text printed outside any page or command (a log, a traceback) reads in English
