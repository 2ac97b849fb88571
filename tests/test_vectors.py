"""Every shared test vector (``../shared/vectors``) through the scenario command.

Each vector names the rule it checks (its ``rule`` field is shown on failure). The comparison
follows SCENARIOS.md "Test vectors as data": every key of ``expect`` equals the result's,
exactly (1000 is not 1000.0), except that ``pots`` compare only ``amount``, ``eligible`` and
``winners`` (seats as sorted lists), ``boxes`` only the wager keys listed, ``jackpot`` and
``error`` only the keys listed.

Vectors are collected for every game the scenario command knows (``server.scenario.GAMES``);
``test_every_vector_family_is_known`` keeps a game from silently dropping out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.scenario import GAMES, run_scenario
from tests.shared import REPO, VECTORS


def _all_vectors() -> list[Path]:
    return sorted(VECTORS.glob("*/*.json"))


def _vectors_for_known_games() -> list[Path]:
    out = []
    for p in _all_vectors():
        game = json.loads(p.read_text())["scenario"].get("game")
        if game in GAMES:
            out.append(p)
    return out


def _same(a: Any, b: Any) -> bool:
    """Exact JSON equality: types matter (1000 is not 1000.0, True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _norm_keys(d: Any) -> Any:
    return {str(k): v for k, v in d.items()} if isinstance(d, dict) else d


def compare(expect: dict, result: dict) -> list[str]:
    """Differences between a vector's ``expect`` and a scenario result (empty when equal)."""
    problems = []
    for key, want in expect.items():
        if key not in result:
            problems.append(f"{key}: missing from result")
            continue
        got = result[key]
        if key == "pots":

            def shape(pots: list[dict]) -> list[dict]:
                return [
                    {
                        "amount": p["amount"],
                        "eligible": sorted(p["eligible"]),
                        "winners": sorted(p["winners"]),
                    }
                    for p in pots
                ]

            ok = isinstance(got, list) and _same(shape(want), shape(got))
        elif key == "boxes":
            got_n = _norm_keys(got)
            ok = isinstance(got, dict) and all(
                str(box) in got_n
                and all(
                    w in got_n[str(box)] and _same(v, got_n[str(box)][w]) for w, v in wagers.items()
                )
                for box, wagers in want.items()
            )
        elif key in ("jackpot", "error"):
            ok = isinstance(got, dict) and all(
                k in got and _same(v, got[k]) for k, v in want.items()
            )
        elif isinstance(want, dict):
            ok = isinstance(got, dict) and _same(_norm_keys(want), _norm_keys(got))
        else:
            ok = _same(want, got)
        if not ok:
            problems.append(f"{key}: expected {json.dumps(want)}, got {json.dumps(got)}")
    return problems


@pytest.mark.parametrize("path", _vectors_for_known_games(), ids=lambda p: p.stem)
def test_vector(path: Path) -> None:
    vector = json.loads(path.read_text())
    result = run_scenario(vector["scenario"])
    problems = compare(vector["expect"], result)
    assert not problems, f"{vector['id']} ({vector['rule']}): " + "; ".join(problems)


def test_every_vector_family_is_known() -> None:
    """The p2p vectors (issue 2) must all be playable; other families join as games land."""
    p2p = sorted(VECTORS.glob("p2p/*.json"))
    assert p2p, "no p2p vectors found"
    unknown = {json.loads(p.read_text())["scenario"]["game"] for p in p2p} - set(GAMES)
    assert not unknown


def test_command_line_reproduces_a_vector() -> None:
    """The real command (a subprocess), not only the function: prints JSON, exits 0."""
    path = VECTORS / "p2p" / "HE-ACT-01.json"
    vector = json.loads(path.read_text())
    scen = REPO / ".pytest-scenario.json"
    scen.write_text(json.dumps(vector["scenario"]))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "server.scenario", str(scen)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=60,
        )
    finally:
        scen.unlink()
    assert proc.returncode == 0, proc.stderr
    assert not compare(vector["expect"], json.loads(proc.stdout))
