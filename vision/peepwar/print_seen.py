"""Whether the tiles' printed pattern still shows where its ink looks too pale: glare, not a hand.

The occlusion pass takes solid print that is no longer dark for something pale lying on
it (a pale hand under a warm lamp, see :mod:`vision.peepwar.occlusion`). A laminated tile
under a lamp or a window lifts its ink the same way, and so do blur (defocus, motion) and
a print placed a millimetre or two off, where ink and paper mix. What tells them apart is
the pattern: under glare or blur the brightness still follows the print (paper brighter
than ink, in the print's places, only with less contrast); a hand lying on the print
replaces it with its own surface, as bright where the ink is as where the paper is.

So, round every pixel, the brightness (relative to the paper nearby, the foreground left
out) is fitted to the printed art, both blurred alike: a local straight-line fit, ink
against brightness. Where the fit holds (correlated, with a clear step from paper to
ink) and the pixel itself is darker than the fitted paper by a good part of that step,
its ink is seen. Two scales: a small one for sharp frames, a larger one for blurred
frames and print placed a little off.
"""

from __future__ import annotations

import cv2
import numpy as np

# (blur sigma, fitting window) in mm: the print's squares are 4 mm and more, markers 12 mm
# and more across, so a window holds ink and paper.
SEEN_SCALES = ((2.0, 15.0), (3.5, 25.0))
SEEN_MIN_CORR = 0.5  # the brightness follows the print this closely (correlation) ...
SEEN_MIN_STEP = 0.15  # ... paper brighter than ink by this share of the paper's white ...
SEEN_DARK = 0.35  # ... and the pixel is darker than paper by this share of that step
SEEN_PIXEL_MM = 1.0  # a pixel's own brightness: smoothed this much, foreground left out
SEEN_MIN_FREE = 0.3  # the window must be this much free of foreground
SEEN_MIN_VAR = 0.02  # ... and hold this much print and paper (variance of the blurred art)


def pad_mm() -> float:
    """How far (mm) round a pixel :func:`print_seen` looks."""
    return max(win / 2 + 3 * sig for sig, win in SEEN_SCALES)


def print_seen(balanced: np.ndarray, white: np.ndarray, ink: np.ndarray, free: np.ndarray,
               px_per_mm: float) -> np.ndarray:
    """Where the print shows as print (bool, the box's shape), over a box of the mosaic:
    ``balanced`` its white-balanced BGR (uint8), ``white`` the paper's brightness nearby
    (as :class:`vision.peepwar.piece_pixels.PixelClasses` has it), ``ink`` where the
    tiles' art is printed, ``free`` the tiles' pixels that are no piece or hand.

    Printed squares under a veil of glare show; the same squares under a pale patch
    that does not follow them do not:

    >>> art = np.zeros((60, 60), bool); art[10:22, 10:22] = art[30:50, 25:40] = True
    >>> white = np.full((60, 60), 240, np.float32)
    >>> glare = np.where(art, 170, 240).astype(np.uint8)  # ink at 0.7 of the paper
    >>> seen = print_seen(np.dstack([glare] * 3), white, art, np.ones_like(art), 1.0)
    >>> bool(seen[14:18, 14:18].all()), bool(seen[36:44, 28:36].all())
    (True, True)
    >>> hand = glare.copy(); hand[28:52, 23:42] = 235  # a pale patch over the second
    >>> seen = print_seen(np.dstack([hand] * 3), white, art, np.ones_like(art), 1.0)
    >>> bool(seen[14:18, 14:18].all()), bool(seen[36:44, 28:36].any())
    (True, False)
    """
    s = px_per_mm
    w = free.astype(np.float32)
    bright = cv2.max(cv2.max(balanced[..., 0], balanced[..., 1]), balanced[..., 2])
    rel = bright.astype(np.float32) / np.maximum(white, 1.0)
    # The pixel's own brightness, its neighbours in the foreground (a finger) left out.
    near = cv2.GaussianBlur(w, (0, 0), SEEN_PIXEL_MM * s)
    own = cv2.GaussianBlur(w * rel, (0, 0), SEEN_PIXEL_MM * s) / np.maximum(near, 1e-3)
    art = ink.astype(np.float32)
    seen = np.zeros(free.shape, bool)
    for sig, win in SEEN_SCALES:
        lum = cv2.GaussianBlur(rel, (0, 0), sig * s)
        a = cv2.GaussianBlur(art, (0, 0), sig * s)
        k = (int(round(win * s)) | 1,) * 2

        def mean(v: np.ndarray, k: tuple[int, int] = k) -> np.ndarray:
            return cv2.boxFilter(w * v, -1, k, normalize=False)

        n = cv2.boxFilter(w, -1, k, normalize=False)
        inv = 1.0 / np.maximum(n, 1.0)
        m_l, m_a = mean(lum) * inv, mean(a) * inv
        cov = mean(lum * a) * inv - m_l * m_a
        var_l = mean(lum * lum) * inv - m_l * m_l
        var_a = mean(a * a) * inv - m_a * m_a
        step = -cov / np.maximum(var_a, 1e-6)  # paper minus ink, fitted
        corr = -cov / np.sqrt(np.maximum(var_l * var_a, 1e-12))
        fits = ((n >= SEEN_MIN_FREE * k[0] * k[1]) & (var_a >= SEEN_MIN_VAR)
                & (corr >= SEEN_MIN_CORR) & (step >= SEEN_MIN_STEP))
        paper = m_l + step * m_a  # the fitted brightness where nothing is printed
        seen |= fits & (own < paper - SEEN_DARK * step)
    return seen
