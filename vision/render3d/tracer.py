"""The Mitsuba 3 scene of a table, and its rendering on one CPU thread.

Mitsuba's ``scalar_rgb`` variant path-traces on the CPU with no compiler at run
time. Two passes are rendered: the picture (path tracing, a few samples a pixel)
and, at one sample a pixel, which shape each pixel sees first (Mitsuba's
``shape_index`` AOV) — the truth of which cells a hand hides comes from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

import cv2
import numpy as np

from vision.render3d.camera import Camera3D

VARIANT = "scalar_rgb"


@cache
def mitsuba():
    """Mitsuba, set to its CPU variant on one thread (the machine is shared)."""
    import drjit as dr
    import mitsuba as mi

    mi.set_variant(VARIANT)
    dr.set_thread_count(1)
    return mi


def vertex_normals(v: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Smooth normals: each vertex's faces' normals, weighted by area."""
    n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    out = np.zeros_like(v)
    for k in range(3):
        np.add.at(out, f[:, k], n)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)


def mesh(name: str, v: np.ndarray, f: np.ndarray, bsdf: dict, colours: np.ndarray | None = None,
         uv: np.ndarray | None = None, smooth: bool = True):
    """A Mitsuba mesh from NumPy arrays (mm), optionally with per-vertex colours and UVs."""
    mi = mitsuba()
    props = mi.Properties()
    props["bsdf"] = mi.load_dict(bsdf)
    m = mi.Mesh(name, len(v), len(f), props=props, has_vertex_normals=smooth,
                has_vertex_texcoords=uv is not None)
    params = mi.traverse(m)
    floats, ints = type(params["vertex_positions"]), type(params["faces"])
    params["vertex_positions"] = floats(np.asarray(v, np.float32).ravel())
    params["faces"] = ints(np.asarray(f, np.uint32).ravel())
    if smooth:
        params["vertex_normals"] = floats(vertex_normals(v, f).astype(np.float32).ravel())
    if uv is not None:
        params["vertex_texcoords"] = floats(np.asarray(uv, np.float32).ravel())
    params.update()
    if colours is not None:
        m.add_attribute("vertex_color", 3, floats(np.asarray(colours, np.float32).ravel()))
    return m


def bitmap(image: np.ndarray, scale: float = 1.0, filter_type: str = "bilinear") -> dict:
    """A texture of a linear RGB image, repeated ``scale`` times across the UV square."""
    mi = mitsuba()
    tex = {"type": "bitmap", "bitmap": mi.Bitmap(np.ascontiguousarray(image, np.float32)),
           "raw": True, "filter_type": filter_type, "wrap_mode": "repeat"}
    if scale != 1.0:
        tex["to_uv"] = mi.ScalarTransform4f().scale([scale, scale, 1])
    return tex


VERTEX_COLOUR = {"type": "mesh_attribute", "name": "vertex_color"}


@dataclass
class Light:
    kind: str  # "lamp" (a small bulb), "window" (a large panel to one side), "ceiling"
    position: tuple[float, float, float]
    size: float  # radius of a lamp, side of a panel (mm)
    rgb: np.ndarray  # radiance, linear RGB


@dataclass
class SceneParts:
    """Everything the tracer needs, built by :mod:`vision.render3d.game` or ``card``."""

    camera: Camera3D
    shapes: dict[str, object] = field(default_factory=dict)  # name -> Mitsuba shape or dict
    lights: list[Light] = field(default_factory=list)
    ambient: np.ndarray = field(default_factory=lambda: np.full(3, 0.05))


def light_dict(light: Light, target: np.ndarray) -> dict:
    mi = mitsuba()
    emitter = {"type": "area", "radiance": {"type": "rgb", "value": light.rgb.tolist()}}
    if light.kind == "lamp":
        return {"type": "sphere", "center": list(light.position), "radius": light.size,
                "emitter": emitter}
    t = mi.ScalarTransform4f().look_at(origin=list(light.position), target=target.tolist(),
                                       up=[0, 0, 1] if light.kind == "window" else [0, 1, 0])
    return {"type": "rectangle", "to_world": t @ mi.ScalarTransform4f().scale(
        [light.size / 2, light.size / 2, 1]), "emitter": emitter}


