"""``companion settings``: where the settings file is, and a documented default."""

from __future__ import annotations

import argparse
from dataclasses import asdict


def run(args: argparse.Namespace) -> int:
    from companion.settings import default_settings_path, load_settings, write_default

    if args.init:
        path = write_default(args.file)
        print(f"wrote the documented default settings to {path}")
        return 0
    path = args.file or default_settings_path()
    settings = load_settings(args.file)
    print(f"settings file: {path}" + ("" if path.exists() else " (not there: defaults in use; "
                                      "'companion settings --init' writes one)"))
    for key, value in asdict(settings).items():
        if key != "path":
            print(f"  {key} = {value!r}")
    return 0


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("settings", help="show the settings, or write a documented default",
                       description="Show the settings in use and where the file is.")
    from pathlib import Path

    p.add_argument("--file", type=Path, help="another settings file")
    p.add_argument("--init", action="store_true", help="write the documented default file")
    p.set_defaults(func=run)
