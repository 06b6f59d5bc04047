"""A second Peep War scene generator: real 3D, physically based (Mitsuba 3 path tracing).

Where :mod:`vision.render` composites 2D sprites, this package builds the table
in 3D — printed tiles textured with the kit's artwork at true scale, jellybean
meshes in glossy, slightly translucent plastic, sugar-coated marshmallow peeps,
half plastic eggs, hands with fingers — lights it with area lamps that cast
soft shadows and traces light paths through it. A camera model then adds what a
real webcam does: lens distortion, defocus, motion blur, wrong white balance,
noise and JPEG. See docs/scenes.md.

``render_scene3d(seed)`` gives a frame and the truth of every cell; ``cached_scene``
renders each (seed, size, samples) once into a cache folder and re-reads it.
"""
