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


class MonopolyCityError(Exception):
    """The root of every error this package raises on purpose."""


class UserError(MonopolyCityError):
    """A problem with the user's input, worded for the user.

    ``where`` names the file (and, after a colon, the place inside it);
    ``message`` says what was expected.
    """

    exit_status = 2

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message


class ArgumentError(UserError):
    """A value given to a command is wrong; ``argument`` names it as the rules do (``dice``, ``card``)."""

    def __init__(self, argument: str, message: str):
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
