"""Settings: one TOML file in the user's config directory, every option documented.

``companion serve`` reads it (``--settings FILE`` for another); command-line
options win over it. ``companion settings`` prints where it is and writes a
documented default when there is none.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir

from companion.bounded_read import NotText, TooLarge, read_text_at_most
from companion.errors import PATH_ECHO, UserError, clipped, quoted
from companion.inputs.pins import MAX_BCM, default_pins

DEFAULT_TEXT = """\
# Table Companion settings. Command-line options override what is set here.

[server]
# Address to listen on. 127.0.0.1 keeps the page on this machine; 0.0.0.0 lets a
# tablet or phone on the home network see it (changes then need the pass-phrase
# printed in the terminal).
host = "127.0.0.1"
port = 8080

[camera]
# Where frames come from: "" for no camera, a webcam index ("0"), a device path
# ("/dev/video0"), a stream URL ("rtsp://..."), a video file, or a folder of images.
source = ""
# The table must be still this many seconds before it is read (hands away); above 0, at
# most 60.
stable_seconds = 1.0
# How much change between frames counts as movement (mean absolute difference); above 0,
# at most 255.
motion_threshold = 3.0
# Frames per second to read from the camera, 0.1 to 120.
fps = 10

[game]
# The game log (SQLite). "" means games.sqlite in the user data directory.
log = ""
# Apply moves the camera explains exactly and unambiguously without asking.
auto_accept = true
# Colour profile made by 'companion calibrate' ("" = none; the camera then reads no pieces).
profile = ""

[peltapeeps]
# Colour profile of your PeltaPeeps pieces for the score-sheet page (/score): the card
# photographed with a piece of each colour ("" = none; the page then asks for one).
profile = ""
# Your own piece set for the page's photos: a catalog JSON (docs/peltapeeps.md); "" = the
# shipped sets only (full 16 pieces, core 8).
catalog = ""

[egg]
# The egg-shaker's serial port: "" for none, "auto" to find a Pico by USB id, or a port
# such as "/dev/ttyACM0".
port = ""

