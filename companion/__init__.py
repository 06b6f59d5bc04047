"""Table Companion: a referee beside a real game table."""

__version__ = "0.1.0"
