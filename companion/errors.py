"""The error a user can act on: printed as one line, never as a traceback."""


class UserError(Exception):
    """Bad input or a missing resource; the message says what was wrong and what to do."""


def json_kind(value: object) -> str:
    """What a decoded JSON value is, in JSON's words, for saying what a damaged file or
    column holds where something else belongs.

    >>> json_kind(None), json_kind([1]), json_kind(True), json_kind(2.5)
    ('null', 'a list', 'true or false', 'a number')
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return {str: "a string", list: "a list", dict: "an object"}.get(type(value), "a value")
