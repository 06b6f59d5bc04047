"""Motion blur: measured on the printed markers, estimated from the frame, undone.

A camera knocked while its shutter is open smears the whole frame along one line, and a
streak a few pixels long leaves a marker's modules grey and its square's outline soft:
the square finder sees no square and whole tiles go unread. Three steps, each a
physical model rather than a threshold on one scene:

- :func:`edge_width` — how wide the read markers' outer edges are (10-90% rise, px).
  The print is sharp, so the width is the camera's blur; a frame no marker is read in
  gives ``None``.
- :func:`motion_streaks` — the likeliest streaks (length, direction). A box blur of
  length L along theta multiplies the spectrum by sinc^2(L f.theta): a valley across the
  frequency plane at right angles to the motion, zeros 1/L apart. The frame's log power
  spectrum, averaged over windows (the blur is the same in all, the scene is not) and
  freed of its radial fall-off, is correlated with each candidate's own (so freed).
- :func:`sharpen` — Wiener deconvolution of the frame's brightness by a streak, in
  linear light, where the blur happened.

Nothing here knows what the frame shows; the caller decides whether the sharpened copy
reads better (:func:`vision.peepwar.tiles.find_tiles` keeps it only when it places more
tiles, so a wrong guess costs time, never a tile).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from vision.srgb import SRGB_TO_LINEAR, to_srgb

WINDOW = 128  # px: spectral window; zeros of a 3-8 px streak lie 16-43 bins apart
LENGTHS = np.arange(2.5, 8.01, 0.5)  # px: streak lengths tried (shorter ones read anyway)
ANGLE_STEP_DEG = 5
NOISE_TO_SIGNAL = 0.005  # Wiener's regulariser, in linear light's power
_BAND = (0.04, 0.45)  # cycles/px: below, the scene's layout; above, JPEG and noise
_FLOOR = 0.01  # a template's zeros held off -inf: noise fills a spectrum's zeros
_LIN_LUT = SRGB_TO_LINEAR.reshape(1, 256)


@dataclass(frozen=True)
class Streak:
    """A motion blur hypothesis: a box of ``length`` px along ``angle_deg`` (image x axis,
    towards +y), and how well the frame's spectrum matches it (correlation, -1..1)."""

    length: float
    angle_deg: float
    score: float


