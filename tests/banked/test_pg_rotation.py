"""Pai gow's bank at a table (QLD Sch 6 s18): who may take the bank given the rounds before,
checked by the betting window (``PaiGow.check_layout``, ``check_rotation``)."""

from __future__ import annotations

import pytest

from server.errors import IllegalAction
from server.games.banked.base import PastRound
from server.games.banked.pai_gow import SPEC, PaiGow, check_rotation

OPTIONS = SPEC.validate_options(
    {"minimum": 100, "maximum": 10_000, "player_banking_enabled": True, "co_banking_enabled": True}
)
HOUSE = PastRound({2: {"bet": 500}, 3: {"bet": 500}}, {2: "ann", 3: "bob"})
ANN_BANKS = PastRound({2: {"bank": 5_000}, 3: {"bet": 500}}, {2: "ann", 3: "bob"})
BREAK = PastRound()


def reason(box: int, player: str, past: list[PastRound]) -> str | None:
    try:
        check_rotation(box, player, past)
    except IllegalAction as exc:
        return exc.code
    return None


def test_the_house_banks_first_after_a_start_or_a_break_s18_8() -> None:
    assert reason(2, "ann", []) == "house_banks_first"
    assert reason(2, "ann", [HOUSE, BREAK]) == "house_banks_first"
    assert reason(2, "ann", [HOUSE]) is None


def test_the_banker_played_the_box_the_round_before_s18_2_3() -> None:
    assert reason(3, "ann", [HOUSE]) == "not_played_box"  # bob's box
    assert reason(4, "ann", [HOUSE]) == "not_played_box"  # nobody's
    assert reason(1, "ann", [HOUSE]) is None  # box 1 after a house-banked round (s18(3))
    assert reason(1, "cat", [HOUSE]) == "not_played_box"  # cat did not play
    assert reason(1, "bob", [ANN_BANKS]) == "not_played_box"  # not after a player bank


def test_not_more_than_two_rounds_running_s18_10_12() -> None:
    assert reason(2, "ann", [HOUSE, ANN_BANKS]) is None  # a second round
    assert reason(2, "ann", [ANN_BANKS, ANN_BANKS]) == "banked_two_rounds"
    assert reason(3, "bob", [ANN_BANKS, ANN_BANKS]) is None  # someone else
    assert reason(2, "ann", [ANN_BANKS, ANN_BANKS, HOUSE]) is None  # after the house's round


def test_the_window_checks_the_whole_layout() -> None:
    def layout_reason(layout: dict[int, dict[str, int]], owners: dict[int, str]) -> str | None:
        try:
            PaiGow.check_layout(OPTIONS, layout, owners, [HOUSE])
        except IllegalAction as exc:
            return exc.code
        return None

    assert layout_reason({1: {"bet": 500}}, {1: "bob"}) == "box_1_is_bank"  # s18(13)
    bank = {2: {"bank": 5_000}, 1: {"bet": 500}}
    assert layout_reason(bank, {2: "ann", 1: "bob"}) is None  # box 1 open: a player banks
    assert layout_reason({**bank, 4: {"bet": 500}}, {2: "ann", 1: "bob", 4: "ann"}) == (
        "banker_may_not_bet"  # s18(7)(b)
    )
    assert layout_reason({2: {"bank": 500}, 3: {"bet": 600}}, {2: "ann", 3: "bob"}) == (
        "bank_cannot_cover"  # s18(4)
    )
    assert layout_reason({2: {"co_bank": 300}, 3: {"bet": 600}}, {2: "ann", 3: "bob"}) is None
    assert layout_reason({2: {"bank": 500}}, {2: "ann"}) is None  # players may come later
    with pytest.raises(IllegalAction) as refused:  # pai-gow-1: the house banks (s18(1))
        PaiGow.check_layout(SPEC.validate_options({}), {2: {"bank": 500}}, {2: "ann"}, [HOUSE])
    assert refused.value.code == "player_banking_disabled"