def radiance_for(light_kind: str, size: float, distance: float, irradiance: float) -> float:
    """The radiance a source needs to light the table with about ``irradiance``."""
    area = math.pi * size ** 2 if light_kind == "lamp" else size ** 2
    return irradiance * distance ** 2 / area


def _sensor(cam: Camera3D, spp: int, rfilter: str) -> dict:
    mi = mitsuba()
    w, h = cam.size
    return {
        "type": "perspective", "fov": cam.fov_deg, "fov_axis": "x",
        "near_clip": 10.0, "far_clip": 20000.0,
        "to_world": mi.ScalarTransform4f().look_at(origin=list(cam.origin),
                                                   target=list(cam.target), up=list(cam.up)),
        "film": {"type": "hdrfilm", "width": w, "height": h, "rfilter": {"type": rfilter},
                 "pixel_format": "rgb"},
        "sampler": {"type": "multijitter", "sample_count": spp},
    }


def build(parts: SceneParts, spp: int, max_depth: int = 5):
    """The Mitsuba scene: sensor 0 takes the picture; sensor 1, with a box filter that
    never mixes two pixels' samples, takes the first-hit pass (a Gaussian filter
    would average the shape indices of neighbouring pixels into a third shape's)."""
    mi = mitsuba()
    cam = parts.camera
    target = np.asarray(cam.target, float)
    scene: dict = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": max_depth},
        "sensor": _sensor(cam, spp, "gaussian"),
        "sensor_first_hit": _sensor(cam, 1, "box"),
        "ambient": {"type": "constant", "radiance": {"type": "rgb",
                                                     "value": parts.ambient.tolist()}},
    }
    for i, light in enumerate(parts.lights):
        scene[f"light{i}"] = light_dict(light, target)
    scene.update(parts.shapes)
    return mi.load_dict(scene)


def render(parts: SceneParts, spp: int, seed: int, picture: bool = True
           ) -> tuple[np.ndarray | None, np.ndarray, list[str]]:
    """(linear RGB image, first-hit shape index per pixel, shape names by index); the
    image is None when ``picture`` is False (the first-hit pass alone is cheap)."""
    mi = mitsuba()
    scene = build(parts, spp)
    sensors = {s.id(): s for s in scene.sensors()}
    aov = mi.load_dict({"type": "aov", "aovs": "si:shape_index"})
    index = np.array(mi.render(scene, sensor=sensors["sensor_first_hit"], integrator=aov,
                               seed=seed, spp=1))[:, :, 0]
    names = [s.id() for s in scene.shapes()]
    if not picture:
        return None, np.round(index).astype(np.int32), names
    image = np.array(mi.render(scene, sensor=sensors["sensor"], seed=seed, spp=spp), np.float32)
    # A camera's own noise reduction, which also calms the tracer's few-sample grain.
    root = np.sqrt(np.clip(_no_fireflies(image), 0, None))  # grain is even in sqrt(light)
    image = np.square(cv2.bilateralFilter(root, 5, 0.06, 2.0))
    return image, np.round(index).astype(np.int32), names


def _no_fireflies(image: np.ndarray) -> np.ndarray:
    """Replace lone over-bright pixels (rare light paths at few samples) by their neighbours."""
    lum = image.mean(axis=2)
    med = cv2.medianBlur(np.ascontiguousarray(image), 3) if image.dtype == np.uint8 else None
    if med is None:
        med = np.stack([cv2.medianBlur(np.ascontiguousarray(image[:, :, c]), 3)
                        for c in range(3)], -1)
    bad = lum > 3.0 * med.mean(axis=2) + 0.05
    out = image.copy()
    out[bad] = med[bad]
    return out
