"""``croupier demo`` plays every poker game end to end and prints it."""

from __future__ import annotations

import pytest

from server.demo import main


def test_demo_plays_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--hands", "3", "--seed", "11"]) == 0
    out = capsys.readouterr().out
    for game in ("holdem-act", "omaha-act", "manila-act", "holdem-qld", "omaha-qld", "manila-qld"):
        assert f"=== {game}" in out
    assert "posts blind 1" in out and "pot" in out and "commission" in out


def test_demo_is_reproducible_with_a_seed(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--game", "omaha-qld", "--hands", "2", "--seed", "5"])
    first = capsys.readouterr().out
    main(["--game", "omaha-qld", "--hands", "2", "--seed", "5"])
    assert capsys.readouterr().out == first
