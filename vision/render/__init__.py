"""A synthetic table renderer for tests, benchmarks and the demo.

``render_scene(seed, spec)`` composes printed tile art on a table texture under a
random camera, light and occluders, and returns the frame with its ground truth.
"""

from vision.render.scene import Scene, SceneSpec, Truth, TruthTile, render_scene

__all__ = ["Scene", "SceneSpec", "Truth", "TruthTile", "render_scene"]
