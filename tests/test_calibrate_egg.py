"""``companion calibrate-egg`` end to end: the command in its own process, the firmware on a pty.

The test plays the person at the table: it reads the command's prompts and
puts the asked-for bean at the simulated colour sensor's mouth, then takes it
out once the command has echoed the reading.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from companion.cli import main
from companion.cli.calibrate_egg import write_profile
from companion.errors import UserError
from companion.inputs.egg import EggLink
from companion.inputs.egg_colours import egg_colours_from_profile

REPO = Path(__file__).resolve().parents[1]
for _path in (REPO / "firmware", Path(__file__).parent / "fakes"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from eggrig import EggRig, EventLog  # noqa: E402  (needs the MicroPython stand-ins on sys.path)

RED = (0.55, 0.25, 0.22)
BLUE = (0.20, 0.32, 0.50)
PINK = (0.56, 0.25, 0.21)  # 0.014 from RED: the sensor cannot tell them apart
PROMPT = re.compile(r"Put one (\w+) bean in the egg's mouth")
ECHO = re.compile(r"(\w+): r/c ")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[EggRig]:
    with EggRig(tmp_path / "egg") as r:  # beats once a second, as shipped: 3 s to call it lost
        yield r


def calibrate(rig: EggRig, profile: Path, players: str, beans: Mapping[str, tuple],
              *options: str) -> tuple[int, str, str]:
    """Run calibrate-egg, putting each prompted player's bean at the mouth; (code, out, err)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion", "calibrate-egg", "--port", str(rig.port),
         "--players", players, "--profile", str(profile), *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    watchdog = threading.Timer(40, proc.kill)
    watchdog.start()
    out = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            out.append(line)
            if asked := PROMPT.match(line):
                rig.colour.put_bean(beans[asked[1]])
            elif ECHO.match(line):
                rig.colour.take_bean()
                time.sleep(0.2)  # gone long enough for the egg to see the mouth empty
        assert proc.stderr is not None
        err = proc.stderr.read()
        return proc.wait(), "".join(out), err
    finally:
        watchdog.cancel()


def test_the_references_are_written_and_the_rest_of_the_profile_kept(rig, tmp_path) -> None:
    profile = tmp_path / "profile.json"
    before = {"version": 1, "players": ["red", "blue"], "colours": {"red": {"bean": [1]}},
              "camera": {"fx": 900.0}, "notes": ["from calibrate"]}
    profile.write_text(json.dumps(before))
    code, out, err = calibrate(rig, profile, "red,blue", {"red": RED, "blue": BLUE},
                               "--samples", "2")
    assert code == 0, err
    assert [m[1] for m in PROMPT.finditer(out)] == ["red", "red", "blue", "blue"]
    assert "(bean 2 of 2)" in out
    assert out.strip().endswith(f"egg colours of red, blue written to {profile} (the rest of "
                                "the profile kept)")
    after = json.loads(profile.read_text())
    assert {k: v for k, v in after.items() if k != "egg"} == before
    refs = after["egg"]["players"]
    for got, want in ((refs["red"], RED), (refs["blue"], BLUE)):
        assert all(abs(g - w) < 0.01 for g, w in zip(got, want, strict=True)), (got, want)

    # and now the egg tells whose bean it is, instead of "enter the draw on the page"
    events = EventLog()
    link = EggLink(str(rig.port), colours=egg_colours_from_profile(after), read_timeout=0.02)
    link.start(events.put)
    try:
        events.wait("device_status", where=lambda e: e.data["state"] == "connected")
        time.sleep(0.3)
        rig.colour.put_bean(BLUE)
        bean = events.wait("bean")
        assert bean.data["player"] == "blue" and bean.data["confidence"] > 0.5
    finally:
        link.stop()


def test_a_missing_profile_is_made(rig, tmp_path) -> None:
    profile = tmp_path / "new.json"
    code, _, err = calibrate(rig, profile, "red,blue", {"red": RED, "blue": BLUE})
    assert code == 0, err
    data = json.loads(profile.read_text())
    assert data["version"] == 1 and data["players"] == ["red", "blue"]
    assert set(egg_colours_from_profile(data).players) == {"red", "blue"}


