"""Reading YAML files with errors a user can act on.

Every YAML file the project reads (configuration, scenarios, editions, game
positions) goes through :func:`load`, so every one of them fails the same
way: one line naming the file, the line and what is wrong.

Reading is bounded: only a regular file is opened (a FIFO, a device or a
directory is refused at once, never read), and at most :data:`MAX_BYTES` + 1
bytes are read. Parsing is strict where YAML 1.1 is surprising: a key given
twice is refused (PyYAML would keep the later one), ``017`` (octal) and
``1:30`` (base 60) are not numbers, only plain decimal or ``0x`` hexadecimal
integers are, with at most :data:`MAX_DIGITS` digits.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from unit import files
from unit.errors import Text, UserError

#: Files larger than this are not configuration: refuse them before parsing.
MAX_BYTES = 1_000_000
#: Far more than any setting, amount or time needs, few enough for every check to compare and format it:
#: a longer integer is refused where it is read, before a range check could overflow on it.
MAX_DIGITS = 30

_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_MERGE = "tag:yaml.org,2002:merge"
if TYPE_CHECKING:
    _Base = yaml.SafeLoader
else:
    _Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser where installed: 5x faster


class DisallowedYaml(yaml.constructor.ConstructorError):
    """Valid YAML this project refuses (a key given twice, an integer too long): ``said``, where ``mark`` is."""

    def __init__(self, said: Text, mark: yaml.Mark):
        super().__init__(None, None, None, mark)
        self.said = said


class Loader(_Base):
    """PyYAML's safe loader, without YAML 1.1's surprising numbers, refusing duplicate keys."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_INT, _FLOAT)]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        value = self.construct_scalar(node)
        digits = value.lstrip("+-").removeprefix("0x")
        if len(digits) > MAX_DIGITS:
            problem = Text("errors.number_too_long", digits=len(digits), most=MAX_DIGITS)
            raise DisallowedYaml(problem, node.start_mark)
        return int(value, 0)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            first_line: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == _MERGE or not isinstance(key_node, yaml.ScalarNode):
                    continue
                key = self.construct_object(key_node)
                try:
                    if key in first_line:
                        problem = Text("errors.key_twice", key=shown(key), line=first_line[key])
                        raise DisallowedYaml(problem, key_node.start_mark)
                    first_line[key] = key_node.start_mark.line + 1
                except TypeError:  # not hashable: the constructor says so below
                    continue
        return super().construct_mapping(node, deep=deep)


