"""The live referee: camera observations, inputs from buttons and the egg, corrections."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.camera_loop import CameraLoop
from companion.frames import CaptureSource, FolderSource
from companion.inputs.events import BEAN, DRAW, END_TURN, UNDO, UNDO_TURN, InputEvent
from companion.inputs.source import SourceStatus
from companion.referee import NAMED_DOUBTS, Referee
from companion.rules.peepwar import Eat, Move, PeepBeans, Phase, PlaceTile
from companion.rules.peepwar.bot import Bot
from companion.rules.peepwar.inference import expected_observation
from companion.rules.peepwar.observation import CellReading, PeepWarObservation, Pieces, TileSeen


@pytest.fixture
def referee(peepwar_referee: Referee) -> Referee:
    return peepwar_referee


def _advance(r: Referee, until) -> None:
    bot = Bot(r.rules, 3)
    while not until(r.state):
        r.play(bot.choose(r.state), "test")


def test_a_laid_hex_seen_by_the_camera_is_played_and_logged(referee: Referee) -> None:
    seen = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(4, 1, 0)))
    result = referee.observe(seen)
    assert result.verdict == "actions"
    assert referee.state.tiles[(1, 0)] == "red"
    assert referee.log.entries(referee.game.id)[0]["source"] == "camera"


def test_an_unexplained_table_is_a_problem_and_nothing_is_played(referee: Referee) -> None:
    seen = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(4, 3, 3)))
    referee.observe(seen)
    assert referee.game.actions == []
    assert any("3,3" in p.text for p in referee.problems)
    # The camera sees the table right again: the problem goes.
    referee.observe(PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0),)))
    assert referee.problems == []


def test_ambiguous_reading_waits_for_accept(referee: Referee) -> None:
    seen = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(1, 1, 0),
                                                TileSeen(2, -1, 0)))
    referee.observe(seen)
    assert referee.proposal is not None and referee.game.actions == []
    assert referee.snapshot()["proposal"]["alternatives"] == 1
    referee.accept()
    assert len(referee.game.actions) == 2 and referee.proposal is None


def test_moves_from_the_camera_then_end_turn_button(referee: Referee) -> None:
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 3)
    s = referee.state
    move = next(a for a in referee.rules.legal_actions(s) if isinstance(a, Move) and a.troops)
    after, _ = referee.rules.apply(s, move)
    referee.observe(expected_observation(after))
    assert referee.game.actions[-1] == move
    refusal = referee.handle_input(InputEvent("buttons", END_TURN))
    assert refusal is None
    assert referee.state.phase is not Phase.MOVEMENT


def test_putting_pieces_back_offers_an_undo(referee: Referee) -> None:
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 3)
    before = referee.state
    move = next(a for a in referee.rules.legal_actions(before) if isinstance(a, Move))
    referee.play(move, "camera")
    referee.observe(expected_observation(before))
    assert referee.proposal is not None and referee.proposal.verdict == "undo"
    referee.accept()
    assert referee.state == before


def test_buttons_undo_and_undo_turn(referee: Referee) -> None:
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 3)
    start = referee.state
    bot = Bot(referee.rules, 9)
    for _ in range(2):
        a = bot.choose(referee.state)
        if not isinstance(a, Move):
            break
        referee.play(a, "test")
    n = len(referee.game.actions)
    referee.handle_input(InputEvent("buttons", UNDO))
    assert len(referee.game.actions) == n - 1
    referee.handle_input(InputEvent("buttons", UNDO_TURN))
    assert referee.state == start


def test_a_refused_button_press_becomes_a_problem(referee: Referee) -> None:
    refusal = referee.handle_input(InputEvent("buttons", END_TURN))
    assert refusal and "cannot end the turn" in refusal
    assert any(p.source == "buttons" for p in referee.problems)


def test_fight_with_digital_egg_and_egg_beans(referee: Referee) -> None:
    _advance(referee, lambda s: s.combat is not None)
    c = referee.state.combat
    assert referee.snapshot()["panel"]["odds"]["cell"] == c.cell
    bad = referee.handle_input(InputEvent("egg", BEAN, {"player": "nobody"}))
    assert bad and "not in the fight" in bad
    while referee.state.combat is not None and referee.state.combat.cell == c.cell:
        fight = referee.state.combat
        if fight.victor:
            what = "troop" if fight.troops[fight.other(fight.victor)] else "peep"
            referee.play(Eat(fight.victor, what), "page")
        elif fight.undecided:
            referee.play(PeepBeans(fight.undecided[0], True), "page")
        else:
            assert referee.handle_input(InputEvent("buttons", DRAW)) is None
    assert any(e["kind"] == "combat_over" for e in referee.snapshot()["events"])


def test_a_correction_replaces_the_cameras_reading_until_it_changes(referee: Referee) -> None:
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 3)
    seen = expected_observation(referee.state)
    cell = next(c for c, who in referee.state.pieces.items() if "red" in who)
    wrong = replace(seen, cells={**seen.cells, cell: CellReading(pieces={"red": Pieces(5, True)})})
    referee.observe(wrong)
    assert referee.problems
    right = referee.state.stack(cell, "red")
    referee.correct({"cell": cell, "pieces": {"red": {"troops": right.troops,
                                                      "peep": bool(right.peep)}},
                     "supply_center": cell in referee.state.supply_centers})
    assert referee.problems == []


def _video(path: Path, frames: int) -> None:
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(frames):
        out.write(np.full((48, 64, 3), 40 + i, np.uint8))
    out.release()


def _pluggable(tmp_path: Path) -> tuple[CaptureSource, dict[str, bool]]:
    """A "webcam" backed by a real file of 5 frames, unplugged while ``plugged["on"]`` is
    False."""
    video = tmp_path / "cam.avi"
    _video(video, 5)
    plugged = {"on": True}

    def opener(spec):
        return cv2.VideoCapture(str(video)) if plugged["on"] else cv2.VideoCapture()

    return CaptureSource(0, retry_s=0.0, opener=opener), plugged


def test_camera_unplugged_and_back_recovers(tmp_path: Path, referee: Referee) -> None:
    source, plugged = _pluggable(tmp_path)
    seen = []
    loop = CameraLoop(source, lambda f: seen.append(f) or PeepWarObservation("peepwar"), referee,
                      still_s=0.0, threshold=255)
    for i in range(5):
        loop.step(float(i))
    assert referee.camera.state == "on"
    plugged["on"] = False
    for i in range(5, 8):  # the file runs out: the "camera" stops sending, then cannot open
        loop.step(float(i))
    assert referee.camera.state == "lost"
    assert "cannot open the camera" in referee.camera.message
    plugged["on"] = True
    for i in range(8, 10):
        loop.step(float(i))
    assert referee.camera.state == "on"
    assert loop.latest_jpeg() is not None and source.faults >= 1


def test_an_unreachable_camera_is_told_once_each_time_not_at_every_retry(
        tmp_path: Path, referee: Referee) -> None:
    source, plugged = _pluggable(tmp_path)
    told: list[str] = []
    source.unreachable.listener = told.append
    loop = CameraLoop(source, lambda f: PeepWarObservation("peepwar"), referee,
                      still_s=0.0, threshold=255)
    for i in range(5):
        loop.step(float(i))
    assert told == []
    plugged["on"] = False
    for i in range(5, 10):  # stops sending, then cannot be opened at every retry
        loop.step(float(i))
    assert told == ["the camera 0 stopped sending frames (unplugged?); retrying"]
    plugged["on"] = True
    loop.step(10.0)
    assert referee.camera.state == "on"
    plugged["on"] = False
    for i in range(11, 20):  # the file's 5 frames run out: lost again, told again
        loop.step(float(i))
    assert told[1:] == ["the camera 0 stopped sending frames (unplugged?); retrying"]


def test_a_camera_that_never_opens_is_told_once(tmp_path: Path, referee: Referee) -> None:
    told: list[str] = []
    source = CaptureSource(99, retry_s=0.0, opener=lambda spec: cv2.VideoCapture(),
                           on_unreachable=told.append)
    loop = CameraLoop(source, lambda f: PeepWarObservation("peepwar"), referee, still_s=0.0)
    for i in range(4):
        loop.step(float(i))
    assert told == ["cannot open the camera 99; retrying every 0 s"]
    assert referee.camera.state == "lost"


def test_a_corrupt_frame_is_skipped_and_reported(tmp_path: Path, referee: Referee) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), np.zeros((64, 64, 3), np.uint8))
    (tmp_path / "b.png").write_bytes(b"\x89PNG\r\n\x1a\n garbage")
    cv2.imwrite(str(tmp_path / "c.png"), np.zeros((64, 64, 3), np.uint8))
    source = FolderSource(tmp_path)
    loop = CameraLoop(source, lambda f: PeepWarObservation("peepwar"), referee, still_s=0.0)
    frames = [loop.step(float(i)) for i in range(4)]
    assert source.faults == 1
    assert source.finished
    assert referee.camera.state == "ended"
    assert frames  # the loop carried on past the bad file


@pytest.mark.parametrize("confidence", [0.3, 0.5, 0.7])
def test_a_move_read_with_little_confidence_is_asked_about_not_taken(
        referee: Referee, confidence: float) -> None:
    """0.5 and 0.7 are what the camera reader gives a cell with a close call in it (a bean
    between two players' colours, "perhaps one more bean"): asked about, as lower ones."""
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 2)
    before = referee.state
    move = next(a for a in referee.rules.legal_actions(before) if isinstance(a, Move) and a.troops)
    after, _ = referee.rules.apply(before, move)
    seen = expected_observation(after)
    unsure = replace(seen.cells[move.dst], confidence=confidence)
    referee.observe(replace(seen, cells={**seen.cells, move.dst: unsure}))
    assert referee.state == before  # nothing applied on an unsure reading
    assert referee.proposal is not None and referee.proposal.actions == (move,)
    assert referee.snapshot()["doubtful"] == [move.dst]
    assert any("unsure of " + move.dst in p.text for p in referee.problems)
    referee.accept("page")  # the players looked and agree
    assert referee.state == after


