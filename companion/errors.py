"""The error a user can act on: printed as one line, never as a traceback."""


class UserError(Exception):
    """Bad input or a missing resource; the message says what was wrong and what to do."""