# Integers: plain decimal (no leading zero) or 0x hexadecimal. Floats: YAML 1.1's, without base 60 or "_".
Loader.add_implicit_resolver(_INT, re.compile(r"^(?:[-+]?(?:0|[1-9][0-9]*)|0x[0-9a-fA-F]+)$"), list("-+0123456789"))
Loader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?|[-+]?\.[0-9]+(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
Loader.add_constructor(_INT, Loader.construct_yaml_int)


def _a(what: str) -> Text:
    """``a configuration file``, ``an edition``: what was expected, with its article."""
    return Text("errors.a." + what.replace(" ", "_"))


def read_bounded(path: str | Path, *, what: str = "file", limit: int = MAX_BYTES) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes (:func:`unit.files.read_bounded`:
    never a wait on a FIFO, never past ``limit``); else :class:`UserError`, the one line naming the file."""
    name = str(path)
    try:
        return files.read_bounded(path, limit)
    except files.Unreadable as refusal:
        if refusal.reason == "missing":
            raise UserError(name, Text("errors.no_such", what=Text("errors.what." + what.replace(" ", "_")))) from None
        if refusal.reason == "not_a_file":
            kind = Text("errors.kind." + (refusal.file_type or "special"))
            raise UserError(name, Text("errors.not_a_file", kind=kind, what=_a(what))) from None
        if refusal.reason == "too_large":
            raise UserError(name, Text("errors.too_large", limit=limit, what=_a(what))) from None
        raise UserError(name, Text("errors.cannot_read", why=refusal.why)) from None


def load(path: str | Path, *, what: str = "file", aliases: bool = True) -> object:
    """Read ``path`` (bounded, regular files only) and parse it; raise :class:`UserError` on any problem."""
    return parse(read_bounded(path, what=what), str(path), what=what, aliases=aliases)


def parse(raw: bytes | str, name: str, *, what: str = "file", aliases: bool = True) -> object:
    """Parse YAML text already in memory; ``name`` is used in error messages.

    ``aliases`` False: a mapping or a list used twice (a YAML alias, ``*changes``) is refused. A file of 262 KB can
    share one list of 2,000 items between 2,000 places: 4 million items for whoever reads it after the parser, which
    shares them for nothing (a game file is read to the last change: a minute's work)."""
    if isinstance(raw, bytes):
        if b"\0" in raw:
            raise UserError(name, Text("errors.binary", what=Text("errors.what." + what.replace(" ", "_"))))
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            what_text = Text("errors.what." + what.replace(" ", "_"))
            raise UserError(name, Text("errors.not_utf8", at=exc.start, what=what_text)) from None
    try:
        data = yaml.load(raw, Loader=Loader)  # noqa: S506 -- a safe loader
    except DisallowedYaml as exc:
        raise UserError(name, Text("errors.at_line", line=_line(exc), problem=exc.said)) from None
    except yaml.MarkedYAMLError as exc:
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        syntax = Text("errors.syntax", problem=problem)
        raise UserError(name, Text("errors.at_line", line=_line(exc), problem=syntax)) from None
    except yaml.YAMLError as exc:
        raise UserError(name, Text("errors.yaml_error", problem=str(exc).splitlines()[0])) from None
    except RecursionError:
        raise UserError(name, Text("errors.too_deep")) from None
    if not aliases and ("*" in raw or "<<" in raw) and _shared(data):  # no alias without its « * »
        raise UserError(name, Text("errors.yaml_alias", what=Text("errors.what." + what.replace(" ", "_"))))
    if data is None:
        raise UserError(name, Text("errors.empty", what=Text("errors.what." + what.replace(" ", "_"))))
    return data


def _shared(data: object) -> bool:
    """Whether a mapping or a list appears twice in ``data`` (what a YAML alias makes): each is visited once."""
    seen: set[int] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list)):
            if id(item) in seen:
                return True
            seen.add(id(item))
            stack.extend(item.values() if isinstance(item, dict) else item)
    return False


def _line(exc: yaml.MarkedYAMLError) -> Text | str:
    mark = exc.problem_mark or exc.context_mark
    return Text("errors.line", n=mark.line + 1) if mark is not None else ""


def shown(value: object, width: int = 40) -> str:
    """``value`` quoted for an error line: control characters escaped, at most ``width`` characters."""
    text = value if isinstance(value, str) else str(value)
    if len(text) > width:
        text = text[: width - 3] + "..."
    return repr(text) if isinstance(value, str) else escape(text)


def escape(text: str, keep: str = "") -> str:
    """``text`` with control and invisible characters escaped (``\\x1b``, ``\\u200b``, ``\\u202e``), so it
    prints on one line and cannot move the cursor, clear the terminal or reverse the text; the characters in
    ``keep`` (a newline in a table) pass. Spaces of every kind stay."""
    if text.isprintable():
        return text
    return "".join(c if c in keep or not _invisible(c) else repr(c)[1:-1] for c in text)


def printed_lines(lines: Iterable[str]) -> str:
    """``lines`` joined for printing, each kept on its line: a newline or escape code inside one (a name read from
    a file, « Bob\\nGagnant : Mallory ») is escaped, so a name can neither fake a line nor move the cursor. Every
    command that prints names as lines prints them through this (the calculator's, the bank's)."""
    return "\n".join(escape(line, keep="\t") for line in lines)


def _invisible(c: str) -> bool:
    return unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")


#: What YAML 1.1 would have read as a number and this loader reads as text (compiled by ``re`` when first used: only an
#: error needs it).
_OLD_NUMBER = r"[-+]?(?:0[0-9_]+|0b[01_]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?|[0-9]+(?:_[0-9]+)+)"


def looks_like_an_old_number(text: str) -> bool:
    """Whether YAML 1.1 would have read ``text`` as a number (``017``, ``1:30``, ``1_000``)."""
    return re.fullmatch(_OLD_NUMBER, text) is not None
