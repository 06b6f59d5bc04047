"""Rendered Peep War games: tiles with crowded pieces, and the truth of every cell.

``render_game(seed, GameSpec(...))`` draws a random position (2 to 6 players,
combat cells, Supply Centers, hands reaching in) for the benchmark and tests;
``render_state(state, colours, seed)`` draws a given game state (as
``PeepWar.state_to_dict`` gives it) for the live demo. ``profile_for`` makes the
matching colour profile the honest way: it renders the calibration card with
the same pieces and runs the real calibration on it.

The truth speaks the observation's language: ``truth.cells`` maps each occupied
cell to ``{"supply_center": bool, "pieces": {player: {"troops": n, "peep": bool}}}``
and ``truth.hand_cover`` gives the share of every cell under a hand.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from calibration.colour import CalibrationError, PlayerColours, calibrate_colours
from calibration.profile import Profile
from companion.rules.peepwar.board import (
    NEUTRAL,
    R_MM,
    cells_of,
    hexagon_mm,
    parse_cell,
    tile_centre_mm,
)
from vision.geometry import Pose2D, along_sides, apply_h, local_scale, shares_outside
from vision.kit_layout import MAX_TILES, NEUTRAL_ID
from vision.lens import distort_points
from vision.render.camera import Camera, random_camera, viewer_camera
from vision.render.card_scene import render_card_scene
from vision.render.crowd import Crowd, Placement
from vision.render.cutouts import Cutout, cut_beans, scaled
from vision.render.layers import draw_blobs, draw_tiles, random_hand, table_texture
from vision.render.layout import PlacedTile, random_layout
from vision.render.palette import EGG_COLOURS, FAMILIES, linear_bgr, piece_colours
from vision.render.piece_layer import draw_pieces
from vision.render.scene import Scene, Truth, TruthTile, _visible_slots, finish_frame
from vision.render.sprites import (
    bean_sprite,
    egg_sprite,
    light_direction,
    peep_sprite,
    token_sprite,
    understudy_sprite,
)

BEAN_AREA_MM2 = 204.0
PEEP_AREA_MM2 = 1650.0
BORDER_CELL_MM2 = 3750.0
CENTRAL_CELL_MM2 = 5545.0
EGG_AREA_MM2 = 1960.0
DRAW_ORDER = {"egg": 0, "token": 0, "understudy": 1, "bean": 2, "peep": 3}
RETAKES = 8  # card photos a calibration may refuse before the look is given up


@dataclass(frozen=True)
class PlayerLook:
    """How one player's pieces look: colours (linear BGR), and real beans if any."""

    bean: np.ndarray
    peep: np.ndarray
    bean_cutouts: tuple[Cutout, ...] = ()  # real bean pixels; empty = rendered ellipsoids
    understudy: bool = False  # printed stand-ins instead of marshmallow peeps


@dataclass(frozen=True)
class GameSpec:
    """Ranges a random game scene is drawn from (inclusive), and the camera and light."""

    size: tuple[int, int] = (1280, 720)
    players: tuple[int, int] = (2, 6)
    tiles: tuple[int, int] = (2, 7)
    max_tilt_deg: float = 30.0
    jitter_mm: float = 4.0
    jitter_deg: float = 3.0
    occupied: float = 0.45  # share of cells holding pieces
    combat: float = 0.15  # share of occupied cells holding two players
    peep: float = 0.3
    supply: float = 0.5  # share of central cells with a Supply Center
    token: float = 0.3  # share of Supply Centers that are flat tokens, not egg halves
    crowd: float = 0.03  # share of single-player cells with 6 or 7 beans (not legal; seen)
    cutouts: float = 0.4  # share of players (with a photographed flavour) using real beans
    understudies: float = 0.25  # share of players with printed peeps
    hands: tuple[int, int] = (0, 1)
    hand_scenes: float = 0.3
    kelvin: tuple[float, float] = (2700.0, 7000.0)
    gradient: tuple[float, float] = (0.0, 0.3)
    shadows: tuple[int, int] = (0, 2)
    blur_sigma: tuple[float, float] = (0.0, 0.9)
    noise_sigma: tuple[float, float] = (0.5, 3.0)
    jpeg_quality: tuple[int, int] = (70, 95)
    exposure: tuple[float, float] = (0.85, 1.15)
    auto_exposure: bool = True  # exposure set by the brightest channel, as cameras do
    fill: tuple[float, float] = (0.8, 0.95)