[buttons]
# Raspberry Pi buttons and LEDs (BCM pin numbers); see docs/hardware.md for wiring.
enabled = false
end_turn = 17
undo = 27
confirm = 22
next_phase = 23
draw = 24
led_waiting = 5
led_problem = 6
"""


def default_settings_path() -> Path:
    return Path(user_config_dir("table-companion", appauthor=False)) / "settings.toml"


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    camera: str = ""
    stable_seconds: float = 1.0
    motion_threshold: float = 3.0
    fps: float = 10.0
    log: str = ""
    auto_accept: bool = True
    profile: str = ""
    score_profile: str = ""
    score_catalog: str = ""
    egg: str = ""
    buttons_enabled: bool = False
    buttons: dict[str, int] = field(default_factory=dict)
    path: Path | None = None


_KEYS: dict[tuple[str, str], tuple[str, type]] = {
    ("server", "host"): ("host", str),
    ("server", "port"): ("port", int),
    ("camera", "source"): ("camera", str),
    ("camera", "stable_seconds"): ("stable_seconds", float),
    ("camera", "motion_threshold"): ("motion_threshold", float),
    ("camera", "fps"): ("fps", float),
    ("game", "log"): ("log", str),
    ("game", "auto_accept"): ("auto_accept", bool),
    ("game", "profile"): ("profile", str),
    ("peltapeeps", "profile"): ("score_profile", str),
    ("peltapeeps", "catalog"): ("score_catalog", str),
    ("egg", "port"): ("egg", str),
    ("buttons", "enabled"): ("buttons_enabled", bool),
}

# The [buttons] pins and their defaults, as companion.inputs.pins.ButtonPins names them
# (that module does not load gpiozero, which reading the settings must not): a misspelt
# one, or one on another's pin, is refused with the file named, not shown as fine and
# refused only once serve starts the buttons.
BUTTON_PINS = tuple(default_pins())

# What each number in the file may be, and how to say it. Outside these the camera loop
# misbehaves without a word: a NaN fps spins with no pause (the loop only floors fps at
# 0.1), and a NaN or negative stable_seconds or threshold means the table is never read.
# Every comparison with NaN is false, so these checks refuse NaN (and inf, by the bounds).
_RANGES: dict[tuple[str, str], tuple[Callable[[float], bool], str]] = {
    ("camera", "stable_seconds"): (lambda v: 0 < v <= 60, "above 0 and at most 60 seconds"),
    ("camera", "motion_threshold"): (lambda v: 0 < v <= 255,
                                     "above 0 and at most 255 (a mean difference of 0-255)"),
    ("camera", "fps"): (lambda v: 0.1 <= v <= 120, "0.1 to 120 frames per second"),
}


# The documented default is under 4 KB; 1 MB is far past any real settings file and still
# quick to read, while /dev/zero or a runaway file given as --settings is refused at once.
MAX_SETTINGS_BYTES = 1_000_000

# tomllib's time and memory grow with the square of a dotted key's depth: a 200 KB line
# 'a.a.a... = 1' (100,000 deep) takes tens of gigabytes and the machine ends the companion.
# A setting is at most 'section.key', so a line with more dots than this outside quoted
# text and comments is refused before it is parsed (a 1 MB file at this depth reads in 2 s).
MAX_DOTS_PER_LINE = 32
_QUOTED_OR_COMMENT = re.compile(
    r'"""(?:[^\\]|\\.)*?"""|\'\'\'.*?\'\'\'|"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|#[^\n]*',
    re.DOTALL)


def _too_dotted(text: str) -> int | None:
    """The number of the first line with more than MAX_DOTS_PER_LINE dots outside quoted
    text and comments, else None."""
    if text.count(".") <= MAX_DOTS_PER_LINE:
        return None
    bare = _QUOTED_OR_COMMENT.sub(lambda m: "\n" * m.group().count("\n"), text)
    for number, line in enumerate(bare.split("\n"), 1):
        if line.count(".") > MAX_DOTS_PER_LINE:
            return number
    return None


def load_settings(path: Path | None = None) -> Settings:
    """The settings in ``path`` (default: the user's file; defaults if it does not exist)."""
    explicit = path is not None
    path = path or default_settings_path()
    settings = Settings(path=path)
    if not path.exists():
        if explicit:
            raise UserError(f"no settings file at {path}; 'companion settings --init' writes one")
        return settings
    try:
        text = read_text_at_most(path, MAX_SETTINGS_BYTES, "settings file")
        line = _too_dotted(text)
        if line is not None:
            raise UserError(f"{path} is not valid settings (line {line} has more than "
                            f"{MAX_DOTS_PER_LINE} dots outside quotes: a setting is "
                            "[section] then key = value); fix it or delete it")
        data = tomllib.loads(text)
    except TooLarge as e:
        raise UserError(str(e)) from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path} is not valid TOML ({e}); fix it or delete it") from e
    except RecursionError as e:
        # tomllib parses nested arrays and tables recursively, so a file nested thousands
        # deep exhausts Python's stack instead of raising TOMLDecodeError.
        raise UserError(f"{path} is not valid TOML (arrays or tables nested too deeply); "
                        "fix it or delete it") from e
    except OSError as e:
        raise UserError(f"cannot read {path}: {e.strerror}") from e
    except NotText as e:
        raise UserError(f"{e}; fix it or delete it") from None
    except ValueError:
        # tomllib turns a number of more than 4300 digits into a plain ValueError, in
        # Python's words ("use sys.set_int_max_str_digits()").
        raise UserError(f"{path} is not valid TOML (it holds a number too long to read); "
                        "fix it or delete it") from None
    return apply_settings(settings, data, str(path))


