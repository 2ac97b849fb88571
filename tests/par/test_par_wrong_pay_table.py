"""A deliberately wrong pay-table entry (in a test double of a game) changes the sheet, and
by exactly what that entry is worth: the sheets read every payout from the engines."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from server.games.banked import baccarat as baccarat_engine
from server.games.banked import craps as craps_engine
from server.games.banked import mississippi_stud, three_card_poker
from server.games.banked import roulette as roulette_engine
from server.par import baccarat, cards, craps, exact
from server.par.mississippi import Strategy


def test_roulette_spec_double(monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec whose straight-up pays 34 to 1 instead of s16(1)'s 35."""
    table = {**roulette_engine.S16, "straight": (34, 1)}
    spec = dataclasses.replace(roulette_engine.SPEC, pay_tables={"s16": {"payout": table}})
    double = type("WrongRoulette", (roulette_engine.Roulette,), {"spec": spec})
    right = exact.roulette(None)
    monkeypatch.setitem(roulette_engine.ROUNDS, "roulette", double)
    wrong = exact.roulette(None)
    assert right.wagers["straight_17"].exact_rtp == Fraction(36, 37)
    assert wrong.wagers["straight_17"].exact_rtp == Fraction(35, 37)
    assert wrong.wagers["split_17_20"].exact_rtp == Fraction(36, 37)  # the rest unchanged


def test_craps_spec_double(monkeypatch: pytest.MonkeyPatch) -> None:
    """A hard 6 at 9 to 1 (the Las Vegas table) instead of s10(1)'s 9.5 to 1."""
    table = {**craps_engine.S10, "hard_6": (9, 1)}
    spec = dataclasses.replace(craps_engine.SPEC, pay_tables={"s10": {"payout": table}})
    double = type("WrongCraps", (craps_engine.Craps,), {"spec": spec})
    monkeypatch.setattr(craps, "Craps", double)
    wrong = craps.sheet(None)
    assert wrong.wagers["hard_6"].exact_rtp == Fraction(10, 11)
    assert wrong.wagers["hard_8"].exact_rtp == Fraction(1, 11) * Fraction(21, 2)


def test_card_games(monkeypatch: pytest.MonkeyPatch) -> None:
    before = cards.three_card_poker(None).wagers["pair_plus"].exact_rtp
    monkeypatch.setitem(three_card_poker.PAIR_PLUS, "three of a kind", (30, 1))
    after = cards.three_card_poker(None).wagers["pair_plus"].exact_rtp
    assert before is not None and after is not None
    assert after - before == Fraction(5 * 52, 22100)  # every three of a kind pays 5 more
    right = baccarat.baccarat({"side_wagers": []}).wagers["tie"].exact_rtp
    monkeypatch.setattr(baccarat_engine, "TIE_ODDS", (9, 1))
    wrong = baccarat.baccarat({"side_wagers": []}).wagers["tie"].exact_rtp
    assert right is not None and wrong is not None
    assert wrong / right == Fraction(10, 9)


def test_mississippi_programme(monkeypatch: pytest.MonkeyPatch) -> None:
    """The optimal strategy's value follows the engine's pay table too."""
    right = Strategy().solve()
    monkeypatch.setitem(mississippi_stud.PAY_TABLE, "pair of sixes to tens", (1, 1))
    wrong = Strategy().solve()
    assert right == pytest.approx(-0.049149, abs=1e-6)  # Wizard of Odds: 4.91%
    assert wrong > right + 0.05
