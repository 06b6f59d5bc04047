"""The layers stay apart: the domain imports no vision, web or app, and no package cycle returns.

Read from the source's own import statements (every ``import``, also inside
functions), so a lazy import that crosses a layer is caught too.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("companion", "vision", "calibration", "web", "firmware")
# The app layer: what wires the domain, vision and the page into running programs.
APP = ("companion.cli", "companion.service", "companion.camera_loop", "companion.camera_setup",
       "companion.demo_camera", "companion.demo_table", "companion.terminal",
       "companion.settings", "companion.frames", "companion.stability", "companion.__main__",
       "companion.web_server", "companion.lan")
UPPER = ("vision", "web", "calibration", *APP)


def _modules() -> dict[str, set[str]]:
    imports: dict[str, set[str]] = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            name = ".".join(p for p in rel.parts if p != "__init__")
            found: set[str] = set()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found |= {a.name for a in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    found |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            imports[name] = {m for m in found if m.split(".")[0] in PACKAGES}
    return imports


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def test_the_domain_imports_no_vision_web_or_app() -> None:
    bad = sorted(f"{m} imports {i}" for m, found in _modules().items()
                 if m.startswith("companion") and not _under(m, APP)
                 for i in found if _under(i, UPPER))
    assert bad == []


def test_vision_web_and_calibration_import_no_app() -> None:
    bad = sorted(f"{m} imports {i}" for m, found in _modules().items()
                 if _under(m, ("vision", "web", "calibration"))
                 for i in found if _under(i, APP))
    assert bad == []


def _layer(module: str) -> str:
    # Layers as the tree shows them: the app, the domain, vision (with calibration, which
    # reads the colour card and lens through vision's own helpers), web, firmware.
    if _under(module, APP):
        return "app"
    top = module.split(".")[0]
    return {"companion": "domain", "calibration": "vision"}.get(top, top)


def test_no_cycle_between_layers() -> None:
    edges: dict[str, set[str]] = defaultdict(set)
    for m, found in _modules().items():
        for i in found:
            if _layer(i) != _layer(m):
                edges[_layer(m)].add(_layer(i))

    def reaches(a: str, b: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == b or (n not in seen and reaches(n, b, seen | {n})) for n in edges[a])

    cycles = sorted(f"{a} <-> {b}" for a in list(edges) for b in edges[a] if reaches(b, a))
    assert cycles == []


def test_no_cycle_between_web_modules() -> None:
    mods = {m: f for m, f in _modules().items() if m.startswith("web")}
    pairs = sorted(f"{a} <-> {b}" for a, f in mods.items() for b in f
                   if b in mods and a in mods.get(b, set()) and a < b)
    assert pairs == []
