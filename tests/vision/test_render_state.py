"""Whole game states rendered and read back: what the live demo shows the referee.

Mid-game positions come from the bot playing a real game; each is drawn by
``render_state``, read by ``read_table`` with a profile made for the same
colours, and compared with the state by the referee's own ``differences``.
"""

from __future__ import annotations

import json
from itertools import islice

import cv2
import pytest

from calibration.profile import save_profile
from companion.cli import main
from companion.rules.peepwar import PeepWar
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.inference import differences
from companion.rules.peepwar.observation import PeepWarObservation
from vision.peepwar.table import read_table
from vision.render.game_scene import families_colours, profile_for_colours, render_state

PLAYERS = ("red", "blue")


def _states(actions_at: tuple[int, ...]):
    rules = PeepWar(players=PLAYERS)
    state = rules.new_state()
    bot = Bot(rules, seed=4)
    out = []
    for i, action in enumerate(islice(bot.play(state), max(actions_at) + 1), start=1):
        state, _ = rules.apply(state, action)
        if i in actions_at:
            out.append((i, rules, state))
    return out


@pytest.fixture(scope="module")
def profile():
    return profile_for_colours(families_colours(list(PLAYERS)), seed=1)


@pytest.mark.parametrize("i, rules, state", _states((40, 90, 150, 200)),
                         ids=lambda v: str(v) if isinstance(v, int) else "")
def test_rendered_state_reads_back_without_differences(i, rules, state, profile):
    data = rules.state_to_dict(state)
    scene = render_state(data, families_colours(list(PLAYERS)), seed=i)
    assert scene.truth.cells == {c: {"supply_center": v["supply_center"],
                                     "pieces": {p: {"troops": s["troops"], "peep": s["peep"]}
                                                for p, s in v["pieces"].items()
                                                if s["troops"] or s["peep"]}}
                                 for c, v in data["cells"].items()}, "the scene holds the state"
    obs = read_table(scene.frame, profile)
    assert {(t["q"], t["r"]) for t in obs["tiles"]} == {(t["q"], t["r"]) for t in data["tiles"]}
    assert differences(state, PeepWarObservation.from_dict(obs)) == []


def test_detect_fills_cells(tmp_path, profile, capsys):
    state = {"tiles": [{"q": 0, "r": 0}, {"q": 0, "r": 1}],
             "cells": {"0,0/c": {"supply_center": True, "pieces": {}},
                       "0,1/3": {"supply_center": False,
                                 "pieces": {"red": {"troops": 2, "peep": True}}},
                       "0,0/5": {"supply_center": False,
                                 "pieces": {"blue": {"troops": 3, "peep": False}}}}}
    scene = render_state(state, families_colours(list(PLAYERS)), seed=3)
    img = tmp_path / "table.png"
    cv2.imwrite(str(img), scene.frame)
    prof = tmp_path / "profile.json"
    save_profile(profile, prof)
    assert main(["detect", str(img), "--game", "peepwar", "--profile", str(prof)]) == 0
    obs = json.loads(capsys.readouterr().out)
    got = {c: {"supply_center": v["supply_center"], "pieces": v["pieces"]}
           for c, v in obs["cells"].items()}
    assert got == state["cells"]
    assert {"tiles", "mosaic", "pieces", "read"} <= set(obs["timings_ms"])
    assert all(0 < v["confidence"] <= 1 for v in obs["cells"].values())