def test_many_doubtful_places_are_counted_not_all_named(referee: Referee) -> None:
    """A blurred frame doubts every cell: the problem names a few and counts the rest (the
    page lists every one)."""
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 2)
    before = referee.state
    move = next(a for a in referee.rules.legal_actions(before) if isinstance(a, Move) and a.troops)
    after, _ = referee.rules.apply(before, move)
    seen = expected_observation(after)
    unsure = {c: replace(r, confidence=0.7) for c, r in seen.cells.items() if not r.occluded}
    assert len(unsure) > NAMED_DOUBTS
    referee.observe(replace(seen, cells={**seen.cells, **unsure}))
    assert referee.state == before
    assert sorted(referee.snapshot()["doubtful"]) == sorted(unsure)
    text = next(p.text for p in referee.problems if "unsure of" in p.text)
    assert f"unsure of {len(unsure)} places (" in text
    assert f"and {len(unsure) - NAMED_DOUBTS} more)" in text
    named = text.split(" places (")[1].split(" and ")[0].split(", ")
    assert len(named) == NAMED_DOUBTS and set(named) <= set(unsure)


def test_a_move_read_nearly_sure_is_taken(referee: Referee) -> None:
    """An egg whose rim shows almost whole gives its cell 0.9: ruled on like a sure reading."""
    _advance(referee, lambda s: s.phase is Phase.MOVEMENT and s.turn >= 2)
    before = referee.state
    move = next(a for a in referee.rules.legal_actions(before) if isinstance(a, Move) and a.troops)
    after, _ = referee.rules.apply(before, move)
    seen = expected_observation(after)
    nearly = replace(seen.cells[move.dst], confidence=0.9)
    referee.observe(replace(seen, cells={**seen.cells, move.dst: nearly}))
    assert referee.state == after and referee.snapshot()["doubtful"] == []


