"""One to three light sources: a warm desk lamp, a window's daylight, a ceiling panel.

Every source has a size, so shadows are soft; a little light comes from all
around (the room). The mix sets the illuminant the camera's white balance
tries, and partly fails, to correct.
"""

from __future__ import annotations

import math

import numpy as np

from vision.render3d.colours import kelvin_rgb
from vision.render3d.tracer import Light, radiance_for


def random_lights(rng: np.random.Generator, centre: np.ndarray, neutral: bool = False
                  ) -> tuple[list[Light], np.ndarray, np.ndarray, float]:
    """(lights, ambient radiance, illuminant colour (G = 1), kelvin of the strongest).

    ``neutral``: a ceiling panel and perhaps a window, near 5000 K (the light a user is
    asked to calibrate under).
    """
    kinds = ["lamp", "window", "ceiling"]
    n = int(rng.integers(1, 4))
    chosen = [str(k) for k in rng.choice(kinds, n, replace=False, p=[0.45, 0.3, 0.25])]
    if neutral:
        chosen = ["ceiling", "window"][:int(rng.integers(1, 3))]
    lights, total, mix, best = [], 0.0, np.zeros(3), (0.0, 5000.0)
    for kind in chosen:
        share = float(rng.uniform(0.5, 1.5))
        a = rng.uniform(0, 2 * math.pi)
        if kind == "lamp":
            kelvin = rng.uniform(2600, 3500)
            r, h = rng.uniform(150, 700), rng.uniform(400, 1000)
            size = rng.uniform(15, 50)
        elif kind == "window":
            kelvin = rng.uniform(5000, 5800) if neutral else rng.uniform(5200, 7500)
            r, h = rng.uniform(1200, 2000), rng.uniform(500, 1200)
            size = rng.uniform(600, 1300)
        else:
            kelvin = rng.uniform(4600, 5400) if neutral else rng.uniform(3800, 5200)
            r, h = rng.uniform(0, 400), rng.uniform(1700, 2400)
            size = rng.uniform(400, 900)
        pos = centre + np.array([r * math.cos(a), r * math.sin(a), h])
        dist = float(np.linalg.norm(pos - centre))
        tint = kelvin_rgb(kelvin)
        cos = h / dist  # light falls slanted on the table
        lights.append(Light(kind, tuple(pos), size,
                            tint * radiance_for(kind, size, dist, share / max(cos, 0.2))))
        total += share
        mix += share * tint
        if share > best[0]:
            best = (share, float(kelvin))
    illuminant = mix / max(mix[1], 1e-6)
    ambient = illuminant * total * rng.uniform(0.03, 0.12) / math.pi
    return lights, ambient, illuminant, best[1]