@dataclass
class Game:
    """A scene's content before drawing: players' looks and each cell's pieces."""

    looks: dict[str, PlayerLook]
    cells: dict[str, dict] = field(default_factory=dict)


@cache
def flavour_cutouts(photos_dir: str) -> dict[str, tuple[Cutout, ...]]:
    """Real bean cut-outs of every photographed flavour in ``photos_dir`` (by file prefix)."""
    out: dict[str, list[Cutout]] = {}
    for path in sorted(Path(photos_dir).glob("*.jpg")):
        flavour = path.stem.split("-")[0]
        photo = cv2.imread(str(path))
        if photo is not None:
            out.setdefault(flavour, []).extend(cut_beans(photo))
    return {k: tuple(v) for k, v in out.items() if v}


def looks_for(players_colours: Mapping[str, object]) -> dict[str, PlayerLook]:
    """Rendered beans and marshmallow peeps in each player's colour (see ``piece_colours``)."""
    out = {}
    for player, value in players_colours.items():
        bean, peep = piece_colours(value)
        out[player] = PlayerLook(linear_bgr(bean), linear_bgr(peep))
    return out


def _sprite_ppm(cam: Camera, tiles: list[PlacedTile]) -> float:
    """Sprites are drawn at twice the frame's finest scale (at least 4 px/mm)."""
    return max(4.0, 2.0 * max(local_scale(cam.homography, (t.pose.x, t.pose.y)) for t in tiles))


def _bean(look: PlayerLook, rng: np.random.Generator, ppm: float, light: np.ndarray) -> Cutout:
    if look.bean_cutouts:
        c = look.bean_cutouts[rng.integers(len(look.bean_cutouts))]
        length = 20.0 * rng.uniform(0.94, 1.06)
        return scaled(c, length * ppm / c.length_px, rng.uniform(0, 360))
    return bean_sprite(look.bean, rng, ppm, light)


def _place(rng: np.random.Generator, tiles: list[PlacedTile], game: Game, ppm: float,
           light: np.ndarray, token_share: float, eye_mm: np.ndarray) -> Crowd:
    """Supply Centers, then peeps, then beans, cell by cell, as seen from ``eye_mm`` (the
    camera's x, y and height)."""
    crowd = Crowd(rng, tiles, eye_mm)
    for name, content in game.cells.items():
        if content.get("supply_center"):
            colour = linear_bgr(EGG_COLOURS[rng.integers(len(EGG_COLOURS))])
            if rng.uniform() < token_share:
                sprite = token_sprite(colour, rng, ppm, rng.uniform(42.0, 46.0))
                crowd.supply_center(name, sprite, ppm, "token")
            else:
                sprite = egg_sprite(colour, rng, ppm, rng.uniform(45.0, 55.0), light)
                crowd.supply_center(name, sprite, ppm, "egg")
    peeps: dict[tuple[str, str], Placement] = {}
    for name, content in game.cells.items():
        for player, what in content.get("pieces", {}).items():
            if what.get("peep"):
                look = game.looks[player]
                if look.understudy:
                    sprite, kind = understudy_sprite(look.peep, rng, ppm), "understudy"
                else:
                    sprite, kind = peep_sprite(look.peep, rng, ppm, light), "peep"
                placed = crowd.peep(name, player, sprite, ppm, kind)
                if placed is None:
                    what["peep"] = False  # no room left: the truth says what is there
                else:
                    peeps[(name, player)] = placed
    for name, content in game.cells.items():
        for player, what in content.get("pieces", {}).items():
            n = int(what.get("troops", 0))
            if not n:
                continue
            near = peeps.get((name, player))
            if near is not None and near.kind == "understudy":
                near = None  # beans go beside a flat card, not under it
            sprites = [_bean(game.looks[player], rng, ppm, light) for _ in range(n)]
            what["troops"] = len(crowd.beans(name, player, sprites, ppm, near))
    return crowd