class _StillCamera:
    """A camera that always sends the same dark frame: the table is still, so it is read."""

    finished = False

    def read(self) -> np.ndarray:
        return np.zeros((8, 8, 3), np.uint8)

    def status(self):
        from companion.inputs.source import SourceStatus

        return SourceStatus("on", "")

    def close(self) -> None:
        """Nothing to let go: the frame is made anew each read."""


def _cell(**reading):
    return lambda d: d["cells"].__setitem__("0,0/c", {"pieces": {"red": {"troops": 2}},
                                                      **reading})


def _pieces(**pieces):
    return lambda d: d["cells"].__setitem__("0,0/c", {"pieces": pieces})


def _tile(**changes):
    return lambda d: d["tiles"][0].update(changes)


@pytest.mark.parametrize("spoil, words", [
    (lambda d: d.__setitem__("tiles", 5), '"tiles" must be a list'),
    (lambda d: d.__setitem__("tiles", None), '"tiles" must be a list'),
    (lambda d: d.__setitem__("warnings", 5), '"warnings" must be a list'),
    (lambda d: d.__setitem__("warnings", "hello"), '"warnings" must be a list'),
    (_tile(q=float("inf")), "tile 0 needs whole-number id, q and r"),
    (_tile(q=10**5000), "tile 0 needs whole-number id, q and r"),
    (_tile(q=0.7), "tile 0 needs whole-number id, q and r"),  # was rounded to 0
    (_tile(q="0"), "tile 0 needs whole-number id, q and r"),
    (_pieces(red={"troops": 10**5000}), "red's troops must be a whole number 0 to 99"),
    (_pieces(red={"troops": 10**9}), "red's troops must be a whole number 0 to 99"),
    (_pieces(**{"": {"troops": 1}}), 'a player is named by a key such as "red"'),
    (_cell(confidence=float("nan")), '"confidence" must be a number from 0 to 1'),
    (_cell(confidence="0.1"), '"confidence" must be a number from 0 to 1'),
    (_cell(confidence=-1), '"confidence" must be a number from 0 to 1'),
    (_cell(supply_center="no"), '"supply_center" must be true or false'),
    (lambda d: d["cells"].__setitem__("1" * 5000 + ",0/c", {}), "is not a cell name"),
])
def test_a_malformed_observation_is_one_clear_refusal_and_the_loop_goes_on(
        referee: Referee, spoil, words: str) -> None:
    """What a reader hands the referee is checked as strictly as Petri's and A Peloponnesian
    War's: a wrong type, a runaway number or an unreadable confidence is the camera's one
    error, never an exception out of the loop's step (a traceback in the log) nor a reading
    taken as certain."""
    data = expected_observation(referee.state).to_dict()
    data["cells"]["0,0/c"] = {"pieces": {"red": {"troops": 1}}}
    spoil(data)
    entries = referee.log.entries(referee.game.id)
    loop = CameraLoop(_StillCamera(), lambda f: referee.bundle.parse_observation(data), referee,
                      still_s=0.0, threshold=255)
    loop.step(0.0)
    loop.step(1.0)  # still for a second: read. Raised TypeError, OverflowError... before
    assert referee.camera.state == "error"
    assert referee.camera.message.startswith("could not read the table: ")
    assert words in referee.camera.message and len(referee.camera.message) < 300
    assert loop.errors == 1 and referee.problems == []
    assert referee.log.entries(referee.game.id) == entries


