"""Petri (Chinese checkers): the printable board and the camera reader."""