def compose(rng: np.random.Generator, tiles: list[PlacedTile], game: Game, cam: Camera,
            spec: GameSpec, hands: int) -> Scene:
    """Draw a game on ``tiles`` through ``cam``: table, tiles, pieces, hands, light, sensor."""
    w, h = cam.size
    hom = cam.homography
    frame = table_texture(rng, (w, h))
    owner = np.full((h, w), -1, np.int16)
    paper = (rng.uniform(0.02, 0.05), rng.uniform(0.75, 0.92))
    draw_tiles(frame, owner, tiles, hom, paper)
    light = light_direction(rng)
    ppm = _sprite_ppm(cam, tiles)
    eye = cam.centre_mm()
    crowd = _place(rng, tiles, game, ppm, light, spec.token, eye)
    pieces = sorted(crowd.placed, key=lambda p: DRAW_ORDER[p.kind])
    draw_pieces(frame, owner, pieces, hom, light, rng.uniform(0.35, 0.55), eye)
    blobs = []
    for _ in range(hands):
        over = tiles[rng.integers(len(tiles))].pose
        blobs += random_hand(rng, (over.x + rng.normal(0, 50), over.y + rng.normal(0, 50)))
    draw_blobs(frame, owner, blobs, hom, rng)
    cover = crowd.hand_coverage([b.outline_mm for b in blobs])
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in tiles])
    image, kelvin, sigma, quality = finish_frame(frame, rng, spec, cam, outline)

    truth_tiles = [
        TruthTile(t.tile_id, t.hex[0], t.hex[1], t.pose, t.rotation,
                  _visible_slots(i, t, owner, cam))
        for i, t in enumerate(tiles)
    ]
    cells = {name: _clean(content) for name, content in game.cells.items()}
    cells = {k: v for k, v in cells.items() if v["supply_center"] or v["pieces"]}
    params = {"tilt_deg": cam.tilt_deg, "blur_sigma": sigma, "jpeg_quality": quality,
              "hands": hands, "pieces": len(crowd.placed), "sprite_ppm": ppm}
    placed = [{"kind": p.kind, "player": p.player, "cell": p.cell,
               "centre_mm": [round(p.centre_mm[0], 2), round(p.centre_mm[1], 2)]}
              for p in crowd.placed]
    truth = Truth(cam, truth_tiles, crowd.cells, {}, kelvin, params, cells,
                  {k: v for k, v in cover.items() if v > 0}, list(game.looks),
                  dict(game.looks), placed, _out_of_frame(crowd.cells, cam))
    return Scene(image, truth)


def _out_of_frame(cells_mm: Mapping[str, np.ndarray], cam: Camera) -> dict[str, float]:
    """The share of each cell's picture beyond the frame, its sides bent by the lens
    (> 0 only)."""
    return shares_outside({name: distort_points(apply_h(cam.homography, along_sides(poly)),
                                                cam.camera_matrix, cam.dist_coeffs)
                           for name, poly in cells_mm.items()}, cam.size)


def _clean(content: Mapping) -> dict:
    pieces = {p: {"troops": int(v.get("troops", 0)), "peep": bool(v.get("peep", False))}
              for p, v in sorted(content.get("pieces", {}).items())
              if v.get("troops", 0) or v.get("peep")}
    return {"supply_center": bool(content.get("supply_center", False)), "pieces": pieces}


