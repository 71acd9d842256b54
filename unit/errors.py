"""One exception tree for every error the project raises on purpose.

:class:`MonopolyCityError` is the root. Below it, :class:`UserError` is what a
user can fix (a bad file, a bad argument): every command prints its message as
a single line on stderr and exits with status 2. Anything else is a bug and
keeps its traceback.

The core, the calculator and the backends never name a command-line flag:
an error about a value given on the command line is an :class:`ArgumentError`
naming the value as the rules know it (``dice``), and the CLI names the flag.
"""

from __future__ import annotations

from collections.abc import Callable

#: How a message is put into words: a catalog's lookup, ``words(key, **values)`` (see unit.i18n).
Say = Callable[..., str]

#: How a :class:`Text` is said when it is printed with no reader's language (a log line, a traceback):
#: English. :mod:`unit.i18n` puts its English words here when it is loaded, so that this module, the root
#: of every other, imports nothing of the project (no import cycle); before that, the catalog key shows.
printed: Say | None = None


class Text:
    """Words to be said in the reader's language: a key of the catalog (``unit/locales``) and its values.

    A value may be a :class:`Text` itself (``got a list`` inside ``expected a name, got a list``);
    it is said in the same language.
    """

    __slots__ = ("key", "values")

    def __init__(self, key: str, /, **values: object):
        self.key = key
        self.values = values

    def say(self, words: Say) -> str:
        return words(self.key, **{k: v.say(words) if isinstance(v, Text) else v for k, v in self.values.items()})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Text) and (self.key, self.values) == (other.key, other.values)

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Text({self.key!r}, {self.values!r})"

    def __str__(self) -> str:
        if printed is None:
            return f"{self.key} {self.values}" if self.values else self.key
        return self.say(printed)


def said(message: str | Text, words: Say) -> str:
    return message.say(words) if isinstance(message, Text) else message


class MonopolyCityError(Exception):
    """The root of every error this package raises on purpose."""


class UserError(MonopolyCityError):
    """A problem with the user's input, worded for the user.

    ``where`` names the file (and, after a colon, the place inside it);
    ``message`` says what was expected.
    """

    exit_status = 2

    def __init__(self, where: str, message: str | Text):
        super().__init__(where, message)
        self.where = where
        self.message = message

    def say(self, words: Say) -> str:
        """The one line, in the language of ``words``."""
        text = said(self.message, words)
        return f"{self.where}: {text}" if self.where else text

    def __str__(self) -> str:
        """The line in English (the CLI says it in the table's language)."""
        return f"{self.where}: {self.message}" if self.where else str(self.message)


class ArgumentError(UserError):
    """A value given to a command is wrong; ``argument`` names it as the rules do (``dice``, ``card``)."""

    def __init__(self, argument: str, message: str | Text):
        super().__init__(argument, message)
        self.argument = argument


class HardwareError(MonopolyCityError):
    """A device could not be opened (no GPIO on this machine, no lgpio module).

    ``part`` names what failed (``gpio``); the CLI turns it into one line with what to do.
    """

    exit_status = 2

    def __init__(self, part: str, message: str):
        super().__init__(f"{part}: {message}")
        self.part = part
        self.message = message
