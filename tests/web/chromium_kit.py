"""Debian's Chromium for the browser tests (Playwright cannot download its own here)."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"

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
