"""The one kind of error a user sees: a bad file or a bad argument.

Every command catches :class:`UserError`, prints its message as a single line
on stderr and exits with status 2. Anything else is a bug and keeps its
traceback.
"""


class UserError(Exception):
    """A problem with the user's input, worded for the user.

    ``where`` names the file (and, after a colon, the place inside it);
    ``message`` says what was expected.
    """

    exit_status = 2

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.message = message