def random_game(rng: np.random.Generator, hexes: list[tuple[int, int]], players: list[str],
                looks: dict[str, PlayerLook], spec: GameSpec) -> Game:
    """Random cell contents: lone stacks, combat cells, Supply Centers, a rare overfull cell."""
    game = Game(looks)
    for hx in hexes:
        for name in cells_of(hx):
            central = parse_cell(name).is_central
            sc = central and rng.uniform() < spec.supply
            pieces: dict[str, dict] = {}
            if rng.uniform() < spec.occupied:
                two = len(players) > 1 and rng.uniform() < spec.combat
                for p in rng.choice(players, 2 if two else 1, replace=False):
                    peep = bool(rng.uniform() < spec.peep)
                    troops = int(rng.integers(0 if peep else 1, 6))
                    if not two and rng.uniform() < spec.crowd:
                        troops = int(rng.integers(6, 8))
                    pieces[str(p)] = {"troops": troops, "peep": peep}
            _fit(pieces, CENTRAL_CELL_MM2 - (EGG_AREA_MM2 if sc else 0) if central
                 else BORDER_CELL_MM2)
            if sc or pieces:
                game.cells[name] = {"supply_center": sc, "pieces": pieces}
    return game


def _fit(pieces: dict[str, dict], area_mm2: float) -> None:
    """Trim troops until the pieces could lie in the cell without piling up."""

    def used() -> float:
        return sum(v["troops"] * BEAN_AREA_MM2 + v["peep"] * PEEP_AREA_MM2
                   for v in pieces.values())

    while used() > 0.62 * area_mm2:
        p = max(pieces, key=lambda k: pieces[k]["troops"])
        if pieces[p]["troops"] == 0:
            break
        pieces[p]["troops"] -= 1
    for p in [k for k, v in pieces.items() if not v["troops"] and not v["peep"]]:
        del pieces[p]


def random_looks(rng: np.random.Generator, n: int, spec: GameSpec,
                 cutouts: Mapping[str, tuple[Cutout, ...]] | None = None
                 ) -> dict[str, PlayerLook]:
    """``n`` players from the colour families; some with real beans or printed peeps."""
    chosen = sorted(rng.choice(len(FAMILIES), n, replace=False))
    looks = {}
    for i in chosen:
        fam = FAMILIES[i]
        real: tuple[Cutout, ...] = ()
        if cutouts and fam.flavour in cutouts and rng.uniform() < spec.cutouts:
            real = cutouts[fam.flavour]
        looks[fam.name] = PlayerLook(linear_bgr(fam.bean), linear_bgr(fam.peep), real,
                                     bool(rng.uniform() < spec.understudies))
    return looks


def render_game(seed: int, spec: GameSpec | None = None,
                cutouts: Mapping[str, tuple[Cutout, ...]] | None = None) -> Scene:
    """A random game position, deterministic from ``seed``; ``cutouts`` enables real beans."""
    spec = spec or GameSpec()
    rng = np.random.default_rng(seed)
    n_players = int(rng.integers(spec.players[0], spec.players[1] + 1))
    tiles = random_layout(rng, int(rng.integers(spec.tiles[0], spec.tiles[1] + 1)),
                          spec.jitter_mm, spec.jitter_deg)
    looks = random_looks(rng, n_players, spec, cutouts)
    game = random_game(rng, [t.hex for t in tiles], list(looks), looks, spec)
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in tiles])
    cam = random_camera(rng, outline, spec.size, spec.max_tilt_deg, spec.fill, aim=True)
    hands = int(rng.integers(spec.hands[0], spec.hands[1] + 1)) \
        if rng.uniform() < spec.hand_scenes else 0
    return compose(rng, tiles, game, cam, spec, hands)


def state_tiles(rng: np.random.Generator, state: Mapping) -> list[PlacedTile]:
    """The state's hexes at their lattice positions, laid by hand (a little off, any turn)."""
    hexes = sorted((int(t["q"]), int(t["r"])) for t in state.get("tiles", []))
    if NEUTRAL not in hexes:
        hexes.insert(0, NEUTRAL)
    others = [hx for hx in hexes if hx != NEUTRAL]
    if len(others) >= MAX_TILES:
        raise ValueError(f"at most {MAX_TILES} tiles can be printed")
    tiles = [PlacedTile(NEUTRAL_ID, NEUTRAL, Pose2D(0.0, 0.0, 0.0), 0)]
    for tile_id, hx in enumerate(others, start=1):
        cx, cy = tile_centre_mm(hx)
        r, a = rng.uniform(0, 2.5), rng.uniform(0, 2 * math.pi)
        rot = int(rng.integers(6))
        pose = Pose2D(cx + r * math.cos(a), cy + r * math.sin(a), 60 * rot + rng.uniform(-2, 2))
        tiles.append(PlacedTile(tile_id, hx, pose, rot))
    return tiles


