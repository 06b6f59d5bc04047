"""A Peloponnesian War in a real browser: the table page and a player's private hand page."""

from __future__ import annotations

from pathlib import Path

from tests.web.chromium_kit import SHOTS, chromium_browser, serving  # noqa: F401


def test_a_player_plays_face_down_from_the_hand_page(browser, tmp_path: Path) -> None:
    with serving("peloponnesian", "sparta,athens,thebes", tmp_path) as url:
        table = browser.new_page(viewport={"width": 1280, "height": 900})
        table.goto(url)
        table.wait_for_selector("#board svg g.area")
        assert table.locator("a.hand-link").count() == 3
        for text in ["sparta place messenia", "athens place euboea", "thebes place locris",
                     *["draw"] * 12]:
            table.fill("#command", text)
            table.press("#command", "Enter")
            table.wait_for_function("document.getElementById('command').value === ''")
        table.wait_for_function("document.body.dataset.turn === '1'")
        table.wait_for_function(
            "document.getElementById('prompt').textContent.startsWith('round 1 of 3')")
        href = table.get_attribute("a.hand-link[data-player='athens']", "href")
        hand = browser.new_page(viewport={"width": 900, "height": 900})
        hand.goto(url.rstrip("/") + href)
        hand.wait_for_selector("#play-box:not([hidden])")
        assert hand.locator("#hand li").count() == 4
        chit = hand.eval_on_selector("#play-chit", "s => s.value")
        area = hand.eval_on_selector("#play-area", "s => s.options[s.options.length - 1].value")
        hand.select_option("#play-area", area)
        hand.click("#play-form button[type=submit]")
        hand.wait_for_function("document.getElementById('hand').children.length === 3")
        assert hand.locator("#board g.chit.revealed").count() == 1  # athens sees its own chit
        assert not hand.is_visible("#draw-box") and not hand.is_visible("#play-box")
        table.wait_for_function(
            "document.querySelectorAll('#board g.chit.hidden').length === 1")
        assert table.locator("#board g.chit.revealed").count() == 0
        assert "athens plays a chit face down" in table.inner_text("#events")
        assert chit not in table.inner_text("#events")
        SHOTS.mkdir(parents=True, exist_ok=True)
        table.screenshot(path=str(SHOTS / "peloponnesian-table.png"), full_page=True)
        hand.screenshot(path=str(SHOTS / "peloponnesian-hand.png"), full_page=True)