def test_beans_the_sensor_cannot_tell_apart_are_refused(rig, tmp_path) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text('{"version": 1, "players": [], "colours": {}}\n')
    code, out, err = calibrate(rig, profile, "red,pink,blue",
                               {"red": RED, "pink": PINK, "blue": BLUE})
    assert code == 2
    assert "Traceback" not in err
    assert err.startswith("companion calibrate-egg: error: red and pink beans look alike to the "
                          "egg's sensor: their colours differ by 0.01")
    assert "telling them apart needs 0.030. Give one of these players beans of a clearly " \
           "different colour" in err
    assert profile.read_text() == '{"version": 1, "players": [], "colours": {}}\n'  # untouched


def test_an_egg_without_a_colour_sensor_is_refused(tmp_path) -> None:
    with EggRig(tmp_path / "egg", HEARTBEAT_MS=100, colour=False) as rig:
        code, _, err = calibrate(rig, tmp_path / "p.json", "red", {})
    assert code == 2
    assert "the egg has no working colour sensor (it has lis3dh+button+led): check the " \
           "TCS34725's wiring" in err
    assert not (tmp_path / "p.json").exists()


def test_no_egg_found_says_how_to_name_its_port(tmp_path, monkeypatch, capsys) -> None:
    import serial.tools.list_ports

    from companion.cli import calibrate_egg

    monkeypatch.setattr(serial.tools.list_ports, "comports", list)
    monkeypatch.setattr(calibrate_egg, "CONNECT_TIMEOUT", 0.5)
    code = main(["calibrate-egg", "--port", "auto", "--players", "red,blue",
                 "--profile", str(tmp_path / "p.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().endswith("error: the egg did not answer within 0.5 s: no egg found "
                                "(looking for USB id 2E8A:0005): plug it in, or name its port "
                                "with --port PORT")


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ("{not json", "is not valid JSON"),
        ('{"version": 7}', "is not a version 1 colour profile"),
    ],
)
def test_a_bad_profile_is_refused_before_any_bean_is_asked_for(tmp_path, capsys, content,
                                                               why) -> None:
    profile = tmp_path / "p.json"
    profile.write_text(content)
    assert main(["calibrate-egg", "--port", str(tmp_path / "nothing"), "--players", "red",
                 "--profile", str(profile)]) == 2
    assert why in capsys.readouterr().err
    assert profile.read_text() == content


@pytest.mark.parametrize("timeout", ["nan", "inf", "-inf", "0", "-5", "1e9", "soon"])
def test_a_timeout_that_is_no_wait_is_an_argparse_error(tmp_path, capsys, timeout) -> None:
    # Taken, nan and inf would make each bean's wait never end, or overflow.
    profile = tmp_path / "p.json"
    with pytest.raises(SystemExit) as stop:
        main(["calibrate-egg", "--port", str(tmp_path / "nothing"), "--players", "red",
              "--profile", str(profile), f"--timeout={timeout}"])  # '-inf' is no flag
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (
        "companion calibrate-egg: error: argument --timeout: must be a number of seconds "
        f"above 0 and at most 604800 (a week), not {timeout!r}")
    assert "Traceback" not in err and not profile.exists()


def test_a_finite_timeout_is_taken(tmp_path, capsys, monkeypatch) -> None:
    # Gets past the options to the missing egg: the timeout itself was accepted. (The wait
    # for the egg's hello is cut short: that is not what is tested.)
    from companion.cli import calibrate_egg

    monkeypatch.setattr(calibrate_egg, "CONNECT_TIMEOUT", 0.3)
    assert main(["calibrate-egg", "--port", str(tmp_path / "nothing"), "--players", "red",
                 "--profile", str(tmp_path / "p.json"), "--timeout", "0.5"]) == 2
    assert "--timeout" not in capsys.readouterr().err


