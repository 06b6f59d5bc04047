"""Computer vision for the table: the printable kit, and one reader per game.

The shared parts sit here: markers (:mod:`vision.markers`), the kit's layout and
printing, lens and colour helpers, image input, and the scene renderers used by
tests and benchmarks (:mod:`vision.render`). Each game's reader is a
sub-package (:mod:`vision.peepwar`, :mod:`vision.peltapeeps`) with its own
stages; errors a person can act on are :class:`vision.errors.VisionError`.
Nothing here reads a camera or writes files except :mod:`vision.image_io`.
"""
