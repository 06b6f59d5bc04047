"""Players' piece colours from the profile, and which player a pixel's colour is.

The profile's bean model of each player is the piece that lay on the card's bean
spot: a peg or a marble (calibration.colour). Pixels are described by the same
three features after the same white balance: on the printed board the sheet's
paper is the white; on a wooden or plastic board, which has no white, the card's
white kept in the profile (the same lamp) is used, and lightness counts for less
because the exposure may have changed since the card was photographed.

A 32-level-per-channel lookup table maps any 8-bit colour to its nearest player
(or none) for one white balance, so finding pieces in a whole frame costs one
table lookup a pixel.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.colour import features
from vision.srgb import SRGB_TO_LINEAR

# Added to every model's spread when reading: on the board the lamp, the tilt and
# the piece's turn shade it otherwise than on the card.
READ_SPREAD = np.array([0.05, 0.05, 0.07])
NO_WHITE_LIGHTNESS = 0.1  # extra lightness spread when the white comes from the card
MATCH = 4.0  # Mahalanobis distance within which a pixel is a player's colour
_Q = 32  # lookup-table levels per channel


@dataclass(frozen=True)
class PieceColours:
    players: list[str]
    means: np.ndarray  # (P, 3)
    invs: np.ndarray  # (P, 3, 3)

    def distances(self, feats: np.ndarray) -> np.ndarray:
        """(N, P) Mahalanobis distances of feature rows to each player's model."""
        out = np.empty((len(feats), len(self.players)))
        for k in range(len(self.players)):
            d = feats - self.means[k]
            out[:, k] = ((d @ self.invs[k]) * d).sum(axis=1)
        return np.sqrt(np.maximum(out, 0))

    def nearest(self, feats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Index of the nearest player (-1 when none is within MATCH) and its distance."""
        if not self.players:
            return np.full(len(feats), -1), np.full(len(feats), np.inf)
        dist = self.distances(feats)
        best = np.argmin(dist, axis=1)
        bd = dist[np.arange(len(feats)), best]
        return np.where(bd <= MATCH, best, -1), bd


def piece_colours(profile, paper_white: bool) -> PieceColours:
    """The players' models for reading; without a white in view, lightness is loosened."""
    players = list(profile.players) or list(profile.colours)
    spread = READ_SPREAD + (0 if paper_white else np.array([0, 0, NO_WHITE_LIGHTNESS]))
    means = np.array([profile.colours[p].bean.mean for p in players], float).reshape(-1, 3)
    covs = [profile.colours[p].bean.cov + np.diag(spread**2) for p in players]
    invs = np.linalg.inv(np.array(covs)).reshape(-1, 3, 3)
    return PieceColours(players, means, invs)


def pixel_features(bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """(N, 3) features of 8-bit BGR pixels (N, 3) under per-channel linear ``gains``."""
    lin = SRGB_TO_LINEAR[bgr.reshape(-1, 3)] * gains[None, :].astype(np.float32)
    return features(lin)


def colour_table(colours: PieceColours, gains: np.ndarray) -> np.ndarray:
    """(32**3,) int8: the nearest player of every quantised colour (-1: none)."""
    levels = (np.arange(_Q) * (256 // _Q) + (256 // _Q) // 2).astype(np.uint8)
    b, g, r = np.meshgrid(levels, levels, levels, indexing="ij")
    bgr = np.stack([b.ravel(), g.ravel(), r.ravel()], axis=1)
    best, _ = colours.nearest(pixel_features(bgr, gains))
    return best.astype(np.int8)


def player_map(image: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Per pixel of an 8-bit BGR image: nearest player index by ``table``, -1 for none."""
    b, g, r = cv2.split(image)
    idx = (b >> 3).astype(np.uint16) << 10
    idx |= (g >> 3).astype(np.uint16) << 5
    idx |= r >> 3
    return table[idx]
