"""The shape of the code, checked (issue 24): layers, parts, sizes, no game in the table layer.

- **Layers.** A module imports, at run time, only from its own layer or the layers below
  it (README, "Layout"). Imports under ``if TYPE_CHECKING:`` are types, not dependencies at
  run time; a command's module (``cli.py``) is an entry point and may import anything.
- **No game id in** ``server/tables/``: per-game facts live in each game's spec.
- **No class over 500 lines** in ``server/``: a larger one is split by job into parts.
- **No private override**: no table kind replaces a ``_private`` method of a table base;
  what a kind supplies goes through a public hook or a part it passes.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import server
from server.games.registry import GAMES
from server.tables.base import TableActor

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "server"

#: low to high; a top-level module of ``server/`` not named here is in the core layer
LAYERS: list[set[str]] = [
    {"protocol"},
    {"server.core"},
    {"server.hands"},
    {"server.games", "server.par"},
    {"server.store"},
    {"server.jackpots", "server.records"},
    {"server.room"},
    {"server.actor", "server.tables"},
    {"server.tournaments"},
    {"server.net", "server.scenario", "server.demo"},
]
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def unit_of(module: str) -> str:
    """The layer unit of a dotted module name (a package of ``server``, or core)."""
    parts = module.split(".")
    if parts[0] != "server":
        return parts[0]
    if len(parts) == 1:
        return "server.core"
    name = f"server.{parts[1]}"
    return name if name in RANK else "server.core"


def runtime_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """``(line, module)`` of every import run at run time (not under TYPE_CHECKING)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "server":
                for alias in node.names:
                    yield node.lineno, f"server.{alias.name}"
            else:
                yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name


def test_no_import_runs_upward() -> None:
    upward = []
    for path in sorted(SERVER.rglob("*.py")):
        if path.name == "cli.py":
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        here = RANK[unit_of(module)]
        for line, target in runtime_imports(ast.parse(path.read_text())):
            unit = unit_of(target)
            if unit in RANK and RANK[unit] > here:
                upward.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert upward == []


def test_no_game_id_in_the_table_layer() -> None:
    named = []
    for path in sorted((SERVER / "tables").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and node.value in GAMES:
                named.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert named == []


def test_no_class_over_500_lines() -> None:
    large = []
    for path in sorted(SERVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > 500:
                    large.append(f"{path.relative_to(ROOT)} {node.name}: {lines} lines")
    assert large == []


def test_no_table_kind_overrides_a_private_method() -> None:
    for info in pkgutil.walk_packages(server.__path__, "server."):
        importlib.import_module(info.name)

    def kinds(cls: type) -> Iterator[type]:
        for sub in cls.__subclasses__():
            yield sub
            yield from kinds(sub)

    overrides = set()
    for kind in kinds(TableActor):
        for name, value in vars(kind).items():
            if name.startswith("_") and not name.startswith("__") and callable(value):
                base = next((b for b in kind.__mro__[1:] if name in vars(b)), None)
                if base is not None:
                    overrides.add(f"{kind.__qualname__}.{name} replaces {base.__qualname__}'s")
    assert overrides == set()
