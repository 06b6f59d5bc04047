"""Face up or face down: how a disc's painted marks look, weighed by a small model.

The paint is on one side of the acrylic. Face up it shows as marks in white or
black paint (or frosted lines) that step sharply away from the acrylic's colour;
face down it lies under the sheet, faint and softened, or not seen at all. What
sets the two apart is not how much of the centre the marks cover (closed eyes
are two thin lines; a set's scales may cover half the centre) but how they look:

- **share**: of the centre, what steps from the acrylic by more than
  :data:`PAINT_CONTRAST` of its brightness once lightly blurred (about one
  hundredth of the radius), so that a pale, noisy sheet's grain does not count;
- **strokes**: of the centre, what lies on thin, sharp lines: the step's change
  between a fine and a coarser blur, against that change's own spread over the
  disc (grain), in patches larger than a speck;
- **contrast**: how far the strongest marks step (the blurred step's 99th
  percentile), in the acrylic's brightness.

A logistic model over their logarithms (:data:`WEIGHTS`), fitted on the
development photos of both photo generators at once, gives the log-odds of face
up. Near zero the reading is in doubt and is reported so (the reader names the
piece in a warning) rather than guessed. Every measure is a share of the disc
or of its own brightness, so the test does not depend on the photo's size.

The painted share at :data:`PAINT_CONTRAST` (:attr:`FaceMarks.painted`) also
hints at the kind of a face-up piece: closed eyes cover less than open ones.

>>> up = FaceMarks(painted=0.04, share=0.045, strokes=0.05, contrast=0.8)
>>> down = FaceMarks(painted=0.0, share=0.0, strokes=0.0, contrast=0.1)
>>> round(up.logit, 1) > 0 > round(down.logit, 1), down.evidence
(True, -1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.peltapeeps.colours import ChromaTable, chroma
from vision.srgb import SRGB_TO_LINEAR

if TYPE_CHECKING:
    from vision.peltapeeps.rims import Disc

INNER = 0.55  # the centre searched for painted marks (radii; paint stays within 0.62)
PAINT_CONTRAST = 0.30  # colour step of painted marks, against the plain acrylic's brightness
PLAIN_PERCENTILE = 70  # paint covers less of the centre than this: the rest fits the acrylic
GRID = 90  # at most this many samples across the centre (full detail for a 12 MP photo)
# Blurs and sizes in samples of a GRID-wide grid (so in shares of the radius):
BLUR = 1.0  # the step, lightly blurred: the sheet's grain averages out, strokes stay
FINE, COARSE = 0.7, 3.0  # a stroke is what the fine blur keeps and the coarse one spreads
STROKE_OVER_GRAIN = 4.0  # a stroke steps this many times the disc's median change ...
STROKE_STEP = 0.10  # ... and at least this share of the acrylic's brightness
SPECK = 10  # samples: patches smaller than this are specks (a glint, dust), not strokes
FLOOR = 0.003  # added to shares before their logarithm (none seen is not minus infinity)
# Log-odds of face up = sum of weight x log(measure) + bias, fitted (logistic regression,
# each generator's faces and backs weighed equally) on development photos of both
# generators; see docs/vision-log.md.
WEIGHTS = {"share": 1.0, "strokes": 0.9, "contrast": 1.85}
BIAS = 9.6
SURE_LOGIT = 2.0  # log-odds this far from zero: the face is sure (evidence +-1)


@dataclass(frozen=True)
class FaceMarks:
    """How a disc's marks look (see the module's doc); ``painted`` is the unblurred share."""

    painted: float
    share: float
    strokes: float
    contrast: float

    @property
    def logit(self) -> float:
        """Log-odds that the disc lies face up."""
        return (WEIGHTS["share"] * math.log(self.share + FLOOR)
                + WEIGHTS["strokes"] * math.log(self.strokes + FLOOR)
                + WEIGHTS["contrast"] * math.log(max(self.contrast, 1e-4)) + BIAS)

    @property
    def evidence(self) -> float:
        """From -1 (surely face down) to 1 (surely up)."""
        return float(np.clip(self.logit / SURE_LOGIT, -1.0, 1.0))

    @property
    def up(self) -> bool:
        return self.logit >= 0


def _blur(steps: np.ndarray, inside: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` blurred within ``inside`` only (normalised), and how much of each
    sample's neighbourhood lies inside."""
    w = cv2.GaussianBlur(inside.astype(np.float32), (0, 0), sigma)
    out = cv2.GaussianBlur(steps, (0, 0), sigma) / np.maximum(w, 1e-3)[..., None]
    return out, w


