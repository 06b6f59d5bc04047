"""The table page in a real browser: Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from chromium_kit import (  # noqa: F401  (the browser fixture)
    SHOTS,
    chromium_browser,
    serving,
    start_companion,
)

TURN = "document.getElementById('turn').textContent"


def _shot(page, name: str, tmp_path: Path) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=True)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)
    assert path.stat().st_size > 10_000
    return path


def test_demo_page_follows_the_scripted_game(browser, tmp_path: Path) -> None:
    proc, url = start_companion(["demo", "--port", "0", "--no-browser", "--step", "0.12"])
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.wait_for_selector("#board svg polygon")
        first_version = int(page.get_attribute("body", "data-version"))
        # The game advances on its own: setup, then turns with pieces on the board.
        page.wait_for_function("Number(document.body.dataset.turn) >= 2", timeout=60_000)
        assert int(page.get_attribute("body", "data-version")) > first_version
        assert page.locator("#board g.stack").count() >= 4
        held = page.locator("#tally td.held").all_inner_texts()
        assert len(held) == 2 and all(h.isdigit() for h in held)
        assert "Supply Centers win" in page.inner_text("#needed")
        assert page.locator("#events li").count() > 10
        _shot(page, "demo.png", tmp_path)
    finally:
        proc.terminate()
        proc.wait(10)


def test_controls_end_turn_undo_and_correct_a_cell(browser, tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("")
    proc, url = start_companion(["serve", "--port", "0", "--log", str(tmp_path / "g.sqlite"),
                        "--settings", str(settings), "--players", "red,blue"])
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 800})
        page.goto(url)
        page.wait_for_selector("#board svg")
        for text in ["hex 1,0", "hex -1,0", "hex 1,-1", "hex -1,1", "hex 2,-1", "hex -2,1",
                     "sc 1,0", "sc -1,0", "sc 1,-1", "sc -1,1"]:
            page.fill("#command", text)
            page.click("#command-form button[type=submit]")
            page.wait_for_function("document.getElementById('command').value === ''")
        page.wait_for_function("document.getElementById('prompt').textContent"
                               ".includes('red: move your pieces')")
        assert page.locator("#board g.stack").count() == 4

        # A refused move is explained on the page.
        page.fill("#command", "move 1 1,0/c 0,0/c")
        page.click("#command-form button[type=submit]")
        page.wait_for_selector("#error:not([hidden])")
        assert "the cells do not touch" in page.inner_text("#error")

        page.click("#end")  # end movement: no fights, so production
        page.wait_for_function("document.getElementById('prompt').textContent"
                               ".includes('red: produce')")
        page.click("#end")  # end the turn
        page.wait_for_function("document.getElementById('prompt').textContent"
                               ".startsWith('blue: move')")
        page.click("#undo")
        page.wait_for_function("document.getElementById('prompt').textContent"
                               ".includes('red: produce')")
        assert "undone" in page.inner_text("#events")

        # Correct a cell: tap it, say what stands there.
        page.click("#board polygon[data-cell='0,0/2']", force=True)
        page.wait_for_selector("#correct-dialog[open]")
        page.fill("#correct-players input[data-player='blue']", "2")
        page.click("#correct-ok")
        page.wait_for_function("document.getElementById('events').textContent"
                               ".includes('cell 0,0/2 corrected by hand')")
        _shot(page, "controls.png", tmp_path)
    finally:
        proc.terminate()
        proc.wait(10)


def test_phone_layout_shows_board_and_tally(browser, tmp_path: Path) -> None:
    proc, url = start_companion(["demo", "--port", "0", "--no-browser", "--step", "0.2"])
    try:
        page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
        page.goto(url)
        page.wait_for_selector("#board svg")
        board = page.locator("#board").bounding_box()
        assert board and board["width"] <= 390
        # Large type: the prompt is readable across a table.
        size = page.eval_on_selector("#prompt", "e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 20
        time.sleep(0.5)
        _shot(page, "phone.png", tmp_path)
    finally:
        proc.terminate()
        proc.wait(10)


def test_another_device_watches_until_it_gives_the_passphrase(browser, tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--host", "0.0.0.0",
                             "--port", "0", "--log", str(tmp_path / "g.sqlite"), "--settings",
                             str(settings)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        lines = []
        while not any("pass-phrase:" in line for line in lines):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line)
        port = re.search(r"http://127\.0\.0\.1:(\d+)/", lines[0]).group(1)
        passphrase = lines[-1].rsplit(": ", 1)[1].strip()
        lan = re.search(r"home network: (http://[\d.]+:\d+/)", "".join(lines))
        if not lan:
            pytest.skip("this machine has no home-network address to browse from")
        # The page by this machine's network address: to the page, another device.
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(lan.group(1))
        page.wait_for_selector("#board svg polygon")
        assert page.is_visible("#watch-box")
        assert page.is_disabled("#end") and page.is_disabled("#command")
        assert page.is_disabled("#new-game")
        _shot(page, "watcher.png", tmp_path)
        page.fill("#watch-pass", "not-the-phrase")
        page.click("#watch-form button")
        page.wait_for_selector("#watch-error:not([hidden])")
        assert "pass-phrase" in page.inner_text("#watch-error")
        assert page.is_disabled("#end")
        page.fill("#watch-pass", passphrase)
        page.click("#watch-form button")
        page.wait_for_selector("#watch-box", state="hidden")
        assert page.is_enabled("#command") and page.is_enabled("#new-game")
        page.fill("#command", "hex 1,0")
        page.press("#command", "Enter")
        page.wait_for_function("Number(document.body.dataset.version) >= 1")
        _shot(page, "watcher-joined.png", tmp_path)
        # The page served on the home network offers its address as a QR code.
        assert page.locator("#join svg path").count() >= 1
        assert lan.group(1) in page.inner_text("#join")
        # The page on this machine itself has its controls on from the start.
        local = browser.new_page()
        local.goto(f"http://127.0.0.1:{port}/")
        local.wait_for_selector("#board svg polygon")
        assert not local.is_visible("#watch-box") and local.is_enabled("#command")
    finally:
        proc.terminate()
        proc.wait(10)


def test_the_page_draws_an_answer_at_once_and_never_goes_back(browser, tmp_path: Path) -> None:
    with serving("peepwar", "red,blue", tmp_path) as url:
        page = browser.new_page(viewport={"width": 1024, "height": 800})
        # The stream is shut: the answer to a command alone must bring the new state.
        page.route("**/api/stream", lambda route: route.abort())
        page.goto(url)
        page.wait_for_selector("#board svg")
        page.wait_for_function(f"{TURN} === 'reconnecting…'")
        before = page.evaluate("fetch('/api/state').then((r) => r.json())")
        board_before = page.inner_html("#board")
        page.fill("#command", "hex 1,0")
        page.click("#command-form button[type=submit]")
        page.wait_for_function("document.getElementById('command').value === ''")
        after = page.evaluate("fetch('/api/state').then((r) => r.json())")
        assert after["version"] == before["version"] + 1
        assert int(page.evaluate("document.body.dataset.version")) == after["version"]
        assert after["prompt"] != before["prompt"]
        assert page.inner_text("#prompt") == after["prompt"]
        board = page.inner_html("#board")
        assert board != board_before

        # A state that comes late (an earlier version of this run) is not drawn over a newer.
        page.evaluate("(old) => render(old)", before)
        assert int(page.evaluate("document.body.dataset.version")) == after["version"]
        assert page.inner_html("#board") == board
        # The same state with its keys in another order is not drawn again: the board's
        # element survives, so a tap in flight still lands.
        page.evaluate("document.querySelector('#board svg').dataset.mark = 'kept'")
        page.evaluate("""fetch('/api/state').then((r) => r.json()).then((s) => {
            const shuffled = Object.fromEntries(Object.entries(s).reverse());
            shuffled.sent_at = s.sent_at + 1;
            render(shuffled);
        })""")
        assert page.evaluate("document.querySelector('#board svg').dataset.mark") == "kept"
        # A restarted server counts versions from 0 again: its state is drawn.
        page.evaluate("(old) => render({...old, boot: 'another run'})", before)
        assert int(page.evaluate("document.body.dataset.version")) == before["version"]
        assert page.inner_text("#prompt") == before["prompt"]

        # The stream back: the state it sends is drawn, and the turn replaces "reconnecting…".
        page.evaluate("(s) => render(s)", after)  # the state the stream will bring
        page.wait_for_function(f"{TURN} === 'reconnecting…'", timeout=20_000)  # it tries again
        page.unroute("**/api/stream")
        page.wait_for_function(f"{TURN} !== 'reconnecting…'", timeout=20_000)
        assert page.inner_text("#prompt") == after["prompt"]
        assert int(page.evaluate("document.body.dataset.version")) == after["version"]
