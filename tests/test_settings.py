"""The settings file: documented defaults, clear errors for bad values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.errors import UserError
from companion.settings import DEFAULT_TEXT, Settings, load_settings, write_default


def test_the_documented_default_loads_to_the_defaults(tmp_path: Path) -> None:
    path = write_default(tmp_path / "settings.toml")
    loaded = load_settings(path)
    assert loaded.host == Settings().host and loaded.port == Settings().port
    assert loaded.buttons["end_turn"] == 17
    # Every option is documented with a comment above it.
    for line in DEFAULT_TEXT.splitlines():
        if "=" in line and not line.startswith("#"):
            above = DEFAULT_TEXT.split(line)[0].rstrip().splitlines()[-1]
            assert above.startswith("#") or above.startswith("[") or "=" in above


def test_values_are_read_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[server]\nport = 9000\n[camera]\nsource = "0"\nstable_seconds = 2\n')
    s = load_settings(path)
    assert (s.port, s.camera, s.stable_seconds) == (9000, "0", 2.0)
    for text, message in [
        ("[server]\nport = 'x'\n", "port must be int"),
        ("[server]\nport = 70000\n", "port must be 1-65535"),
        ("[camera]\nzoom = 2\n", "unknown setting zoom"),
        ("[lights]\non = true\n", "unknown section"),
        ("[buttons]\nundo = 99\n", "BCM pin"),
        ("[server\n", "not valid TOML"),
    ]:
        path.write_text(text)
        with pytest.raises(UserError, match=message):
            load_settings(path)


def test_write_default_never_overwrites(tmp_path: Path) -> None:
    path = write_default(tmp_path / "s.toml")
    with pytest.raises(UserError, match="exists already"):
        write_default(path)


def test_settings_command(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    run = [sys.executable, "-m", "companion", "settings", "--file", str(path)]
    init = subprocess.run([*run, "--init"], capture_output=True, text=True, timeout=60)
    assert init.returncode == 0 and path.exists()
    shown = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert "port = 8080" in shown.stdout
    path.write_bytes(b"\xff\xfe not text")
    bad = subprocess.run(run, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a text file" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.parametrize("nest", [("[", "]"), ("{b = ", "}")], ids=["arrays", "tables"])
def test_a_file_nested_too_deeply_is_one_line(tmp_path: Path, capsys, nest) -> None:
    # tomllib recurses per level: thousands deep is a RecursionError, said as one line.
    path = tmp_path / "deep.toml"
    path.write_text("a = " + nest[0] * 5000 + nest[1] * 5000 + "\n")
    assert main(["settings", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"companion settings: error: {path} is not valid TOML (arrays or "
                           "tables nested too deeply); fix it or delete it")


RUNAWAY = "x" * 5000


@pytest.mark.parametrize("text", [
    f"[{RUNAWAY}]\na = 1\n",  # an unknown section
    f"[server]\n{RUNAWAY} = 1\n",  # an unknown setting
    f"[buttons]\n{RUNAWAY} = 99\n",  # a button on no pin
    f'[buttons]\n{RUNAWAY} = 5\n{"y" * 5000} = 5\n',  # two buttons on one pin
    f'[server]\nport = "{RUNAWAY}"\n',  # text where a number belongs
    f"[camera]\nfps = {'9' * 4000}\n",  # a number out of range
    f'[server]\nhost = "{" " * 5000}"\n',  # no address
    f'server = "{RUNAWAY}"\n',  # a value where a table belongs
    f"server = [{', '.join(['1'] * 2500)}]\n",
    f"server = {'9' * 4000}\n",
])
def test_a_runaway_value_in_the_settings_file_is_quoted_cut(tmp_path: Path, capsys,
                                                            text: str) -> None:
    # It was repeated whole: a line of thousands of characters.
    path = tmp_path / "s.toml"
    path.write_text(text)
    assert main(["settings", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion settings: error: {path}: ") and err.count("\n") == 1
    assert len(err.replace(str(path), "")) < 250 and "…" in err, err


def test_a_number_too_long_to_read_is_one_line(tmp_path: Path, capsys) -> None:
    # tomllib's int() refused it in Python's words, ending the command on a traceback.
    path = tmp_path / "long.toml"
    path.write_text("[web]\nport = " + "9" * 5000 + "\n")
    assert main(["settings", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (f"companion settings: error: {path} is not valid TOML (it holds a number "
                   "too long to read); fix it or delete it\n")


@pytest.mark.parametrize(("key", "value", "allowed"), [
    ("fps", "nan", "0.1 to 120 frames per second"),
    ("fps", "inf", "0.1 to 120 frames per second"),
    ("fps", "0", "0.1 to 120 frames per second"),
    ("stable_seconds", "-inf", "above 0 and at most 60 seconds"),
    ("stable_seconds", "nan", "above 0 and at most 60 seconds"),
    ("stable_seconds", "0", "above 0 and at most 60 seconds"),
    ("motion_threshold", "-1.0", "above 0 and at most 255"),
    ("motion_threshold", "nan", "above 0 and at most 255"),
    ("motion_threshold", "256", "above 0 and at most 255"),
])
def test_impossible_camera_numbers_are_refused(tmp_path: Path, capsys, key, value,
                                               allowed) -> None:
    # Each of these, if accepted, would leave the camera loop spinning with no pause (fps)
    # or never reading the table (the others), with no message.
    path = tmp_path / "s.toml"
    path.write_text(f"[camera]\n{key} = {value}\n")
    assert main(["settings", "--file", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"companion settings: error: {path}: [camera] {key} "
                                        f"must be {allowed}")
    assert len(err.strip().splitlines()) == 1


def test_camera_numbers_at_the_ends_of_their_ranges_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text("[camera]\nfps = 0.1\nstable_seconds = 60\nmotion_threshold = 255\n")
    s = load_settings(path)
    assert (s.fps, s.stable_seconds, s.motion_threshold) == (0.1, 60.0, 255.0)
    path.write_text("[camera]\nfps = 120\nstable_seconds = 0.01\nmotion_threshold = 0.5\n")
    s = load_settings(path)
    assert (s.fps, s.stable_seconds, s.motion_threshold) == (120.0, 0.01, 0.5)


@pytest.mark.parametrize(("text", "what"), [
    ("server = [1, 2]\n", "an array ([1, 2])"),
    ('server = "x"\n', "text ('x')"),
    ("[[server]]\nport = 9000\n", "an array of tables ([[server]])"),
    ("buttons = 3\n", "a number (3)"),
])
def test_a_known_section_written_as_a_value_says_it_must_be_a_table(
        tmp_path: Path, capsys, text: str, what: str) -> None:
    # These were called "unknown section [server]" while the list of known ones named it.
    path = tmp_path / "s.toml"
    path.write_text(text)
    assert main(["settings", "--file", str(path)]) == 2
    out, err = capsys.readouterr()
    section = "buttons" if text.startswith("buttons") else "server"
    assert out == "" and err.startswith(
        f"companion settings: error: {path}: [{section}] must be a table of settings ")
    assert err.rstrip().endswith(f"not {what}") and "unknown section" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("host", ['""', '"   "'])
def test_an_empty_host_is_refused_not_printed_as_a_broken_address(tmp_path: Path, capsys,
                                                                  host: str) -> None:
    # Once taken, and the page's address printed as http://:PORT/.
    path = tmp_path / "s.toml"
    path.write_text(f"[server]\nhost = {host}\n")
    assert main(["settings", "--file", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(
        f"companion settings: error: {path}: [server] host must be an address to listen on")
    assert len(err.strip().splitlines()) == 1


def test_two_buttons_on_one_pin_are_refused_naming_both(tmp_path: Path, capsys) -> None:
    path = tmp_path / "s.toml"
    path.write_text("[buttons]\nenabled = true\nend_turn = 17\nundo = 17\n")
    assert main(["settings", "--file", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == (f"companion settings: error: {path}: [buttons] "
                                         "end_turn and undo are both on GPIO17: give each its "
                                         "own pin")
    path.write_text("[buttons]\nend_turn = 17\nundo = 18\n")
    assert load_settings(path).buttons == {"end_turn": 17, "undo": 18}


@pytest.mark.parametrize("command", ["settings", "serve"])
def test_a_button_on_another_buttons_default_pin_is_refused_naming_the_file(
        tmp_path: Path, capsys, command: str) -> None:
    # end_turn keeps GPIO17 when the file leaves it out: 'draw = 17' put two buttons on one
    # pin, shown as fine by 'companion settings' and refused by serve --buttons without
    # naming the file.
    path = tmp_path / "s.toml"
    path.write_text("[buttons]\nenabled = true\ndraw = 17\n")
    args = (["settings", "--file", str(path)] if command == "settings" else
            ["serve", "--settings", str(path), "--log", str(tmp_path / "g.sqlite")])
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"companion {command}: error: {path}: [buttons] end_turn "
                                 "(not set: its default) and draw are both on GPIO17: give "
                                 "each its own pin\n")
    assert not (tmp_path / "g.sqlite").exists()
    path.write_text("[buttons]\nled_waiting = 27\nundo = 4\n")  # undo's default, moved
    assert load_settings(path).buttons == {"led_waiting": 27, "undo": 4}


def test_the_settings_command_loads_no_gpiozero(tmp_path: Path) -> None:
    # The default pins are read to check the file, without the library behind the buttons.
    path = tmp_path / "s.toml"
    write_default(path)
    code = ("import sys; from companion.cli import main; "
            f"r = main(['settings', '--file', {str(path)!r}]); "
            "print('gpiozero' in sys.modules, r)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60)
    assert r.stdout.strip().splitlines()[-1] == "False 0", r.stderr[-2000:]


def test_the_documented_default_pins_are_the_panels_defaults(tmp_path: Path) -> None:
    from companion.inputs.pins import default_pins

    assert load_settings(write_default(tmp_path / "s.toml")).buttons == default_pins()


@pytest.mark.parametrize("kind", ["big", "zero"])
def test_a_settings_file_past_the_size_cap_is_one_line(tmp_path: Path, capsys, kind) -> None:
    # Valid TOML after the blank lines, so only the size can refuse it; /dev/zero as the
    # settings file, which never ends, is refused at the ceiling before memory runs out.
    if kind == "big":
        path = tmp_path / "big.toml"
        path.write_text("\n" * 1_000_001 + DEFAULT_TEXT)
    else:
        path = Path("/dev/zero")
    assert main(["settings", "--file", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (f"companion settings: error: {path} is too large to be a "
                                 "settings file (more than 1 MB)\n")


def test_a_settings_file_is_read_as_utf8_whatever_the_locale(tmp_path: Path, capsys) -> None:
    # TOML is UTF-8: a file written on one machine reads the same on another, even one whose
    # locale is plain ASCII (where open()'s default would refuse "café").
    path = tmp_path / "s.toml"
    path.write_text('[game]\nlog = "café.sqlite"\n', encoding="utf-8")
    code = ("import locale, sys; from pathlib import Path; "
            "from companion.settings import load_settings; "
            "log = load_settings(Path(sys.argv[1])).log; "
            "print(locale.getpreferredencoding(False), ascii(log))")
    ascii_locale = {**os.environ, "LC_ALL": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0",
                    "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    shown = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                           text=True, timeout=60, env=ascii_locale)
    assert shown.stdout == "ANSI_X3.4-1968 'caf\\xe9.sqlite'\n", shown.stderr
    # And bytes that are not UTF-8 are one line, not a guess at another encoding.
    path.write_bytes(b'[server]\nhost = "\xff"\n')
    assert main(["settings", "--file", str(path)]) == 2
    assert capsys.readouterr().err == (f"companion settings: error: {path} is not a text file "
                                       "(not UTF-8); fix it or delete it\n")


@pytest.mark.parametrize("text", [
    "a" + ".a" * 100_000 + " = 1\n",  # a dotted key 100,000 deep
    "[server]\nport = 80\n[" + "a." * 100_000 + "a]\n",  # a table header as deep
], ids=["key", "header"])
def test_a_key_nested_thousands_deep_is_one_line(tmp_path: Path, capsys, text: str) -> None:
    # tomllib's time and memory grow with the square of the depth: this 200 KB file took
    # tens of gigabytes and the system killed the companion.
    path = tmp_path / "dotted.toml"
    path.write_text(text)
    assert main(["settings", "--file", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fix it or delete it" in err
    assert "more than 32 dots outside quotes" in err
    assert len(err.replace(str(path), "")) < 200, err


def test_dots_in_quoted_text_and_comments_are_no_nesting(tmp_path: Path) -> None:
    dots = "." * 100
    path = tmp_path / "s.toml"
    path.write_text(f'# {dots}\n[camera]\nsource = "v{dots}mp4"  # {dots}\n'
                    f"[game]\nlog = '{dots}'\nprofile = \"\"\"\n{dots}\\\"x\"\"\"\n"
                    f"[server]\n\"host\" = \"1.2.3.4\"\n")
    settings = load_settings(path)
    assert settings.camera == f"v{dots}mp4" and settings.log == dots
    assert settings.host == "1.2.3.4" and settings.profile == f'{dots}"x'


@pytest.mark.parametrize(("section", "key"), [
    ("server", "host"), ("camera", "source"), ("game", "log"), ("game", "profile"),
    ("peltapeeps", "profile"), ("peltapeeps", "catalog"), ("egg", "port")])
def test_a_nul_character_in_a_setting_is_one_line(tmp_path: Path, capsys, section: str,
                                                  key: str) -> None:
    # TOML writes it as \u0000; serve ended on a traceback binding the host ('host name
    # must not contain null character') or opening the catalog ('embedded null byte').
    path = tmp_path / "s.toml"
    path.write_text(f'[{section}]\n{key} = "games\\u0000.sqlite"\n')
    assert main(["serve", "--settings", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (f"companion serve: error: {path}: [{section}] {key} must not hold a NUL "
                   "character (\\u0000), not 'games\\x00.sqlite'\n")


@pytest.mark.parametrize(("key", "shown"), [("endturn", "endturn"),
                                            ("x" * 5000, "x" * 59 + "…")],
                         ids=["misspelt", "runaway"])
def test_an_unknown_button_is_named_by_the_settings_command(tmp_path: Path, capsys, key: str,
                                                            shown: str) -> None:
    # 'companion settings' showed a misspelt button as fine; serve --buttons then refused it
    # without naming the file, and repeated a runaway name whole.
    path = tmp_path / "s.toml"
    path.write_text(f"[buttons]\nenabled = true\n{key} = 17\n", encoding="utf-8")
    assert main(["settings", "--file", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"companion settings: error: {path}: unknown setting {shown} in [buttons]; known: "
        "enabled, end_turn, undo, confirm, next_phase, draw, led_waiting, led_problem\n")


def test_the_button_settings_are_the_panels_pins() -> None:
    from dataclasses import fields

    from companion.inputs.buttons import ButtonPins
    from companion.settings import BUTTON_PINS

    assert tuple(f.name for f in fields(ButtonPins)) == BUTTON_PINS
