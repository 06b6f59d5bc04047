"""Rendered photos of PeltaPeeps layouts, with their ground truth, for tests and benchmarks.

A layout is grown by the rules engine itself: seats take turns placing random
legal pieces from the default full set (2 to 6 teams, up to 16 pieces each),
so every rendered layout is one a real game could reach. Each piece is drawn as
glossy, slightly translucent coloured acrylic (the table shows through a
little), its laser-cut edge a thin darker line, with painted eyes or scales on
the face-up side; face down, the paint shows only faintly through the plastic,
mirrored. A lamp's soft reflection and rim glints, soft drop shadows, a table
texture, the light's colour temperature and a gradient, a camera tilted up to
20 degrees, blur, noise and JPEG complete the photo.

:func:`profile_for_teams` makes the colour profile the same way a user does:
a rendered photo of the calibration card with a piece of each team on its
spots, calibrated by :func:`calibration.colour.calibrate_colours`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.colour import calibrate_colours
from calibration.profile import Profile
from companion.rules.peltapeeps.layout import Placed, contacts
from companion.rules.peltapeeps.rules import (
    CannotPlace,
    EndTurn,
    FlipOther,
    PeltaPeeps,
    PeltaState,
    Place,
)
from vision.geometry import apply_h, local_scale
from vision.peltapeeps.geometry import (
    DISC_RADIUS_MM,
    MM_PER_UNIT,
    TAB_OUT_MM,
    lying,
    piece_sdf,
)
from vision.render.camera import random_camera
from vision.render.card_scene import render_card_scene
from vision.render.cutouts import Cutout
from vision.render.layers import table_texture
from vision.render.light import gradient_field, temperature_gains, to_linear, to_srgb

RGB = tuple[int, int, int]

# Acrylic sheet colours (sRGB, R G B), one per team.
TEAM_COLOURS: dict[str, RGB] = {
    "red": (205, 32, 44), "orange": (248, 128, 24), "yellow": (246, 212, 40),
    "green": (44, 168, 72), "blue": (34, 92, 214), "purple": (128, 52, 176),
}
TRANSLUCENCY = 0.18  # share of the light that passes through the acrylic to the table


@dataclass(frozen=True)
class PeltaSpec:
    """Ranges a rendered layout is drawn from."""

    size: tuple[int, int] = (2000, 1500)
    teams: tuple[int, int] = (2, 6)
    rounds: tuple[int, int] = (2, 16)  # each team places about this many pieces
    max_tilt_deg: float = 20.0
    min_view_mm: tuple[float, float] = (560.0, 420.0)  # the camera sees at least this much
    fill: tuple[float, float] = (0.75, 0.92)
    kelvin: tuple[float, float] = (3000.0, 6500.0)
    exposure: tuple[float, float] = (0.85, 1.05)
    gradient: tuple[float, float] = (0.0, 0.12)
    blur_px: tuple[float, float] = (0.0, 0.7)  # at 2000 px wide; scaled with the frame
    noise_sigma: tuple[float, float] = (0.5, 2.5)
    jpeg_quality: tuple[int, int] = (80, 95)
    jitter_mm: float = 0.3  # hand placement
    jitter_deg: float = 1.0
    flips: float = 0.15  # chance per turn that the seat flips another player's piece


@dataclass(frozen=True)
class TruthPiece:
    uid: str
    team: str
    piece: str
    face_up: bool
    x: float  # layout units, as the engine has it
    y: float
    rotation: float
    centre_px: tuple[float, float]
    radius_px: float


@dataclass
class Truth:
    pieces: list[TruthPiece]
    joins: list[tuple[str, str]]  # uid pairs, a < b
    seats: list[tuple[str, str]]
    sheet: dict[str, dict[str, int]]
    homography: np.ndarray  # table mm -> image pixels
    kelvin: float
    tilt_deg: float
    colours: dict[str, RGB] = field(default_factory=dict)


@dataclass
class PeltaScene:
    frame: np.ndarray  # BGR uint8 (the decoded JPEG)
    truth: Truth
    colours: dict[str, RGB]
    rules: PeltaPeeps
    state: PeltaState


def _u(rng: np.random.Generator, lo_hi) -> float:
    return float(rng.uniform(lo_hi[0], lo_hi[1]))


# --- growing a layout with the rules engine -------------------------------------------

def _free_connectors(rules: PeltaPeeps, state: PeltaState) -> list[tuple[Placed, int]]:
    joined = set()
    for c in contacts(state.layout, rules.catalogs):
        if c.kind == "join":
            joined |= {(c.a, c.a_connector), (c.b, c.b_connector)}
    out = []
    for p in state.layout.values():
        for i in range(rules.catalogs[p.team].piece(p.piece).interfaces):
            if (p.uid, i) not in joined:
                out.append((p, i))
    return out


def _random_place(rules: PeltaPeeps, state: PeltaState, rng: np.random.Generator
                  ) -> Place | None:
    """A random legal placement for the seat to play, or None when none is found.

    Candidates (a free connector of the layout, a piece, a face, a connector of
    it that fits) are tried in random order and checked by the engine.
    """
    from companion.rules.peltapeeps.layout import attach, fits, world

    player, team = state.seat
    cat = rules.catalogs[team]
    pieces = [cat.piece(pid) for pid in rules.unplayed(state, team)]
    if state.round < 3:
        pieces = [p for p in pieces if p.interfaces >= 2]
    if not pieces:
        return None
    if not state.layout:
        p = pieces[int(rng.integers(len(pieces)))]
        return Place(player, team, p.id, 0.0, 0.0, 0.0, True)
    cands = []
    for target, ti in _free_connectors(rules, state):
        tpiece = rules.catalogs[target.team].piece(target.piece)
        ttype = world(tpiece, target)[ti].type
        for p in pieces:
            for face_up in (True, False):
                for ci, c in enumerate(p.face(face_up)):
                    if fits(ttype, c.type) == "join":
                        cands.append((target, tpiece, ti, p, ci, face_up))
    order = rng.permutation(len(cands))
    for k in order[:400]:
        target, tpiece, ti, p, ci, face_up = cands[int(k)]
        new = attach(tpiece, target, ti, p, ci, team, face_up)
        action = Place(player, team, p.id, new.x, new.y, new.rotation, face_up)
        if rules.why_not(state, action) is None:
            return action
    return None


def grow_layout(rng: np.random.Generator, teams: Sequence[str], rounds: int,
                flips: float = 0.0) -> tuple[PeltaPeeps, PeltaState]:
    """A game of ``teams`` (one player each) played for ``rounds`` rounds with random legal moves.

    Stops early when the game ends (a colour's last piece, or nothing fits).
    """
    rules = PeltaPeeps(seats=[(f"player{i + 1}", t) for i, t in enumerate(teams)],
                       set_size="full")
    state = rules.new_state()
    while not state.over and state.round < rounds:
        player, team = state.seat
        place = _random_place(rules, state, rng)
        if place is None:
            action = CannotPlace(player)
            if rules.why_not(state, action) is not None:
                break  # something fits that sampling missed: stop the layout here
            state, _ = rules.apply(state, action)
        else:
            state, _ = rules.apply(state, place)
            if flips and rng.random() < flips:
                others = [u for u, p in state.layout.items() if rules.owner(p.team) != player]
                for k in rng.permutation(len(others))[:3]:
                    flip = FlipOther(player, others[int(k)])
                    if rules.why_not(state, flip) is None:
                        state, _ = rules.apply(state, flip)
                        break
        state, _ = rules.apply(state, EndTurn(player))
    return rules, state


# --- drawing the pieces -------------------------------------------------------------------

def _marks(u: np.ndarray, v: np.ndarray, kind: str, ppm: float
           ) -> tuple[np.ndarray, np.ndarray]:
    """Painted marks in the piece's own frame (u towards its up): (white cover, black cover)."""

    def cover(sdf: np.ndarray) -> np.ndarray:  # positive inside -> anti-aliased 0..1
        return np.clip(sdf * ppm + 0.5, 0, 1).astype(np.float32)

    white = np.zeros(u.shape, np.float32)
    black = np.zeros(u.shape, np.float32)
    if kind == "egg":  # rows of scales: half rings
        for cu in (-8.0, -3.0, 2.0, 7.0):
            for cv in np.arange(-9.0, 9.5, 6.0) + (3.0 if cu in (-3.0, 7.0) else 0.0):
                if math.hypot(cu, cv) > 11.5:
                    continue
                d = np.hypot(u - cu, v - cv)
                ring = 0.8 - np.abs(d - 3.2)
                ring = np.where(u < cu + 0.5, ring, -1.0)
                white = np.maximum(white, cover(ring))
    else:
        for side in (-1.0, 1.0):
            du, dv = u - 5.0, v - side * 6.5
            if kind == "awake":
                white = np.maximum(white, cover(4.3 - np.hypot(du, dv)))
                black = np.maximum(black, cover(2.1 - np.hypot(du - 1.3, dv)))
            else:  # sleeping: closed eyes, a dark arc each
                arc = 0.75 - np.abs(np.hypot(du, dv) - 3.6)
                black = np.maximum(black, cover(np.where(du < 0.3, arc, -1.0)))
        black = np.maximum(black, cover(2.0 - np.hypot(u + 2.5, v)))  # a beak
    return white, black


@dataclass(frozen=True)
class _Look:
    light_dir: np.ndarray  # unit vector in the table plane towards the lamp
    glare_mm: np.ndarray  # the lamp's reflection: centre (mm) ...
    glare_radius: float  # ... size (mm) ...
    glare_strength: float  # ... and brightness
    shadow_mm: float  # shadow offset
    shadow_blur_mm: float
    shadow_strength: float
    paint: str  # "white" or "black" scales


def _sprite(piece: TruthPiece, kind: str, connectors: list[tuple[float, str]],
            colour: np.ndarray, centre_mm: np.ndarray, rotation: float, ppm: float,
            look: _Look, rng: np.random.Generator
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(colour, transmission, alpha) of one piece, table-aligned, centred, at ``ppm``."""
    half = DISC_RADIUS_MM + TAB_OUT_MM + 2.0
    n = int(math.ceil(2 * half * ppm)) + 2
    coords = (np.arange(n, dtype=np.float32) - (n / 2 - 0.5)) / ppm
    xs, ys = np.meshgrid(coords, coords)
    sdf = piece_sdf(xs, ys, connectors)
    alpha = np.clip(sdf * ppm + 0.5, 0, 1).astype(np.float32)

    # Acrylic: mostly its own colour, some light through from below; a slight sheen varies it.
    sheen = 1.0 + 0.04 * cv2.resize(rng.standard_normal((4, 4)).astype(np.float32), (n, n),
                                    interpolation=cv2.INTER_CUBIC)
    body = colour[None, None, :] * sheen[:, :, None]
    col = (1 - TRANSLUCENCY) * body
    trans = TRANSLUCENCY * body / max(float(colour.max()), 1e-3) * 0.9

    # The laser-cut edge: a thin frosted line, darker than the face.
    edge = np.clip(1.0 - sdf / 0.7, 0, 1)[:, :, None]
    col = col * (1 - 0.55 * edge)
    trans = trans * (1 - 0.8 * edge)

    a = math.radians(rotation)
    u = xs * math.cos(a) + ys * math.sin(a)
    v = -xs * math.sin(a) + ys * math.cos(a)
    if not piece.face_up:
        v = -v  # paint on the underside shows mirrored
    white, black = _marks(u, v, kind, ppm)
    paint_white = np.array([0.82, 0.82, 0.80], np.float32)
    paint_black = np.array([0.025, 0.025, 0.03], np.float32)
    if kind == "egg" and look.paint == "black":
        white, black = np.zeros_like(white), np.maximum(black, white)
    if piece.face_up:
        cover = np.clip(white + black, 0, 1)[:, :, None]
        col = col * (1 - cover) + white[:, :, None] * paint_white + black[:, :, None] * paint_black
        trans = trans * (1 - cover)
    else:  # seen through the plastic: faint and soft
        ghost_w = cv2.GaussianBlur(white, (0, 0), 0.8 * ppm)[:, :, None]
        ghost_b = cv2.GaussianBlur(black, (0, 0), 0.8 * ppm)[:, :, None]
        col = col * (1 - 0.10 * ghost_b) + 0.05 * ghost_w * paint_white

    # Gloss: the lamp's soft reflection, and glints on the rim facing the lamp.
    gx = xs + centre_mm[0] - look.glare_mm[0]
    gy = ys + centre_mm[1] - look.glare_mm[1]
    glare = look.glare_strength * np.exp(-(gx**2 + gy**2) / (2 * look.glare_radius**2))
    r = np.hypot(xs, ys) + 1e-6
    facing = np.clip((xs * look.light_dir[0] + ys * look.light_dir[1]) / r, 0, 1) ** 4
    rim = np.clip(1.0 - np.abs(sdf - 1.0) / 0.6, 0, 1)
    glint = 0.35 * facing * rim
    col = col + (glare + glint)[:, :, None].astype(np.float32)
    return col.astype(np.float32), trans.astype(np.float32), alpha


def _warp_into(frame: np.ndarray, m: np.ndarray, src: np.ndarray, border: int = 0
               ) -> tuple[np.ndarray, tuple[slice, slice]] | None:
    """``src`` warped by ``m`` (src pixel -> frame pixel), cropped to where it lands."""
    h, w = src.shape[:2]
    corners = apply_h(m, np.array([[-1, -1], [w, -1], [w, h], [-1, h]], float))
    x0, y0 = np.maximum(np.floor(corners.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(corners.max(axis=0)).astype(int) + 1,
                        (frame.shape[1], frame.shape[0]))
    if x1 <= x0 or y1 <= y0:
        return None
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float)
    out = cv2.warpPerspective(src, shift @ m, (int(x1 - x0), int(y1 - y0)),
                              flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=border)
    return out, (slice(y0, y1), slice(x0, x1))


def _sprite_to_table(centre_mm: np.ndarray, n: int, ppm: float) -> np.ndarray:
    return np.array([[1 / ppm, 0, centre_mm[0] - (n / 2 - 0.5) / ppm],
                     [0, 1 / ppm, centre_mm[1] - (n / 2 - 0.5) / ppm], [0, 0, 1]])


def _draw(frame: np.ndarray, hom: np.ndarray, rules: PeltaPeeps, pieces: list[TruthPiece],
          poses_mm: list[tuple[np.ndarray, float]], colours: Mapping[str, np.ndarray],
          look: _Look, rng: np.random.Generator) -> None:
    sprites = []
    for p, (centre, rot) in zip(pieces, poses_mm, strict=True):
        cat_piece = rules.catalogs[p.team].piece(p.piece)
        cons = lying([(c.angle, c.type) for c in cat_piece.connectors], rot, p.face_up)
        ppm = float(np.clip(1.3 * local_scale(hom, tuple(centre)), 1.5, 14.0))
        sprites.append((p, centre, ppm, _sprite(p, cat_piece.kind, cons, colours[p.team],
                                                 centre, rot, ppm, look, rng)))
    # Shadows first, all of them, then the pieces over them.
    away = -look.light_dir * look.shadow_mm
    for _, centre, ppm, (_, _, alpha) in sprites:
        blur = look.shadow_blur_mm * ppm
        pad = int(math.ceil(3 * blur))
        sh = cv2.copyMakeBorder(alpha, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
        sh = cv2.GaussianBlur(sh, (0, 0), blur)
        m = hom @ _sprite_to_table(centre + away, sh.shape[0], ppm)
        got = _warp_into(frame, m, sh)
        if got is not None:
            out, sl = got
            frame[sl] *= (1.0 - look.shadow_strength * out)[:, :, None]
    for _, centre, ppm, (col, trans, alpha) in sprites:
        m = hom @ _sprite_to_table(centre, alpha.shape[0], ppm)
        wa = _warp_into(frame, m, alpha)
        wc = _warp_into(frame, m, col)
        wt = _warp_into(frame, m, trans)
        if wa is None or wc is None or wt is None:
            continue
        a, sl = wa
        a = a[:, :, None]
        under = frame[sl]
        frame[sl] = under * (1 - a) + a * (wc[0] + wt[0] * under)


def _finish(frame: np.ndarray, rng: np.random.Generator, spec: PeltaSpec
            ) -> tuple[np.ndarray, float]:
    """Light, focus, sensor noise and JPEG over a linear-light frame."""
    h, w = frame.shape[:2]
    kelvin = _u(rng, spec.kelvin)
    light = gradient_field(rng, (w, h), _u(rng, spec.gradient))
    gains = temperature_gains(kelvin)
    gains = gains / gains.max() * _u(rng, spec.exposure)
    frame *= light[:, :, None] * gains[None, None, :]
    image = to_srgb(frame)
    sigma = _u(rng, spec.blur_px) * w / 2000.0
    if sigma > 0.3:
        image = cv2.GaussianBlur(image, (0, 0), sigma)
    noise = rng.standard_normal(image.shape, dtype=np.float32) * _u(rng, spec.noise_sigma)
    image = cv2.add(image, noise, dtype=cv2.CV_8U)
    quality = int(rng.integers(spec.jpeg_quality[0], spec.jpeg_quality[1] + 1))
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return (cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else image), kelvin


def linear_colour(rgb: RGB) -> np.ndarray:
    """sRGB (R, G, B) -> linear BGR float32 reflectance."""
    r, g, b = rgb
    return to_linear(np.array([[[b, g, r]]], np.uint8))[0, 0].astype(np.float32)


def render_state(rules: PeltaPeeps, state: PeltaState, colours: Mapping[str, RGB], seed: int,
                 spec: PeltaSpec | None = None) -> PeltaScene:
    """A photo of the layout in ``state``, and its ground truth."""
    spec = spec or PeltaSpec()
    rng = np.random.default_rng(seed)
    placed = sorted(state.layout.values(), key=lambda p: p.uid)
    if not placed:
        raise ValueError("the layout is empty: nothing to draw")
    w, h = spec.size
    centres = np.array([[p.x, p.y] for p in placed]) * MM_PER_UNIT
    reach = DISC_RADIUS_MM + TAB_OUT_MM + 8.0
    lo, hi = centres.min(axis=0) - reach, centres.max(axis=0) + reach
    mid = (lo + hi) / 2
    half = np.maximum((hi - lo) / 2, np.array(spec.min_view_mm) / 2)
    box = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half + mid
    cam = random_camera(rng, box, (w, h), spec.max_tilt_deg, spec.fill)
    hom = cam.homography

    look = _Look(
        light_dir=(lambda a: np.array([math.cos(a), math.sin(a)]))(rng.uniform(0, 2 * math.pi)),
        glare_mm=mid + rng.uniform(-1, 1, 2) * half,
        glare_radius=float(rng.uniform(40, 140)),
        glare_strength=float(rng.uniform(0.1, 0.6)),
        shadow_mm=float(rng.uniform(1.0, 3.5)),
        shadow_blur_mm=float(rng.uniform(1.0, 2.5)),
        shadow_strength=float(rng.uniform(0.25, 0.5)),
        paint=str(rng.choice(["white", "black"])),
    )
    frame = table_texture(rng, (w, h))
    lin = {t: linear_colour(c) for t, c in colours.items()}
    pieces, poses = [], []
    for p in placed:
        centre = np.array([p.x, p.y]) * MM_PER_UNIT + rng.normal(0, spec.jitter_mm, 2)
        rot = p.rotation + float(rng.normal(0, spec.jitter_deg))
        c_px = apply_h(hom, centre[None])[0]
        pieces.append(TruthPiece(p.uid, p.team, p.piece, p.face_up, p.x, p.y, p.rotation,
                                 (float(c_px[0]), float(c_px[1])),
                                 DISC_RADIUS_MM * local_scale(hom, tuple(centre))))
        poses.append((centre, rot))
    _draw(frame, hom, rules, pieces, poses, lin, look, rng)
    image, kelvin = _finish(frame, rng, spec)

    joins = sorted(tuple(sorted((c.a, c.b))) for c in contacts(state.layout, rules.catalogs)
                   if c.kind == "join")
    truth = Truth(pieces, joins, list(rules.seats), rules.score_sheet(state), hom, kelvin,
                  cam.tilt_deg, dict(colours))
    return PeltaScene(image, truth, dict(colours), rules, state)


def render_layout(seed: int, spec: PeltaSpec | None = None,
                  teams: Sequence[str] | None = None) -> PeltaScene:
    """A random legal layout (grown by the engine) and its photo, deterministic from ``seed``."""
    spec = spec or PeltaSpec()
    rng = np.random.default_rng(seed)
    if teams is None:
        n = int(rng.integers(spec.teams[0], spec.teams[1] + 1))
        if n == 3:  # no legal seating has three colours (3 players play two each)
            n = 4
        names = list(TEAM_COLOURS)
        teams = [names[int(i)] for i in sorted(rng.choice(len(names), n, replace=False))]
    rounds = int(rng.integers(spec.rounds[0], spec.rounds[1] + 1))
    rules, state = grow_layout(rng, list(teams), rounds, spec.flips)
    colours = {t: TEAM_COLOURS[t] for t in teams}
    return render_state(rules, state, colours, int(rng.integers(2**31)), spec)


def sample_cutout(rgb: RGB, diameter_mm: float, px_per_mm: float = 4.0) -> Cutout:
    """A plain disc of the team's acrylic, for the calibration card's spots."""
    n = int(math.ceil(diameter_mm * px_per_mm)) + 6
    c = (np.arange(n, dtype=np.float32) - (n / 2 - 0.5)) / px_per_mm
    xs, ys = np.meshgrid(c, c)
    sdf = diameter_mm / 2 - np.hypot(xs, ys)
    alpha = np.clip(sdf * px_per_mm + 0.5, 0, 1).astype(np.float32)
    body = linear_colour(rgb)
    # On the card's grey spot some grey shows through, as on the table.
    colour = (1 - TRANSLUCENCY) * body + TRANSLUCENCY * body * 0.9 * 0.22 / max(
        float(body.max()), 1e-3)
    edge = np.clip(1.0 - sdf / 0.7, 0, 1)[:, :, None]
    col = np.broadcast_to(colour, (n, n, 3)) * (1 - 0.55 * edge)
    return Cutout(col.astype(np.float32), alpha)


def profile_for_teams(colours: Mapping[str, RGB], seed: int = 0, kelvin: float = 5000.0
                      ) -> Profile:
    """The colour profile a user would make: the card photographed with a piece of each team.

    A plain (face-down) piece lies on each team's large spot and a small offcut
    of the same acrylic on its small spot; the photo goes through the real
    calibration.
    """
    keys = list(colours)
    beans = [sample_cutout(colours[k], 22.0) for k in keys]
    peeps = [sample_cutout(colours[k], 2 * DISC_RADIUS_MM) for k in keys]
    photo = render_card_scene(seed, beans, peeps, kelvin)
    models, warnings = calibrate_colours(photo, keys)
    return Profile(keys, models, None, warnings)


def with_face(state: PeltaState, uid: str, face_up: bool) -> PeltaState:
    """``state`` with one piece turned (for hand-made test layouts)."""
    return replace(state, layout={**state.layout, uid: replace(state.layout[uid],
                                                               face_up=face_up)})


__all__ = ["PeltaScene", "PeltaSpec", "TEAM_COLOURS", "Truth", "TruthPiece", "grow_layout",
           "profile_for_teams", "render_layout", "render_state"]
