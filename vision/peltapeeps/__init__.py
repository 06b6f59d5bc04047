"""PeltaPeeps from a photo: the pieces' physical shape, and reading a layout.

:mod:`vision.peltapeeps.geometry` holds the one description of a piece's size
and connector shapes (shared by the renderer and the reader);
:func:`vision.peltapeeps.read.read_layout` turns a photo into pieces, joins and
a score sheet.
"""
