"""Train the bean net on samples from :mod:`vision.peepwar.training.bean_samples` and export it.

    python -m vision.peepwar.training.bean_samples --scenes 4000 --out DATA
    python -m vision.peepwar.training.train_bean_net --data DATA

Needs the ``train`` extra (torch, onnx); the product only runs the exported
ONNX file, through ONNX Runtime: the float net is written to
``vision/peepwar/training/bean_net_float.onnx``, then quantised to 8 bits
(:mod:`vision.peepwar.training.quantise_bean_net`) into ``vision/peepwar/bean_net.onnx``.

The net is fully convolutional: four 3x3 convolutions at strides 2 and 4,
then three more, two dilated, for a view about a peep and a half wide
(75 mm), and a 1x1 head giving heat logits and x, y offsets every
``STRIDE`` pixels (CenterNet's penalty-reduced focal loss on a Gaussian round
each true centre, L1 on the offsets at the centres). Windows of 96 x 96 input
pixels are cut round true beans and pieces (and anywhere on the tiles, a few),
turned and mirrored at random; half are blanked beyond a random box, as the reader
crops its input round each region of pieces. The last ``--val`` scenes (by seed) are held out
and scored each epoch: beans found within 4 mm of a true centre, and the mean heat of the
peaks found on them (how sure the net is: the reader flags a bean under 0.7 as doubtful).

Fine-tuning a shipped net on both generators (``--init`` with ``--data3d``), ``--distil``
keeps it to its teacher (the ``--init`` net) on the 2D windows: their loss also counts how far
the heat strays from the teacher's (binary cross-entropy less the teacher's own entropy),
so what is learnt from the path-traced frames does not cool the peaks on the 2D tables the
teacher already reads well.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from vision.peepwar import bean_net
from vision.peepwar.training.bean_samples import REL_SCALE, dequantise
from vision.peepwar.training.quantise_bean_net import (
    FLOAT_MODEL,
    SCENES,
    calibration_windows,
    quantise,
)

WINDOW = 96
BOXED = 0.5  # of windows blanked beyond a box, as the reader crops them (see _boxed)
CONTEXT_PX = 8  # ... whose beans this near the box's edge are not scored
CUT = WINDOW + 16  # windows are cut this big, then cropped at random
SIGMA_OUT = 1.0  # the Gaussian round a centre, in output pixels (4 mm)
MATCH_MM = 4.0
PAPER = round(REL_SCALE)  # relative brightness 0, quantised


def build_model(batch_norm: bool = True):
    """The net, as a torch module (imported here so the rest needs no torch); without
    ``batch_norm``, each convolution has its own bias instead, as in the exported net
    (whose batch norms are folded into the convolutions), so that a shipped float net
    can be read back and trained further (:func:`load_onnx`)."""
    import torch.nn as nn

    def block(i: int, o: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
        conv = nn.Conv2d(i, o, 3, stride, padding=dilation, dilation=dilation,
                         bias=not batch_norm)
        if batch_norm:
            return nn.Sequential(conv, nn.BatchNorm2d(o), nn.ReLU(inplace=True))
        return nn.Sequential(conv, nn.ReLU(inplace=True))

    c = bean_net.CHANNELS
    # Narrower nets (16-24 channels, six layers) were 6-11 ms a 1280x720 frame faster under
    # OpenCV's dnn (this net takes 5.5 ms under ONNX Runtime), but their bean counts are
    # off 15-45% more often on the benchmark.
    return nn.Sequential(block(c, 16, 2), block(16, 16), block(16, 32, 2), block(32, 32),
                         block(32, 32, dilation=2), block(32, 32, dilation=4),
                         block(32, 32), nn.Conv2d(32, 3, 1))


def load_onnx(path: Path):
    """The float net exported to ``path`` as a torch module without batch norms (see
    :func:`build_model`), its weights those of the file's convolutions in order."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]
    model = build_model(batch_norm=False)
    mine = [m for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    if len(mine) != len(convs):
        raise ValueError(f"{path} has {len(convs)} convolutions, the net {len(mine)}")
    with torch.no_grad():
        for m, n in zip(mine, convs, strict=True):
            w, b = weights[n.input[1]], weights[n.input[2]]
            if tuple(w.shape) != tuple(m.weight.shape):
                raise ValueError(f"{path}: a convolution of {w.shape}, the net's "
                                 f"{tuple(m.weight.shape)}")
            m.weight.copy_(torch.from_numpy(w.copy()))
            m.bias.copy_(torch.from_numpy(b.copy()))
    return model


def sample_files(folder: Path) -> dict[int, list[Path]]:
    """Samples in ``folder`` by seed: ``scene<seed>.npz`` (2D) or ``scene<seed>_<k>.npz``
    (3D, one a look of the frame; see ``bean_samples3d``)."""
    out: dict[int, list[Path]] = {}
    for f in sorted(folder.glob("scene*.npz")):
        seed, _, look = f.stem[5:].partition("_")
        if seed.isdigit() and (not look or look.isdigit()):
            out.setdefault(int(seed), []).append(f)
    return dict(sorted(out.items()))


def split(folder: Path, val: int) -> tuple[list[Path], list[Path]]:
    """Training and held-out samples of ``folder``: the last ``val`` seeds held out (of a
    3D frame, only the look as rendered)."""
    by_seed = sample_files(folder)
    seeds = list(by_seed)
    train = [f for s in seeds[:len(seeds) - val] for f in by_seed[s]]
    held = [by_seed[s][0] for s in seeds[len(seeds) - val:]]
    return train, held


def _windows(sample: dict, rng: np.random.Generator, n: int) -> list[tuple[np.ndarray, ...]]:
    """``n`` windows (inputs, ignore, centres inside) of CUT pixels cut from one scene."""
    q, centres, ignore = sample["inputs"], sample["centres"], sample["ignore"]
    _, H, W = q.shape
    pieces = np.flatnonzero((q[3] > 127) | (q[4] > 127))
    on = np.flatnonzero(q[5] < 127)
    picks = []
    for k in range(n):
        if k < n * 2 // 3 and len(centres):
            cx, cy = centres[rng.integers(len(centres))] + rng.normal(0, 12, 2)
        elif k < n - 1 and len(pieces):
            cy, cx = divmod(int(pieces[rng.integers(len(pieces))]), W)
        elif len(on):
            cy, cx = divmod(int(on[rng.integers(len(on))]), W)
        else:
            cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        picks.append((int(cx) - CUT // 2, int(cy) - CUT // 2))
    out = []
    for x0, y0 in picks:
        win = np.zeros((q.shape[0], CUT, CUT), np.uint8)
        win[:3] = PAPER  # bare paper: relative brightness 0
        ign = np.zeros((CUT, CUT), np.uint8)
        sx0, sy0, sx1, sy1 = max(x0, 0), max(y0, 0), min(x0 + CUT, W), min(y0 + CUT, H)
        if sx1 > sx0 and sy1 > sy0:
            win[:, sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = q[:, sy0:sy1, sx0:sx1]
            ign[sy0 - y0:sy1 - y0, sx0 - x0:sx1 - x0] = ignore[sy0:sy1, sx0:sx1]
        inside = (centres[:, 0] >= x0 - 8) & (centres[:, 0] < x0 + CUT + 8) \
            & (centres[:, 1] >= y0 - 8) & (centres[:, 1] < y0 + CUT + 8)
        out.append((win, ign, (centres[inside] - (x0, y0)).astype(np.float32)))
    return out


def load_windows(files: list[Path], per_scene: int, seed: int):
    rng = np.random.default_rng(seed)
    wins, igns, cents = [], [], []
    for f in files:
        with np.load(f) as d:
            for win, ign, c in _windows(dict(d), rng, per_scene):
                wins.append(win)
                igns.append(ign)
                cents.append(c)
    return np.stack(wins), np.stack(igns), cents


def _targets(centres: list[np.ndarray], size: int):
    """Heat (Gaussian peaks), offsets and the offsets' mask, at output resolution."""
    s = bean_net.STRIDE
    h = size // s
    half = (s - 1) / 2
    heat = np.zeros((len(centres), h, h), np.float32)
    off = np.zeros((len(centres), 2, h, h), np.float32)
    at = np.zeros((len(centres), h, h), np.float32)
    yy, xx = np.mgrid[0:h, 0:h].astype(np.float32)
    for i, c in enumerate(centres):
        for cx, cy in c:
            ox, oy = (cx - half) / s, (cy - half) / s  # output coordinates of the centre
            g = np.exp(-((xx - ox) ** 2 + (yy - oy) ** 2) / (2 * SIGMA_OUT**2))
            np.maximum(heat[i], g, out=heat[i])
            ix, iy = int(round(ox)), int(round(oy))
            if 0 <= ix < h and 0 <= iy < h:
                heat[i, iy, ix] = 1.0
                off[i, 0, iy, ix] = ox - ix
                off[i, 1, iy, ix] = oy - iy
                at[i, iy, ix] = 1.0
    return heat, off, at


def _augment(win: np.ndarray, ign: np.ndarray, cent: list[np.ndarray],
             rng: np.random.Generator):
    """Random crops to WINDOW, quarter turns and mirrors (the table has no up)."""
    n = len(win)
    out_c = []
    iw = np.empty((n, win.shape[1], WINDOW, WINDOW), np.uint8)
    ii = np.empty((n, WINDOW, WINDOW), np.uint8)
    for i in range(n):
        dx, dy = rng.integers(0, CUT - WINDOW + 1, 2)
        w = win[i, :, dy:dy + WINDOW, dx:dx + WINDOW]
        g = ign[i, dy:dy + WINDOW, dx:dx + WINDOW]
        c = cent[i] - (dx, dy)
        k = int(rng.integers(4))
        for _ in range(k):  # a quarter turn: (x, y) -> (y, WINDOW - 1 - x)
            w = np.rot90(w, 1, axes=(1, 2))
            g = np.rot90(g, 1)
            c = np.stack([c[:, 1], WINDOW - 1 - c[:, 0]], axis=1) if len(c) else c
        if rng.uniform() < 0.5:
            w = w[:, :, ::-1]
            g = g[:, ::-1]
            c = np.stack([WINDOW - 1 - c[:, 0], c[:, 1]], axis=1) if len(c) else c
        if rng.uniform() < BOXED:
            w, g = _boxed(w, g, rng)
        iw[i], ii[i] = w, g
        keep = (c[:, 0] > -6) & (c[:, 0] < WINDOW + 6) & (c[:, 1] > -6) & (c[:, 1] < WINDOW + 6) \
            if len(c) else np.zeros(0, bool)
        out_c.append(c[keep])
    return iw, ii, out_c


def _boxed(w: np.ndarray, g: np.ndarray, rng: np.random.Generator
           ) -> tuple[np.ndarray, np.ndarray]:
    """The window as the reader shows it to the net: a box round a region of pieces, bare
    paper beyond; no loss where the box gives less than CONTEXT_PX of context (the reader
    takes no bean there from this box)."""
    bw, bh = rng.integers(40, WINDOW + 1, 2)
    x0, y0 = rng.integers(0, WINDOW - bw + 1), rng.integers(0, WINDOW - bh + 1)
    w = w.copy()
    g = g.copy()
    inside = np.zeros((WINDOW, WINDOW), bool)
    inside[y0:y0 + bh, x0:x0 + bw] = True
    w[:3, ~inside] = PAPER
    w[3:, ~inside] = 0
    c = CONTEXT_PX
    sure = np.zeros_like(inside)
    sure[y0 + c:y0 + bh - c, x0 + c:x0 + bw - c] = True
    g[~sure] = 1
    return w, g


def _loss(torch, out, heat, off, at, keep):
    """CenterNet's focal loss on the heat and L1 on the offsets at the centres."""
    p = torch.sigmoid(out[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos = (heat >= 1.0).float() * keep
    neg = (1 - (heat >= 1.0).float()) * keep
    pos_loss = -(torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = -(torch.log(1 - p) * p**2 * (1 - heat) ** 4 * neg).sum()
    n = pos.sum().clamp(min=1.0)  # centres scored (the offsets too: not where ignored)
    off_loss = (torch.abs(out[:, 1:] - off) * (at * keep)[:, None]).sum() / n
    return (pos_loss + neg_loss) / n + off_loss


def _distil_loss(torch, out, teacher_heat, weight, peak_weight: float = 0.0):
    """How far the heat logits ``out[:, 0]`` stray from the teacher's heat (probabilities),
    per window weighted by ``weight`` (1 for a 2D window, 0 otherwise): cross-entropy less
    the teacher's own entropy, summed (0 where the two agree). Where the teacher's heat is
    over DOUBT_LOW (its peaks, a cool greyish bean's among them: few pixels among many of
    bare table) each pixel counts ``1 + peak_weight`` times."""
    q = teacher_heat.clamp(1e-4, 1 - 1e-4)
    logp = torch.nn.functional.logsigmoid(out[:, 0])
    log1p = torch.nn.functional.logsigmoid(-out[:, 0])
    kl = q * (torch.log(q) - logp) + (1 - q) * (torch.log(1 - q) - log1p)
    if peak_weight:
        kl = kl * (1.0 + peak_weight * (teacher_heat > bean_net.DOUBT_LOW).float())
    return (kl * weight[:, None, None]).sum()


def evaluate(model, files: list[Path]) -> tuple[float, float, dict[float, tuple[int, int, int]]]:
    """Whole held-out scenes through the net: recall and precision at bean_net.THRESHOLD,
    (found, missed, extra) at several thresholds, and under the key ``"heat"`` the mean
    heat of the peaks over the threshold that match a true bean."""
    import torch

    model.eval()
    tallies = {t: [0, 0, 0] for t in (0.3, 0.4, 0.5, 0.6)}
    heats: list[float] = []
    with torch.no_grad():
        for f in files:
            with np.load(f) as d:
                x = dequantise(d["inputs"])
                centres, ignore = d["centres"], d["ignore"]
            out = model(torch.from_numpy(x[None])).numpy()[0]
            found = bean_net.peaks(out, 0.29)
            truth = [c for c in centres if not _at(ignore, c[0], c[1])]
            for t, tally in tallies.items():
                got = [p for p in found if p.heat > t and not _at(ignore, p.x, p.y)]
                used = np.zeros(len(got), bool)
                for c in truth:
                    best, bi = MATCH_MM, -1
                    for j, p in enumerate(got):
                        d2 = float(np.hypot(p.x - c[0], p.y - c[1]))
                        if not used[j] and d2 < best:
                            best, bi = d2, j
                    if bi >= 0:
                        used[bi] = True
                        tally[0] += 1
                        if t == bean_net.THRESHOLD:
                            heats.append(got[bi].heat)
                    else:
                        tally[1] += 1
                tally[2] += int((~used).sum())
    model.train()
    f, m, e = tallies[bean_net.THRESHOLD]
    out = {k: tuple(v) for k, v in tallies.items()}
    out["heat"] = round(float(np.mean(heats)), 4) if heats else 0.0
    return f / max(f + m, 1), f / max(f + e, 1), out


def _at(mask: np.ndarray, x: float, y: float) -> bool:
    """``mask`` at the point (x, y), clamped to its edges."""
    return bool(mask[min(max(int(y), 0), mask.shape[0] - 1),
                     min(max(int(x), 0), mask.shape[1] - 1)])


def export(model, path: Path) -> None:
    import torch

    model.eval()
    dummy = torch.zeros(1, bean_net.CHANNELS, WINDOW, WINDOW)
    torch.onnx.export(model, dummy, str(path), input_names=["planes"], output_names=["heat"],
                      dynamic_axes={"planes": {0: "n", 2: "h", 3: "w"},
                                    "heat": {0: "n", 2: "oh", 3: "ow"}},
                      opset_version=13, dynamo=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", default=str(FLOAT_MODEL),
                    help="the float net, written when training ends")
    ap.add_argument("--quantised-out", default=str(bean_net.MODEL),
                    help="the 8-bit net made from it, which the reader runs")
    ap.add_argument("--val", type=int, default=150, help="scenes held out (the last seeds)")
    ap.add_argument("--per-scene", type=int, default=12, help="windows cut from each scene")
    ap.add_argument("--data3d", help="samples of path-traced frames (bean_samples3d), mixed in")
    ap.add_argument("--val3d", type=int, default=4, help="3D frames held out (the last seeds)")
    ap.add_argument("--per-scene3d", type=int, default=24,
                    help="windows cut from each 3D sample (each frame gives several looks)")
    ap.add_argument("--init", help="a float net (.onnx) to start from instead of at random; "
                                   "trained on without batch norms")
    ap.add_argument("--distil", type=float, default=0.0,
                    help="with --init: weight of the 2D windows' distance to the --init net's "
                         "heat (0: none)")
    ap.add_argument("--distil-peaks", type=float, default=0.0,
                    help="extra weight of the distance where the teacher's heat is over "
                         "bean_net.DOUBT_LOW (its peaks)")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    files = [f for fs in sample_files(Path(args.data)).values() for f in fs]
    if not 0 < args.val < len(files):
        ap.error(f"{args.data} holds {len(files)} samples (scene<seed>.npz): --val must be "
                 f"between 1 and one fewer; make samples with python -m "
                 f"vision.peepwar.training.bean_samples --out {args.data}")
    try:
        import torch
    except ImportError:
        ap.error("training needs torch and onnx: pip install -e '.[train]'")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train_files, val_files = files[:-args.val], files[-args.val:]
    t0 = time.time()
    win, ign, cent = load_windows(train_files, args.per_scene, args.seed)
    print(f"{len(win)} windows from {len(train_files)} scenes in {time.time() - t0:.0f} s; "
          f"{len(val_files)} scenes held out", flush=True)
    is2d = np.ones(len(win), np.float32)
    train3d, val3d = split(Path(args.data3d), args.val3d) if args.data3d else ([], [])
    if train3d:
        w3, i3, c3 = load_windows(train3d, args.per_scene3d, args.seed + 2)
        print(f"{len(w3)} windows from {len(train3d)} 3D samples; {len(val3d)} 3D frames "
              f"held out", flush=True)
        win, ign, cent = np.concatenate([win, w3]), np.concatenate([ign, i3]), cent + c3
        is2d = np.concatenate([is2d, np.zeros(len(w3), np.float32)])
    if args.distil and not args.init:
        ap.error("--distil needs --init (the net distilled from)")
    model = load_onnx(Path(args.init)) if args.init else build_model()
    teacher = None
    if args.distil:
        teacher = load_onnx(Path(args.init)).eval()
        for p in teacher.parameters():
            p.requires_grad_(False)
    if args.init:
        for name, held in (("2D", val_files), ("3D", val3d)):
            if held:
                recall, precision, tallies = evaluate(model, held)
                print(f"before: {name} held out recall {recall:.4f} precision {precision:.4f} "
                      f"{tallies}", flush=True)
    steps = args.epochs * (len(win) // args.batch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps,
                                                pct_start=0.1)
    rng = np.random.default_rng(args.seed + 1)
    for epoch in range(args.epochs):
        order = rng.permutation(len(win))
        total, t_ep = 0.0, time.time()
        for b in range(len(win) // args.batch):
            idx = order[b * args.batch:(b + 1) * args.batch]
            w, g, c = _augment(win[idx], ign[idx], [cent[i] for i in idx], rng)
            heat, off, at = _targets(c, WINDOW)
            s = bean_net.STRIDE
            keep = 1.0 - g.reshape(len(g), WINDOW // s, s, WINDOW // s, s).max(axis=(2, 4))
            x = torch.from_numpy(dequantise(w))
            out = model(x)
            loss = _loss(torch, out, torch.from_numpy(heat), torch.from_numpy(off),
                         torch.from_numpy(at), torch.from_numpy(keep.astype(np.float32)))
            if teacher is not None and is2d[idx].any():
                with torch.no_grad():
                    q = torch.sigmoid(teacher(x)[:, 0])
                n = max(float((heat >= 1.0).sum()), 1.0)  # scaled as the focal loss is
                loss = loss + args.distil * _distil_loss(
                    torch, out, q, torch.from_numpy(is2d[idx]), args.distil_peaks) / n
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
            if b % 200 == 0:
                print(f"epoch {epoch} batch {b} loss {total / (b + 1):.4f} "
                      f"({time.time() - t_ep:.0f} s)", flush=True)
        for name, held in (("2D", val_files), ("3D", val3d)):
            if held:
                recall, precision, tallies = evaluate(model, held)
                print(f"epoch {epoch}: loss {total / max(b + 1, 1):.4f}, {name} held out "
                      f"recall {recall:.4f} precision {precision:.4f} {tallies} "
                      f"({time.time() - t_ep:.0f} s)", flush=True)
        # Each epoch's weights beside the data, so a stopped run can be looked at; the
        # model is exported only at the end, never half-trained.
        # Named after --out, so that runs sharing the samples keep their own.
        stem = Path(args.out).stem
        torch.save(model.state_dict(), Path(args.data) / f"{stem}.pt")
        export(model, Path(args.data) / f"{stem}_epoch{epoch}.onnx")
    export(model, Path(args.out))
    calibration = train_files[:SCENES] + [f for f in train3d if f.stem.endswith("_0")]
    quantise(Path(args.out), Path(args.quantised_out), calibration_windows(calibration))
    print(f"wrote {args.out} and {args.quantised_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
