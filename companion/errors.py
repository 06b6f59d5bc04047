"""The error a user can act on: printed as one line, never as a traceback."""


class UserError(Exception):
    """Bad input or a missing resource; the message says what was wrong and what to do."""


ECHO = 60  # characters of the user's own text an error line repeats
# Characters of a file path an error line repeats: a real one is shown whole, a runaway
# argument given as one (5,000 characters) is cut.
PATH_ECHO = 200


def clipped(text: str, limit: int = ECHO) -> str:
    """``text`` as an error line repeats it: a runaway argument (2,000 player names) is cut
    to ``limit`` characters, an ellipsis marking the cut, so the line stays one line.

    >>> clipped("red,blue")
    'red,blue'
    >>> clipped("p0,p1,p2,p3,p4,p5", 10)
    'p0,p1,p2,…'
    """
    return text if len(text) <= limit else text[:limit - 1] + "…"


def quoted(value: object, limit: int = ECHO) -> str:
    """A value the user gave, quoted as Python shows it, for an error line naming it: a
    runaway one is :func:`clipped`.

    >>> quoted("corinth"), quoted("x" * 100, 10), quoted(7)
    ("'corinth'", "'xxxxxxxxx…'", '7')
    """
    return repr(clipped(value, limit)) if isinstance(value, str) else clipped(repr(value), limit)


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
