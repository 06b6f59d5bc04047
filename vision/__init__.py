"""Computer vision for the table: the printable kit, finding tiles and cells in a frame.

The data flow is pure: a frame goes to :func:`vision.tiles.find_tiles`, which
returns every tile with its lattice position and one table-to-image homography;
:mod:`vision.cells` turns that into cell outlines and rectified top-down views.
Nothing here reads a camera or writes files except :mod:`vision.image_io`.
"""
