"""The demo's rendered camera: the scripted table photographed, read back, and streamed."""

from __future__ import annotations

from companion.demo_camera import RenderedCamera
from companion.demo_table import ScriptedTable
from companion.referee import Referee
from web.app import create_app


def test_rendered_table_is_read_ruled_on_and_streamed(peepwar_referee: Referee) -> None:
    referee, log = peepwar_referee, peepwar_referee.log
    camera = RenderedCamera(referee, ["red", "blue"], seed=3)
    table = ScriptedTable(referee, seed=3, show=camera.show)
    for _ in range(14):  # the whole setup: hexes and Supply Centers
        table.step()
    assert camera.frames >= 10
    assert referee.state.turn >= 1
    sources = {e["source"] for e in log.entries(referee.game.id)}
    assert "camera" in sources  # placements came from reading the rendered photos
    assert referee.snapshot()["camera"]["state"] == "on"

    resp = create_app(referee, camera=camera).test_client().get("/video.mjpg",
                                                               buffered=False)
    first = next(iter(resp.response))
    resp.close()
    assert first.startswith(b"--frame\r\nContent-Type: image/jpeg")
    assert b"\xff\xd8" in first  # a JPEG's start
