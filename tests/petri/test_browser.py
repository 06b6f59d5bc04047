"""Petri's page in a real browser: the dice, placing by taps, and the capture order stepped."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.chromium_kit import SHOTS, chromium_browser, serving  # noqa: F401

pytestmark = pytest.mark.slow

PROMPT = "document.getElementById('prompt').textContent"


def _type(page, text: str) -> None:
    page.fill("#command", text)
    page.press("#command", "Enter")
    page.wait_for_function("document.getElementById('command').value === ''")


def _cells(page, player: str) -> list[str]:
    row = page.locator(f"#tally tr[data-player='{player}'] td")
    return row.all_inner_texts()


def test_dice_taps_and_the_capture_order_on_the_page(browser, tmp_path: Path) -> None:
    with serving("petri", "red,blue", tmp_path) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(url)
        page.wait_for_selector("#board svg circle.hole")
        assert page.locator("#board circle.hole").count() == 121
        assert _cells(page, "red")[1:] == ["0", "10", "0"]  # cup, hand, board

        # The companion rolls for red; the dice show, then the roll is undone for real dice.
        page.click(".petri-turn[data-player='red'] button[data-petri='roll']")
        page.wait_for_selector(".petri-turn[data-player='red'][data-step='die']")
        assert page.locator(".petri-turn[data-player='red'] .dice span").count() == 2
        page.click("#undo")
        page.wait_for_selector(".petri-turn[data-player='red'][data-step='roll']")

        # Real dice entered on the panel, a die chosen, six pieces placed by tapping holes.
        page.fill(".petri-turn[data-player='red'] input[data-die='1']", "6")
        page.fill(".petri-turn[data-player='red'] input[data-die='2']", "6")
        page.click(".petri-turn[data-player='red'] button[data-petri='enter']")
        page.wait_for_selector("button[data-petri='die'][data-die='6']")
        page.click("button[data-petri='die'][data-die='6']")
        page.wait_for_selector(".petri-turn[data-player='red'][data-step='place']")
        # At first only red's home is open: its holes are marked for tapping.
        marked = page.locator("#board circle.hole.tap").evaluate_all(
            "els => els.map(e => e.dataset.hole)")
        assert "5,-1" in marked and len(marked) == 10
        for hole in ["5,-1", "4,-1", "3,-1", "2,-1", "1,-1", "0,-1"]:
            page.click(f"#board circle.hole[data-hole='{hole}']", force=True)
            page.wait_for_selector(f"#board g.piece[data-hole='{hole}'][data-player='red']")
        page.wait_for_function(f"{PROMPT}.startsWith('blue: roll')")
        assert _cells(page, "red")[1:] == ["0", "4", "6"]

        # Blue by typed commands; a hole tapped out of turn is refused in words.
        _type(page, "roll 6 6")
        _type(page, "die 6")
        page.click("#board circle.hole[data-hole='7,-4']", force=True)
        page.wait_for_selector("#error:not([hidden])")
        assert "nothing is placed or removed at 7,-4" in page.inner_text("#error")
        _type(page, "place -5,1 -4,1 -3,1 -2,1 -1,1 0,1")
        page.wait_for_function(f"{PROMPT}.startsWith('red: roll')")

        # Red surrounds blue's leading piece: the capture step, with the order drawn.
        _type(page, "roll 3 3")
        _type(page, "die 3")
        for hole in ["0,0", "1,0", "1,1"]:
            page.click(f"#board circle.hole[data-hole='{hole}']", force=True)
            page.wait_for_selector(f"#board g.piece[data-hole='{hole}']")
        page.wait_for_selector("#petri-captures:not([hidden])")
        mark = page.locator("#board g.capture-mark[data-capture='1']")
        assert mark.get_attribute("data-hole") == "0,1"
        assert page.locator("#petri-order li").all_inner_texts()[0].startswith("0,1")
        assert "captures 1 enemy piece" in page.inner_text("#petri-step-text")
        assert page.inner_text("#end") == "Capture in the suggested order"

        page.click("#petri-step")  # the first (and only) piece checked: faded, marked now
        page.wait_for_function("document.body.dataset.petriStep === '1'")
        assert "Step 1 of 1: 0,1 (blue)" in page.inner_text("#petri-step-text")
        assert "now" in mark.get_attribute("class")
        piece = page.locator("#board g.piece[data-hole='0,1']")
        assert "taken" in piece.get_attribute("class")
        assert page.locator("#petri-step").is_disabled()
        page.click("#petri-back")
        page.wait_for_function("document.body.dataset.petriStep === '0'")
        assert "taken" not in (piece.get_attribute("class") or "")
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "petri-capture.png"), full_page=True)

        page.click("#petri-capture")
        page.wait_for_function(f"{PROMPT}.startsWith('blue: roll')")
        assert page.locator("#board g.piece[data-hole='0,1']").count() == 0
        assert page.locator("#petri-captures").is_hidden()
        assert _cells(page, "red")[1:] == ["1", "1", "9"]
        assert _cells(page, "blue")[1:] == ["0", "4", "5"]
        assert "red captures" in page.inner_text("#events").lower() or \
            "0,1" in page.inner_text("#events")
