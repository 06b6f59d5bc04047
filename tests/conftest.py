"""Shared fixtures and collection rules for the whole suite.

- The firmware test rig and data generators are not test modules.
- ``slow``: tests that render scenes, drive a browser, play whole games, kill
  processes, or run real serial lines, servers and subprocesses.
  ``pytest -m "not slow"`` is the quick loop; ``make test`` runs everything.
  Whole modules are marked here, in one place; a single test elsewhere may
  carry ``@pytest.mark.slow`` itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.gamelog import GameLog
from companion.referee import Referee
from companion.rules.peepwar import PeepWar

collect_ignore = ["fakes", "data"]

SLOW_MODULES = {
    "tests/vision/test_pieces.py", "tests/vision/test_bean_training.py",
    "tests/vision/test_covered_tiles.py", "tests/vision/test_peltapeeps_read.py",
    "tests/vision/test_real_beans.py", "tests/vision/test_render_peltapeeps.py",
    "tests/vision/test_colour_calibration.py", "tests/vision/test_render_state.py",
    "tests/web/test_browser.py", "tests/web/test_browser_scoresheet.py",
    "tests/web/test_demo_camera.py", "tests/web/test_egg_to_page.py",
    "tests/test_properties.py", "tests/test_kill.py", "tests/peepwar/test_scripted_games.py",
    # Real serial lines, pseudo-terminals, servers and subprocesses: seconds each.
    "tests/web/test_video.py", "tests/web/test_service.py", "tests/web/test_fuzz_requests.py",
    "tests/test_egg_link.py", "tests/peepwar/test_egg_combat.py", "tests/test_buttons.py",
    "tests/test_calibrate_egg.py", "tests/test_score_cli.py", "tests/test_cli_files.py",
    "tests/vision/test_render_cache_jobs.py",
    "tests/peloponnesian/test_browser.py",
    "tests/peloponnesian_vision/test_read.py", "tests/petri/test_properties.py",
    # Rendered frames read by the camera pipeline.
    "tests/vision/test_bean_net.py", "tests/vision/test_print_fit.py", "tests/vision/test_tiles.py",
    "tests/vision/test_card_size.py", "tests/petri_vision/test_reader.py",
    "tests/vision/test_correction_learning.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = Path(config.rootpath)
    for item in items:
        try:
            rel = Path(item.fspath).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        if rel in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def game_log(tmp_path: Path) -> Iterator[GameLog]:
    """A game log in a real SQLite file, closed after the test."""
    log = GameLog(tmp_path / "g.sqlite")
    yield log
    log.close()


@pytest.fixture
def peepwar_referee(game_log: GameLog) -> Referee:
    """The live referee of a new two-player Peep War game (red, blue; 2005), egg seeded."""
    return Referee(game_log, game_log.new_game(PeepWar(players=("red", "blue"))), egg_seed=1)


@pytest.fixture(autouse=True, scope="session")
def _own_data_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Game logs a test makes by default (the demo's too) go to a scratch folder, never the
    user's data folder; commands run as subprocesses inherit it."""
    old = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    yield
    if old is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = old
