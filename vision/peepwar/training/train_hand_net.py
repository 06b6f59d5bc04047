"""Train the hand net (:mod:`vision.peepwar.hand_net`) on cells of both generators.

    python -m vision.peepwar.training.hand_samples --generator 2d --seeds 300000-300499 \
        --out S/2d
    python -m vision.peepwar.training.hand_samples --generator 3d --seeds 40000-40169 \
        --looks 3 --out S/3d
    python -m vision.peepwar.training.train_hand_net --data S/2d S/3d

A cell is a hand's when the truth says a hand covers at least HAND_SURE of it, clear when
none of it; cells between, or partly outside the frame, teach nothing (the reader may call
them either). Each folder (each generator) weighs the same in every batch, however many
cells it holds, so that neither renderer's look is the net's idea of a table. Needs the
``train`` extra (torch).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from vision.peepwar import hand_net
from vision.peepwar.training.hand_samples import dequantise

FLOAT_MODEL = Path(__file__).with_name("hand_net_float.onnx")
HAND_SURE = 0.05  # as bench/vision_pieces.py: a hand over this share must be read occluded
OUTSIDE_MAX = 0.01


def load(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inputs (bytes), labels (1 hand, 0 clear) and the rules' answers of every cell in
    ``folder`` that teaches."""
    xs, ys, rules = [], [], []
    for path in sorted(folder.glob("*.npz")):
        if path.name.startswith("partial-"):
            continue
        d = np.load(path)
        cover, outside = d["cover"], d["outside"]
        keep = ((cover >= HAND_SURE) | (cover == 0)) & (outside <= OUTSIDE_MAX)
        xs.append(d["inputs"][keep])
        ys.append((cover[keep] >= HAND_SURE).astype(np.float32))
        rules.append(d["rules"][keep])
    if not xs:
        raise SystemExit(f"no samples in {folder}")
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(rules)


def build_net():
    import torch.nn as nn

    def block(a: int, b: int) -> list:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(),
                nn.MaxPool2d(2)]

    # A strided first layer: a hand is tens of millimetres, and a frame has thirty cells to
    # judge in a few milliseconds.
    return nn.Sequential(nn.Conv2d(hand_net.CHANNELS, 16, 3, stride=2, padding=1, bias=False),
                         nn.BatchNorm2d(16), nn.ReLU(), *block(16, 24), *block(24, 32),
                         nn.Conv2d(32, 48, 3, padding=1), nn.ReLU(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(48, 1))


def _augment(x, rng: np.random.Generator):
    """The same cell turned by quarter turns and mirrored: a hand has no preferred side."""
    import torch

    k = int(rng.integers(4))
    x = torch.rot90(x, k, (2, 3))
    if rng.uniform() < 0.5:
        x = torch.flip(x, (3,))
    return x


def train(sets: list[tuple[np.ndarray, np.ndarray]], epochs: int, batch: int, seed: int):
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    net = build_net()
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * max(len(y) for _, y in sets) * len(sets) // batch
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 2e-3, total_steps=steps)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    per_set = batch // len(sets)
    for step in range(steps):
        xb, yb = [], []
        for x, y in sets:
            # Half of each set's share hands, half clear cells: hands are rare in a frame.
            hands, clear = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
            pick = np.concatenate([rng.choice(hands, per_set // 2),
                                   rng.choice(clear, per_set - per_set // 2)])
            xb.append(dequantise(x[pick]))
            yb.append(y[pick])
        xt = _augment(torch.from_numpy(np.concatenate(xb)), rng)
        yt = torch.from_numpy(np.concatenate(yb))
        net.train()
        loss = loss_fn(net(xt).squeeze(1), yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if step % 200 == 0:
            print(f"step {step}/{steps}: loss {loss.item():.4f}", flush=True)
    return net.eval()


def predict(net, x: np.ndarray) -> np.ndarray:
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, len(x), 512):
            out.append(torch.sigmoid(net(torch.from_numpy(dequantise(x[i:i + 512])))).numpy())
    return np.concatenate(out).reshape(-1)


def calibration_cells(sets: list[tuple[np.ndarray, np.ndarray]], seed: int,
                      per_kind: int = 100) -> list[np.ndarray]:
    """Cells the 8-bit net's ranges are measured on: hands and clear cells of each set."""
    rng = np.random.default_rng(seed)
    out = []
    for x, y in sets:
        for kind in (1, 0):
            pick = rng.choice(np.flatnonzero(y == kind), per_kind)
            out += [dequantise(x[i:i + 1]) for i in pick]
    return out


def quantise(float_model: Path, out: Path, cells: list[np.ndarray]) -> None:
    """The float net in 8 bits, as the bean net is shipped: ONNX Runtime's static QDQ
    quantisation, about half the time on one core."""
    from vision.peepwar.training.quantise_bean_net import quantise as quantise_net

    quantise_net(float_model, out, cells, input_name="cells")


def export(net, path: Path) -> None:
    import torch

    dummy = torch.zeros(1, hand_net.CHANNELS, hand_net.SIZE, hand_net.SIZE)
    torch.onnx.export(net, dummy, str(path), input_names=["cells"], output_names=["logit"],
                      dynamic_axes={"cells": {0: "n"}, "logit": {0: "n"}}, opset_version=17,
                      dynamo=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", required=True, help="sample folders, one a generator")
    ap.add_argument("--check", nargs="*", default=[], help="folders only scored, not trained on")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--float-out", default=str(FLOAT_MODEL), help="the float net written")
    ap.add_argument("--out", default=str(hand_net.MODEL), help="the 8-bit net written")
    args = ap.parse_args(argv)
    sets = []
    for folder in args.data:
        x, y, _ = load(Path(folder))
        print(f"{folder}: {len(y)} cells, {int(y.sum())} under hands")
        sets.append((x, y))
    net = train(sets, args.epochs, args.batch, args.seed)
    export(net, Path(args.float_out))
    quantise(Path(args.float_out), Path(args.out), calibration_cells(sets, args.seed))
    print(f"written {args.float_out} and, in 8 bits, {args.out}")
    for folder in args.check:
        x, y, rules = load(Path(folder))
        p = predict(net, x)
        rule = rules >= 0.006
        print(f"{folder}: {len(y)} cells, {int(y.sum())} under hands; the rules: "
              f"{int((rule & (y == 1)).sum())} hands found, {int((rule & (y == 0)).sum())} "
              "clear cells taken for hands")
        for t in (0.3, 0.5, 0.7, 0.9):
            got = p >= t
            print(f"  net at {t}: {int((got & (y == 1)).sum())} hands found, "
                  f"{int((got & (y == 0)).sum())} clear cells taken for hands")
    return 0


if __name__ == "__main__":
    sys.exit(main())