def apply_settings(settings: Settings, data: dict[str, Any], where: str) -> Settings:
    known_sections = {s for s, _ in _KEYS} | {"buttons"}
    for section, values in data.items():
        if section not in known_sections:
            raise UserError(f"{where}: unknown section [{clipped(section)}]; known: "
                            f"{', '.join(sorted(known_sections))}")
        if not isinstance(values, dict):
            # A known name written as a value or as [[section]]: calling it unknown would
            # name the very section the list of known ones shows.
            key = next(k for s, k in _KEYS if s == section)
            raise UserError(f"{where}: [{section}] must be a table of settings "
                            f"({section}.{key} = ..., or a [{section}] header above them), "
                            f"not {_toml_kind(values, section)}")
        for key, value in values.items():
            if section == "buttons" and key != "enabled":
                if key not in BUTTON_PINS:
                    raise UserError(f"{where}: unknown setting {clipped(key)} in [buttons]; "
                                    f"known: enabled, {', '.join(BUTTON_PINS)}")
                if (not isinstance(value, int) or isinstance(value, bool)
                        or not 0 <= value <= MAX_BCM):
                    raise UserError(f"{where}: [buttons] {clipped(key)} must be a BCM pin "
                                    f"number 0-{MAX_BCM}")
                settings.buttons[key] = value
                continue
            if (section, key) not in _KEYS:
                raise UserError(f"{where}: unknown setting {clipped(key)} in [{section}]")
            name, kind = _KEYS[(section, key)]
            ok = isinstance(value, kind) and not (kind is not bool and isinstance(value, bool))
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                # A whole number is checked as written and made a float once in range: one
                # of thousands of digits is too large for a float (OverflowError).
                ok = True
            if not ok:
                raise UserError(f"{where}: [{section}] {key} must be {kind.__name__}, "
                                f"not {quoted(value)}")
            if kind is str and "\x00" in value:
                # No address, path, port or URL holds one: the system refuses it where it is
                # used (binding the page, opening a file), ending serve on a traceback.
                raise UserError(f"{where}: [{section}] {key} must not hold a NUL character "
                                f"(\\u0000), not {quoted(value)}")
            if (section, key) in _RANGES:
                allowed, text = _RANGES[(section, key)]
                if not allowed(value):
                    raise UserError(f"{where}: [{section}] {key} must be {text}, "
                                    f"not {quoted(value)}")
            setattr(settings, name, float(value) if kind is float else value)
    if not 0 < settings.port < 65536:
        raise UserError(f"{where}: [server] port must be 1-65535")
    # Refused rather than taken as the default: an empty host means "every interface" to
    # some servers and "this machine" to others, and the page's address would print as
    # http://:PORT/. Which one is meant must be written.
    if not settings.host.strip():
        raise UserError(f"{where}: [server] host must be an address to listen on "
                        f"(127.0.0.1 for this machine, 0.0.0.0 for the home network), "
                        f"not {quoted(settings.host)}")
    # The panel refuses a shared pin too, but only once serve starts it; checked here so
    # 'companion settings' never shows such a file as fine. A pin left out keeps its
    # default, so 'draw = 17' shares GPIO17 with end_turn as surely as 'end_turn = 17' does.
    holder: dict[int, str] = {}
    for name, default in default_pins().items():
        pin = settings.buttons.get(name, default)
        if pin is None:
            continue
        if pin in holder:
            raise UserError(f"{where}: [buttons] {_pin_owner(holder[pin], settings)} and "
                            f"{_pin_owner(name, settings)} are both on GPIO{pin}: give each "
                            "its own pin")
        holder[pin] = name
    return settings


def _pin_owner(name: str, settings: Settings) -> str:
    """A button or LED as a shared-pin refusal names it: one the file leaves out is on its
    default pin, which the file does not show."""
    return name if name in settings.buttons else f"{name} (not set: its default)"


def _toml_kind(value: object, name: str) -> str:
    """What a TOML value is, in the file's own words, for saying what stands where a
    table belongs."""
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return f"an array of tables ([[{name}]])"
        return f"an array ({quoted(value)})"
    if isinstance(value, str):
        return f"text ({quoted(value)})"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return f"a number ({quoted(value)})"
    return f"a date or time ({value})"


def write_default(path: Path | None = None) -> Path:
    """Write the documented default settings (never over an existing file)."""
    path = path or default_settings_path()
    if path.exists():
        raise UserError(f"{path} exists already; edit it, or delete it to start again")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(DEFAULT_TEXT)
    except OSError as e:  # a folder that is a file, no permission, a full disk
        raise UserError(f"cannot write the settings file {clipped(str(path), PATH_ECHO)}: "
                        f"{e.strerror}") from None
    return path


def settings_fields() -> list[str]:
    return [f.name for f in fields(Settings)]
