"""The live service on a real port: server-sent events, two browsers, reconnecting, restarts."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.gamelog import GameLog
from companion.rules.peepwar import PeepWar, PlaceTile
from companion.service import Service, ServiceOptions
from tests.log_file import log_rows

# A process told to stop must stop; how fast is the benches' business. On CI's two cores,
# busy with a second test process, a clean shutdown has taken over 10 s.
WAIT_S = 60


def _as_at_a_terminal() -> None:
    """In the child, before the program starts: Ctrl-C as a terminal delivers it. pytest-xdist's
    workers ignore SIGINT, and an ignored signal stays ignored across exec (Python then
    installs no KeyboardInterrupt handler)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _events(port: int, n: int, timeout: float = 10.0) -> list[dict]:
    """The first ``n`` update events a browser would receive."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", "/api/stream")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
    out: list[dict] = []
    while len(out) < n:
        line = resp.fp.readline().decode()
        if line.startswith("data: "):
            out.append(json.loads(line[6:]))
    conn.close()
    return out


def _post(port: int, path: str, body: dict, token: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json",
                                                  "X-Companion-Token": token})
    status = conn.getresponse().status
    conn.close()
    return status


def _token(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/")
    page = conn.getresponse().read().decode()
    return re.search(r'token: "([^"]+)"', page).group(1)


@pytest.fixture
def service(tmp_path: Path):
    svc = Service(ServiceOptions(port=0, log=tmp_path / "g.sqlite", players=["red", "blue"]))
    svc.start()
    yield svc
    svc.stop()


def test_two_browsers_both_receive_each_update_and_a_reconnect_gets_everything(service) -> None:
    import threading

    port = service._server.server_port
    token = _token(port)
    got: dict[str, list[dict]] = {}

    def browser(name: str) -> None:
        got[name] = _events(port, 2)

    threads = [threading.Thread(target=browser, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    time.sleep(0.5)  # both connected and have their first snapshot
    assert _post(port, "/api/command", {"text": "hex 1,0"}, token) == 200
    for t in threads:
        t.join(10)
    for name in ("a", "b"):
        first, second = got[name]
        assert first["state"]["tiles"] == [{"q": 0, "r": 0, "owner": None}]
        assert {"q": 1, "r": 0, "owner": "red"} in second["state"]["tiles"]
        assert "<svg" in second["svg"]
    # A browser that reconnects (or arrives late) starts from the whole current state.
    again = _events(port, 1)[0]
    assert {"q": 1, "r": 0, "owner": "red"} in again["state"]["tiles"]
    assert again["version"] == got["a"][1]["version"]


def test_the_running_service_gives_freed_memory_back_now_and_then_until_stopped(
        tmp_path: Path, monkeypatch) -> None:
    import companion.service as service_module

    trims: list[float] = []
    monkeypatch.setattr(service_module, "TRIM_EVERY_S", 0.05)
    monkeypatch.setattr(service_module, "give_back_freed_memory", lambda: trims.append(1) or True)
    svc = Service(ServiceOptions(port=0, log=tmp_path / "g.sqlite", players=["red", "blue"]))
    svc.start()
    deadline = time.monotonic() + 10
    while len(trims) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    svc.stop()
    assert len(trims) >= 3
    time.sleep(0.3)
    settled = len(trims)
    time.sleep(0.3)
    assert len(trims) == settled  # stopped with the service


def test_the_service_killed_mid_game_restarts_with_everything(tmp_path: Path) -> None:
    log = tmp_path / "games.sqlite"
    cmd = [sys.executable, "-m", "companion", "serve", "--port", "0", "--log", str(log),
           "--players", "red,blue", "--settings", str(tmp_path / "none.toml")]
    (tmp_path / "none.toml").write_text("")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}

    def start() -> tuple[subprocess.Popen, int]:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env, preexec_fn=_as_at_a_terminal)
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line + proc.stderr.read()
        return proc, int(m.group(1))

    proc, port = start()
    token = _token(port)
    for text in ("hex 1,0", "hex -1,0", "hex 1,-1"):
        assert _post(port, "/api/command", {"text": text}, token) == 200
    proc.send_signal(signal.SIGKILL)
    proc.wait(WAIT_S)

    proc, port = start()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/state")
        state = json.loads(conn.getresponse().read())
        owned = {(t["q"], t["r"]): t["owner"] for t in state["state"]["tiles"]}
        assert owned == {(0, 0): None, (1, 0): "red", (-1, 0): "blue", (1, -1): "red"}
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(WAIT_S)


def test_a_failing_input_event_does_not_silence_the_inputs(service) -> None:
    from companion.inputs.events import DEVICE_STATUS, END_TURN, InputEvent

    calls = []
    real = service.referee.handle_input

    def flaky(ev):
        calls.append(ev.kind)
        if len(calls) == 1:
            raise RuntimeError("disk on fire")
        return real(ev)

    service.referee.handle_input = flaky
    service._inputs.put(InputEvent("buttons", END_TURN))
    service._inputs.put(InputEvent("egg", DEVICE_STATUS, {"state": "connected", "message": "ok"}))
    deadline = time.monotonic() + 5
    while "egg" not in service.referee.devices and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(calls) == 2
    assert any("disk on fire" in p.text for p in service.referee.problems)
    assert service.referee.devices["egg"].state == "connected"  # the next event was handled


@pytest.mark.parametrize("port", ["-1", "99999"])
def test_a_bad_port_is_one_clear_line(port: str, tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "companion", "demo", "--port", port,
                             "--no-browser"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "--port must be 0 to 65535" in result.stderr


@pytest.mark.parametrize("text", [
    '{"pieces": [{"id": "X", "kind": "dragon", "connectors": []}]}',
    '{"pieces": [{"id": "X", "kind": "awake", "connectors": 5}]}',  # not iterable: still one line
    "null",
])
def test_a_broken_peltapeeps_catalog_is_one_clear_line(tmp_path: Path, text: str) -> None:
    bad = tmp_path / "my-set.json"
    bad.write_text(text)
    settings = tmp_path / "settings.toml"
    settings.write_text("")  # the defaults, not this machine's settings
    result = subprocess.run([sys.executable, "-m", "companion", "serve", "--port", "0",
                             "--log", str(tmp_path / "g.sqlite"), "--settings",
                             str(settings), "--score-catalog", str(bad)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0
    assert "the PeltaPeeps catalog for the score-sheet page" in result.stderr
    assert "my-set.json" in result.stderr
    assert not (tmp_path / "g.sqlite").exists()  # refused before a game was made


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_the_demo_keeps_its_game_however_it_is_stopped(sig, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_DATA_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", "0",
                             "--no-browser", "--no-camera", "--step", "0.05"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_as_at_a_terminal)
    banner = [proc.stdout.readline() for _ in range(3)]
    log = tmp_path / "table-companion" / "demo.sqlite"
    assert any(str(log) in line for line in banner), banner
    time.sleep(1.5)  # some table actions
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=WAIT_S)
    assert proc.returncode == 0, err
    assert f"the demo game is kept as game 1 in {log}" in out
    assert "Traceback" not in err
    replay = subprocess.run([sys.executable, "-m", "companion", "replay", "--log", str(log)],
                            capture_output=True, text=True, env=env, timeout=60)
    assert replay.returncode == 0 and replay.stdout.count("#") >= 3


@pytest.mark.parametrize(("refusal", "says"), [
    ("empty-folder", "holds no images"),
    ("random-bytes.png", "not a webcam index, device, URL, video file or folder"),
    ("host", "cannot listen on 999.1.1.1"),
    ("profile-without-egg", "has no egg colours"),
    ("profile-a-list", "is not a colour profile (it holds a list"),
    ("profile-null", "is not a colour profile (it holds null"),
    ("profile-nested-deep", "is not valid JSON"),
])
def test_a_refused_serve_leaves_the_log_as_it_was(tmp_path: Path, capsys, refusal: str,
                                                  says: str) -> None:
    from companion.cli import main

    log = tmp_path / "g.sqlite"
    with GameLog(log) as games:
        games.new_game(PeepWar(players=("red", "blue"))).play(PlaceTile("red", 1, 0))
    before = log_rows(log)
    settings = tmp_path / "settings.toml"
    settings.write_text("")  # the defaults, not this machine's settings
    (tmp_path / "empty-folder").mkdir()
    (tmp_path / "random-bytes.png").write_bytes(os.urandom(2000))
    profiles = {"profile-without-egg": "{}", "profile-a-list": "[1]", "profile-null": "null",
                "profile-nested-deep": "[" * 100_000 + "]" * 100_000}
    for name, text in profiles.items():
        (tmp_path / f"{name}.json").write_text(text)
    if refusal in profiles:
        given = ["--egg", os.devnull, "--profile", str(tmp_path / f"{refusal}.json")]
    elif refusal == "host":
        given = ["--host", "999.1.1.1"]
    else:
        given = ["--camera", str(tmp_path / refusal)]
    capsys.readouterr()
    assert main(["serve", "--new", "--log", str(log), "--port", "0", "--settings",
                 str(settings), *given]) == 2
    err = capsys.readouterr().err
    assert err.startswith("companion serve: error: ") and err.count("\n") == 1
    assert says in err
    assert log_rows(log) == before  # no new, empty game; the game there untouched


def test_a_service_stopped_before_it_started_lets_its_socket_go(tmp_path: Path) -> None:
    from companion.service import listen_for_page

    sock = listen_for_page("127.0.0.1", 0)
    service = Service(ServiceOptions(port=0, log=tmp_path / "g.sqlite", new_game=True), sock)
    service.stop()
    assert sock.fileno() == -1


def test_a_part_failing_before_serve_starts_closes_the_socket_and_the_log(
        tmp_path: Path, capsys, monkeypatch) -> None:
    # Whatever fails between the service and its start (the camera loop, egg or buttons),
    # the port and the game log are let go: the error is the program's last word.
    import companion.service as service_module
    from companion.cli import main
    from companion.inputs.buttons import ButtonPanel

    settings = tmp_path / "settings.toml"
    settings.write_text("")
    socks: list[socket.socket] = []
    listen = service_module.listen_for_page
    monkeypatch.setattr(service_module, "listen_for_page",
                        lambda host, port: socks.append(listen(host, port)) or socks[-1])
    stopped: list[Service] = []
    stop = Service.stop
    monkeypatch.setattr(Service, "stop", lambda self: (stopped.append(self), stop(self)))

    def no_panel(pins):
        raise RuntimeError("the GPIO chip is gone")

    monkeypatch.setattr(ButtonPanel, "open", staticmethod(no_panel))
    with pytest.raises(RuntimeError, match="the GPIO chip is gone"):
        main(["serve", "--new", "--log", str(tmp_path / "g.sqlite"), "--port", "0",
              "--settings", str(settings), "--buttons"])
    assert len(socks) == 1 and socks[0].fileno() == -1
    assert len(stopped) == 1
    with pytest.raises(sqlite3.ProgrammingError):  # the log is closed
        stopped[0].log._db.execute("SELECT 1")


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return s.getsockname()[1]


def test_a_port_taken_while_serve_makes_the_game_leaves_no_empty_game(tmp_path: Path, capsys,
                                                                      monkeypatch) -> None:
    # The port is held from the check on, so another program cannot take it between the
    # check and the listening: had it been let go, a port taken in between would leave a
    # new, empty "in progress" game in the log.
    import companion.service as service_module
    from companion.cli import main

    log, port = tmp_path / "g.sqlite", _free_port()
    settings = tmp_path / "settings.toml"
    settings.write_text("")  # the defaults, not this machine's settings
    rival: list[socket.socket | OSError] = []
    make_game = Service._game

    def made_then_rival(self):  # another program tries for the port once the game is made
        game = make_game(self)
        try:
            rival.append(socket.create_server(("127.0.0.1", port)))
        except OSError as e:
            rival.append(e)
        return game

    served: list[int] = []
    monkeypatch.setattr(Service, "_game", made_then_rival)
    monkeypatch.setattr(service_module, "run_until_interrupted",
                        lambda stop, seconds=None: (served.append(1), stop()))
    assert main(["serve", "--new", "--log", str(log), "--port", str(port), "--settings",
                 str(settings)]) == 0, capsys.readouterr().err
    assert isinstance(rival[0], OSError) and served == [1]
    assert f"http://127.0.0.1:{port}/" in capsys.readouterr().out
    db = sqlite3.connect(log)
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)  # the one served
    db.close()

    # A port already taken before serve starts: one line, and no game made.
    with GameLog(log) as games:
        games.new_game(PeepWar(players=("red", "blue")))
    before = log_rows(log)
    with socket.create_server(("127.0.0.1", port)):
        assert main(["serve", "--new", "--log", str(log), "--port", str(port), "--settings",
                     str(settings)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion serve: error: cannot listen on 127.0.0.1:{port} ")
    assert err.count("\n") == 1
    assert log_rows(log) == before


def test_a_profile_given_without_camera_or_egg_is_said_to_be_unread(tmp_path: Path) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("")  # the defaults: no camera, no egg
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--port", "0", "--new",
                             "--log", str(tmp_path / "g.sqlite"), "--settings", str(settings),
                             "--profile", str(tmp_path / "no-such-profile.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_as_at_a_terminal)
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Stop with Ctrl-C"):
                break
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(WAIT_S)
    said = [line for line in lines if "--profile" in line]
    assert len(said) == 1 and "was not read" in said[0] and "--camera or --egg" in said[0], lines


@pytest.mark.parametrize(("given", "says"), [
    (["--players", "a,b"], "is unfinished, with red, blue: add --new to start a game with a, b, "
                           "or leave out --players to go on with it"),
    (["--edition", "2001"], "is unfinished, with edition 2005: add --new to start a game with "
                            "edition 2001, or leave out --edition to go on with it"),
    (["--players", "red,blue,green", "--edition", "2001"],
     "is unfinished, with red, blue and edition 2005: add --new to start a game with red, "
     "blue, green and edition 2001, or leave out --players and --edition to go on with it"),
])
def test_serve_refuses_to_resume_an_unfinished_game_with_other_choices(
        tmp_path: Path, given: list[str], says: str) -> None:
    # Resumed, the choices given would be dropped without a word: refused, the log untouched.
    log = tmp_path / "g.sqlite"
    with GameLog(log) as games:
        games.new_game(PeepWar(players=("red", "blue"), edition=2005)).play(
            PlaceTile("red", 1, 0))
    before = log_rows(log)
    settings = tmp_path / "settings.toml"
    settings.write_text("")  # the defaults, not this machine's settings
    result = subprocess.run([sys.executable, "-m", "companion", "serve", "--port", "0",
                             "--log", str(log), "--settings", str(settings), *given],
                            capture_output=True, text=True, timeout=WAIT_S)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert result.stderr == f"companion serve: error: game 1 in {log} {says}\n"
    assert log_rows(log) == before


@pytest.mark.parametrize("given", [[], ["--players", "red,blue"], ["--edition", "2005"],
                                   ["--players", "red,blue", "--edition", "2005"]])
def test_serve_resumes_an_unfinished_game_given_its_own_choices_or_none(
        tmp_path: Path, capsys, monkeypatch, given: list[str]) -> None:
    import companion.service as service_module
    from companion.cli import main

    log = tmp_path / "g.sqlite"
    with GameLog(log) as games:
        games.new_game(PeepWar(players=("red", "blue"), edition=2005)).play(
            PlaceTile("red", 1, 0))
    settings = tmp_path / "settings.toml"
    settings.write_text("")
    served: list[int] = []
    monkeypatch.setattr(service_module, "run_until_interrupted",
                        lambda stop, seconds=None: (served.append(1), stop()))
    assert main(["serve", "--port", "0", "--log", str(log), "--settings", str(settings),
                 *given]) == 0, capsys.readouterr().err
    assert served == [1]
    assert f"Game 1 is logged in {log}" in capsys.readouterr().out
    db = sqlite3.connect(log)
    assert db.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)  # resumed, none made
    db.close()
    # --new starts a game with other choices beside it.
    assert main(["serve", "--port", "0", "--log", str(log), "--settings", str(settings),
                 "--new", "--players", "a,b"]) == 0
    assert "Game 2 is logged" in capsys.readouterr().out


def _serve_a_while(tmp_path: Path, extra: list[str], seconds: float) -> str:
    """``companion serve`` with ``extra`` arguments for ``seconds`` once it serves (it must
    still be serving then), stopped with Ctrl-C: what it wrote to stderr."""
    settings = tmp_path / "settings.toml"
    settings.write_text("")
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--port", "0", "--new",
                             "--log", str(tmp_path / "g.sqlite"), "--settings", str(settings),
                             *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_as_at_a_terminal)
    try:
        for line in proc.stdout:
            if line.startswith("Stop with Ctrl-C"):
                break
        time.sleep(seconds)
        assert proc.poll() is None  # still serving: the device may be plugged in yet
    finally:
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=WAIT_S)[1]
    return err


def test_serve_says_once_why_the_egg_is_not_connected_and_keeps_serving(tmp_path: Path) -> None:
    port = tmp_path / "ttyNOEGG"
    err = _serve_a_while(tmp_path, ["--egg", str(port)], 2.5)  # retries at 0.5, 1.5 s, ...
    said = [line for line in err.splitlines() if "egg" in line]
    assert said == [f"companion serve: the egg is not connected (cannot open the egg's port "
                    f"{port}: No such file or directory); still trying"], err


def test_serve_says_once_that_the_camera_cannot_be_opened_and_keeps_serving(
        tmp_path: Path) -> None:
    # No such webcam; it is tried again every 2 s.
    err = _serve_a_while(tmp_path, ["--camera", "99"], 4.5)
    said = [line for line in err.splitlines() if line.startswith("companion serve:")]
    assert said == ["companion serve: cannot open the camera 99; retrying every 2 s"], err