def render_state(state: Mapping, players_colours: Mapping[str, object], seed: int,
                 size: tuple[int, int] = (1280, 720), camera: Camera | None = None,
                 tilt_deg: float = 12.0, hands: int = 0, token_share: float = 0.3) -> Scene:
    """A photo of the table holding ``state`` (``PeepWar.state_to_dict``), from the players' side.

    Tiles get ids 0 (Neutral) and 1, 2, ... in order of position; pieces lie in
    the cells the state names. ``players_colours`` maps each player to an sRGB
    (R, G, B) colour, or a ((R, G, B) bean, (R, G, B) peep) pair. ``camera``
    replaces the default view (tilted ``tilt_deg`` from straight down); ``hands``
    reach in over random tiles; ``token_share`` of Supply Centers are flat tokens,
    the rest egg halves.
    """
    rng = np.random.default_rng(seed)
    tiles = state_tiles(rng, state)
    looks = looks_for(players_colours)
    game = Game(looks)
    for name, content in state.get("cells", {}).items():
        pieces = {}
        for player, v in content.get("pieces", {}).items():
            if player not in looks:
                raise ValueError(f"no colour given for player {player!r}")
            pieces[player] = {"troops": int(v.get("troops", 0)), "peep": bool(v.get("peep"))}
        game.cells[name] = {"supply_center": bool(content.get("supply_center")),
                            "pieces": pieces}
    outline = np.vstack([t.pose.apply(np.asarray(hexagon_mm((0, 0), R_MM))) for t in tiles])
    spec = GameSpec(size=size, hands=(hands, hands), token=token_share, kelvin=(4500.0, 5500.0),
                    gradient=(0.0, 0.1), shadows=(0, 0), blur_sigma=(0.0, 0.4),
                    noise_sigma=(0.5, 1.5), jpeg_quality=(88, 92), exposure=(0.95, 1.05))
    cam = camera or viewer_camera(outline, size, tilt_deg)
    return compose(rng, tiles, game, cam, spec, hands)


def card_pieces(looks: Mapping[str, PlayerLook], seed: int = 0
                ) -> tuple[list[Cutout], list[Cutout]]:
    """One bean and one peep of each player, drawn as the scenes draw them, for the card."""
    rng = np.random.default_rng(seed)
    ppm = 4.0
    light = np.array([0.3, -0.3, 0.9], np.float32)
    light /= np.linalg.norm(light)
    beans, peeps = [], []
    for look in looks.values():
        beans.append(_bean(look, rng, ppm, light))
        peeps.append(understudy_sprite(look.peep, rng, ppm) if look.understudy
                     else peep_sprite(look.peep, rng, ppm, light))
    return beans, peeps


# Each kind of look (player, real bean photos, printed peeps) is calibrated from its own
# card photo, numbered by its place here. A fixed number, not the order a run first meets
# the kinds in, so that a scene reads the same whichever seed a benchmark starts from.
# The order is the one seeds 0-499 meet them in, so that those figures stand.
LOOK_ORDER: tuple[tuple[str, bool, bool], ...] = (
    ("red", False, False), ("orange", False, False), ("yellow", False, False),
    ("green", True, True), ("blue", False, False), ("purple", False, False),
    ("yellow", True, True), ("green", False, False), ("yellow", True, False),
    ("purple", True, False), ("green", True, False), ("purple", True, True),
    ("yellow", False, True), ("purple", False, True), ("orange", True, False),
    ("orange", False, True), ("green", False, True), ("blue", False, True),
    ("red", False, True), ("orange", True, True))


