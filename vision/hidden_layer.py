"""Small networks of one hidden layer of ReLUs, run in NumPy from a JSON file.

The weights, the hidden layer and how they are written: the models built on it (Petri's
hole model, :mod:`vision.petri.hole_model`; Peep War's doubt model,
:mod:`vision.peepwar.doubt_model`) add their own output and check their own measures.

>>> net = HiddenLayerNet(np.zeros(2), np.ones(2), np.eye(2), np.zeros(2), np.ones(2), np.zeros(()))
>>> net.hidden(np.array([[1.0, -1.0]])).tolist()
[[1.0, 0.0]]
>>> again = HiddenLayerNet(**weights_from_json(net.weights_json(), np.float64))
>>> bool((again.hidden(np.array([[3.0, 2.0]])) == net.hidden(np.array([[3.0, 2.0]]))).all())
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.errors import ModelError

WEIGHTS = ("mean", "std", "w1", "b1", "w2", "b2")


@dataclass(frozen=True, eq=False)
class HiddenLayerNet:
    """Inputs standardised by ``mean`` and ``std``, one hidden layer of ReLUs (``w1``,
    ``b1``), and the output layer's weights (``w2``, ``b2``)."""

    mean: np.ndarray
    std: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def hidden(self, x: np.ndarray) -> np.ndarray:
        """The hidden layer's answer to every row of ``x``."""
        return np.maximum(((x - self.mean) / self.std) @ self.w1 + self.b1, 0.0)

    def weights_json(self) -> dict:
        return {k: getattr(self, k).tolist() for k in WEIGHTS}


def weights_from_json(data: dict, dtype: type) -> dict[str, np.ndarray]:
    """The weights in ``data`` (as :meth:`HiddenLayerNet.weights_json` wrote them) as arrays;
    KeyError if one is missing."""
    return {k: np.asarray(data[k], dtype) for k in WEIGHTS}


def checked_weights(data: dict, dtype: type, inputs: int, outputs: tuple[int, ...],
                    what: str) -> dict[str, np.ndarray]:
    """The weights in ``data`` for a net of ``inputs`` measures and ``outputs`` (the shape
    of one row's answer: () for one number), checked: a ModelError naming ``what`` if a
    weight is missing, of another shape, not finite, or a spread is not above 0.

    >>> one = {"mean": [0], "std": [1], "w1": [[1]], "b1": [0], "w2": [1], "b2": 0}
    >>> sorted(checked_weights(one, np.float64, 1, (), "a model"))
    ['b1', 'b2', 'mean', 'std', 'w1', 'w2']
    >>> checked_weights({**one, "std": [0]}, np.float64, 1, (), "a model")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vision.errors.ModelError: a model's weights are not all finite numbers with a spread ...
    """
    try:
        arrays = weights_from_json(data, dtype)
    except (KeyError, TypeError, ValueError) as e:
        raise ModelError(f"{what}'s weights cannot be read ({e})") from None
    hidden = arrays["w1"].shape[1] if arrays["w1"].ndim == 2 else -1
    if (arrays["w1"].shape != (inputs, hidden) or arrays["b1"].shape != (hidden,)
            or arrays["w2"].shape != (hidden, *outputs) or arrays["b2"].shape != outputs
            or arrays["mean"].shape != (inputs,) or arrays["std"].shape != (inputs,)):
        raise ModelError(f"{what}'s weights do not fit its measures")
    if not all(np.isfinite(a).all() for a in arrays.values()) or (arrays["std"] <= 0).any():
        raise ModelError(f"{what}'s weights are not all finite numbers with a spread above 0 "
                         "for every measure")
    return arrays
