"""The bean net in 8-bit integers: what the product ships as ``vision/peepwar/bean_net.onnx``.

    python -m vision.peepwar.training.quantise_bean_net --data DATA \
        --out vision/peepwar/bean_net.onnx

ONNX Runtime's static quantisation (weights per output channel as int8,
activations as uint8, each tensor's range measured on calibration inputs, in
QDQ form) runs the net in about half the time the float net takes on one core
(34 against 65 ns per input pixel here), where the CPU has 8-bit dot products
(AVX-512 VNNI, AVX-VNNI, or an ARM core's dot-product instructions). Its heat
differs from the float net's by under 0.05 (``tests/vision/test_bean_training.py``;
``bench/vision_pieces.py`` shows what that changes).

The calibration inputs are windows of training samples
(:mod:`vision.peepwar.training.bean_samples`, seeds the benchmark never reads) round
true beans, as the reader's boxes are round regions of pieces. The float net
(``FLOAT_MODEL``, written by :mod:`vision.peepwar.training.train_bean_net`) is kept in
the repository so that the shipped net can be made again without training.

Needs onnx, which ONNX Runtime's quantiser uses (in the ``train`` and ``test`` extras).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from vision.peepwar import bean_net
from vision.peepwar.training.bean_samples import dequantise

FLOAT_MODEL = Path(__file__).with_name("bean_net_float.onnx")
WINDOW = 128  # calibration windows, input pixels (a bean is 20 x 13)
PER_SCENE = 3
SCENES = 120  # samples calibrated on


def calibration_windows(files: list[Path], per_scene: int = PER_SCENE, seed: int = 0
                        ) -> list[np.ndarray]:
    """Net inputs (1 x CHANNELS x WINDOW x WINDOW) cut from samples ``files``, centred on
    true beans at random (anywhere on the mosaic when a scene has none)."""
    rng = np.random.default_rng(seed)
    out = []
    for f in files:
        with np.load(f) as d:
            inputs, centres = d["inputs"], d["centres"]
        _, h, w = inputs.shape
        if h < WINDOW or w < WINDOW:
            continue
        for _ in range(per_scene):
            if len(centres):
                cx, cy = centres[rng.integers(len(centres))]
            else:
                cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            x0 = int(np.clip(round(cx) - WINDOW // 2, 0, w - WINDOW))
            y0 = int(np.clip(round(cy) - WINDOW // 2, 0, h - WINDOW))
            out.append(dequantise(inputs[None, :, y0:y0 + WINDOW, x0:x0 + WINDOW]))
    return out


def quantise(float_model: Path, out: Path, windows: list[np.ndarray],
             input_name: str = "planes") -> None:
    """Write ``float_model`` quantised to 8 bits to ``out``, calibrated on ``windows`` (fed
    as ``input_name``)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    if not windows:
        raise ValueError("no calibration windows: make samples with "
                         "python -m vision.peepwar.training.bean_samples")

    class Windows(CalibrationDataReader):
        def __init__(self) -> None:
            self.left = iter(windows)

        def get_next(self) -> dict | None:
            x = next(self.left, None)
            return None if x is None else {input_name: x}

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        # The net is convolutions only: ONNX's own shape inference does (no sympy needed).
        quant_pre_process(str(float_model), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(out), Windows(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="training samples (scene<seed>.npz)")
    ap.add_argument("--model", default=str(FLOAT_MODEL), help="the float net")
    ap.add_argument("--out", default=str(bean_net.MODEL), help="the 8-bit net written")
    ap.add_argument("--scenes", type=int, default=SCENES, help="samples calibrated on")
    args = ap.parse_args(argv)
    files = sorted(Path(args.data).glob("scene*.npz"))[:args.scenes]
    if not files:
        ap.error(f"no samples in {args.data}: make them with python -m "
                 f"vision.peepwar.training.bean_samples --out {args.data}")
    try:
        import onnx  # noqa: F401  (the quantiser's own dependency)
    except ImportError:
        ap.error("quantising needs onnx: pip install -e '.[train]'")
    quantise(Path(args.model), Path(args.out), calibration_windows(files))
    print(f"wrote {args.out} (calibrated on {len(files)} scenes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