def _petri_seen():
    from companion.rules.petri.observation import HoleReading, PetriObservation

    return PetriObservation("petri", {"0,0": HoleReading("red")})


def _petri_reading(d: dict) -> None:
    d.clear()
    d.update(_petri_seen().to_dict())


@pytest.mark.parametrize("spoil, message", [
    (_petri_reading, "this observation is for petri; the game in play is peepwar"),
    (lambda d: d.__setitem__("game", "peloponnesian"),
     "this observation is for peloponnesian; the game in play is peepwar"),
    (lambda d: d.__setitem__("game", "z" * 5000),  # cut as every error cuts what it echoes
     f"this observation is for {'z' * 59}…; the game in play is peepwar"),
    (lambda d: d["cells"].__setitem__("3,3/c", {"pieces": {"blue": {"troops": 2}}}),
     "cell 3,3/c is on no tile placed on the table"),
    (lambda d: d["cells"].update({"3,3/c": {"occluded": True}, "-4,1/2": {"occluded": True}}),
     "cell -4,1/2 is on no tile placed on the table (and 1 more)"),
])
def test_a_reading_the_table_cannot_have_is_refused_whole_and_changes_nothing(
        referee: Referee, spoil, message: str) -> None:
    """Another game's reading (a reader left from the game before) and a cell on no tile
    are refused whole: ruled on, the rest of the frame would be taken for all there is (the
    cell left out, the Petri reading an empty Peep War table)."""
    _advance(referee, lambda s: s.phase is Phase.SETUP_SUPPLY)
    data = expected_observation(referee.state).to_dict()
    data["cells"]["0,0/c"] = {"pieces": {"red": {"troops": 1}}}
    spoil(data)
    entries, state = referee.log.entries(referee.game.id), referee.state
    loop = CameraLoop(_StillCamera(), lambda f: referee.bundle.parse_observation(data), referee,
                      still_s=0.0, threshold=255)
    loop.step(0.0)
    loop.step(1.0)
    assert referee.camera.message == f"could not read the table: {message}"
    assert loop.errors == 1 and loop.readings == 0 and loop.last_observation is None
    assert referee.last_observation is None and referee.problems == []
    assert referee.proposal is None and referee.misreads == 0
    assert referee.state == state and referee.log.entries(referee.game.id) == entries


REFUSED = "could not read the table: this observation is for petri; the game in play is peepwar"


