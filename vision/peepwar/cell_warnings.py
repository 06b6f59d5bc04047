"""What the piece reader warns about a cell, by kind: each warning is said in words for
the referee and named here for what reads the warnings (the doubt model weighs them by
kind), so that rewording a warning changes nothing it is weighed by.

>>> Warned("doubtful bean") is Warned.DOUBTFUL_BEAN
True
"""

from __future__ import annotations

from enum import StrEnum


class Warned(StrEnum):
    """The kinds of warning about a cell."""

    ONE_MORE_BEAN = "one more bean"  # a peak of the bean net too weak to count
    END_TO_END = "end to end"  # one long bean, or two touching end to end
    HALF_UNDER_PEEP = "half under a peep"
    DOUBTFUL_BEAN = "doubtful bean"  # counted at a weak peak
    DARK_BEAN = "dark bean"  # a bean too dark to tell its colour but as a whole
    BETWEEN_COLOURS = "between colours"
    ON_BORDER = "on a border"  # a piece that may be the next cell's
    CENTRE_READ_AS_NOTHING = "centre read as nothing"
    CENTRE_PRINT_HIDDEN = "centre print hidden"
    TOO_MANY_TROOPS = "too many troops"
    LONE_BEAN = "lone bean"  # one bean among another player's pieces
    PEEP_ACROSS_GAP = "peep across a gap"
    TWO_PEEPS = "two peeps"
    PEEP_IN_BEAN_COLOUR = "peep in bean colour"
    HEAP_NOT_PEEP = "heap, not a peep"
    SUPPLY_CENTER_COVERED = "supply center partly covered"  # found by its rim alone
    PEEP_WAS_SUPPLY_CENTER = "peep was a supply center"
    DOUBTED = "doubted by the doubt model"
