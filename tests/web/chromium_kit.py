"""Debian's Chromium for the browser tests (Playwright cannot download its own here)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "out" / "screenshots"

playwright = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (make test does, as root)",
                allow_module_level=True)


@pytest.fixture(name="browser", scope="module")
def chromium_browser():
    """Headless Chromium, one per test module."""
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


def start_companion(args: list[str]) -> tuple[subprocess.Popen, str]:
    """``companion ARGS`` in its own process, and the page's URL from its first line."""
    proc = subprocess.Popen([sys.executable, "-m", "companion", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)})
    line = proc.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    if not m:
        proc.kill()
        raise AssertionError(f"no URL from companion: {line!r} {proc.stderr.read()}")
    return proc, m.group(1)


@contextmanager
def serving(game: str, players: str, tmp_path: Path) -> Iterator[str]:
    """A fresh ``companion serve`` of ``game`` (its own log, no settings) for one test: the URL."""
    (tmp_path / "none.toml").write_text("")
    proc, url = start_companion(["serve", "--game", game, "--players", players, "--new",
                                 "--port", "0", "--log", str(tmp_path / "g.sqlite"),
                                 "--settings", str(tmp_path / "none.toml")])
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
