"""``croupier par GAME --json`` answers for every banked game of the lobby with every wager
the table offers; bad input ends in one line on stderr and exit status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from server.games.banked import craps as craps_engine
from server.games.banked import roulette as roulette_engine
from server.games.banked import wheel_of_fortune as wheel_engine
from server.games.registry import BANKED, POKER
from server.par import cli, games
from server.par.engine import spec_of

ROOT = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))
ENV.pop("CROUPIER_DEBUG", None)

KEYS = {"rtp", "house_edge", "ci95", "hit_frequency", "stdev", "outcomes"}


def offered(game: str) -> set[str]:
    """Every wager a default table of ``game`` offers, a wager with a parameter once per
    value (SCENARIOS.md names)."""
    if game == "roulette":
        return set(roulette_engine.POSITIONS["single_zero"])
    if game == "wheel-of-fortune":
        return set(wheel_engine.SECTIONS["50"])
    if game == "sic-bo":
        return {
            "small",
            "big",
            "even",
            "odd",
            "any_triple",
            *(f"{f}_{n}" for f in ("triple", "double", "single") for n in range(1, 7)),
            *(f"total_{t}" for t in range(4, 18)),
            *(f"combo_{a}_{b}" for a in range(1, 7) for b in range(a + 1, 7)),
            *(f"four_{s}" for s in ("1234", "2345", "2356", "3456")),
        }
    if game == "craps":
        return {
            *craps_engine.SIMPLE,
            *craps_engine.ONE_ROLL,
            "horn",
            *(f"{f}_{n}" for f, ns in craps_engine.NUMBERED.items() for n in ns),
        }
    names = {w.name for w in spec_of(game).wagers}
    if game == "pai-gow":  # player banking and co-banking are off by default (s18)
        names -= {"bank", "co_bank"}
    return names


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def check(sheet: dict[str, Any], game: str) -> None:
    assert sheet["game"] == game
    assert sheet["method"] in ("exact", "simulation")
    assert isinstance(sheet["options"], dict)
    for name, w in sheet["wagers"].items():
        assert KEYS <= set(w), name
        assert abs(w["rtp"] + w["house_edge"] - 1) < 1e-9
        assert abs(sum(o["probability"] for o in w["outcomes"]) - 1) < 1e-9, name
        assert w["ci95"] == 0 or w.get("method", sheet["method"]) == "simulation"


@pytest.mark.parametrize("game", games.lobby())
def test_every_banked_game_answers(game: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, game, "--json", "--rounds", "150", "--procs", "1")
    assert code == 0, err
    sheet = json.loads(out)
    check(sheet, game)
    assert set(sheet["wagers"]) == offered(game)
    if sheet["method"] == "simulation":
        assert sheet["rounds"] == 150 and sheet["strategy"]
    else:
        assert sheet["rounds"] is None


def test_lobby_is_the_registry() -> None:
    assert set(games.lobby()) == set(BANKED)
    assert len(games.lobby()) == 19


def test_p2p_commission(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "holdem-act", "--json", "--rounds", "200", "--procs", "1")
    assert code == 0, err
    sheet = json.loads(out)
    assert sheet["wagers"] == {} and sheet["commission"]["per_hand"] > 0
    assert sheet["commission"]["seats"] == 9 and set(POKER) >= {sheet["game"]}


def test_options_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "roulette", "--json", "--option", "wheel_type=double_zero")
    assert code == 0
    sheet = json.loads(out)
    assert "first_five" in sheet["wagers"] and sheet["options"]["wheel_type"] == "double_zero"
    code, out, _ = run(capsys, "wheel-of-fortune", "--markdown", "--option", "wheel_type=54")
    assert code == 0 and "| `c` | 97.2222%" in out and "matches" in out


def croupier(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "par", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "args, words",
    [
        (("no-such-game",), "unknown game"),
        (("roulette", "--option", "wheel_type=triple_zero"), "wheel_type must be one of"),
        (("craps", "--option", "no_such_option=1"), "unknown option"),
        (("sic-bo", "--option", "double_includes_triple"), "KEY=VALUE"),
        (("blackjack", "--rounds", "0"), "--rounds"),
        (("roulette", "--rounds", "many"), "invalid int value"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], words: str) -> None:
    proc = croupier(*args)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and words in lines[0], proc.stderr
    assert proc.stdout == ""


def test_the_real_command() -> None:
    proc = croupier("sic-bo", "--json")
    assert proc.returncode == 0, proc.stderr
    check(json.loads(proc.stdout), "sic-bo")
