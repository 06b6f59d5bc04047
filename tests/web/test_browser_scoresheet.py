"""The PeltaPeeps score-sheet page in a real browser, on a rendered layout.

The page is served in-process around the renderer's photo and the reading its
ground truth gives (what a perfect reader would say), so this checks the page
and the server's scoring, not the reader.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from chromium_kit import SHOTS, chromium_browser  # noqa: F401  (the browser fixture)

from companion.rules.peltapeeps.catalog import default_catalog
from companion.rules.peltapeeps.rules import FACE_UP_POINTS


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, object]]:
    from werkzeug.serving import make_server

    from vision.render.peltapeeps import PeltaSpec, render_layout
    from vision.render.peltapeeps_truth import truth_reading
    from web.scoresheet import ScoredPhoto, create_score_app, shown_jpeg

    scene = render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))
    photo = ScoredPhoto(shown_jpeg(scene.frame), truth_reading(scene), default_catalog("full"),
                        "layout.jpg", teams=list(scene.colours))
    server = make_server("127.0.0.1", 0, create_score_app(photo), threaded=True)
    worker = threading.Thread(target=server.serve_forever, daemon=True)
    worker.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", scene
    finally:
        server.shutdown()


def _open(browser, url: str) -> tuple[object, list[str]]:
    """The page at desktop size, once scored, and the script errors it raises."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("#totals tbody tr")
    return page, errors


def _totals(page) -> dict[str, int]:
    rows = page.locator("#totals tbody tr")
    return {rows.nth(i).get_attribute("data-player"):
            int(rows.nth(i).locator("td.total").inner_text()) for i in range(rows.count())}


def test_flip_a_piece_on_the_page_and_the_total_follows(browser, served, tmp_path: Path) -> None:
    url, scene = served
    truth = scene.truth
    page, errors = _open(browser, url)
    assert page.locator("#overlay g.piece").count() == len(truth.pieces)
    assert page.locator("#overlay g.join.join").count() == len(truth.joins)
    # Default seats: one player per colour, named by it; the totals are the engine's.
    team_player = {t: p for p, t in truth.seats}
    assert _totals(page) == {t: truth.sheet[team_player[t]]["total"] for t in scene.colours}

    up = next(p for p in truth.pieces if p.face_up)
    kind = scene.rules.catalogs[up.team].piece(up.piece).kind
    before = _totals(page)[up.team]
    scored = int(page.get_attribute("body", "data-scored"))
    page.click(f"#overlay g.piece[data-uid='{up.uid}']")
    page.wait_for_selector("#piece-dialog[open]")
    assert page.input_value("#piece-team") == up.team
    assert page.input_value("#piece-id") == up.piece
    assert page.is_checked("#piece-up")
    page.check("#piece-down")
    page.click("#piece-ok")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert _totals(page)[up.team] == before - FACE_UP_POINTS[kind]
    assert "down" in page.get_attribute(f"#overlay g.piece[data-uid='{up.uid}']", "class")

    # Ticking a seen piece as unplayed is scored by the server and flagged.
    scored = int(page.get_attribute("body", "data-scored"))
    page.check(f"#unplayed input[data-team='{up.team}'][data-piece='{up.piece}']")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    extra = 2 if kind != "egg" else 1
    assert _totals(page)[up.team] == before - FACE_UP_POINTS[kind] - extra
    assert "counted as unplayed but the photo shows it" in page.inner_text("#warnings")

    # Say a join between the two colours is none: each side loses its JOIN point.
    team = {p.uid: p.team for p in truth.pieces}
    k = next(i for i, (a, b) in enumerate(truth.joins) if team[a] != team[b])
    before = _totals(page)
    scored = int(page.get_attribute("body", "data-scored"))
    page.click(f"#overlay g.join[data-join='{k}'] circle")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert _totals(page) == {t: v - 1 for t, v in before.items()}
    assert page.locator("#overlay g.join.touch").count() == 1

    # Remove a piece that is not a piece: its joins go with it and it counts as unplayed.
    gone = next(p for p in truth.pieces if p.team != up.team)  # its unplayed are not edited
    scored = int(page.get_attribute("body", "data-scored"))
    page.click(f"#overlay g.piece[data-uid='{gone.uid}']")
    page.wait_for_selector("#piece-dialog[open]")
    page.click("#piece-remove")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert page.locator("#overlay g.piece").count() == len(truth.pieces) - 1
    assert page.is_checked(f"#unplayed input[data-team='{gone.team}'][data-piece='{gone.piece}']")
    assert errors == []

    path = tmp_path / "scoresheet.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / "scoresheet.png")