def edge_width(gray: np.ndarray, corners: np.ndarray, most: int = 12) -> float | None:
    """The widest median 10-90% edge rise (px) over four directions of edge, on the
    outer edges of up to ``most`` read markers (``corners`` N x 4 x 2, frame pixels) in
    ``gray`` (8-bit grey, or BGR(A): then made grey at the samples only),
    or ``None`` with too few edges measured. A sharp camera gives about 2 px; a streak
    widens the edges across it by about its length, and leaves those along it alone."""
    quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
    if len(quads) > most:  # the largest show their edges over most pixels
        side = np.linalg.norm(quads[:, 1] - quads[:, 0], axis=1)
        quads = quads[np.argsort(-side)[:most]]
    a = quads.reshape(-1, 2)
    b = np.roll(quads, -1, axis=1).reshape(-1, 2)
    side = np.linalg.norm(b - a, axis=1)
    keep = side >= 8
    if keep.sum() < 3:
        return None
    a, b, side = a[keep], b[keep], side[keep]
    centres = np.repeat(quads.mean(axis=1), 4, axis=0)[keep]
    t = (b - a) / side[:, None]
    n = np.stack([t[:, 1], -t[:, 0]], axis=1)
    outward = np.sign(np.einsum("ij,ij->i", (a + b) / 2 - centres, n))
    n *= np.where(outward == 0, 1.0, outward)[:, None]  # black border inside, paper out
    # Three profiles across each edge, out to a fifth of its side (6 px at least), every
    # half pixel, sampled in one remap: rows are profiles.
    reach = np.maximum(6.0, side / 5)
    steps = np.arange(-1.0, 1.0001, 1 / 24)  # in units of reach: 49 samples a profile
    at = np.array([0.3, 0.5, 0.7])
    base = a[:, None, :] + (b - a)[:, None, :] * at[None, :, None]  # edges x 3 x 2
    offs = (reach[:, None] * steps[None, :])[:, None, :, None] * n[:, None, None, :]
    pts = (base[:, :, None, :] + offs).reshape(-1, len(steps), 2).astype(np.float32)
    prof = cv2.remap(gray, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    if prof.ndim == 3:  # a colour frame: its brightness at the samples only
        prof = prof[..., :3] @ np.array([0.114, 0.587, 0.299], np.float32)
    third = len(steps) // 3
    lo = np.median(prof[:, :third], axis=1)
    hi = np.median(prof[:, -third:], axis=1)
    clear = hi - lo >= 25  # a clear edge: no piece against the marker, no glare
    z = (prof - lo[:, None]) / np.maximum(hi - lo, 1)[:, None]
    mid = len(steps) // 2
    # The 10% and 90% crossings nearest the edge's middle, walking out from it.
    below = z[:, :mid + 1] <= 0.1
    i10 = np.where(below.any(axis=1), mid - np.argmax(below[:, ::-1], axis=1), 0)
    above = z[:, mid:] >= 0.9
    i90 = np.where(above.any(axis=1), mid + np.argmax(above, axis=1), len(steps) - 1)
    rise = (i90 - i10) * (np.repeat(reach, 3) / 24)  # px
    rise = np.where(clear, rise, np.nan).reshape(-1, 3)
    clear = clear.reshape(-1, 3)
    measured = clear.any(axis=1)
    if measured.sum() < 3:
        return None
    # Each edge's median over its clear profiles (NaNs sort last: the middle of those).
    ordered = np.sort(rise[measured], axis=1)
    count = clear[measured].sum(axis=1)
    rows = np.arange(len(count))
    widths = (ordered[rows, (count - 1) // 2] + ordered[rows, count // 2]) / 2
    angles = np.arctan2(n[measured, 1], n[measured, 0]) % math.pi
    bins = (angles / (math.pi / 4)).astype(int) % 4
    medians = [float(np.median(widths[bins == k])) for k in range(4) if (bins == k).sum() >= 2]
    return max(medians) if medians else float(np.median(widths))


@cache
def _frequencies() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(fx, fy, ring index, band mask) of a WINDOW x WINDOW real FFT."""
    fy = np.fft.fftfreq(WINDOW)[:, None]
    fx = np.fft.rfftfreq(WINDOW)[None, :]
    fr = np.hypot(fx, fy)
    band = (fr > _BAND[0]) & (fr < _BAND[1])
    # JPEG's 8 x 8 blocks put peaks at multiples of 1/8 on the axes: leave them out.
    tol = 1.5 / WINDOW
    for k in range(1, 5):
        band &= ~((np.abs(np.abs(fx) - k / 8) < tol) & (np.abs(fy) < tol))
        band &= ~((np.abs(np.abs(fy) - k / 8) < tol) & (np.abs(fx) < tol))
    ring = np.minimum((fr * WINDOW).astype(int), WINDOW // 2)
    return np.broadcast_to(fx, fr.shape), np.broadcast_to(fy, fr.shape), ring, band


def _without_rings(log_power: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """``log_power`` less its mean over each ring of equal frequency (the scene's fall-off)."""
    counts = np.maximum(np.bincount(ring.ravel()), 1)
    means = np.bincount(ring.ravel(), log_power.ravel()) / counts
    return log_power - means[ring]


@cache
def _templates() -> tuple[np.ndarray, list[tuple[float, float]]]:
    """Each candidate streak's ring-free log spectrum over the band, centred and of unit
    length (rows), and the candidates (length px, angle deg)."""
    fx, fy, ring, band = _frequencies()
    rows, cands = [], []
    for length in LENGTHS:
        for deg in range(0, 180, ANGLE_STEP_DEG):
            th = math.radians(deg)
            u = fx * math.cos(th) + fy * math.sin(th)
            t = _without_rings(np.log(np.sinc(length * u) ** 2 + _FLOOR), ring)[band]
            t = t - t.mean()
            rows.append(t / np.linalg.norm(t))
            cands.append((float(length), float(deg)))
    return np.asarray(rows, np.float32), cands


def prepare() -> None:
    """Build the streak templates (about 0.1 s), as a service does once at start."""
    _templates()


def motion_streaks(gray: np.ndarray, n: int = 2, apart_deg: float = 20.0) -> list[Streak]:
    """The ``n`` likeliest streaks of ``gray`` (8-bit; a BGR frame is made grey), best
    first, at least ``apart_deg`` apart in direction (the runner-up direction is a second
    guess, not a longer streak)."""
    if gray.ndim == 3:
        gray = cv2.cvtColor(gray, cv2.COLOR_BGRA2GRAY if gray.shape[2] == 4 else
                            cv2.COLOR_BGR2GRAY)
    lin = cv2.LUT(gray, _LIN_LUT)
    h, w = lin.shape
    if h < WINDOW or w < WINDOW:
        return []
    # Windows side by side (the blur is everywhere; overlap would buy little), each with its
    # mean removed and a Hann taper so that its own borders make no streak.
    nh, nw = h // WINDOW, w // WINDOW
    y0, x0 = (h - nh * WINDOW) // 2, (w - nw * WINDOW) // 2
    taper = _taper()
    half = WINDOW // 2 + 1  # the real FFT's columns
    power = np.zeros((WINDOW, half), np.float32)
    for i in range(nh):
        for j in range(nw):
            win = lin[y0 + i * WINDOW:y0 + (i + 1) * WINDOW, x0 + j * WINDOW:x0 + (j + 1) * WINDOW]
            f = cv2.dft((win - float(win.mean())) * taper, flags=cv2.DFT_COMPLEX_OUTPUT)
            power += cv2.magnitude(f[:, :half, 0], f[:, :half, 1]) ** 2
    power /= nh * nw
    _, _, ring, band = _frequencies()
    spectrum = _without_rings(np.log(power + 1e-12), ring)[band]
    spectrum = spectrum - spectrum.mean()
    norm = float(np.linalg.norm(spectrum))
    if norm == 0:
        return []
    rows, cands = _templates()
    scores = rows @ (spectrum / norm).astype(np.float32)
    out: list[Streak] = []
    for i in np.argsort(-scores):
        length, deg = cands[i]
        if all(min(abs(deg - s.angle_deg), 180 - abs(deg - s.angle_deg)) >= apart_deg
               for s in out):
            out.append(Streak(length, deg, float(scores[i])))
            if len(out) == n:
                break
    return out


@cache
def _taper() -> np.ndarray:
    return np.outer(np.hanning(WINDOW), np.hanning(WINDOW)).astype(np.float32)


def streak_kernel(length: float, angle_deg: float) -> np.ndarray:
    """A box of ``length`` px along ``angle_deg``, summing to 1 (bilinear splats of points
    8 to the pixel, so a fractional length or a slanted streak keeps its exact extent)."""
    half = length / 2
    size = int(math.ceil(half)) * 2 + 3
    c = size // 2
    th = math.radians(angle_deg)
    s = np.linspace(-half, half, max(int(length * 8), 2))
    xs, ys = c + s * math.cos(th), c + s * math.sin(th)
    k = np.zeros((size, size), np.float64)
    x0, y0 = np.floor(xs).astype(int), np.floor(ys).astype(int)
    fx, fy = xs - x0, ys - y0
    np.add.at(k, (y0, x0), (1 - fx) * (1 - fy))
    np.add.at(k, (y0, x0 + 1), fx * (1 - fy))
    np.add.at(k, (y0 + 1, x0), (1 - fx) * fy)
    np.add.at(k, (y0 + 1, x0 + 1), fx * fy)
    return (k / k.sum()).astype(np.float32)


def sharpen(gray: np.ndarray, streak: Streak, nsr: float = NOISE_TO_SIGNAL) -> np.ndarray:
    """``gray`` (8-bit sRGB) with ``streak`` undone by a Wiener filter in linear light.

    The frame is padded by reflection (its borders would otherwise ring) to a size the
    FFT likes, filtered through OpenCV's packed real spectra, and cropped back."""
    lin = cv2.LUT(gray, _LIN_LUT)
    h, w = lin.shape
    pad = KERNEL_REACH // 4
    ph = cv2.getOptimalDFTSize(h + 2 * pad)
    pw = cv2.getOptimalDFTSize(w + 2 * pad)
    padded = cv2.copyMakeBorder(lin, pad, ph - h - pad, pad, pw - w - pad, cv2.BORDER_REFLECT)
    # The filter's own kernel, from a KERNEL_REACH-periodic solution (its tails die well
    # inside), wrapped round pixel (0, 0) of a frame-sized plane.
    kernel = _wiener_kernel(streak.length, streak.angle_deg, nsr)
    r = KERNEL_REACH // 2
    plane = np.zeros((ph, pw), np.float32)
    if ph >= 2 * r and pw >= 2 * r:
        plane[:r, :r] = kernel[:r, :r]
        plane[:r, -r:] = kernel[:r, -r:]
        plane[-r:, :r] = kernel[-r:, :r]
        plane[-r:, -r:] = kernel[-r:, -r:]
    else:  # a plane smaller than the kernel: its tails wrap round and add up
        wrap = np.arange(-r, r)
        np.add.at(plane, ((wrap % ph)[:, None], (wrap % pw)[None, :]),
                  np.roll(kernel, (r, r), axis=(0, 1)))
    out = cv2.idft(cv2.mulSpectrums(cv2.dft(padded), cv2.dft(plane), 0),
                   flags=cv2.DFT_REAL_OUTPUT | cv2.DFT_SCALE)
    return to_srgb(out[pad:pad + h, pad:pad + w])


KERNEL_REACH = 256  # px: the Wiener kernel's period (its tails along the streak are long)


@cache
def _wiener_kernel(length: float, angle_deg: float, nsr: float) -> np.ndarray:
    """The spatial kernel (KERNEL_REACH square, centred on pixel (0, 0), wrapped) of
    conj(K) / (|K|^2 + nsr) for the streak's transfer function K."""
    k = streak_kernel(length, angle_deg)
    n = KERNEL_REACH
    psf = np.zeros((n, n))
    kh, kw = k.shape
    psf[:kh, :kw] = k
    psf = np.roll(psf, (-(kh // 2), -(kw // 2)), axis=(0, 1))
    kf = np.fft.rfft2(psf)
    return np.fft.irfft2(np.conj(kf) / (np.abs(kf) ** 2 + nsr), s=(n, n)).astype(np.float32)
