"""How large the printed kit may be: numbers the command line states in its help.

Kept apart from the drawing modules (which import OpenCV and NumPy) so the
``companion`` command can show them without loading either.
"""

MAX_PLAYERS = 6  # slots on the colour card, players in a kit
MAX_TILES = 64  # tile ids 0..63; a six-player game uses 19