def _images(folder: Path, *shades: int | None) -> FolderSource:
    """A folder of small grey photos, one per shade, in order (None: a file that is no image)."""
    for i, shade in enumerate(shades):
        path = folder / f"{i:02d}.png"
        if shade is None:
            path.write_bytes(b"\x89PNG\r\n\x1a\n garbage")
        else:
            cv2.imwrite(str(path), np.full((64, 64, 3), shade, np.uint8))
    return FolderSource(folder)


def _reader(*readings):
    """A reader that reads each still table as the next of ``readings``."""
    left = list(readings)
    return lambda frame: left.pop(0)


def _changes(referee: Referee) -> list[str]:
    """Why the referee told its listeners (the page among them) of each change from now on."""
    reasons: list[str] = []
    referee.on_change(reasons.append)
    return reasons


def test_a_table_not_read_stays_the_cameras_error_until_it_is_read(
        tmp_path: Path, referee: Referee) -> None:
    """The error is why the camera is not reading: it stays shown through frames that show
    nothing new, a file the source cannot read and the same refusal again, and the page is
    told of it once."""
    source = _images(tmp_path, 0, 0, None, 255, 255, 255)
    loop = CameraLoop(source, _reader(_petri_seen(), _petri_seen()), referee, still_s=0.0)
    reasons = _changes(referee)
    loop.step(0.0)
    loop.step(1.0)  # still: read, and refused
    assert referee.camera == SourceStatus("error", REFUSED)
    told = reasons.count("camera")
    loop.step(2.0)  # the source skips a file it cannot read
    assert source.status().message.startswith("skipped 02.png")
    assert referee.camera == SourceStatus("error", REFUSED)
    for t in (3.0, 4.0, 5.0):  # moved, still (read and refused again), nothing new
        loop.step(t)
        assert referee.camera == SourceStatus("error", REFUSED)
    assert loop.errors == 2 and loop.readings == 0
    assert reasons.count("camera") == told


def test_a_reading_accepted_after_an_error_shows_the_source_again(
        tmp_path: Path, referee: Referee) -> None:
    source = _images(tmp_path, 0, 0, 0, 255, 255, 255)
    loop = CameraLoop(source, _reader(_petri_seen(), expected_observation(referee.state)),
                      referee, still_s=0.0)
    for t in (0.0, 1.0, 2.0, 3.0):  # read and refused, nothing new, moved
        loop.step(t)
        assert referee.camera == (SourceStatus("error", REFUSED) if t else source.status())
    assert loop.step(4.0) is not None  # still again: read, and accepted
    assert loop.readings == 1
    assert referee.camera == source.status() == SourceStatus("on", "image 5 of 6: 04.png")
    loop.step(5.0)
    assert referee.camera == SourceStatus("on", "image 6 of 6: 05.png")


def test_a_camera_lost_shows_over_the_error_which_returns_with_the_frames(
        tmp_path: Path, referee: Referee) -> None:
    """The camera's own fault is what the players must fix first; once it sends frames again
    the table is still not read, and the error says so."""
    source, plugged = _pluggable(tmp_path)
    loop = CameraLoop(source, _reader(_petri_seen()), referee, still_s=0.0, threshold=255)
    for i in range(5):  # read (and refused) once, then nothing new
        loop.step(float(i))
        assert referee.camera == (SourceStatus("error", REFUSED) if i else source.status())
    plugged["on"] = False
    for i in (5, 6):  # the "camera" stops sending, then cannot be opened
        loop.step(float(i))
        assert referee.camera == source.status() and referee.camera.state == "lost"
    assert "cannot open the camera" in referee.camera.message
    plugged["on"] = True
    loop.step(7.0)
    assert source.status().state == "on"
    assert referee.camera == SourceStatus("error", REFUSED)


def test_a_new_game_drops_the_games_error_and_reads_the_table_again(referee: Referee) -> None:
    """A reader of Petri while Peep War is in play, and the page starts Petri: the error named
    Peep War as the game in play, and the still table was not read for the new game."""
    petri = _petri_seen()
    loop = CameraLoop(_StillCamera(), _reader(_petri_seen(), petri), referee, still_s=0.0)
    for t in (0.0, 1.0, 2.0):  # read and refused, then nothing new
        loop.step(t)
    assert referee.camera == SourceStatus("error", REFUSED)
    referee.new_game(["red", "blue"], game="petri")
    loop.step(3.0)
    assert referee.camera == SourceStatus("on", "")
    assert loop.readings == 1 and referee.last_observation is petri


