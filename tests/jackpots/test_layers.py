"""The jackpot layers stay apart (issue 8): pure regime arithmetic beside the banked engines,
the pool service and its stores in ``server/jackpots``, the stores importing only the model.

Read from the source (every ``import`` statement, at module level or inside a function), so a
lazy import cannot hide a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JACKPOTS = ROOT / "server" / "jackpots"
REGIMES = ROOT / "server" / "games" / "banked" / "jackpot_regimes"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (``from a.b import c`` counts as ``a.b``)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def jackpot_imports() -> dict[str, set[str]]:
    """server.jackpots module -> the server.jackpots modules it imports."""
    prefix = "server.jackpots."
    return {
        path.stem: {m.removeprefix(prefix) for m in imported(path) if m.startswith(prefix)}
        for path in JACKPOTS.glob("*.py")
    }


def test_stores_import_only_the_model() -> None:
    graph = jackpot_imports()
    assert graph["model"] == set()
    assert graph["memory"] == {"model"}
    # the Redis store's own parts (its meter feed, what it saw of each pool) count as the store
    assert graph["redis_store"] == {"model", "redis_meters", "redis_seen"}
    assert graph["redis_meters"] <= {"model"} and graph["redis_seen"] == set()
    assert graph["service"] <= {"model", "memory", "redis_store"}


def test_no_import_circle_in_the_pool_service() -> None:
    graph = jackpot_imports()

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            for nxt in graph.get(todo.pop(), set()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    assert [m for m in graph if m in reach(m)] == []


def test_regimes_live_beside_the_engines_and_stay_pure() -> None:
    assert not list(JACKPOTS.glob("regimes*.py"))
    assert {p.stem for p in REGIMES.glob("*.py")} == {"__init__", "act", "qld"}
    stdlib = {"__future__", "collections", "dataclasses", "typing"}
    for path in REGIMES.glob("*.py"):
        # Standard library only: no pool service, no I/O layer, no other game code.
        assert {m.split(".")[0] for m in imported(path)} <= stdlib, path
