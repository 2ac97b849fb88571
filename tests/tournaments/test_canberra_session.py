"""A Canberra Poker tournament session as pure functions (2017 and 2004 r 17.14-17.16)."""

from __future__ import annotations

import pytest

from server.tournaments.canberra import (
    AnteError,
    AnteRound,
    ante_order,
    below_minimum,
    next_marker,
)
from server.tournaments.conditions import Limits

LIMITS = Limits(minimum=100, maximum=1000)


def test_r_17_14_below_the_table_minimum_is_eliminated() -> None:
    chips = {"a": 100, "b": 99, "c": 0, "d": 5000}
    assert below_minimum(chips, LIMITS) == ["b", "c"]


def test_r_17_15_ante_order_clockwise_from_the_starting_marker() -> None:
    boxes = {1: "a", 3: "c", 4: "d", 7: "g"}
    assert ante_order(boxes, 4) == ["d", "g", "a", "c"]
    # the marker on an empty box: the next occupied box clockwise leads
    assert ante_order(boxes, 5) == ["g", "a", "c", "d"]
    assert ante_order(boxes, 8) == ["a", "c", "d", "g"]


def test_the_marker_moves_to_the_next_occupied_box() -> None:
    boxes = {1: "a", 3: "c", 7: "g"}
    assert [next_marker(boxes, m) for m in (1, 3, 7)] == [3, 7, 1]


def round_of(order: list[str]) -> AnteRound:
    return AnteRound(order, LIMITS, dict.fromkeys(order, 500))


def test_r_17_16_an_ante_changes_only_during_the_players_opportunity() -> None:
    r = round_of(["a", "b", "c"])
    assert r.ask_next() == "a"
    assert r.ante("a", 100) == "placed"
    assert r.ante("a", 200) == "changed"  # still a's opportunity
    assert r.ask_next() == "b"  # a's opportunity ended
    with pytest.raises(AnteError, match=r"r 17\.15"):
        r.ante("a", 300)
    assert r.antes == {"a": 200}


def test_r_17_15_out_of_order_stands_then_a_further_one_is_void() -> None:
    r = round_of(["a", "b", "c"])
    r.ask_next()
    assert r.ante("c", 100) == "out_of_order"
    assert r.antes == {"c": 100} and r.warned == {"c"}
    again = AnteRound(["c", "a", "b"], LIMITS, dict.fromkeys("abc", 500), warned=r.warned)
    again.ask_next()
    assert again.ante("b", 100) == "out_of_order"
    second = AnteRound(["a", "b", "c"], LIMITS, dict.fromkeys("abc", 500), warned=again.warned)
    second.ask_next()
    assert second.ante("c", 100) == "void"
    assert "c" not in second.antes


def test_an_ante_is_within_the_limits_and_the_chips() -> None:
    r = AnteRound(["a"], LIMITS, {"a": 150})
    r.ask_next()
    with pytest.raises(AnteError, match=r"100\.\.1000"):
        r.ante("a", 99)
    with pytest.raises(AnteError, match="has 150"):
        r.ante("a", 200)
    assert r.ante("a", 150) == "placed"
    assert r.ask_next() is None and r.done
