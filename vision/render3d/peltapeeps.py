"""A second PeltaPeeps photo generator: real 3D, physically based (Mitsuba 3 path tracing).

Where :mod:`vision.render.peltapeeps` composites sprites, this one cuts each
piece from the catalog's connectors as a solid (:mod:`pelta_shapes`: a disc
with tabs, notches and curves of one set's sizes, each drawn within the
catalog's ``sizes_mm``, extruded to a 2.5-4 mm sheet), lays a legal layout by
seating those solids against each other (:mod:`pelta_layout`), paints faces in
one of several styles (:mod:`pelta_paint`), and path-traces the table: glossy,
sometimes translucent coloured acrylic with laser-cut edges, a warm lamp
placed so that it often glints off the pieces, perhaps a second light, a wood,
cloth, plain light, dark or patterned table, a camera tilted 0-25 degrees. The
camera model of :mod:`vision.render3d.sensor` then adds white balance,
defocus, motion blur, lens distortion, noise and JPEG.

Path tracing 12 megapixels on one thread is too slow for a benchmark's worth
of frames (about 75 s of one core at 4 samples a pixel), so the tracer renders
0.4 of the width and height (1600x1200, ``PeltaSpec3D.render_scale``, about
12 s) and the picture is enlarged to full size before the camera model, which
then adds at least 0.6 px of lens blur and its noise and JPEG at full size:
edges are as soft as in a cheap 12 MP phone photo, finer detail is not there.

``render_pelta3d(seed)`` gives a frame and the same ground truth as the 2D
generator (:class:`vision.render.peltapeeps.Truth`); ``pelta_profile(colours)``
the colour profile, from a path-traced calibration card.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from companion.rules.peltapeeps.catalog import Catalog, default_catalog
from companion.rules.peltapeeps.layout import Placed
from vision.render.peltapeeps import Truth, TruthPiece
from vision.render3d.camera import Camera3D, framing_camera, table_to_world
from vision.render3d.colours import kelvin_rgb, srgb_to_linear
from vision.render3d.game import out_of_view
from vision.render3d.pelta_acrylic import ACRYLIC, ACRYLIC_ROUGHNESS, RGB
from vision.render3d.pelta_layout import grow, jittered, outline_on_table, score, seats_for
from vision.render3d.pelta_paint import FaceStyle, face, random_style
from vision.render3d.pelta_shapes import CutGeometry, extrude, polygon_area, random_geometry
from vision.render3d.sensor import develop, distort_px, random_sensor
from vision.render3d.textures import _fbm, table_top
from vision.render3d.tracer import (
    VERTEX_COLOUR,
    Light,
    SceneParts,
    _no_fireflies,
    bitmap,
    build,
    mesh,
    mitsuba,
    radiance_for,
)

TABLES = ("wood", "cloth", "plain light", "dark", "pattern")
TABLE_ODDS = (0.3, 0.2, 0.2, 0.15, 0.15)


@dataclass(frozen=True)
class PeltaSpec3D:
    size: tuple[int, int] = (4000, 3000)
    render_scale: float = 0.4  # the tracer's picture is this share of the width and height
    spp: int = 4
    colours: tuple[int, ...] = (2, 4)  # how many colours play (never three: no seating has it)
    per_team: tuple[int, int] = (3, 12)  # pieces each colour tries to place
    max_tilt_deg: float = 25.0
    fill: tuple[float, float] = (0.55, 0.85)


@dataclass
class PeltaScene3D:
    frame: np.ndarray  # BGR uint8, as the camera delivers it
    truth: Truth
    colours: dict[str, RGB]
    params: dict


def _table(rng: np.random.Generator):
    """A table top of the kind drawn: the wood, cloth and pattern of the Peep War tables,
    or a plain light or a dark surface."""
    kind = TABLES[int(rng.choice(len(TABLES), p=TABLE_ODDS))]
    sub = np.random.default_rng(int(rng.integers(2 ** 31)))
    if kind in ("wood", "cloth", "pattern"):
        for _ in range(200):
            top = table_top(sub)
            if top.kind == kind:
                return top
    from vision.render3d.textures import TableTop

    n = 512
    if kind == "plain light":
        base = np.array(rng.uniform(0.45, 0.8) * (1 + rng.normal(0, 0.05, 3)), np.float32)
    else:
        base = np.array(rng.uniform(0.008, 0.05) * (1 + rng.normal(0, 0.15, 3)), np.float32)
    img = base[None, None] * (0.95 + 0.1 * _fbm(rng, n)[..., None])
    return TableTop(kind, np.clip(img, 0, 1).astype(np.float32), 500.0,
                    float(rng.uniform(0.08, 0.5)), bool(rng.uniform() < 0.5))


def _lights(rng: np.random.Generator, cam: Camera3D, centre: np.ndarray
            ) -> tuple[list[Light], np.ndarray, np.ndarray, float, bool]:
    """A warm lamp, half the time where its reflection in the pieces meets the camera, and
    perhaps a second light (a window or a ceiling panel): (lights, ambient, illuminant,
    the lamp's kelvin, whether the lamp was put where it glints)."""
    kelvin = float(rng.uniform(2600, 3600))
    size = float(rng.uniform(15, 45))
    glare = bool(rng.uniform() < 0.5)
    if glare:  # glare: the lamp at the mirror image of the camera's view
        d = centre - np.asarray(cam.origin)
        d[2] = -d[2]
        d /= np.linalg.norm(d)
        pos = centre + rng.normal(0, 40, 3) * [1, 1, 0] + d * rng.uniform(500, 900)
    else:
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(150, 700)
        pos = centre + np.array([r * math.cos(a), r * math.sin(a), rng.uniform(400, 900)])
    lights, mix = [], np.zeros(3)
    specs = [("lamp", pos, size, kelvin, 1.0)]
    if rng.uniform() < 0.5:
        if rng.uniform() < 0.5:
            a = rng.uniform(0, 2 * math.pi)
            specs.append(("window", centre + np.array([1600 * math.cos(a), 1600 * math.sin(a),
                                                      rng.uniform(500, 1100)]),
                          float(rng.uniform(600, 1200)), float(rng.uniform(5200, 7500)),
                          float(rng.uniform(0.4, 1.2))))
        else:
            specs.append(("ceiling", centre + np.array([*rng.uniform(-300, 300, 2),
                                                       rng.uniform(1800, 2400)]),
                          float(rng.uniform(400, 900)), float(rng.uniform(3800, 5200)),
                          float(rng.uniform(0.4, 1.2))))
    for kind, p, sz, k, share in specs:
        dist = float(np.linalg.norm(p - centre))
        cos = (p[2] - centre[2]) / dist
        tint = kelvin_rgb(k)
        light = Light(kind, tuple(float(v) for v in p), sz,
                      tint * radiance_for(kind, sz, dist, share / max(cos, 0.2)))
        lights.append(out_of_view(light, cam, centre))
        mix += share * tint
    illuminant = mix / mix[1]
    ambient = illuminant * float(rng.uniform(0.03, 0.1)) / math.pi
    return lights, ambient, illuminant, kelvin, glare


def _fix_up(v: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Flat triangles turned so their normals face up (+z)."""
    n = np.cross(v[f[:, 1]] - v[f[:, 0]], v[f[:, 2]] - v[f[:, 0]])
    flip = n[:, 2] < 0
    f = f.copy()
    f[flip] = f[flip][:, [0, 2, 1]]
    return f


@dataclass
class _Parts:
    """(vertices, faces, colour) of each piece's flat faces, cut edges and paint."""

    faces: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    paint: list = field(default_factory=list)


def _gather(items: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    vs, fs, cs, off = [], [], [], 0
    for v, f, c in items:
        vs.append(v)
        fs.append(f + off)
        cs.append(np.broadcast_to(c, (len(v), 3)))
        off += len(v)
    return np.vstack(vs), np.vstack(fs), np.vstack(cs)


def piece_meshes(catalog: Catalog, g: CutGeometry, style: FaceStyle, layout: dict[str, Placed],
                 colours: dict[str, np.ndarray], shades: dict[str, float]) -> _Parts:
    """Every piece as solid acrylic (faces and cut edge, world mm) and its paint; ``shades``
    says how much each piece's sheet is lighter or darker than its colour."""
    out = _Parts()
    for p in layout.values():
        piece = catalog.piece(p.piece)
        o = outline_on_table(piece, p, g)
        w2 = np.stack([o[:, 0], -o[:, 1]], -1)  # table frame -> world (x, -y)
        if polygon_area(w2) < 0:
            w2 = w2[::-1]
        solid = extrude(w2, g.thickness)
        body = colours[p.team] * shades[p.uid]
        out.faces.append((solid.faces_v, solid.faces_f, body))
        out.edges.append((solid.edge_v, solid.edge_f, body))
        tris = face(piece.kind, style, g.radius)
        if not len(tris):
            continue
        local = tris.reshape(-1, 2)
        if not p.face_up:
            local = local * np.array([1.0, -1.0])
        a = math.radians(p.rotation)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        t = local @ rot.T + np.array([p.x, p.y]) * g.radius
        z = g.thickness + 0.03 if p.face_up else 0.05  # face down: under the acrylic
        v = table_to_world(t, z)
        f = _fix_up(v, np.arange(len(v)).reshape(-1, 3))
        out.paint.append((v, f, np.ones(3)))
    return out


def _paint_bsdf(style: FaceStyle, rng: np.random.Generator) -> dict:
    if style.paint == "white":
        colour = [float(rng.uniform(0.6, 0.8))] * 3
        inner = {"type": "principled", "base_color": {"type": "rgb", "value": colour},
                 "roughness": 0.5}
    elif style.paint == "black":
        colour = [float(rng.uniform(0.015, 0.04))] * 3
        inner = {"type": "principled", "base_color": {"type": "rgb", "value": colour},
                 "roughness": 0.4}
    else:  # engraved: the laser frosts the acrylic, lighter and matte
        inner = {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.42] * 3}}
    return {"type": "twosided", "bsdf": inner}


def _acrylic(rng: np.random.Generator) -> tuple[dict, dict]:
    trans = float(rng.choice([0.0, rng.uniform(0.05, 0.35)]))
    faces = {"type": "principled", "base_color": VERTEX_COLOUR,
             "roughness": float(rng.uniform(*ACRYLIC_ROUGHNESS)), "specular": 0.5,
             "spec_trans": trans}
    edges = {"type": "principled", "base_color": VERTEX_COLOUR,
             "roughness": float(rng.uniform(0.25, 0.5)), "specular": 0.4}
    return faces, edges


def _project(cam: Camera3D, sensor, pts_world: np.ndarray) -> np.ndarray:
    return distort_px(cam.project(pts_world), cam.size, sensor.k1, sensor.k2, cam.focal_px)


def _truth_pieces(layout: dict[str, Placed], physical: dict[str, Placed], g: CutGeometry,
                  cam: Camera3D, sensor) -> list[TruthPiece]:
    """Each piece: its pose in the engine's layout, its centre and radius in the photo."""
    out = []
    a = np.radians(np.arange(0, 360, 10))
    for p in sorted(layout.values(), key=lambda q: q.uid):
        seen = physical[p.uid]
        c = np.array([seen.x, seen.y]) * g.radius
        rim = c + g.radius * np.stack([np.cos(a), np.sin(a)], -1)
        px = _project(cam, sensor, table_to_world(np.vstack([c, rim]), g.thickness))
        centre = px[0]
        radius = float(np.mean(np.hypot(*(px[1:] - centre).T)))
        out.append(TruthPiece(p.uid, p.team, p.piece, p.face_up, round(p.x, 5), round(p.y, 5),
                              round(p.rotation, 3), (round(float(centre[0]), 2),
                                                     round(float(centre[1]), 2)),
                              round(radius, 2)))
    return out


def _homography(cam: Camera3D, sensor, centre_mm: np.ndarray) -> np.ndarray:
    """Table mm -> frame pixels, fitted to the lens-distorted projection of the table plane."""
    gx, gy = np.meshgrid(np.linspace(-300, 300, 9), np.linspace(-250, 250, 9))
    mm = np.stack([gx.ravel(), gy.ravel()], -1) + centre_mm
    px = _project(cam, sensor, table_to_world(mm, 0.0))
    h, _ = cv2.findHomography(mm.astype(np.float32), px.astype(np.float32))
    return h


def render_pelta3d(seed: int, spec: PeltaSpec3D | None = None, picture: bool = True
                   ) -> PeltaScene3D:
    """The layout photo of ``seed``: the same seed and spec always give the same frame and
    truth. ``picture=False`` skips the path tracing (truth only, an empty frame)."""
    spec = spec or PeltaSpec3D()
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    catalog = default_catalog("full")
    g = random_geometry(rng, catalog)
    style = random_style(rng)
    n = int(spec.colours[int(rng.integers(len(spec.colours)))])
    names = list(ACRYLIC)
    teams = [names[int(i)] for i in sorted(rng.choice(len(names), n, replace=False))]
    seats = seats_for(rng, teams)
    grown = grow(rng, catalog, g, seats, int(rng.integers(spec.per_team[0],
                                                          spec.per_team[1] + 1)))
    layout, physical = jittered(rng, grown, catalog, g)
    sheet, joins = score(seats, layout)
    colours = {t: srgb_to_linear(ACRYLIC[t]) for t in teams}

    outline = np.vstack([outline_on_table(catalog.piece(p.piece), p, g)
                         for p in physical.values()])
    cam = framing_camera(rng, table_to_world(outline, g.thickness), spec.size,
                         spec.max_tilt_deg, spec.fill)
    centre = table_to_world(outline.mean(0)[None], 0.0)[0]
    lights, ambient, illuminant, kelvin, glare = _lights(rng, cam, centre)
    top = _table(rng)
    shades = {u: float(np.exp(rng.normal(0, 0.04))) for u in layout}
    face_bsdf, edge_bsdf = _acrylic(rng)
    paint_bsdf = _paint_bsdf(style, rng)
    sensor = random_sensor(rng, illuminant)
    if sensor.defocus_px < 0.6:  # the enlarged picture needs a little blur to look taken
        sensor = replace(sensor, defocus_px=float(rng.uniform(0.6, 1.0)))
    render_seed = int(rng.integers(2 ** 31))
    frame = np.zeros((spec.size[1], spec.size[0], 3), np.uint8)
    if picture:
        parts = piece_meshes(catalog, g, style, physical, colours, shades)
        mi = mitsuba()
        tex = bitmap(top.image, 4000.0 / top.size_mm)
        table_bsdf = {"type": "roughplastic", "diffuse_reflectance": tex,
                      "alpha": top.roughness, "nonlinear": True} if top.glossy else \
            {"type": "diffuse", "reflectance": tex}
        shapes = {"table": {"type": "rectangle", "bsdf": table_bsdf,
                            "to_world": mi.ScalarTransform4f().translate(
                                [float(centre[0]), float(centre[1]), 0]).scale([2000, 2000, 1])}}
        for name, items, bsdf, smooth in (("acrylic", parts.faces, face_bsdf, False),
                                          ("edges", parts.edges, edge_bsdf, True),
                                          ("paint", parts.paint, paint_bsdf, False)):
            if items:
                v, f, c = _gather(items)
                shapes[name] = mesh(name, v, f, bsdf, colours=c, smooth=smooth)
        w, h = spec.size
        small = (max(16, round(w * spec.render_scale)), max(12, round(h * spec.render_scale)))
        scene = build(SceneParts(replace(cam, size=small), shapes, lights, ambient), spec.spp)
        sensors = {s.id(): s for s in scene.sensors()}
        linear = np.array(mi.render(scene, sensor=sensors["sensor"], seed=render_seed,
                                    spp=spec.spp), np.float32)
        # As the Peep War tracer does: a camera's noise reduction calms the few-sample grain.
        root = np.sqrt(np.clip(_no_fireflies(linear), 0, None))
        linear = np.square(cv2.bilateralFilter(root, 5, 0.06, 2.0))
        linear = cv2.resize(linear, (w, h), interpolation=cv2.INTER_CUBIC)
        frame = develop(np.clip(linear, 0, None), sensor, cam.focal_px, rng)
    truth = Truth(_truth_pieces(layout, physical, g, cam, sensor), [tuple(j) for j in joins],
                  [tuple(s) for s in seats], sheet,
                  _homography(cam, sensor, outline.mean(0)), kelvin, round(cam.tilt_deg, 2),
                  {t: ACRYLIC[t] for t in teams})
    params = {"geometry": g.to_json(), "style": style.to_json(), "table": top.kind,
              "lights": [lt.kind for lt in lights], "glare_lamp": glare,
              "tilt_deg": round(cam.tilt_deg, 2), "spp": spec.spp,
              # where each piece lies in the photo (disc radii, degrees): the engine's
              # layout (the truth) has every contact at exactly two radii
              "physical": {u: [round(p.x, 5), round(p.y, 5), round(p.rotation, 3)]
                           for u, p in sorted(physical.items())},
              "render_scale": spec.render_scale, "sensor": sensor.to_json(),
              "render_s": round(time.perf_counter() - t0, 2) if picture else None}
    return PeltaScene3D(frame, truth, {t: ACRYLIC[t] for t in teams}, params)