def look_photo(name: str, look: PlayerLook) -> int:
    """The card photo a kind of look is calibrated from (see LOOK_ORDER).

    >>> grey = np.full(3, 0.5, np.float32)
    >>> look_photo("blue", PlayerLook(grey, grey, understudy=True))
    17
    >>> look_photo("cyan", PlayerLook(grey, grey)) == look_photo("cyan", PlayerLook(grey, grey))
    True
    """
    key = (name, bool(look.bean_cutouts), look.understudy)
    if key in LOOK_ORDER:
        return LOOK_ORDER.index(key)
    # A kind no scene generator makes today: a photo number of its own, stable across runs.
    return len(LOOK_ORDER) + zlib.crc32(repr(key).encode()) % 100


class LookProfiles:
    """Per-player colour models from one-slot card photos, cached by the kind of look (as a
    benchmark reuses one calibration per kind of look across its scenes)."""

    def __init__(self) -> None:
        self.cache: dict[tuple, PlayerColours] = {}

    def for_looks(self, looks: Mapping[str, PlayerLook]) -> Profile:
        colours = {}
        for name, look in looks.items():
            key = (name, bool(look.bean_cutouts), look.understudy)
            if key not in self.cache:
                self.cache[key] = self._calibrated(name, look, look_photo(name, look))
            colours[name] = self.cache[key]
        return Profile(list(looks), colours)

    @staticmethod
    def _calibrated(name: str, look: PlayerLook, seed: int) -> PlayerColours:
        """The colour model from card photo ``seed``; a photo the calibration refuses (a
        piece off its spot) is taken again, as a user would, up to RETAKES times."""
        last: CalibrationError | None = None
        for again in range(RETAKES):
            try:
                return profile_for({name: look}, seed + 1000 * again).colours[name]
            except CalibrationError as e:
                last = e
        raise CalibrationError(f"{RETAKES} card photos of {name} refused; the last: {last}")


def profile_for(looks: Mapping[str, PlayerLook], seed: int = 0, kelvin: float = 5000.0
                ) -> Profile:
    """A colour profile for these players, from a rendered photo of the loaded card.

    The card is drawn with the same kind of pieces as the scenes and calibrated
    by :func:`calibration.colour.calibrate_colours`, exactly as a real card photo is.
    """
    beans, peeps = card_pieces(looks, seed)
    photo = render_card_scene(seed, beans, peeps, kelvin)
    keys = list(looks)
    models, warnings = calibrate_colours(photo, keys)
    return Profile(keys, models, None, warnings)


def profile_for_colours(players_colours: Mapping[str, object], seed: int = 0) -> Profile:
    """The colour profile matching :func:`render_state` scenes drawn with ``players_colours``."""
    return profile_for(looks_for(players_colours), seed)


def families_colours(names: list[str]) -> dict[str, tuple]:
    """The renderer's own (bean, peep) colours for players named after colour families."""
    by_name = {f.name: f for f in FAMILIES}
    return {n: (by_name[n].bean, by_name[n].peep) for n in names}


FAMILY_NAMES = tuple(f.name for f in FAMILIES)


class DemoScene:
    """The demo's table for Peep War: photos of a state drawn with the renderer's own colours,
    and the colour profile that reads them (as a calibration card photo would give)."""

    def __init__(self, players: list[str], seed: int = 0,
                 size: tuple[int, int] = (1280, 720)) -> None:
        unknown = [p for p in players if p not in FAMILY_NAMES]
        if unknown:
            raise ValueError(f"the demo renders players named {', '.join(FAMILY_NAMES)}")
        self.colours = families_colours(list(players))
        self.profile = profile_for_colours(self.colours, seed)
        self.size = size
        self.seed = seed

    def render(self, state: Mapping, frame_no: int) -> np.ndarray:
        return render_state(state, self.colours, seed=self.seed * 100003 + frame_no,
                            size=self.size).frame


def demo_scene(players: list[str], seed: int = 0) -> DemoScene:
    """What ``companion demo`` photographs a Peep War table with (the game's bundle names it)."""
    return DemoScene(players, seed)