def face_marks(frame: np.ndarray, disc: Disc, gains: np.ndarray, lut: ChromaTable,
               scale: float = 1.0) -> FaceMarks:
    """How the marks in ``disc``'s centre look.

    ``frame`` is the photo (BGR) at full detail, as thin painted lines vanish when
    shrunk; ``scale`` takes work px to its px; ``gains`` are the lamp's colour and
    ``lut`` the teams' colours. Each sample's step is its colour's distance, in
    linear light, from the acrylic's colour there over the plain acrylic's
    brightness. The acrylic's colour is a smooth surface fitted across the centre
    (a quadratic, refitted without the farthest pixels), because the lamp's
    reflection brightens one side of a disc far more than the other and a single
    colour would take that slope for paint.
    """
    n = int(np.clip(2 * INNER * disc.r * scale, 9, GRID))
    off = np.linspace(-INNER, INNER, n, dtype=np.float32)
    gx, gy = np.meshgrid(off, off)
    inside = np.hypot(gx, gy) <= INNER
    u, v = gx[inside], gy[inside]
    mx, my = disc.to_image(gx.ravel(), gy.ravel())
    px = cv2.remap(frame, (mx * scale).reshape(1, -1).astype(np.float32),
                   (my * scale).reshape(1, -1).astype(np.float32), cv2.INTER_LINEAR)[0]
    lin = SRGB_TO_LINEAR[px.reshape(n, n, 3)[inside]] / gains.astype(np.float32)
    body = np.median(lin, axis=0)
    # The lamp's reflection adds the same white to paint and acrylic: measure the step
    # against the acrylic's own colour without it (its white share on the team's line).
    white = float(lut.share[lut.index(chroma(body))])
    plain = max(float(np.linalg.norm(body)) * (1 - min(white, 0.8)), 1e-3)
    terms = np.stack([np.ones_like(u), u, v, u * u, u * v, v * v], axis=1)
    fit_on = np.ones(len(lin), bool)
    for _ in range(3):
        coef, *_ = np.linalg.lstsq(terms[fit_on], lin[fit_on], rcond=None)
        residual = lin - terms @ coef
        size = np.linalg.norm(residual, axis=1)
        fit_on = size <= max(float(np.percentile(size, PLAIN_PERCENTILE)), 1e-6)
    steps = np.zeros((n, n, 3), np.float32)
    steps[inside] = residual / plain
    painted = float((size / plain > PAINT_CONTRAST).mean())

    per = n / GRID  # grid samples per sample of a full-detail grid
    smooth, w = _blur(steps, inside, BLUR * per)
    step = np.linalg.norm(smooth, axis=2)
    core = inside & (w > 0.5)
    share = float((step[core] > PAINT_CONTRAST).mean())
    contrast = float(np.percentile(step[core], 99))

    fine, _ = _blur(steps, inside, FINE * per)
    coarse, wc = _blur(steps, inside, COARSE * per)
    change = np.linalg.norm(fine - coarse, axis=2)
    core = inside & (wc > 0.6)
    grain = max(float(np.median(change[core])), 1e-4)
    marks = ((change > max(STROKE_STEP, STROKE_OVER_GRAIN * grain)) & core).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(marks, connectivity=8)
    big = np.zeros(count, bool)
    big[1:] = stats[1:, cv2.CC_STAT_AREA] >= SPECK * per * per
    strokes = float((big[labels] & core).sum() / core.sum())
    return FaceMarks(painted, share, strokes, contrast)
