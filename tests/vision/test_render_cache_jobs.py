"""Rendering missing cached frames in several processes at once (``--jobs``).

The real tracer takes seconds a frame, so these tests give :func:`render_missing` a stand-in
renderer with the same contract (``cached(seed, render=False)`` finds, ``cached(seed)``
renders and stores), written to a real folder, run in real spawned processes.
"""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path

import pytest

from vision.render3d import cache, petri_cache


def fake_cached(seed: int, folder: Path, render: bool = True) -> int | None:
    """A stand-in for ``cached_scene``: a frame is a file naming the process that drew it."""
    path = folder / f"{seed}.txt"
    if path.exists():
        return seed
    if not render:
        return None
    time.sleep(0.3)  # long enough that every worker takes a share
    path.write_text(str(os.getpid()))
    return seed


def test_two_jobs_render_every_missing_seed_once_in_two_processes(tmp_path: Path,
                                                                  capsys) -> None:
    (tmp_path / "3.txt").write_text("already there")
    done = cache.render_missing(range(1, 7), partial(fake_cached, folder=tmp_path), "frames",
                                tmp_path, jobs=2)
    assert done == 5
    assert (tmp_path / "3.txt").read_text() == "already there"  # cached: not drawn again
    drawers = {(tmp_path / f"{s}.txt").read_text() for s in (1, 2, 4, 5, 6)}
    assert len(drawers) == 2 and str(os.getpid()) not in drawers
    out = capsys.readouterr().out
    assert sorted(int(line.split()[1].rstrip(":")) for line in out.splitlines()
                  if line.startswith("seed ")) == [1, 2, 4, 5, 6]
    assert out.splitlines()[-1] == f"5 frames rendered into {tmp_path}"


def test_one_job_renders_in_this_process(tmp_path: Path) -> None:
    assert cache.render_missing(range(2), partial(fake_cached, folder=tmp_path), "frames",
                                tmp_path) == 2
    assert {(tmp_path / f"{s}.txt").read_text() for s in range(2)} == {str(os.getpid())}


@pytest.mark.parametrize("main", [cache.main, petri_cache.main])
def test_no_jobs_is_one_clear_error(main, capsys) -> None:
    assert main(["--seeds", "3500000-3500001", "--jobs", "0"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: --jobs 0: render at least one frame at a time"