@pytest.mark.parametrize(("kind", "why"), [
    ("big", "is too large to be a calibration profile (more than 16 MB)"),
    ("zero", "is too large to be a calibration profile (more than 16 MB)"),
    ("latin-1", "is not a colour profile (not text)"),
])
def test_a_profile_too_large_or_not_text_is_one_line_before_any_bean(tmp_path, capsys, kind,
                                                                     why) -> None:
    # /dev/zero as the --profile never ends: it is refused at the ceiling.
    profile = Path("/dev/zero") if kind == "zero" else tmp_path / "p.json"
    if kind == "big":
        profile.write_text(" " * 16_000_001 + '{"version": 1, "players": [], "colours": {}}')
    elif kind == "latin-1":
        profile.write_bytes('{"notes": "caf\xe9"}'.encode("latin-1"))
    assert main(["calibrate-egg", "--port", str(tmp_path / "nothing"), "--players", "red",
                 "--profile", str(profile)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"companion calibrate-egg: error: profile {profile} {why}")


def test_a_profile_whose_name_is_as_long_as_the_system_allows_is_written(tmp_path) -> None:
    # It went first to its name with ".tmp" added: past 255 bytes, so a profile whose name
    # is 252-255 bytes long was refused ("File name too long").
    profile = tmp_path / ("p" * 250 + ".json")
    write_profile(profile, {"version": 1, "egg": {}})
    assert json.loads(profile.read_text(encoding="utf-8")) == {"version": 1, "egg": {}}
    assert [p.name for p in tmp_path.iterdir()] == [profile.name]


def test_a_profile_that_cannot_be_put_in_place_leaves_nothing_beside_it(tmp_path) -> None:
    # The profile's place is taken by a folder: the file written first beside it is removed,
    # the folder kept, and the error is one line with the path cut.
    taken = tmp_path / ("d" * 250)
    (taken / "inside").mkdir(parents=True)
    with pytest.raises(UserError) as e:
        write_profile(taken, {"version": 1})
    line = str(e.value)
    assert line.startswith("profile ") and "… cannot be written (" in line, line
    assert "\n" not in line and len(line) < 300, line
    assert [p.name for p in tmp_path.iterdir()] == [taken.name]
    assert [p.name for p in taken.iterdir()] == ["inside"]


@pytest.mark.parametrize(("kind", "why"), [
    ("missing", "No such file or directory"),
    ("folder", "Is a directory"),
    ("plain-file", "it is not a serial port"),
])
def test_a_port_that_cannot_open_is_refused_at_once(tmp_path, capsys, kind, why) -> None:
    # Waiting the whole connect time for a path that is no serial device helps nobody.
    port = tmp_path / kind
    if kind == "folder":
        port.mkdir()
    elif kind == "plain-file":
        port.write_text("not a tty\n")
    begun = time.monotonic()
    assert main(["calibrate-egg", "--port", str(port), "--players", "red,blue",
                 "--profile", str(tmp_path / "p.json")]) == 2
    assert time.monotonic() - begun < 5  # the connect time is 10 s
    assert capsys.readouterr().err == (
        f"companion calibrate-egg: error: cannot open the egg's port {port}: {why}; plug the "
        "egg in and check --port, or give --port auto to find it by its USB id\n")
    assert not (tmp_path / "p.json").exists()


def test_a_port_that_opens_but_stays_silent_is_waited_for(tmp_path, capsys, monkeypatch) -> None:
    from companion.cli import calibrate_egg

    master, slave = os.openpty()  # a serial device with nothing at its other end
    monkeypatch.setattr(calibrate_egg, "CONNECT_TIMEOUT", 1.5)
    try:
        begun = time.monotonic()
        port = os.ttyname(slave)
        assert main(["calibrate-egg", "--port", port, "--players", "red",
                     "--profile", str(tmp_path / "p.json")]) == 2
        assert time.monotonic() - begun >= 1.5
    finally:
        os.close(slave)
        os.close(master)
    assert capsys.readouterr().err == (
        "companion calibrate-egg: error: the egg did not answer within 1.5 s: waiting for the "
        f"egg on {port} to say hello\n")
    assert not (tmp_path / "p.json").exists()
