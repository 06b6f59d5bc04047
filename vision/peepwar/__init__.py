"""Peep War at the table: finding the hex tiles and reading the pieces in every cell.

The stages, in the order a frame meets them: :mod:`~vision.peepwar.tiles` finds
the tiles by their markers and fits the lattice (:mod:`~vision.peepwar.covered_tiles`
looks for tiles whose markers are all hidden); :mod:`~vision.peepwar.mosaic`
rectifies every tile into a top-down picture; :mod:`~vision.peepwar.pieces`
reads the pieces in each cell, with the bean net (:mod:`~vision.peepwar.bean_net`),
the colour tables (:mod:`~vision.peepwar.piece_pixels`) and the hand finder
(:mod:`~vision.peepwar.occlusion`); :mod:`~vision.peepwar.table` runs it all and
writes the observation JSON of the table standard.
"""