def test_a_correction_made_while_a_reading_waits_is_learned_with_the_frame_it_corrects(
        tmp_path: Path, referee: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's request has the referee while the camera thread hands it the next frame's
    reading: the correction is of the reading the page shows, so it is learned with that
    reading's frame, not the next one (here refused: another game's table)."""
    loop = CameraLoop(_images(tmp_path, 0, 0, 255, 255),
                      _reader(expected_observation(referee.state), _petri_seen()), referee,
                      still_s=0.0)
    loop.learn = lambda frame, place, truth: f"{place} in a frame of shade {frame.mean():.0f}"
    referee.on_correction(loop.correction)
    observe = referee.observe

    def page_first(obs):
        if obs.game == "petri":  # the page's correction takes the referee first
            referee.correct({"cell": "0,0/c", "pieces": None})
        return observe(obs)

    monkeypatch.setattr(referee, "observe", page_first)
    for t in range(4):  # the dark table read, moved, the light one read (and refused)
        loop.step(float(t))
    loop.learn_corrections()
    assert list(loop.learned) == ["0,0/c in a frame of shade 0"]
    assert referee.camera == SourceStatus("error", REFUSED)


def test_the_same_fault_every_frame_is_logged_once_and_shown_once(
        tmp_path: Path, referee: Referee, caplog: pytest.LogCaptureFixture) -> None:
    """A view that cannot be drawn fails every frame: one line in the log and one status on
    the page until the table is read again, not a line and two page updates a frame."""
    def annotate(frame, obs):
        raise RuntimeError("no view")

    source = _images(tmp_path, 0, 0, 0, 0)
    loop = CameraLoop(source, _reader(expected_observation(referee.state)), referee, fps=1000,
                      still_s=0.0, annotate=annotate)
    reasons = _changes(referee)
    loop.start()
    assert loop._thread is not None
    loop._thread.join(timeout=10)  # it ends by itself after the last image
    loop.stop()
    assert loop.errors == 4
    assert [r.getMessage() for r in caplog.records].count("camera step failed") == 2
    # on, the error, the reading accepted (on), the error again; then the end of the images
    assert reasons.count("camera") == 5 and referee.camera.state == "ended"


def test_an_observation_object_of_another_game_is_refused_by_the_referee(
        referee: Referee) -> None:
    from companion.observation import BadObservation

    version = referee.version
    with pytest.raises(BadObservation) as refused:
        referee.observe(_petri_seen())
    assert str(refused.value) == "this observation is for petri; the game in play is peepwar"
    assert referee.last_observation is None and referee.version == version


def test_cells_of_a_hex_being_laid_or_of_a_covered_hex_are_read(referee: Referee) -> None:
    """Not refused: in setup the camera may see a hex laid (its cells with it) before the
    game has it, and a hand over a hex of the game hides the hex with its cells."""
    seen = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(4, 1, 0)),
                              cells={"1,0/c": CellReading(occluded=True)})
    assert referee.observe(seen).actions == (PlaceTile("red", 1, 0),)
    covered = PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0),),
                                 cells={"1,0/c": CellReading(occluded=True)})
    assert referee.observe(covered).verdict == "same"


def test_a_correction_of_a_cell_on_no_tile_is_refused_and_changes_nothing(
        referee: Referee) -> None:
    from companion.observation import BadObservation

    version = referee.version
    with pytest.raises(BadObservation, match=r"^cell 1,0/c is on no tile placed on the table$"):
        referee.correct({"cell": "1,0/c", "supply_center": True})
    assert referee.overrides == {} and referee.version == version
    # A hex the camera sees being laid is on the table, before the game has it (its laying
    # waits to be accepted): its cells may be corrected.
    referee.auto_accept = False
    referee.observe(PeepWarObservation("peepwar", tiles=(TileSeen(0, 0, 0), TileSeen(4, 1, 0))))
    assert referee.proposal is not None and (1, 0) not in referee.state.tiles
    assert referee.correct({"cell": "1,0/c", "pieces": None}) == "1,0/c"


def test_a_new_game_of_another_game_forgets_the_last_reading(referee: Referee) -> None:
    """A correction in the new game is ruled on the last reading again: the old game's
    would go to Petri's inference, an error inside and a 500 on the page."""
    referee.observe(expected_observation(referee.state))
    referee.new_game(["red", "blue"], game="petri")
    assert referee.last_observation is None
    assert referee.correct({"hole": "0,0", "player": "red"}) == "0,0"
    assert referee.overrides == {"0,0": referee.bundle.correction(
        referee.rules, referee.state, {"hole": "0,0", "player": "red"})[1]}
