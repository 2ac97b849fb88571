"""Table balancing and table breaking (issue 15; 2017 r 17.7-17.8): property tests over random
elimination orders. After each round of moves: tables balanced within one player, nobody lost
or seated twice, seats in range, as few tables as seat everyone (the final table when the
players fit at one)."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from server.cards import SeededRandomSource
from server.tournaments.balancing import Move, Table, apply, plan


def check(tables: list[Table], players: set[str], seats: int) -> None:
    seated = [p for t in tables for p in t.players.values()]
    assert sorted(seated) == sorted(players)  # nobody lost, nobody twice
    assert all(1 <= s <= seats for t in tables for s in t.players)
    counts = [len(t.players) for t in tables]
    assert max(counts) - min(counts) <= 1
    assert len(tables) == max(1, math.ceil(len(players) / seats))


@st.composite
def tournaments(draw: st.DrawFn) -> tuple[int, int, int, bool, list[list[int]]]:
    seats = draw(st.integers(2, 10))
    tables = draw(st.integers(1, 12))
    n = draw(st.integers(2, seats * tables))
    order = draw(st.permutations(range(n)))
    # eliminate in rounds of 1..3 players until one is left
    rounds: list[list[int]] = []
    i = 0
    while i < n - 1:
        k = draw(st.integers(1, min(3, n - 1 - i)))
        rounds.append(list(order[i : i + k]))
        i += k
    return seats, tables, draw(st.integers(0, 2**32)), draw(st.booleans()), rounds


def seat_all(n: int, seats: int, count: int) -> list[Table]:
    count = min(count, math.ceil(n / 1))
    tables = [dict[int, str]() for _ in range(count)]
    for i in range(n):
        t = tables[i % count]
        t[len(t) + 1] = f"p{i}"
    return [Table(k + 1, seats, t, marker=1) for k, t in enumerate(tables) if t]


@settings(max_examples=200, deadline=None)
@given(tournaments())
def test_balanced_after_every_round_of_moves(
    case: tuple[int, int, int, bool, list[list[int]]],
) -> None:
    seats, count, seed, keep, rounds = case
    n = sum(map(len, rounds)) + 1
    rng = SeededRandomSource(seed)
    tables = apply(seat_all(n, seats, count), [])
    tables = apply(tables, plan(tables, rng, keep))
    players = {p for t in tables for p in t.players.values()}
    check(tables, players, seats)
    for out in rounds:
        gone = {f"p{i}" for i in out}
        tables = [
            Table(t.number, t.seats, {s: p for s, p in t.players.items() if p not in gone})
            for t in tables
        ]
        players -= gone
        moves = plan(tables, rng, keep)
        assert all(m.source != m.target for m in moves)
        tables = apply(tables, moves)
        check(tables, players, seats)
    assert len(tables) == 1 and len(tables[0].players) == 1


def test_the_final_table_forms_when_the_players_fit() -> None:
    tables = [Table(1, 9, {1: "a", 5: "b"}), Table(2, 9, {2: "c", 3: "d"})]
    tables += [Table(3, 9, {s: f"x{s}" for s in range(1, 6)})]
    moves = plan(tables, SeededRandomSource(1))
    after = apply(tables, moves)
    assert len(after) == 1 and len(after[0].players) == 9
    # the tables with the fewest players are broken; the table with the most is kept
    assert after[0].number == 3 and {m.source for m in moves} == {1, 2}


def test_one_move_from_the_fullest_to_the_shortest() -> None:
    tables = [Table(1, 9, {s: f"a{s}" for s in range(1, 10)}), Table(2, 9, {1: "b1", 2: "b2"})]
    tables.append(Table(3, 9, {s: f"c{s}" for s in range(1, 9)}))
    moves = plan(tables, SeededRandomSource(2))
    # 9, 2, 8 -> 8, 3, 8 -> 7, 4, 8 -> 7, 5, 7 -> 6, 6, 7 (ties: the lower table number)
    assert [(m.source, m.target) for m in moves] == [(1, 2), (1, 2), (3, 2), (1, 2)]


def test_keep_position_keeps_the_distance_to_the_marker() -> None:
    # the free seat at table 2 is 3 seats after its marker (seat 2): seat 5; at table 1
    # (marker 8) the player 3 seats after the marker sits in seat 2 (8 -> 9 -> 1 -> 2)
    t1 = Table(1, 9, {s: f"a{s}" for s in range(1, 10)}, marker=8)
    t2 = Table(2, 9, {s: f"b{s}" for s in (1, 2, 3, 4, 6, 7, 8)}, marker=2)
    assert plan([t1, t2], SeededRandomSource(3), keep_position=True) == [Move("a2", 1, 2, 2, 5)]
