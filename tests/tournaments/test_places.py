"""Places and prizes (2017 r 17.21, 17.3(a)(xii); 2004 r 17.22-17.24): exact integer cents,
the documented remainder rule, ties sharing the places they cover; property tests that the
prizes always sum to the pool."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.tournaments.places import (
    Place,
    by_chips,
    eliminated_in_round,
    place_amounts,
    prizes,
    standings,
)


def test_first_out_finishes_last() -> None:
    places = standings([["w"]], [["e"], ["d"], ["c", "b"]])
    assert places == [
        Place(1, ("w",)),
        Place(2, ("c", "b")),
        Place(4, ("d",)),
        Place(5, ("e",)),
    ]
    assert places[1].last == 3 and places[1].tied


def test_results_by_chip_count_ties_in_ballot_order() -> None:
    # 2017 r 17.3(a)(ix): session results by tournament chips
    assert by_chips({"a": 5, "b": 9, "c": 5, "d": 1}, ["c", "a"]) == [["b"], ["c", "a"], ["d"]]


def test_same_round_share_2004_r_17_24() -> None:
    assert eliminated_in_round({"a": 100, "b": 40}, "share", ["b", "a"]) == [["b", "a"]]


def test_same_round_by_chips_at_the_start_of_the_round() -> None:
    groups = eliminated_in_round({"a": 100, "b": 40, "c": 40}, "by_chips", ["a", "c", "b"])
    assert groups == [["a"], ["c", "b"]]


def test_remainder_cents_go_to_the_higher_places() -> None:
    # $100.01 at 50/30/20: 5000.5, 3000.3, 2000.2 -> floors 5000, 3000, 2000 + 1 cent to 1st
    assert place_amounts(10001, [5000, 3000, 2000], 9) == [5001, 3000, 2000]
    # thirds: 3333.33 each on $100.00 -> 3334, 3333, 3333
    assert place_amounts(10000, [3334, 3333, 3333], 3) == [3334, 3333, 3333]


def test_fewer_finishers_than_paid_places_return_the_whole_pool() -> None:
    # 2017 r 17.21: shares of places nobody filled are spread in proportion
    assert place_amounts(10000, [5000, 3000, 2000], 2) == [6250, 3750]


def test_tied_places_combine_and_divide_2004_r_17_24() -> None:
    # 2nd and 3rd tie: (3000 + 2000) / 2 each
    paid = prizes(10000, [5000, 3000, 2000], standings([["a"]], [["d"], ["b", "c"]]))
    assert paid == {"a": 5000, "b": 2500, "c": 2500}
    # a tie straddling the last paid place: 3rd's $20.01 shared by 3rd and 4th, odd cent first
    paid = prizes(10001, [5000, 3000, 2000], standings([["a"], ["b"]], [["c", "d"]]))
    assert paid == {"a": 5001, "b": 3000, "c": 1000, "d": 1000}
    # $100.05: 5002.5, 3001.5, 2001 -> 5003 (the odd cent), 3001, 2001 = 1001 + 1000
    paid = prizes(10005, [5000, 3000, 2000], standings([["a"], ["b"]], [["c", "d"]]))
    assert paid == {"a": 5003, "b": 3001, "c": 1001, "d": 1000}


@st.composite
def finishes(draw: st.DrawFn) -> tuple[int, list[int], list[Place]]:
    places_paid = draw(st.integers(1, 8))
    cuts = sorted(
        draw(
            st.lists(
                st.integers(1, 9999),
                min_size=places_paid - 1,
                max_size=places_paid - 1,
                unique=True,
            )
        )
    )
    shares = [b - a for a, b in zip([0, *cuts], [*cuts, 10_000], strict=True)]
    players = [f"p{i}" for i in range(draw(st.integers(1, 30)))]
    groups: list[list[str]] = []
    while players:
        n = draw(st.integers(1, min(4, len(players))))
        groups.append(players[:n])
        players = players[n:]
    return draw(st.integers(0, 10**9)), shares, standings(groups[:1], groups[1:])


@settings(max_examples=300, deadline=None)
@given(finishes())
def test_prizes_sum_to_the_pool_exactly(case: tuple[int, list[int], list[Place]]) -> None:
    pool, shares, places = case
    paid = prizes(pool, shares, places)
    assert sum(paid.values()) == pool
    assert all(isinstance(a, int) and a > 0 for a in paid.values())
    # tied players differ by at most a cent; a better place never gets less than a worse one
    for place in places:
        got = [paid.get(p, 0) for p in place.players]
        assert max(got) - min(got) <= 1
    best = [max(paid.get(p, 0) for p in place.players) for place in places]
    worst = [min(paid.get(p, 0) for p in place.players) for place in places]
    finishers = sum(len(p.players) for p in places)
    if finishers >= len(shares) and shares == sorted(shares, reverse=True):
        assert all(w >= b for w, b in zip(worst, best[1:], strict=False))
