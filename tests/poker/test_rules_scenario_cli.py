"""The real ``croupier scenario`` command on poker files (SCENARIOS.md "Command"): malformed
files exit 2 with one line on stderr and nothing on stdout; a valid one prints JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared import REPO

GOOD = {
    "game": "holdem-act",
    "options": {"blinds": [100, 200]},
    "seats": {"1": 10000, "2": 10000},
    "designated": 1,
    "cards": {"hole": {"1": ["As", "Kd"], "2": ["7c", "7d"]}, "board": ["2c", "7h"]},
    "actions": [[1, "call"]],
}


def bad(**changes) -> dict:
    sc = json.loads(json.dumps(GOOD))
    sc.update(changes)
    return sc


def scenario(tmp_path: Path, content: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "s.json"
    path.write_text(content)
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "scenario", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


CASES = {
    "not json": "{not json",
    "unknown game": json.dumps(bad(game="holdem-nsw")),
    "unknown option": json.dumps(bad(options={"blinds": [100, 200], "rake": 5})),
    "bad option value": json.dumps(bad(options={"structure": "pot-limit"})),
    "card not in the deck": json.dumps(
        bad(game="manila-act", options={"blinds": [100]}, cards={"board": ["2c"]})
    ),
    "card used twice": json.dumps(bad(cards={"hole": {"1": ["As", "Kd"], "2": ["As", "7d"]}})),
    "not a card": json.dumps(bad(cards={"board": ["Xx"]})),
    "seat out of range": json.dumps(bad(seats={"1": 10000, "11": 10000})),
    "wrong number of hole cards": json.dumps(bad(game="omaha-act")),
    "bad action shape": json.dumps(bad(actions=[[1, "call", "lots"]])),
    "unknown verb": json.dumps(bad(actions=[[1, "shove"]])),
    "designated not occupied": json.dumps(bad(designated=5)),
}


@pytest.mark.parametrize("content", CASES.values(), ids=CASES.keys())
def test_malformed_scenario_exits_2_with_one_line(tmp_path: Path, content: str) -> None:
    proc = scenario(tmp_path, content)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("croupier scenario: ")


def test_valid_scenario_prints_the_result(tmp_path: Path) -> None:
    proc = scenario(tmp_path, json.dumps(GOOD))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["state"] == "waiting" and out["to_act"] == 2
    assert {"verb": "check"} in out["legal"]


def test_an_illegal_action_is_a_result_not_an_error(tmp_path: Path) -> None:
    proc = scenario(tmp_path, json.dumps(bad(actions=[[2, "call"]])))
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert out["state"] == "rejected"
    assert out["error"]["at"] == 0 and out["error"]["code"] == "not_your_turn"


def test_describe_lists_options_and_verbs() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server.scenario", "--describe", "manila-qld"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert out["options"]["heads_up"] == "unrestricted" and "allin" in out["verbs"]