def test_the_page_fits_a_phone(browser, served) -> None:
    url, scene = served
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                            is_mobile=True, has_touch=True)
    page.goto(url)
    page.wait_for_selector("#totals tbody tr")
    # Nothing wider than the screen: the photo and the sheet stack in one column.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    box = page.locator("#overlay svg").bounding_box()
    assert box is not None and box["width"] <= 390
    total = page.locator("#totals td.total").first
    assert float(total.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")) >= 20
    edge = total.bounding_box()
    assert edge is not None and edge["x"] + edge["width"] <= 390  # totals seen without scrolling
    page.locator("#overlay g.piece").first.tap()
    page.wait_for_selector("#piece-dialog[open]")
    dialog = page.locator("#piece-dialog").bounding_box()
    assert dialog is not None and dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= 390


def test_upload_a_photo_on_the_live_page(browser, served, tmp_path: Path) -> None:
    # Needs the photo reader (vision/peltapeeps/read.py): the live page reads the upload.
    import cv2
    from werkzeug.serving import make_server

    from calibration.profile import save_profile
    from companion.gamelog import GameLog
    from companion.referee import Referee
    from companion.rules.peepwar import PeepWar
    from vision.render.peltapeeps import profile_for_teams
    from web.app import create_app

    _, scene = served
    profile = tmp_path / "profile.json"
    save_profile(profile_for_teams(scene.colours), profile)
    photo = tmp_path / "table.jpg"
    cv2.imwrite(str(photo), scene.frame, [cv2.IMWRITE_JPEG_QUALITY, 92])
    log = GameLog(tmp_path / "g.sqlite")
    referee = Referee(log, log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)
    apps = [create_app(referee, page_options={"peltapeeps": {"profile": p}})
            for p in ("", str(profile))]
    servers = [make_server("127.0.0.1", 0, app, threaded=True) for app in apps]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    try:
        page = browser.new_page(viewport={"width": 1024, "height": 800})
        page.goto(f"http://127.0.0.1:{servers[0].server_port}/")
        page.click("header a[href='/score/']")
        page.wait_for_selector("#error:not([hidden])")
        assert "no colour profile is configured" in page.inner_text("#error")
        assert page.is_disabled("#upload-go")

        page.goto(f"http://127.0.0.1:{servers[1].server_port}/score/")
        assert page.locator("#error").is_hidden()
        page.set_input_files("#upload-file", str(photo))
        page.click("#upload-go")
        page.wait_for_selector("#totals tbody tr", timeout=60_000)
        assert page.locator("#overlay g.piece").count() >= 1
        assert "table.jpg" in page.inner_text("#prompt")
        assert page.locator("#totals tbody tr").count() == len(
            {page.locator("#overlay g.piece").nth(i).get_attribute("data-uid").split(":")[0]
             for i in range(page.locator("#overlay g.piece").count())})
    finally:
        for s in servers:
            s.shutdown()
        log.close()


def test_name_the_players_one_with_both_colours(browser, served) -> None:
    url, scene = served
    page = browser.new_page(viewport={"width": 1024, "height": 800})
    page.goto(url)
    page.wait_for_selector("#players input")
    teams = list(scene.colours)
    for team in teams:
        scored = int(page.get_attribute("body", "data-scored"))
        page.fill(f"#players input[data-team='{team}']", "Ann")
        page.press(f"#players input[data-team='{team}']", "Enter")
        page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    rows = page.locator("#totals tbody tr")
    assert rows.count() == 1 and rows.first.get_attribute("data-player") == "Ann"
    # Every join is now between Ann's own pieces: a bonus each; the total is the two colours'.
    assert int(rows.first.locator("td.bonus").inner_text()) == len(scene.truth.joins)
    sheet = scene.truth.sheet
    joins = sum(line["joins"] for line in sheet.values())
    assert int(rows.first.locator("td.total").inner_text()) == sum(
        line["total"] - line["bonus"] for line in sheet.values()) + len(scene.truth.joins)
    assert int(rows.first.locator("td.joins").inner_text()) == joins
    page.fill(f"#players input[data-team='{teams[0]}']", "")
    page.press(f"#players input[data-team='{teams[0]}']", "Enter")
    page.wait_for_selector("#error:not([hidden])")
    assert f"colour {teams[0]} needs a player's name" in page.inner_text("#error")
    # The refused change is undone on the page: the sheet still shows what was scored.
    assert page.input_value(f"#players input[data-team='{teams[0]}']") == "Ann"
    assert page.locator("#totals tbody tr").count() == 1


def test_add_a_piece_the_reader_missed(browser, served) -> None:
    url, scene = served
    truth = scene.truth
    page, errors = _open(browser, url)
    team_player = {t: p for p, t in truth.seats}
    want = {t: truth.sheet[team_player[t]]["total"] for t in scene.colours}
    # A joined piece the reader missed (here: said not to be a piece) ...
    partners = {p.uid: [b if a == p.uid else a for a, b in truth.joins if p.uid in (a, b)]
                for p in truth.pieces}
    gone = max(truth.pieces, key=lambda p: len(partners[p.uid]))
    assert partners[gone.uid]
    scored = int(page.get_attribute("body", "data-scored"))
    page.click(f"#overlay g.piece[data-uid='{gone.uid}']")
    page.wait_for_selector("#piece-dialog[open]")
    page.click("#piece-remove")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert _totals(page) != want

    # ... is added back where it lies: tap the photo there and say what it is.
    page.click("#add-piece")
    assert "Tap the middle" in page.inner_text("#prompt")
    x, y = page.evaluate("""([x, y]) => {
        const svg = document.querySelector('#overlay svg');
        const pt = svg.createSVGPoint(); pt.x = x; pt.y = y;
        const p = pt.matrixTransform(svg.getScreenCTM());
        return [p.x, p.y]; }""", list(gone.centre_px))
    page.mouse.click(x, y)
    page.wait_for_selector("#piece-dialog[open]")
    assert page.locator("#piece-remove").is_hidden()
    page.select_option("#piece-team", gone.team)
    page.select_option("#piece-id", gone.piece)
    page.check("#piece-up" if gone.face_up else "#piece-down")
    scored = int(page.get_attribute("body", "data-scored"))
    page.click("#piece-ok")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert page.locator(f"#overlay g.piece[data-uid='{gone.uid}']").count() == 1
    # It meets its neighbours with no join until told: tap the dots where it joins.
    for other in partners[gone.uid]:
        a, b = sorted((gone.uid, other))
        dot = page.locator(f"#overlay g.join.touch[aria-label^='{a} and {b}:'] circle")
        assert dot.count() == 1
        scored = int(page.get_attribute("body", "data-scored"))
        dot.click()
        page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert _totals(page) == want
    # A change left with Escape is no change, whatever the dialog last answered.
    page.click(f"#overlay g.piece[data-uid='{gone.uid}']")
    page.wait_for_selector("#piece-dialog[open]")
    page.check("#piece-down" if gone.face_up else "#piece-up")
    page.keyboard.press("Escape")
    page.wait_for_function("!document.getElementById('piece-dialog').open")
    page.wait_for_timeout(300)
    face = "up" if gone.face_up else "down"
    assert face in page.get_attribute(f"#overlay g.piece[data-uid='{gone.uid}']", "class")
    assert _totals(page) == want
    assert errors == []


@pytest.fixture(scope="module")
def served_in_doubt() -> Iterator[tuple[str, object, int]]:
    """The same layout, with the reader unsure of three of its eight pieces."""
    from dataclasses import replace

    from werkzeug.serving import make_server

    from vision.render.peltapeeps import PeltaSpec, render_layout
    from vision.render.peltapeeps_truth import truth_reading
    from web.scoresheet import ScoredPhoto, create_score_app, shown_jpeg

    scene = render_layout(5, PeltaSpec(teams=(2, 2), rounds=(3, 4)))
    reading = truth_reading(scene)
    unsure = 3
    assert len(reading.pieces) == 8
    reading.pieces = [replace(p, confidence=0.5) if i < unsure else p
                      for i, p in enumerate(reading.pieces)]
    photo = ScoredPhoto(shown_jpeg(scene.frame), reading, default_catalog("full"),
                        "layout.jpg", teams=list(scene.colours))
    server = make_server("127.0.0.1", 0, create_score_app(photo), threaded=True)
    worker = threading.Thread(target=server.serve_forever, daemon=True)
    worker.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", scene, unsure
    finally:
        server.shutdown()


def test_a_reading_in_doubt_leads_with_it_and_names_no_winner(browser, served_in_doubt) -> None:
    url, scene, unsure = served_in_doubt
    page, errors = _open(browser, url)
    verdict, sheet = page.locator("#verdict-box"), page.locator("#totals-box")
    assert verdict.is_visible()
    assert verdict.bounding_box()["y"] < sheet.bounding_box()["y"]  # the doubt comes first
    assert page.inner_text("#verdict").startswith(
        f"The photo may not show a PeltaPeeps layout: {unsure} of the 8 pieces read are in "
        "doubt (see the warnings). No winner is named")
    assert page.inner_text("#headline") == "No winner named"
    assert page.inner_text("#set-used") == "Set: default full set, 16 pieces a colour"
    # The pieces in doubt are marked on the photo, and so is each line resting on one.
    from vision.render.peltapeeps_truth import truth_reading

    truth = truth_reading(scene)
    team = {p.uid: p.team for p in truth.pieces}
    uids = [p.uid for p in truth.pieces]
    joined = [(j.a, j.b) for j in truth.joins if j.kind == "join"]

    def lines_resting_on(doubted: list[str]) -> set[str]:
        # Each doubted piece's own line, and, as it fits only roughly, the lines of the
        # pieces joined to it (a join counts on both).
        both_ways = joined + [(b, a) for a, b in joined]
        return {team[u] for u in doubted} | {team[a] for a, b in both_ways if b in doubted}

    def marked() -> tuple[list[str], set[str]]:
        pieces = page.locator("#overlay g.piece.unsure")
        rows = page.locator("#totals tr.to-check")
        return ([pieces.nth(k).get_attribute("data-index") for k in range(pieces.count())],
                {rows.nth(k).get_attribute("data-player") for k in range(rows.count())})

    assert marked() == ([str(i) for i in range(unsure)], lines_resting_on(uids[:unsure]))
    assert lines_resting_on(uids[:unsure]) != {team[u] for u in uids[:unsure]}  # the rule bites
    assert page.locator("#totals tr.to-check .check").first.inner_text() == "check"

    # Confirming one piece in doubt (open it, save it unchanged) leaves 6 of 8 sure: a layout.
    scored = int(page.get_attribute("body", "data-scored"))
    page.click("#overlay g.piece[data-index='0']")
    page.wait_for_selector("#piece-dialog[open]")
    page.click("#piece-ok")
    page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert not verdict.is_visible()
    assert marked() == ([str(i) for i in range(1, unsure)], lines_resting_on(uids[1:unsure]))
    assert page.locator("#overlay g.piece[data-index='0'] text.unsure-mark").count() == 0
    assert page.locator("#overlay g.piece[data-index='1'] text.unsure-mark").text_content() == "?"
    # Confirming the others too leaves no line to check.
    for i in range(1, unsure):
        scored = int(page.get_attribute("body", "data-scored"))
        page.click(f"#overlay g.piece[data-index='{i}']")
        page.wait_for_selector("#piece-dialog[open]")
        page.click("#piece-ok")
        page.wait_for_function(f"Number(document.body.dataset.scored) > {scored}")
    assert marked() == ([], set())
    totals = _totals(page)
    best = max(totals.values())
    leaders = [t for t, v in totals.items() if v == best]
    assert len(leaders) == 1  # this layout has a winner
    assert page.inner_text("#headline") == f"{leaders[0]} wins with {best} points"
    assert errors == []
